// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The UMEM frame book (user/lib/afxdp/umem.c): frames move free -> kernel ->
 * engine -> free, each in exactly one place; double releases, unknown
 * addresses and an engine that disagrees are caught by the check that
 * every live test runs at its end. Registration creates a real AF_XDP
 * UMEM (no interface needed); without AF_XDP the tests that need it skip.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "afxdp/umem.h"

#define NFRAMES 64
#define FSIZE 4096
#define FILL 32

struct fix {
	struct xrx_umem u;
	char why[256];
};

static int setup(void **state)
{
	static struct fix f;
	int err;

	memset(&f, 0, sizeof(f));
	err = xrx_umem_init(&f.u, NFRAMES, FSIZE, FILL);
	if (err)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	xrx_umem_fini(&f->u);
	return 0;
}

/* Register and fill, or skip where AF_XDP sockets cannot be made. */
static void reg_fill(struct fix *f)
{
	int err = xrx_umem_register(&f->u);

	if (err == -EPERM || err == -EAFNOSUPPORT || err == -EACCES)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(xrx_umem_refill(&f->u), FILL);
}

static __u64 addr_of(__u32 frame, __u32 off)
{
	return (__u64)frame * FSIZE + off;
}

static void test_init_all_free(void **state)
{
	struct fix *f = *state;

	assert_int_equal(f->u.nr_free, NFRAMES);
	assert_int_equal(f->u.nr_kernel, 0);
	assert_int_equal(xrx_umem_check(&f->u, 0, f->why, sizeof(f->why)), 0);
}

static void test_bad_geometry(void **state)
{
	struct xrx_umem u;

	assert_int_equal(xrx_umem_init(&u, 8, 3000, 8), -EINVAL);
	assert_int_equal(xrx_umem_init(&u, 8, 4096, 6), -EINVAL);
	assert_int_equal(xrx_umem_init(&u, 0, 4096, 8), -EINVAL);
}

static void test_refill_moves_to_kernel(void **state)
{
	struct fix *f = *state;
	__u32 i, kernel = 0;

	reg_fill(f);
	assert_int_equal(f->u.nr_kernel, FILL);
	assert_int_equal(f->u.nr_free, NFRAMES - FILL);
	for (i = 0; i < NFRAMES; i++)
		kernel += f->u.state[i] == XRX_FS_KERNEL;
	assert_int_equal(kernel, FILL);
	/* The ring is full: nothing more goes in. */
	assert_int_equal(xrx_umem_refill(&f->u), 0);
	assert_int_equal(xrx_umem_check(&f->u, 0, f->why, sizeof(f->why)), 0);
}

static void test_round_trip(void **state)
{
	struct fix *f = *state;
	__u32 i;

	reg_fill(f);
	/* Frames 0..7 come back on the RX ring (at a 256-byte offset, as
	 * copy mode places data), go to the engine, are released. */
	for (i = 0; i < 8; i++)
		assert_true(xrx_umem_take(&f->u, addr_of(i, 256)));
	assert_int_equal(f->u.nr_engine, 8);
	assert_int_equal(xrx_umem_check(&f->u, 0, f->why, sizeof(f->why)), 0);
	for (i = 0; i < 8; i++)
		xrx_umem_put(&f->u, addr_of(i, 256 + 54));
	assert_int_equal(f->u.nr_engine, 0);
	assert_int_equal(f->u.nr_free, NFRAMES - FILL + 8);
	assert_int_equal(xrx_umem_check(&f->u, 8, f->why, sizeof(f->why)), 0);
	/* The engine must agree: it says it released 7, not 8. */
	assert_int_equal(xrx_umem_check(&f->u, 7, f->why, sizeof(f->why)),
			 -EUCLEAN);
	assert_non_null(strstr(f->why, "engine"));
}

static void test_release_clears_meta_magic(void **state)
{
	struct fix *f = *state;
	struct xrx_meta *m;

	reg_fill(f);
	m = (struct xrx_meta *)((__u8 *)f->u.area + addr_of(3, 256)) - 1;
	m->magic = XRX_META_MAGIC;
	assert_true(xrx_umem_take(&f->u, addr_of(3, 256)));
	xrx_umem_put(&f->u, addr_of(3, 256));
	assert_int_equal(m->magic, 0);
}

static void test_double_release_caught(void **state)
{
	struct fix *f = *state;

	reg_fill(f);
	assert_true(xrx_umem_take(&f->u, addr_of(1, 256)));
	xrx_umem_put(&f->u, addr_of(1, 256));
#ifndef XRX_DEBUG	/* debug builds trap on it instead */
	xrx_umem_put(&f->u, addr_of(1, 256));
	assert_int_equal(f->u.errors, 1);
	assert_int_equal(xrx_umem_check(&f->u, 1, f->why, sizeof(f->why)),
			 -EUCLEAN);
	assert_non_null(strstr(f->why, "violation"));
#endif
}

static void test_take_not_in_kernel_caught(void **state)
{
	struct fix *f = *state;

	reg_fill(f);
	/* Frame 40 was never on the fill ring; frame 999 does not exist. */
	assert_false(xrx_umem_take(&f->u, addr_of(40, 256)));
	assert_false(xrx_umem_take(&f->u, addr_of(999, 0)));
	assert_int_equal(f->u.errors, 2);
	assert_int_equal(xrx_umem_check(&f->u, 0, f->why, sizeof(f->why)),
			 -EUCLEAN);
}

static void test_drop_not_counted_as_engine(void **state)
{
	struct fix *f = *state;

	reg_fill(f);
	assert_true(xrx_umem_take(&f->u, addr_of(2, 256)));
	assert_true(xrx_umem_take(&f->u, addr_of(5, 256)));
	xrx_umem_drop(&f->u, addr_of(2, 256));	/* never reached the engine */
	xrx_umem_put(&f->u, addr_of(5, 256));	/* the engine released it */
	assert_int_equal(xrx_umem_check(&f->u, 1, f->why, sizeof(f->why)), 0);
}

static void test_unregister_frees_kernel_frames(void **state)
{
	struct fix *f = *state;

	reg_fill(f);
	assert_true(xrx_umem_take(&f->u, addr_of(0, 256)));
	xrx_umem_unregister(&f->u);
	assert_int_equal(f->u.nr_kernel, 0);
	assert_int_equal(f->u.nr_free, NFRAMES - 1);
	assert_int_equal(f->u.nr_engine, 1);	/* still the engine's */
	xrx_umem_put(&f->u, addr_of(0, 256));
	assert_int_equal(xrx_umem_check(&f->u, 1, f->why, sizeof(f->why)), 0);
	/* All free again: a new registration is allowed. */
	assert_int_equal(xrx_umem_register(&f->u), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init_all_free, setup, teardown),
		cmocka_unit_test(test_bad_geometry),
		cmocka_unit_test_setup_teardown(test_refill_moves_to_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_clears_meta_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_double_release_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_take_not_in_kernel_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop_not_counted_as_engine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unregister_frees_kernel_frames, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
