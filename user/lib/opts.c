// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The options table (include/xrx/options.h) as rows the library, xrxd's
 * config parser and xrx-replay read, the one check of an options struct
 * against it, and the one parser of an option's text. Below the three
 * layers of libxrx: it knows the options structs, not the code that
 * uses them, and needs libc only (it is part of libxrx-gro.a too).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <xrx/options.h>
#include <xrx/live.h>
#include "opts.h"

#define XRX_OPT_STRUCT_ENGINE struct xrx_engine_opts
#define XRX_OPT_STRUCT_SINK struct xrx_sink_opts
#define XRX_OPT_STRUCT_LIVE struct xrx_live_opts
#define XRX_OPT_PORTS_MAX 16		/* the longest PORTS array */

#define XRX_OPT_FIELD(set, field) (((XRX_OPT_STRUCT_##set *)0)->field)
/* PORTS: the count next to the array, and how many the array holds. */
#define XRX_OPT_COUNT_OFF_U32(set, field) 0
#define XRX_OPT_COUNT_OFF_BOOL(set, field) 0
#define XRX_OPT_COUNT_OFF_ENUM(set, field) 0
#define XRX_OPT_COUNT_OFF_PORTS(set, field)                                    \
	offsetof(XRX_OPT_STRUCT_##set, nr_##field)
#define XRX_OPT_COUNT_U32(set, field) 0
#define XRX_OPT_COUNT_BOOL(set, field) 0
#define XRX_OPT_COUNT_ENUM(set, field) 0
#define XRX_OPT_COUNT_PORTS(set, field)                                        \
	(sizeof(XRX_OPT_FIELD(set, field)) /                                   \
	 sizeof(XRX_OPT_FIELD(set, field)[0]))

#define XRX_OPT_ROW(id, set_, field, key_, flag_, short_, type_, def_, min_,  \
		    max_, words_, arg_, unit_, help_)                          \
	[XRX_OPT_##id] = {                                                     \
		.key = key_, .flag = flag_, .short_flag = short_,              \
		.set = XRX_OPT_SET_##set_, .type = XRX_OPT_T_##type_,          \
		.def = def_, .min = min_, .max = max_,                         \
		.max_count = XRX_OPT_COUNT_##type_(set_, field),               \
		.words = words_, .arg = arg_, .unit = unit_, .help = help_,    \
		.off = offsetof(XRX_OPT_STRUCT_##set_, field),                 \
		.count_off = XRX_OPT_COUNT_OFF_##type_(set_, field),           \
	},

static const struct xrx_opt xrx_opts[XRX_OPT_MAX] = {
	XRX_OPTIONS_TABLE(XRX_OPT_ROW)
};

/*
 * The accessors below read and write a field by its type: numbers and
 * enums are 4 bytes, booleans a bool, ports __u16 with a __u32 count; an
 * enum's words are one per value.
 */
#define XRX_OPT_FITS_U32(set, field, words, max)                              \
	(sizeof(XRX_OPT_FIELD(set, field)) == sizeof(__u32))
#define XRX_OPT_FITS_ENUM(set, field, words, max)                             \
	(sizeof(XRX_OPT_FIELD(set, field)) == sizeof(__u32) &&                 \
	 sizeof(words) / sizeof((words)[0]) == (max) + 2u)
#define XRX_OPT_FITS_BOOL(set, field, words, max)                             \
	(sizeof(XRX_OPT_FIELD(set, field)) == sizeof(bool) &&                  \
	 sizeof(words) / sizeof((words)[0]) == 3)
#define XRX_OPT_FITS_PORTS(set, field, words, max)                            \
	(sizeof(XRX_OPT_FIELD(set, field)[0]) == sizeof(__u16) &&              \
	 sizeof(XRX_OPT_FIELD(set, nr_##field)) == sizeof(__u32) &&            \
	 XRX_OPT_COUNT_PORTS(set, field) <= XRX_OPT_PORTS_MAX)
#define XRX_OPT_ASSERT(id, set, field, key, flag, short_, type, def, min, max, \
		       words, ...)                                             \
	_Static_assert(XRX_OPT_FITS_##type(set, field, words, max),            \
		       "option " #id ": its field or words do not fit its type");
XRX_OPTIONS_TABLE(XRX_OPT_ASSERT)

const struct xrx_opt *xrx_opt__get(int id)
{
	return id >= 0 && id < XRX_OPT_MAX ? &xrx_opts[id] : NULL;
}

static __u32 xrx_opt_get(const struct xrx_opt *o, const void *opts)
{
	const char *p = (const char *)opts + o->off;
	__u32 v32;

	if (o->type == XRX_OPT_T_BOOL)
		return *(const bool *)p;
	memcpy(&v32, p, sizeof(v32));
	return v32;
}

static void xrx_opt_put(const struct xrx_opt *o, void *opts, __u32 v)
{
	char *p = (char *)opts + o->off;

	if (o->type == XRX_OPT_T_BOOL)
		*(bool *)p = v;
	else
		memcpy(p, &v, sizeof(v));
}

static __u16 *xrx_opt_ports(const struct xrx_opt *o, const void *opts,
			    __u32 **count)
{
	*count = (__u32 *)((char *)opts + o->count_off);
	return (__u16 *)((char *)opts + o->off);
}

int xrx_parse_u32(const char *s, __u32 min, __u32 max, __u32 *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	if (v < min)
		return -ERANGE;
	*out = (__u32)v;
	return 0;
}

/* How the option is named in a message: "key =", "--flag", "flag=". */
static void xrx_opt_label(const struct xrx_opt *o, enum xrx_opt_form form,
			  char *buf, size_t len)
{
	const char *name = o->key ? o->key : o->flag;

	if (form == XRX_OPT_FORM_FLAG && o->flag)
		snprintf(buf, len, "--%s ", o->flag);
	else if (form == XRX_OPT_FORM_SPEC && o->flag)
		snprintf(buf, len, "%s=", o->flag);
	else
		snprintf(buf, len, "%s = ", name);
}

/* The label without its separator, for a message about a list. */
static void xrx_opt_name(const struct xrx_opt *o, enum xrx_opt_form form,
			 char *buf, size_t len)
{
	size_t n;

	xrx_opt_label(o, form, buf, len);
	n = strlen(buf);
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '=')) {
		buf[--n] = '\0';
	}
}

static int xrx_opt_number(const struct xrx_opt *o, const char *text,
			  enum xrx_opt_form form, __u32 *v, char *err,
			  size_t errlen)
{
	char label[64];
	int ret = xrx_parse_u32(text, o->min, o->max, v);

	if (!ret)
		return 0;
	xrx_opt_label(o, form, label, sizeof(label));
	if (ret == -EINVAL)
		snprintf(err, errlen, "%s%s is not a number; write %s from %u to %u (decimal digits only)",
			 label, text, o->unit, o->min, o->max);
	else
		snprintf(err, errlen, "%s%s is out of range; write %s from %u to %u",
			 label, text, o->unit, o->min, o->max);
	return -EINVAL;
}

static int xrx_opt_word(const struct xrx_opt *o, const char *text,
			enum xrx_opt_form form, __u32 *v, char *err,
			size_t errlen)
{
	char label[64];
	size_t n = 0;
	__u32 i;

	for (i = 0; o->words[i]; i++) {
		if (!strcmp(o->words[i], text)) {
			*v = i;
			return 0;
		}
	}
	xrx_opt_label(o, form, label, sizeof(label));
	n = (size_t)snprintf(err, errlen, "%s%s is not a valid value; write ",
			     label, text);
	for (i = 0; o->words[i] && n < errlen; i++)
		n += (size_t)snprintf(err + n, errlen - n, "%s%s",
				      !i ? "" : o->words[i + 1] ? ", " : " or ",
				      o->words[i]);
	return -EINVAL;
}

/* "none", or ports separated by commas (blanks around them allowed). */
static int xrx_opt_ports_parse(const struct xrx_opt *o, void *opts,
			       const char *text, enum xrx_opt_form form,
			       char *err, size_t errlen)
{
	__u16 got[XRX_OPT_PORTS_MAX];
	__u32 *count, n, i, port;
	__u16 *ports = xrx_opt_ports(o, opts, &count);
	char name[64], tok[16];
	const char *p = text, *end;
	size_t len;

	xrx_opt_name(o, form, name, sizeof(name));
	if (!strcmp(text, "none")) {
		*count = 0;
		return 0;
	}
	n = *count;
	if (n > o->max_count)
		n = 0;
	memcpy(got, ports, n * sizeof(*got));
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len) {
			snprintf(err, errlen, "%s has an empty entry; separate ports with one comma, e.g. %s",
				 name, form == XRX_OPT_FORM_CONF ?
				 "vxlan_ports = 4789, 8472" : "4789,8472");
			return -EINVAL;
		}
		snprintf(tok, sizeof(tok), "%.*s", (int)len, p);
		if (len >= sizeof(tok))
			strcpy(tok + sizeof(tok) - 4, "...");
		if (xrx_opt_number(o, tok, form, &port, err, errlen))
			return -EINVAL;
		for (i = 0; i < n; i++) {
			if (got[i] == port) {
				snprintf(err, errlen, "%s lists %u twice; remove one",
					 name, port);
				return -EINVAL;
			}
		}
		if (n == o->max_count) {
			snprintf(err, errlen, "%s has more than %u ports; list at most %u",
				 name, o->max_count, o->max_count);
			return -EINVAL;
		}
		got[n++] = (__u16)port;
		if (!end)
			break;
		p = end + 1;
	}
	memcpy(ports, got, n * sizeof(*got));
	*count = n;
	return 0;
}

int xrx_opt__parse(const struct xrx_opt *o, void *opts, const char *text,
		   enum xrx_opt_form form, char *err, size_t errlen)
{
	__u32 v;
	int ret;

	if (!o || !opts || !text) {
		snprintf(err, errlen, "no option or no value; this is a bug in the caller");
		return -EINVAL;
	}
	switch (o->type) {
	case XRX_OPT_T_U32:
		ret = xrx_opt_number(o, text, form, &v, err, errlen);
		break;
	case XRX_OPT_T_BOOL:
	case XRX_OPT_T_ENUM:
		ret = xrx_opt_word(o, text, form, &v, err, errlen);
		break;
	case XRX_OPT_T_PORTS:
		return xrx_opt_ports_parse(o, opts, text, form, err, errlen);
	default:
		return -EINVAL;
	}
	if (!ret)
		xrx_opt_put(o, opts, v);
	return ret;
}

int xrx_opt__format(const struct xrx_opt *o, const void *opts, char *buf,
		    size_t len)
{
	const __u16 *ports;
	__u32 *count, v, i;
	int n = 0;

	switch (o->type) {
	case XRX_OPT_T_BOOL:
	case XRX_OPT_T_ENUM:
		v = xrx_opt_get(o, opts);
		if (v <= o->max)
			return snprintf(buf, len, "%s", o->words[v]);
		return snprintf(buf, len, "%u", v);
	case XRX_OPT_T_PORTS:
		ports = xrx_opt_ports(o, opts, &count);
		if (!*count || *count > o->max_count)
			return snprintf(buf, len, "none");
		for (i = 0; i < *count; i++)
			n += snprintf(buf + (n < (int)len ? n : (int)len),
				      n < (int)len ? len - (size_t)n : 0, "%s%u",
				      i ? ", " : "", ports[i]);
		return n;
	default:
		return snprintf(buf, len, "%u", xrx_opt_get(o, opts));
	}
}

void xrx_opt__set_default(const struct xrx_opt *o, void *opts)
{
	__u32 *count;
	__u16 *ports;

	if (o->type != XRX_OPT_T_PORTS) {
		xrx_opt_put(o, opts, o->def);
		return;
	}
	ports = xrx_opt_ports(o, opts, &count);
	memset(ports, 0, o->max_count * sizeof(*ports));
	*count = 0;
}

int xrx_opts_check(enum xrx_opt_set set, void *opts)
{
	const struct xrx_opt *o;
	__u32 *count, v, i, j;
	__u16 *ports;

	for (o = xrx_opts; o < xrx_opts + XRX_OPT_MAX; o++) {
		if (o->set != set)
			continue;
		switch (o->type) {
		case XRX_OPT_T_U32:
			v = xrx_opt_get(o, opts);
			if (!v) {
				v = o->def;
				xrx_opt_put(o, opts, v);
			}
			if (v < o->min || v > o->max)
				return -EINVAL;
			break;
		case XRX_OPT_T_ENUM:
			if (xrx_opt_get(o, opts) > o->max)
				return -EINVAL;
			break;
		case XRX_OPT_T_PORTS:
			ports = xrx_opt_ports(o, opts, &count);
			if (*count > o->max_count)
				return -EINVAL;
			for (i = 0; i < *count; i++) {
				if (ports[i] < o->min || ports[i] > o->max)
					return -EINVAL;
				for (j = 0; j < i; j++)
					if (ports[j] == ports[i])
						return -EINVAL;
			}
			break;
		default:
			break;
		}
	}
	return 0;
}
