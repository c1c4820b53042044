// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * opt_probe SET FIELD VALUE: does libxrx take VALUE for an option when a
 * program puts it in the options struct itself, as xrx-replay and xrxd
 * hand the structs over? SET is engine or sink, FIELD one of the fields
 * below (vxlan_ports: a list of that one port). An engine is made over a
 * small region with 16 packet buffers, so a large flow table costs
 * little; a sink is the null sink. Public API only.
 *
 * Exit status: 0 taken, 2 refused (EINVAL, or a value the field cannot
 * hold), 1 anything else (message on stderr).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrx/engine.h>
#include <xrx/sink.h>

struct field {
	const char *set, *name;
	size_t off, size;
};

#define ENGINE(f) { "engine", #f, offsetof(struct xrx_engine_opts, f), \
		    sizeof(((struct xrx_engine_opts *)0)->f) }
#define SINK(f) { "sink", #f, offsetof(struct xrx_sink_opts, f), \
		  sizeof(((struct xrx_sink_opts *)0)->f) }

static const struct field fields[] = {
	ENGINE(max_aggregate), ENGINE(max_segs), ENGINE(flows),
	ENGINE(flush_timeout_us), ENGINE(vxlan_ports), SINK(snaplen),
};

int main(int argc, char **argv)
{
	static __u8 region[4096];
	struct xrx_engine_opts eo = { .sz = sizeof(eo), .region = region,
				      .region_size = sizeof(region),
				      .pkts = 16 };
	struct xrx_sink_opts so = { .sz = sizeof(so) };
	const struct field *f = NULL;
	unsigned long long v;
	struct xrx_engine *e;
	struct xrx_sink *s;
	char *end, *base;
	size_t i;

	for (i = 0; argc == 4 && i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(argv[1], fields[i].set) &&
		    !strcmp(argv[2], fields[i].name))
			f = &fields[i];
	if (!f) {
		fprintf(stderr, "usage: opt_probe engine|sink FIELD VALUE\n");
		return 1;
	}
	errno = 0;
	v = strtoull(argv[3], &end, 10);
	if (errno || *end || end == argv[3]) {
		fprintf(stderr, "opt_probe: %s is not a number\n", argv[3]);
		return 1;
	}
	base = !strcmp(f->set, "engine") ? (char *)&eo : (char *)&so;
	if (!strcmp(f->name, "vxlan_ports")) {
		if (v > 0xffff)
			return 2;
		eo.vxlan_ports[0] = (__u16)v;
		eo.nr_vxlan_ports = 1;
	} else {
		__u32 v32 = (__u32)v;

		if (f->size != sizeof(v32) || v > 0xffffffffull)
			return 2;
		memcpy(base + f->off, &v32, sizeof(v32));
	}
	if (base == (char *)&eo) {
		e = xrx_engine__new(&eo);
		if (!e && errno == EINVAL)
			return 2;
		if (!e) {
			fprintf(stderr, "opt_probe: engine: %s\n", strerror(errno));
			return 1;
		}
		xrx_engine__free(e);
		return 0;
	}
	s = xrx_sink__open("null", &so);
	if (!s && errno == EINVAL)
		return 2;
	if (!s) {
		fprintf(stderr, "opt_probe: sink: %s\n", strerror(errno));
		return 1;
	}
	xrx_sink__close(s);
	return 0;
}
