/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the C benchmarks of scripts/bench share: the clock they time
 * with, how they sum up repeated measurements and the core they run on.
 * One copy, so that benchmarks read side by side measured the same way.
 */
#ifndef XRX_BENCH_H
#define XRX_BENCH_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include <linux/types.h>

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* TSC ticks per second, against CLOCK_MONOTONIC over 50 ms. */
static inline double tsc_calibrate(void)
{
	__u64 t0 = now_ns(), c0 = __rdtsc(), t1;

	do
		t1 = now_ns();
	while (t1 - t0 < 50000000ull);
	return (double)(__rdtsc() - c0) * 1e9 / (double)(t1 - t0);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n (at least 1) values; @v is left as it was. */
static inline double median(const double *v, int n)
{
	double s[n];

	memcpy(s, v, sizeof(s));
	qsort(s, n, sizeof(s[0]), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The smallest and the largest of @n (at least 1) values. */
static inline void range(const double *v, int n, double *lo, double *hi)
{
	int i;

	*lo = *hi = v[0];
	for (i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

/* The last CPU this process may run on (--cpu's default), -1 if unknown. */
static inline int bench_last_cpu(void)
{
	cpu_set_t cpus;
	int c, last = -1;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		return -1;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &cpus))
			last = c;
	return last;
}

/* Pin the calling thread to @cpu; if it cannot be, say so and go on. */
static inline void bench_pin(const char *prog, int cpu)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		fprintf(stderr, "%s: cannot pin to CPU %d: %s; running unpinned\n",
			prog, cpu, strerror(errno));
}

#endif /* XRX_BENCH_H */
