// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The state file (user/ctl/state.c): round trip, file and directory
 * modes, and refusal of every truncation, every single-byte corruption,
 * symlinks, files others can write, and well-checksummed files that say
 * something wrong; and the reload outcome written and read the same way. The checksum here is computed by a table-driven
 * CRC-32 of zlib, independent of state.c's bitwise one.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "ctl_reload.h"
#include "ctl_state.h"

struct fixture {
	char dir[64];
	char sub[96];	/* DIR/state: created by xrx_state_write */
	char path[128];	/* DIR/state/xd0.state */
};

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	return remove(p);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	strcpy(fx->dir, "/tmp/xrx-test-state.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->sub, sizeof(fx->sub), "%s/state", fx->dir);
	snprintf(fx->path, sizeof(fx->path), "%s/xd0.state", fx->sub);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	nftw(fx->dir, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	free(fx);
	return 0;
}

static void sample(struct xrx_state *st)
{
	memset(st, 0, sizeof(*st));
	strcpy(st->ifname, "xd0");
	st->ifindex = 7;
	st->pid = 4242;
	st->nfeatures = 2;
	strcpy(st->features[0].name, "rx-gro");
	st->features[0].on = false;
	strcpy(st->features[1].name, "rx-lro");
	st->features[1].on = true;
	st->have = XRX_HAVE_SIZE(XRX_SIZE_GSO) | XRX_HAVE_SIZE(XRX_SIZE_GRO) |
		   XRX_HAVE_SIZE(XRX_SIZE_GSO_IPV4) |
		   XRX_HAVE_SIZE(XRX_SIZE_GRO_IPV4) | XRX_HAVE_RX_RING |
		   XRX_HAVE_TCP_DATA_SPLIT | XRX_HAVE_CH_RX | XRX_HAVE_CH_TX |
		   XRX_HAVE_CH_COMBINED;
	st->size[XRX_SIZE_GSO] = 65536;
	st->size[XRX_SIZE_GRO] = 131072;
	st->size[XRX_SIZE_GSO_IPV4] = 32768;
	st->size[XRX_SIZE_GRO_IPV4] = 65536;
	st->rx_ring = 1024;
	st->tcp_data_split = 1;
	st->ch_rx = 4;
	st->ch_tx = 3;
	st->ch_combined = 0;
	/* NAPI instances: both settings, one only, a value past 32 bits. */
	st->nnapi = 2;
	st->napi[0].id = 2049;
	st->napi[0].have = (1u << XRX_NAPI_DEFER_HARD_IRQS) |
			   (1u << XRX_NAPI_GRO_FLUSH_TIMEOUT);
	st->napi[0].value[XRX_NAPI_DEFER_HARD_IRQS] = 0;
	st->napi[0].value[XRX_NAPI_GRO_FLUSH_TIMEOUT] = 0;
	st->napi[1].id = 4000000000u;
	st->napi[1].have = 1u << XRX_NAPI_GRO_FLUSH_TIMEOUT;
	st->napi[1].value[XRX_NAPI_GRO_FLUSH_TIMEOUT] = 5000000000ull;
}

static char *slurp(const char *path, size_t *len)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static void spew(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void test_roundtrip(void **state)
{
	struct fixture *fx = *state;
	struct xrx_state a, b;
	char err[1024];
	struct stat sb;

	sample(&a);
	if (xrx_state_write(fx->sub, &a, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(stat(fx->sub, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_int_equal(stat(fx->path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);

	memset(&b, 0xaa, sizeof(b));
	if (xrx_state_read(fx->sub, "xd0", &b, err, sizeof(err)))
		fail_msg("%s", err);
	assert_memory_equal(&a, &b, sizeof(a));

	/* A second write replaces the first (rename over it). */
	a.pid = 1;
	assert_int_equal(xrx_state_write(fx->sub, &a, err, sizeof(err)), 0);
	assert_int_equal(xrx_state_read(fx->sub, "xd0", &b, err, sizeof(err)), 0);
	assert_int_equal(b.pid, 1);

	assert_int_equal(xrx_state_remove(fx->sub, "xd0", err, sizeof(err)), 0);
	assert_int_equal(stat(fx->path, &sb), -1);
	assert_int_equal(xrx_state_remove(fx->sub, "xd0", err, sizeof(err)), 0);
	assert_int_equal(xrx_state_read(fx->sub, "xd0", &b, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no state file"));
}

/* A refusal names the file and says what to do. */
static void assert_refused(int ret, int want, const char *err, const char *path,
			   const char *what)
{
	if (ret != want || !strstr(err, path) || !strstr(err, what))
		fail_msg("ret %d (want %d), message \"%s\" (want \"%s\" and \"%s\")",
			 ret, want, err, path, what);
}

static void test_truncated(void **state)
{
	struct fixture *fx = *state;
	struct xrx_state st;
	char err[1024], *text, copy[65536];
	size_t len, cut;

	sample(&st);
	assert_int_equal(xrx_state_write(fx->sub, &st, err, sizeof(err)), 0);
	text = slurp(fx->path, &len);
	memcpy(copy, text, len);
	for (cut = 0; cut < len; cut++) {
		spew(fx->path, copy, cut);
		assert_refused(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)),
			       -EINVAL, err, fx->path, "xrxctl restore xd0");
	}
}

static void test_corrupted(void **state)
{
	struct fixture *fx = *state;
	struct xrx_state st;
	char err[1024], *text, copy[65536];
	size_t len, i;

	sample(&st);
	assert_int_equal(xrx_state_write(fx->sub, &st, err, sizeof(err)), 0);
	text = slurp(fx->path, &len);
	memcpy(copy, text, len);
	for (i = 0; i < len; i++) {
		char orig = copy[i];

		copy[i] = (char)(orig ^ 0x01);
		spew(fx->path, copy, len);
		assert_refused(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)),
			       -EINVAL, err, fx->path, "delete the file");
		copy[i] = orig;
	}
	/* Garbage after the end line. */
	memcpy(copy + len, "x\n", 2);
	spew(fx->path, copy, len + 2);
	assert_int_equal(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)), -EINVAL);
	/* Unchanged bytes read fine again. */
	spew(fx->path, copy, len);
	assert_int_equal(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)), 0);
}

static void test_unsafe_files(void **state)
{
	struct fixture *fx = *state;
	struct xrx_state st;
	char err[1024], real[160];

	sample(&st);
	assert_int_equal(xrx_state_write(fx->sub, &st, err, sizeof(err)), 0);

	/* Writable by others, or by the group: anyone could have written it. */
	assert_int_equal(chmod(fx->path, 0666), 0);
	assert_refused(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)),
		       -EPERM, err, fx->path, "refused");
	assert_int_equal(chmod(fx->path, 0620), 0);
	assert_refused(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)),
		       -EPERM, err, fx->path, "refused");
	assert_int_equal(chmod(fx->path, 0600), 0);
	assert_int_equal(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)), 0);

	/* A symlink, even to a valid state file. */
	snprintf(real, sizeof(real), "%s/real.state", fx->dir);
	assert_int_equal(rename(fx->path, real), 0);
	assert_int_equal(symlink(real, fx->path), 0);
	assert_refused(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)),
		       -EPERM, err, fx->path, "symlink");
	assert_int_equal(unlink(fx->path), 0);

	/* A directory instead of a file. */
	assert_int_equal(mkdir(fx->path, 0700), 0);
	assert_int_equal(xrx_state_read(fx->sub, "xd0", &st, err, sizeof(err)), -EPERM);
	assert_int_equal(rmdir(fx->path), 0);

	/* A state directory others can write is refused for writing too. */
	assert_int_equal(chmod(fx->sub, 0777), 0);
	assert_refused(xrx_state_write(fx->sub, &st, err, sizeof(err)), -EPERM,
		       err, fx->sub, "chmod 0700");
	assert_int_equal(chmod(fx->sub, 0700), 0);
}

/* The reference CRC-32: zlib's, independent of state.c's own. */
static unsigned int crc32_table(const char *buf, size_t len)
{
	return (unsigned int)crc32(0, (const Bytef *)buf, (uInt)len);
}

static int parse_signed(const char *body, struct xrx_state *st, char *err,
			size_t errlen)
{
	char text[4096];
	int n;

	n = snprintf(text, sizeof(text), "%send %08x\n", body,
		     crc32_table(body, strlen(body)));
	strcpy(st->ifname, "xd0");
	return xrx_state_parse("x.state", text, (size_t)n, st, err, errlen);
}

#define HDR "xrx-state 1\ninterface xd0\nifindex 3\npid 9\n"

static void test_content_checks(void **state)
{
	static const struct {
		const char *body;
		const char *says;
	} bad[] = {
		{ "xrx-state 2\ninterface xd0\nifindex 3\npid 9\n", "expected 'xrx-state 1'" },
		{ "interface xd0\nifindex 3\npid 9\n", "expected 'xrx-state 1'" },
		{ "xrx-state 1\ninterface xd1\nifindex 3\npid 9\n", "records interface 'xd1'" },
		{ "xrx-state 1\ninterface xd0\npid 9\n", "incomplete" },
		{ "xrx-state 1\ninterface xd0\nifindex 3\n", "incomplete" },
		{ HDR "pid 10\n", "appears twice" },
		{ HDR "feature rx-gro on\nfeature rx-gro off\n", "appears twice" },
		{ HDR "feature rx-gro maybe\n", "bad value" },
		{ HDR "feature RX_GRO on\n", "bad value" },
		{ HDR "gro_max_size 65536\ngro_max_size 65536\n", "appears twice" },
		{ HDR "gro_max_size -1\n", "bad value" },
		{ HDR "gro_max_size 99999999999\n", "bad value" },
		{ HDR "channels_rx\n", "has no value" },
		{ HDR "colour blue\n", "unknown key 'colour'" },
		{ HDR "rx_ring 1 \n", "malformed" },
		{ HDR "\n", "malformed" },
		{ HDR "napi 2049 napi_defer_hard_irqs 2\nnapi 2049 napi_defer_hard_irqs 3\n", "appears twice" },
		{ HDR "napi 0 gro_flush_timeout 1\n", "bad value for 'napi'" },
		{ HDR "napi x gro_flush_timeout 1\n", "bad value for 'napi'" },
		{ HDR "napi 2049 busy_poll 1\n", "bad value for 'napi'" },
		{ HDR "napi 2049 gro_flush_timeout\n", "bad value for 'napi'" },
		{ HDR "napi 2049 gro_flush_timeout -1\n", "bad value for 'napi'" },
		{ HDR "napi 2049 gro_flush_timeout 18446744073709551616\n", "bad value for 'napi'" },
		{ HDR "napi 2049\n", "bad value for 'napi'" },
	};
	struct xrx_state st;
	char err[1024];
	size_t i;

	/* A hand-written file with the right checksum is accepted... */
	if (parse_signed("# comment\n" HDR "feature rx-gro on\nchannels_combined 8\n",
			 &st, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(st.nfeatures, 1);
	assert_true(st.features[0].on);
	assert_int_equal(st.have, XRX_HAVE_CH_COMBINED);
	assert_int_equal(st.ch_combined, 8);
	assert_int_equal(st.pid, 9);
	/* A NAPI instance's lines, in any order, 64-bit values. */
	if (parse_signed(HDR "napi 3000 gro_flush_timeout 18446744073709551615\n"
			 "napi 2049 napi_defer_hard_irqs 2\n"
			 "napi 3000 napi_defer_hard_irqs 0\n", &st, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(st.nnapi, 2);
	assert_int_equal(st.napi[0].id, 3000);
	assert_int_equal(st.napi[0].have, 3);
	assert_true(st.napi[0].value[XRX_NAPI_GRO_FLUSH_TIMEOUT] == 18446744073709551615ull);
	assert_int_equal(st.napi[1].id, 2049);
	assert_int_equal(st.napi[1].have, 1u << XRX_NAPI_DEFER_HARD_IRQS);
	assert_int_equal(st.napi[1].value[XRX_NAPI_DEFER_HARD_IRQS], 2);
	/* ...and one that says something wrong is not. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = parse_signed(bad[i].body, &st, err, sizeof(err));

		if (ret != -EINVAL || !strstr(err, bad[i].says) ||
		    !strstr(err, "x.state: "))
			fail_msg("case %zu: ret %d, message \"%s\", want \"%s\"",
				 i, ret, err, bad[i].says);
	}
}

/*
 * The reload outcome (ctl_reload.h) shares the state file's writer and
 * reader: the same round trip, the reason kept on one line, the same
 * refusal of a file others could have written, and "none" as -ENOENT.
 */
static void test_reload_outcome(void **state)
{
	struct fixture *fx = *state;
	struct xrx_reload a, b;
	char err[1024], path[160];
	struct stat sb;

	memset(&a, 0, sizeof(a));
	a.pid = 4242;
	a.generation = 3;
	a.started_mono_ns = 123456789012ull;
	a.finished_ns = 1700000000123456789ull;
	a.ok = false;
	strcpy(a.reason, "xd0: reload failed: /etc/xrx/xd0.conf: sink = pcap:/x/y,\nbut\tno");
	assert_int_equal(xrx_reload_read(fx->sub, "xd0", &b, err, sizeof(err)), -ENOENT);
	if (xrx_reload_write(fx->sub, "xd0", &a, err, sizeof(err)))
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/xd0.reload", fx->sub);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	memset(&b, 0xaa, sizeof(b));
	if (xrx_reload_read(fx->sub, "xd0", &b, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(b.pid, 4242);
	assert_int_equal(b.generation, 3);
	assert_true(b.started_mono_ns == a.started_mono_ns);
	assert_true(b.finished_ns == a.finished_ns);
	assert_false(b.ok);
	/* Control characters would break the one-line format: spaces. */
	assert_string_equal(b.reason, "xd0: reload failed: /etc/xrx/xd0.conf: sink = pcap:/x/y, but no");

	a.ok = true;
	a.reason[0] = '\0';
	assert_int_equal(xrx_reload_write(fx->sub, "xd0", &a, err, sizeof(err)), 0);
	assert_int_equal(xrx_reload_read(fx->sub, "xd0", &b, err, sizeof(err)), 0);
	assert_true(b.ok);
	assert_string_equal(b.reason, "");

	assert_int_equal(chmod(path, 0622), 0);
	assert_refused(xrx_reload_read(fx->sub, "xd0", &b, err, sizeof(err)),
		       -EPERM, err, path, "refused");
	xrx_reload_remove(fx->sub, "xd0");
	assert_int_equal(stat(path, &sb), -1);

	/* Anything but the format is refused, not half read. */
	assert_int_equal(xrx_reload_parse("r", "pid 1\n", 6, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_reload_parse("r", "xrx-reload 1\npid 1", 19, &b, err,
					  sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_files, setup, teardown),
		cmocka_unit_test(test_content_checks),
		cmocka_unit_test_setup_teardown(test_reload_outcome, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
