// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: the state-file parser (user/ctl/state.c,
 * xrx_state_parse()) on the input as the file's bytes, for interface
 * "xd0".
 *
 * Every file ends in a CRC-32 line, which random changes almost never
 * get right, so an input whose first byte is odd is taken as the body
 * only and gets the correct "end CRC\n" line appended: that reaches the
 * line parser. The text is handed over without a terminating NUL, as the
 * length argument allows, and ending right at an inaccessible page: a
 * read past it faults even in libc code ASan does not instrument.
 *
 * Checked: failure is -EINVAL/-ENOMEM with a message naming the file; a
 * parsed state formats (xrx_state_format()) to text that parses to a
 * state that formats identically.
 */
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "ctl_state.h"

#define TEXT_MAX 65536
#define IFNAME "xd0"

/* The reference CRC-32: zlib's, independent of state.c's own. */
static unsigned int crc32_ieee(const char *buf, size_t len)
{
	return (unsigned int)crc32(0, (const Bytef *)buf, (uInt)len);
}

/*
 * @len bytes of @text copied to end right before a PROT_NONE page.
 * Return: the copy (valid until the next call).
 */
static const char *guarded(const char *text, size_t len)
{
	static char *area;
	static size_t area_len;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!area) {
		area_len = (TEXT_MAX + 64 + page - 1) / page * page;
		area = mmap(NULL, area_len + page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		FZ_CHECK(area != MAP_FAILED, "mmap: %s", strerror(errno));
		FZ_CHECK(!mprotect(area + area_len, page, PROT_NONE),
			 "mprotect: %s", strerror(errno));
	}
	memcpy(area + area_len - len, text, len);
	return area + area_len - len;
}

static int parse(const char *text, size_t len, struct xrx_state *st,
		 char *err, size_t errlen)
{
	memset(st, 0xa5, sizeof(*st));
	strcpy(st->ifname, IFNAME);
	return xrx_state_parse("fuzz.state", text, len, st, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xrx_state st, st2;
	static char out1[TEXT_MAX], out2[TEXT_MAX];
	char err[512], *text;
	size_t len = size;
	int ret, n1, n2;

	if (size < 1 || size > TEXT_MAX)
		return 0;
	text = malloc(size + 16);
	FZ_CHECK(text, "out of memory");
	memcpy(text, data + 1, size - 1);
	len = size - 1;
	if (data[0] & 1)
		len += (size_t)sprintf(text + len, "end %08x\n",
				       crc32_ieee(text, len));
	memset(err, 0x55, sizeof(err));
	ret = parse(guarded(text, len), len, &st, err, sizeof(err));
	free(text);
	if (ret) {
		FZ_CHECK(ret == -EINVAL || ret == -ENOMEM, "return %d", ret);
		FZ_CHECK(memchr(err, '\0', sizeof(err)) &&
			 !strncmp(err, "fuzz.state: ", 12),
			 "error message does not name the file");
		return 0;
	}
	FZ_CHECK(!strcmp(st.ifname, IFNAME), "ifname '%.16s'", st.ifname);
	FZ_CHECK(st.nfeatures <= XRX_STATE_FEATURES_MAX, "nfeatures %u",
		 st.nfeatures);
	n1 = xrx_state_format(&st, out1, sizeof(out1));
	FZ_CHECK(n1 > 0, "a parsed state does not format: %d", n1);
	ret = parse(guarded(out1, (size_t)n1), (size_t)n1, &st2, err,
		    sizeof(err));
	FZ_CHECK(ret == 0, "formatted state does not parse back: %s\n%s", err,
		 out1);
	n2 = xrx_state_format(&st2, out2, sizeof(out2));
	FZ_CHECK(n1 == n2 && !memcmp(out1, out2, (size_t)n1),
		 "state changes on a round trip:\n---\n%s---\n%s---", out1,
		 out2);
	return 0;
}
