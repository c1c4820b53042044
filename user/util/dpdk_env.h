/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Starting DPDK's EAL inside a test or benchmark process, so rte_gro can
 * run in-process as a baseline: no hugepages, no PCI, no telemetry, no
 * shared configuration (a second process, or a leftover from a killed
 * one, never collides with this one).
 *
 * What does not work under --no-huge, found on DPDK 22.11:
 * --in-memory is refused ("--legacy-mem is not compatible"), because
 * --no-huge implies legacy memory; the default memory (-m) is 64 MB,
 * which a mempool of tens of thousands of 2 KiB mbufs exceeds with
 * ENOMEM, so the caller says how much it needs; IOVA mode ends up VA,
 * which rte_gro does not care about (it never touches IOVAs).
 */
#ifndef XRX_UTIL_DPDK_ENV_H
#define XRX_UTIL_DPDK_ENV_H

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#define DPDK_ENV_RUNDIR "/var/run/dpdk/xrx-gro"

/*
 * dpdk_env_init() - start the EAL once per process.
 * @mem_mb: memory for mempools and rte_malloc (rte_gro's tables)
 * @cpu:    CPU the calling thread is pinned to, or -1 to keep its affinity
 *
 * Return: 0, or a negative errno (the EAL's own message went to stderr).
 */
static inline int dpdk_env_init(unsigned int mem_mb, int cpu)
{
	char mem[24], lcores[48];
	char *argv[] = {
		"xrx", "--no-huge", "--no-pci", "--no-telemetry",
		"--no-shconf", "--log-level=error",
		"--file-prefix=xrx-gro", "-m", mem, lcores, NULL,
	};
	int argc = sizeof(argv) / sizeof(argv[0]) - 1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(mem, sizeof(mem), "%u", mem_mb);
	if (cpu >= 0)
		snprintf(lcores, sizeof(lcores), "--lcores=0@%d", cpu);
	else	/* lcore 0 may run on any CPU: do not pin a test */
		snprintf(lcores, sizeof(lcores), "--lcores=0@(0-%ld)",
			 ncpu > 0 ? ncpu - 1 : 0);
	if (rte_eal_init(argc, argv) < 0)
		return rte_errno ? -rte_errno : -EINVAL;
	return 0;
}

static inline void dpdk_env_fini(void)
{
	rte_eal_cleanup();
	/* The EAL creates its runtime folder even without shared config. */
	rmdir(DPDK_ENV_RUNDIR);
}

/*
 * What a NIC's packet-type parsing reports for TCP/IPv4 inside VXLAN over
 * IPv4, the fields gro_vxlan_tcp4 reads: the outer lengths, then the
 * inner ones, with l2_len covering the outer UDP, VXLAN and inner
 * Ethernet headers. @l4_len: the inner TCP header's.
 */
static inline void dpdk_mbuf_vxlan_tcp4(struct rte_mbuf *m, uint16_t l4_len)
{
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			 RTE_PTYPE_L4_UDP | RTE_PTYPE_TUNNEL_VXLAN |
			 RTE_PTYPE_INNER_L2_ETHER | RTE_PTYPE_INNER_L3_IPV4 |
			 RTE_PTYPE_INNER_L4_TCP;
	m->outer_l2_len = 14;
	m->outer_l3_len = 20;
	m->l2_len = 8 + 8 + 14;
	m->l3_len = 20;
	m->l4_len = l4_len;
}

#endif /* XRX_UTIL_DPDK_ENV_H */
