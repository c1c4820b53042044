// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxctl stats --prom: the Prometheus text for a fixed set of interfaces
 * (running with both counter sets, stopped with xrxd's only, the kernel's
 * only, and none at all) is compared byte for byte with
 * tests/fixtures/cli/prom.golden, recorded before the families became a
 * table: dashboards and alerts name these families, their labels and
 * their order of lines. XRX_CLI_RECORD=1 rewrites the file.
 *
 * stats.c is compiled in here with the rest of xrxctl stubbed: what is
 * printed depends on the snapshots alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "xrxctl/stats.c"
#include "xrxctl/losses.c"

#define GOLDEN "tests/fixtures/cli/prom.golden"

int xrxctl_read(const struct ctx *ctx, const char *ifname,
		struct xrx_ustats *u, bool *have_u,
		struct xrx_counter k[XRX_STAT_MAX], bool *have_k)
{
	return -ENOENT;
}

int xrxctl_ifaces(const struct ctx *ctx, const char *arg,
		  char (*names)[IF_NAMESIZE])
{
	return 0;
}

void xrxctl_denied(const struct ctx *ctx, const char *path)
{
}

void xrxctl_json_str(const char *s)
{
	fputs(s, stdout);
}

/* Every counter a different number, so a swapped value shows. */
static void fill(struct snap *s, const char *ifname, bool k, bool u,
		 bool alive, unsigned int seed)
{
	unsigned int g, i;

	memset(s, 0, sizeof(*s));
	snprintf(s->ifname, sizeof(s->ifname), "%s", ifname);
	s->have_k = k;
	s->have_u = u;
	s->alive = alive;
	for (i = 0; k && i < XRX_STAT_MAX; i++) {
		s->k[i].packets = seed * 1000 + i;
		s->k[i].bytes = seed * 100000 + i * 1514;
	}
	for (g = 0; u && g < XRX_USTATS_G_MAX; g++)
		for (i = 0; i < xrx_ustats_group_len(g); i++)
			*xrx_ustats_at(&s->u, g, i) = seed * 10000 + g * 100 + i + 1;
	if (u) {
		s->u.hdr[XRX_USTATS_DEGRADED] = !alive;
		s->u.hdr[XRX_USTATS_STUCK_WORKERS] = seed % 2;
	}
}

/* What print_prom() writes for @n snapshots. */
static char *prom_text(struct snap *s, int n, size_t *len)
{
	char *text = NULL;
	FILE *f;
	int fd, saved;

	f = tmpfile();
	assert_non_null(f);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = fileno(f);
	assert_true(dup2(fd, STDOUT_FILENO) >= 0);
	print_prom(s, n);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	*len = (size_t)lseek(fd, 0, SEEK_END);
	text = calloc(1, *len + 1);
	assert_non_null(text);
	assert_int_equal(pread(fd, text, *len, 0), (ssize_t)*len);
	fclose(f);
	return text;
}

static void test_prom_golden(void **state)
{
	struct snap s[4];
	char *now, *want = NULL, *both;
	size_t n1, n0, wlen = 0;
	FILE *f;

	fill(&s[0], "eth0", true, true, true, 1);
	fill(&s[1], "eth1", false, true, false, 2);
	fill(&s[2], "xd1", true, false, false, 3);
	fill(&s[3], "down0", false, false, false, 4);
	now = prom_text(s, 4, &n1);
	/* and no interface at all: the families alone */
	both = prom_text(s, 0, &n0);
	now = realloc(now, n1 + n0 + 1);
	assert_non_null(now);
	memcpy(now + n1, both, n0 + 1);
	free(both);
	if (getenv("XRX_CLI_RECORD")) {
		f = fopen(GOLDEN, "w");
		assert_non_null(f);
		fputs(now, f);
		fclose(f);
	}
	f = fopen(GOLDEN, "r");
	if (!f)
		fail_msg("%s: not readable; run from the top of the tree", GOLDEN);
	assert_int_equal(getdelim(&want, &wlen, '\0', f) > 0, 1);
	fclose(f);
	assert_string_equal(now, want);
	free(now);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prom_golden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
