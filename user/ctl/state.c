// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * State file: a small text file, one "key value" per line, ending in
 * "end CRC32" over everything before that line. A missing end line means
 * the write was cut short, a wrong CRC means the file was changed; either
 * way it is refused, because restoring from a wrong record would leave the
 * NIC in a state nobody chose. Only a regular file owned by us and not
 * writable by anyone else is read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_conf.h"
#include "ctl_state.h"

#define STATE_VERSION 1
#define STATE_FILE_MAX 65536

static const char *const size_keys[XRX_SIZE_MAX] = {
	[XRX_SIZE_GSO] = "gso_max_size",
	[XRX_SIZE_GRO] = "gro_max_size",
	[XRX_SIZE_GSO_IPV4] = "gso_ipv4_max_size",
	[XRX_SIZE_GRO_IPV4] = "gro_ipv4_max_size",
};

struct u32_key {
	const char *key;
	unsigned int have;
	size_t off;
};

#define U32_KEY(k, h, field) { k, h, offsetof(struct xrx_state, field) }
static const struct u32_key u32_keys[] = {
	U32_KEY("rx_ring", XRX_HAVE_RX_RING, rx_ring),
	U32_KEY("tcp_data_split", XRX_HAVE_TCP_DATA_SPLIT, tcp_data_split),
	U32_KEY("channels_rx", XRX_HAVE_CH_RX, ch_rx),
	U32_KEY("channels_tx", XRX_HAVE_CH_TX, ch_tx),
	U32_KEY("channels_other", XRX_HAVE_CH_OTHER, ch_other),
	U32_KEY("channels_combined", XRX_HAVE_CH_COMBINED, ch_combined),
};
#define N_U32_KEYS (sizeof(u32_keys) / sizeof(u32_keys[0]))

const char *const xrx_napi_setting_names[XRX_NAPI_SETTING_MAX] = {
	[XRX_NAPI_DEFER_HARD_IRQS] = "napi_defer_hard_irqs",
	[XRX_NAPI_GRO_FLUSH_TIMEOUT] = "gro_flush_timeout",
};

struct xrx_state_napi *xrx_state_napi(struct xrx_state *st, unsigned int id)
{
	unsigned int i;

	for (i = 0; i < st->nnapi; i++)
		if (st->napi[i].id == id)
			return &st->napi[i];
	return NULL;
}

/* CRC-32 (IEEE 802.3, as zlib's crc32()); the file is tiny, no table. */
static unsigned int crc32_ieee(const char *buf, size_t len)
{
	unsigned int crc = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= (unsigned char)buf[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

int xrx_state_path(const char *dir, const char *ifname, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s.state", dir, ifname);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *pos)
		return -ENOSPC;
	*pos += (size_t)n;
	return 0;
}

int xrx_state_format(const struct xrx_state *st, char *buf, size_t len)
{
	size_t pos = 0;
	unsigned int i;
	int ret;

	ret = append(buf, len, &pos,
		     "# xrx: original settings of %s, recorded by xrxd before changing them.\n"
		     "# Put them back with: xrxctl restore %s\n"
		     "xrx-state %d\ninterface %s\nifindex %d\npid %d\n",
		     st->ifname, st->ifname, STATE_VERSION, st->ifname,
		     st->ifindex, (int)st->pid);
	for (i = 0; !ret && i < st->nfeatures; i++)
		ret = append(buf, len, &pos, "feature %s %s\n",
			     st->features[i].name,
			     st->features[i].on ? "on" : "off");
	for (i = 0; !ret && i < XRX_SIZE_MAX; i++)
		if (st->have & (XRX_HAVE_SIZE(i)))
			ret = append(buf, len, &pos, "%s %u\n", size_keys[i],
				     st->size[i]);
	for (i = 0; !ret && i < N_U32_KEYS; i++)
		if (st->have & u32_keys[i].have)
			ret = append(buf, len, &pos, "%s %u\n", u32_keys[i].key,
				     *(const unsigned int *)((const char *)st +
							     u32_keys[i].off));
	/* "napi ID SETTING VALUE": a NAPI instance's own settings. */
	for (i = 0; !ret && i < st->nnapi * XRX_NAPI_SETTING_MAX; i++) {
		const struct xrx_state_napi *n = &st->napi[i / XRX_NAPI_SETTING_MAX];
		unsigned int k = i % XRX_NAPI_SETTING_MAX;

		if (n->have & (1u << k))
			ret = append(buf, len, &pos, "napi %u %s %llu\n", n->id,
				     xrx_napi_setting_names[k], n->value[k]);
	}
	if (!ret)
		ret = append(buf, len, &pos, "end %08x\n", crc32_ieee(buf, pos));
	return ret ? ret : (int)pos;
}

static int serr(char *err, size_t errlen, const char *name, const char *ifname,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "FILE: problem; what to do" for a state file xrx will not use. */
static int serr(char *err, size_t errlen, const char *name, const char *ifname,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "%s: ", name);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	n += vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n,
			 "; xrx will not restore from it: check %s's offloads by hand (ethtool -k/-l/-g, ip -d link) and delete the file (a valid one is restored with 'xrxctl restore %s')",
			 ifname, ifname);
	return -EINVAL;
}

static bool feature_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= ETH_GSTRING_LEN)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '-' && *s != '_')
			return false;
	return true;
}

/* Decimal digits only, at most ULLONG_MAX. Return: 0 or -EINVAL. */
static int parse_u64(const char *s, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) ||
		    v > (ULLONG_MAX - (unsigned int)(*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	*out = v;
	return 0;
}

/* "ID SETTING VALUE" of a napi line. Return: 0, or 1 for corrupted. */
static int parse_napi(char *val, struct xrx_state *st, bool *dup)
{
	char *name, *num;
	unsigned long long v;
	struct xrx_state_napi *n;
	unsigned int id, k;

	name = strchr(val, ' ');
	if (!name)
		return 1;
	*name++ = '\0';
	num = strchr(name, ' ');
	if (!num)
		return 1;
	*num++ = '\0';
	if (xrx_parse_u32(val, 1, UINT_MAX, &id) || parse_u64(num, &v))
		return 1;
	for (k = 0; k < XRX_NAPI_SETTING_MAX; k++)
		if (!strcmp(name, xrx_napi_setting_names[k]))
			break;
	if (k == XRX_NAPI_SETTING_MAX)
		return 1;
	n = xrx_state_napi(st, id);
	if (!n) {
		if (st->nnapi == XRX_STATE_NAPI_MAX)
			return 1;
		n = &st->napi[st->nnapi++];
		n->id = id;
	}
	if (n->have & (1u << k)) {
		*dup = true;
		return 1;
	}
	n->have |= 1u << k;
	n->value[k] = v;
	return 0;
}

static bool numeric_key_known(const char *key)
{
	size_t i;

	if (!strcmp(key, "ifindex") || !strcmp(key, "pid"))
		return true;
	for (i = 0; i < XRX_SIZE_MAX; i++)
		if (!strcmp(key, size_keys[i]))
			return true;
	for (i = 0; i < N_U32_KEYS; i++)
		if (!strcmp(key, u32_keys[i].key))
			return true;
	return false;
}

static int parse_state_line(const char *name, const char *ifname, int lineno,
			    char *line, struct xrx_state *st,
			    unsigned int *seen, char *err, size_t errlen)
{
	char *key = line, *val, *val2 = NULL;
	unsigned int v, i;

	val = strchr(line, ' ');
	if (!val)
		return serr(err, errlen, name, ifname,
			    "line %d: '%.40s' has no value (corrupted)", lineno,
			    line);
	*val++ = '\0';

	if (!strcmp(key, "feature")) {
		struct xrx_state_feature *f;

		val2 = strchr(val, ' ');
		if (!val2)
			goto bad;
		*val2++ = '\0';
		if (!feature_name_ok(val) ||
		    (strcmp(val2, "on") && strcmp(val2, "off")))
			goto bad;
		for (i = 0; i < st->nfeatures; i++)
			if (!strcmp(st->features[i].name, val))
				goto dup;
		if (st->nfeatures == XRX_STATE_FEATURES_MAX)
			return serr(err, errlen, name, ifname,
				    "line %d: more than %d features (corrupted)",
				    lineno, XRX_STATE_FEATURES_MAX);
		f = &st->features[st->nfeatures++];
		strcpy(f->name, val);
		f->on = !strcmp(val2, "on");
		return 0;
	}
	if (!strcmp(key, "napi")) {
		bool dup = false;

		if (!parse_napi(val, st, &dup))
			return 0;
		if (dup)
			goto dup;
		goto bad;
	}
	if (!strcmp(key, "interface")) {
		if (seen[0]++)
			goto dup;
		if (strcmp(val, ifname))
			return serr(err, errlen, name, ifname,
				    "line %d: records interface '%.20s', not %s",
				    lineno, val, ifname);
		snprintf(st->ifname, sizeof(st->ifname), "%s", val);
		return 0;
	}
	if (!numeric_key_known(key))
		return serr(err, errlen, name, ifname,
			    "line %d: unknown key '%.30s' (corrupted, or written by a newer xrx)",
			    lineno, key);
	if (xrx_parse_u32(val, 0, UINT_MAX, &v))
		goto bad;
	if (!strcmp(key, "ifindex")) {
		if (seen[1]++ || !v || v > INT_MAX)
			goto bad;
		st->ifindex = (int)v;
		return 0;
	}
	if (!strcmp(key, "pid")) {
		if (seen[2]++)
			goto dup;
		if (v > INT_MAX)	/* would come back negative */
			goto bad;
		st->pid = (pid_t)v;
		return 0;
	}
	for (i = 0; i < XRX_SIZE_MAX; i++) {
		if (strcmp(key, size_keys[i]))
			continue;
		if (st->have & (XRX_HAVE_SIZE(i)))
			goto dup;
		st->have |= XRX_HAVE_SIZE(i);
		st->size[i] = v;
		return 0;
	}
	for (i = 0; i < N_U32_KEYS; i++) {
		if (strcmp(key, u32_keys[i].key))
			continue;
		if (st->have & u32_keys[i].have)
			goto dup;
		st->have |= u32_keys[i].have;
		*(unsigned int *)((char *)st + u32_keys[i].off) = v;
		return 0;
	}
	return serr(err, errlen, name, ifname,
		    "line %d: unknown key '%.30s' (corrupted, or written by a newer xrx)",
		    lineno, key);
bad:
	return serr(err, errlen, name, ifname,
		    "line %d: bad value for '%.30s' (corrupted)", lineno, key);
dup:
	return serr(err, errlen, name, ifname,
		    "line %d: '%.30s' appears twice (corrupted)", lineno, key);
}

int xrx_state_parse(const char *name, const char *text, size_t len,
		    struct xrx_state *st, char *err, size_t errlen)
{
	const char *ifname = st->ifname;
	char want_if[IF_NAMESIZE], *copy, *line, *next, *endl;
	unsigned int crc, seen[3] = { 0 };
	size_t body;
	int lineno = 0, version = 0, ret = 0;

	snprintf(want_if, sizeof(want_if), "%s", ifname);
	ifname = want_if;
	memset(st, 0, sizeof(*st));

	if (memchr(text, '\0', len))
		return serr(err, errlen, name, ifname,
			    "contains a NUL byte (corrupted)");
	if (len == 0 || text[len - 1] != '\n')
		return serr(err, errlen, name, ifname,
			    "truncated: it does not end with a complete line");
	/* The last line is "end XXXXXXXX\n" (13 bytes). */
	if (len < 13 || strncmp(text + len - 13, "end ", 4) ||
	    (len > 13 && text[len - 14] != '\n'))
		return serr(err, errlen, name, ifname,
			    "truncated: no 'end' line with a checksum");
	body = len - 13;
	/* text need not be NUL-terminated: scan a bounded copy. */
	if (sscanf(strndupa(text + body + 4, 8), "%8x", &crc) != 1 ||
	    crc != crc32_ieee(text, body))
		return serr(err, errlen, name, ifname,
			    "corrupted: checksum does not match the contents");

	copy = strndup(text, body);
	if (!copy)
		return -ENOMEM;
	for (line = copy; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#')
			continue;
		if (!version) {
			if (strcmp(line, "xrx-state 1")) {
				ret = serr(err, errlen, name, ifname,
					   "line %d: expected 'xrx-state 1' (not an xrx state file, or a newer version)",
					   lineno);
				goto out;
			}
			version = 1;
			continue;
		}
		endl = line + strlen(line);
		if (endl == line || endl[-1] == ' ' || line[0] == ' ') {
			ret = serr(err, errlen, name, ifname,
				   "line %d: malformed (corrupted)", lineno);
			goto out;
		}
		ret = parse_state_line(name, ifname, lineno, line, st, seen,
				       err, errlen);
		if (ret)
			goto out;
	}
	if (!version || !seen[0] || !seen[1] || !seen[2])
		ret = serr(err, errlen, name, ifname,
			   "incomplete: the header, interface, ifindex or pid line is missing");
out:
	free(copy);
	return ret;
}

/* The directory must be ours and closed to others: it is root's record. */
static int check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(dir, &st) < 0) {
		int ret = -errno;

		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return ret;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		snprintf(err, errlen,
			 "%s: not a directory owned by uid %u and closed to others (it is %s, uid %u, mode %04o); remove it or fix it with chown/chmod 0700",
			 dir, (unsigned int)geteuid(),
			 S_ISLNK(st.st_mode) ? "a symlink" :
			 S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
			 (unsigned int)st.st_uid,
			 (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int xrx_own_file_read(const char *dir, const char *path, char *buf,
		      size_t max, const char *advice, char *err, size_t errlen)
{
	struct stat sb;
	ssize_t n;
	size_t len = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP)
			snprintf(err, errlen,
				 "%s: is a symlink; xrx only trusts a regular file it wrote itself: %s",
				 path, advice);
		else
			snprintf(err, errlen, "%s: cannot open: %s", path,
				 strerror(-ret));
		return ret == -ELOOP ? -EPERM : ret;
	}
	if (fstat(fd, &sb) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
	    (sb.st_mode & 022)) {
		snprintf(err, errlen,
			 "%s: refused: not a regular file owned by uid %u and writable only by it (uid %u, mode %04o), so anyone could have written it; %s",
			 path, (unsigned int)geteuid(), (unsigned int)sb.st_uid,
			 (unsigned int)(sb.st_mode & 07777), advice);
		ret = -EPERM;
		goto out;
	}
	ret = check_dir(dir, err, errlen);
	if (ret)
		goto out;
	if ((size_t)sb.st_size > max) {
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
		ret = -EFBIG;
		goto out;
	}
	while (len < max) {
		n = read(fd, buf + len, max - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: read: %s", path,
				 strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	ret = (int)len;
out:
	close(fd);
	return ret;
}

int xrx_state_read(const char *dir, const char *ifname, struct xrx_state *st,
		   char *err, size_t errlen)
{
	char path[PATH_MAX], advice[IF_NAMESIZE + 64], *buf;
	int ret;

	ret = xrx_state_path(dir, ifname, path, sizeof(path));
	if (ret) {
		snprintf(err, errlen, "%s: state directory path too long", dir);
		return ret;
	}
	buf = malloc(STATE_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	snprintf(advice, sizeof(advice),
		 "delete it and check %s's offloads by hand", ifname);
	ret = xrx_own_file_read(dir, path, buf, STATE_FILE_MAX, advice, err,
				errlen);
	if (ret == -ENOENT)
		snprintf(err, errlen,
			 "%s: no state file: xrxd has no changes of %s on record (already restored, or never changed)",
			 path, ifname);
	else if (ret == -EFBIG)
		ret = serr(err, errlen, path, ifname, "larger than %d bytes",
			   STATE_FILE_MAX);
	if (ret >= 0) {
		snprintf(st->ifname, sizeof(st->ifname), "%s", ifname);
		ret = xrx_state_parse(path, buf, (size_t)ret, st, err, errlen);
	}
	free(buf);
	return ret;
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int ensure_dir(const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int ret = -errno;

		snprintf(err, errlen, "%s: cannot create the state directory: %s",
			 dir, strerror(errno));
		return ret;
	}
	return check_dir(dir, err, errlen);
}

int xrx_file_replace(const char *dir, const char *name, const char *buf,
		     size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd = -1, dfd, ret;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name) >=
		    (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: state directory path too long", dir);
		return -ENAMETOOLONG;
	}
	ret = ensure_dir(dir, err, errlen);
	if (ret)
		return ret;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot create: %s", tmp,
			 strerror(errno));
		return ret;
	}
	if (fchmod(fd, 0600) < 0 || (ret = write_all(fd, buf, len)) ||
	    fsync(fd) < 0) {
		ret = ret ? ret : -errno;
		snprintf(err, errlen, "%s: cannot write: %s", tmp,
			 strerror(-ret));
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = -errno;
		snprintf(err, errlen, "%s: cannot write: %s", tmp,
			 strerror(-ret));
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot rename to %s: %s", tmp, path,
			 strerror(-ret));
		goto out_unlink;
	}
	/* The rename is durable only once the directory is. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;

out_unlink:
	unlink(tmp);
	if (fd >= 0)
		close(fd);
	return ret;
}

int xrx_state_write(const char *dir, const struct xrx_state *st, char *err,
		    size_t errlen)
{
	char path[PATH_MAX], name[IF_NAMESIZE + 8], *buf;
	int ret, len;

	if (xrx_state_path(dir, st->ifname, path, sizeof(path))) {
		snprintf(err, errlen, "%s: state directory path too long", dir);
		return -ENAMETOOLONG;
	}
	buf = malloc(STATE_FILE_MAX);
	if (!buf)
		return -ENOMEM;
	len = xrx_state_format(st, buf, STATE_FILE_MAX);
	if (len < 0) {
		ret = len;
		snprintf(err, errlen, "%s: state does not fit in %d bytes", path,
			 STATE_FILE_MAX);
	} else {
		snprintf(name, sizeof(name), "%s.state", st->ifname);
		ret = xrx_file_replace(dir, name, buf, (size_t)len, err, errlen);
	}
	free(buf);
	return ret;
}

int xrx_state_remove(const char *dir, const char *ifname, char *err,
		     size_t errlen)
{
	char path[PATH_MAX];
	int dfd;

	if (xrx_state_path(dir, ifname, path, sizeof(path))) {
		snprintf(err, errlen, "%s: state directory path too long", dir);
		return -ENAMETOOLONG;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		int ret = -errno;

		snprintf(err, errlen, "%s: cannot remove: %s", path,
			 strerror(errno));
		return ret;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}
