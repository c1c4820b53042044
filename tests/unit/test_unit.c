// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The paths xrxd@.service may write (user/ctl/ctl_unit.h): the unit file
 * and the C list xrxd --check-config uses say the same, read with the
 * parser that also reads an admin's drop-ins; and that parser follows
 * systemd: "-" and "+" prefixes, several paths a line, an empty
 * assignment emptying its list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ctl_unit.h"

/* The tree's unit file, from this file's place in it. */
#define UNIT_FILE "systemd/xrxd@.service"

static bool has(const struct xrx_unit_paths *up, const char *path)
{
	unsigned int i;

	for (i = 0; i < up->n; i++)
		if (!strcmp(up->p[i].path, path))
			return true;
	return false;
}

static void test_unit_file_agrees(void **state)
{
	struct xrx_unit_paths up = { 0 };
	FILE *f = fopen(UNIT_FILE, "r");
	unsigned int i, k;

	(void)state;
	assert_non_null(f);
	xrx_unit_parse_writable(f, &up);
	fclose(f);
	for (k = 0; xrx_unit_writable[k]; k++)
		if (!has(&up, xrx_unit_writable[k]))
			fail_msg("%s is in xrx_unit_writable, not in " UNIT_FILE,
				 xrx_unit_writable[k]);
	for (i = 0; i < up.n; i++) {
		for (k = 0; xrx_unit_writable[k]; k++)
			if (!strcmp(up.p[i].path, xrx_unit_writable[k]))
				break;
		if (!xrx_unit_writable[k])
			fail_msg("%s is writable in " UNIT_FILE ", not in xrx_unit_writable",
				 up.p[i].path);
	}
	assert_true(has(&up, XRX_CAPTURE_DIR));
	assert_true(has(&up, XRX_STATE_DIR));
}

static void test_dropin_syntax(void **state)
{
	static const char text[] =
		"[Service]\n"
		"ReadWritePaths=-/srv/cap +/data/x\n"
		"  StateDirectory=xrx other\n"
		"ReadWritePaths=/a\n"
		"RuntimeDirectory=\n";
	static const char more[] = "ReadWritePaths=\nReadWritePaths=/b\n";
	struct xrx_unit_paths up = { 0 };
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	assert_non_null(f);
	xrx_unit_parse_writable(f, &up);
	fclose(f);
	assert_true(has(&up, "/srv/cap"));
	assert_true(has(&up, "/data/x"));
	assert_true(has(&up, "/a"));
	assert_true(has(&up, "/var/lib/xrx"));
	assert_true(has(&up, "/var/lib/other"));
	assert_int_equal(up.n, 5);

	/* An empty ReadWritePaths= drops the earlier ones, only those. */
	f = fmemopen((void *)more, strlen(more), "r");
	assert_non_null(f);
	xrx_unit_parse_writable(f, &up);
	fclose(f);
	assert_false(has(&up, "/srv/cap"));
	assert_true(has(&up, "/b"));
	assert_true(has(&up, "/var/lib/other"));
	assert_int_equal(up.n, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_file_agrees),
		cmocka_unit_test(test_dropin_syntax),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
