// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: xrx-replay end to end (user/tools/xrx-replay.c, built in
 * here with its main() renamed) on the input as the IN capture: the
 * pcap/pcapng reader (load_pcap() over libpcap), the engine and the pcap
 * sink writing OUT.
 *
 * Input: byte 0 picks options (bits 0-1 --batch 1/2/64/1000, bits 2-3
 * --copy, bit 4 --csum trust, bit 5 --udp, bit 6 --max-size 131072,
 * bit 7 --snaplen 64), the rest is the capture file, handed over as a
 * memfd's /proc/self/fd path. OUT goes to a private temporary directory.
 *
 * Checked: exit status 0 (done) or 2 (bad input), never 1, which is how
 * the tool reports broken frame accounting (a frame released twice or
 * never) or a packet the sink could not write. The tool's messages to
 * stderr are discarded: a damaged capture is the normal case here.
 */
#include "fuzz.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* The tool's stderr goes to /dev/null; sanitizer reports do not use it. */
static FILE *quiet;
#undef stderr
#define stderr quiet
#define main xrx_replay_main
#include "../../user/tools/xrx-replay.c"
#undef main
#undef stderr

static char out_dir[64], out_path[96];

static void cleanup(void)
{
	unlink(out_path);
	rmdir(out_dir);
}

static int setup(void)
{
	strcpy(out_dir, "/tmp/xrx-fuzz-replay-XXXXXX");
	FZ_CHECK(mkdtemp(out_dir), "mkdtemp %s: %s", out_dir, strerror(errno));
	snprintf(out_path, sizeof(out_path), "%s/out.pcap", out_dir);
	atexit(cleanup);
	quiet = fopen("/dev/null", "w");
	FZ_CHECK(quiet, "/dev/null: %s", strerror(errno));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const batches[] = { "1", "2", "64", "1000" };
	static const char *const copies[] = { "header", "max-head", "full",
					      "header" };
	static int ready;
	char in_path[64];
	const char *argv[20];
	int argc = 0, fd, status;
	__u32 b0;

	if (!ready)
		ready = !setup();
	if (size < 1 || size > (1 << 20))
		return 0;
	b0 = data[0];

	fd = memfd_create("fuzz.pcap", MFD_CLOEXEC);
	FZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	FZ_CHECK(write(fd, data + 1, size - 1) == (ssize_t)(size - 1),
		 "memfd write: %s", strerror(errno));
	snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", fd);

	argv[argc++] = "xrx-replay";
	argv[argc++] = "--flows";
	argv[argc++] = "64";
	argv[argc++] = "--batch";
	argv[argc++] = batches[b0 & 3];
	argv[argc++] = "--copy";
	argv[argc++] = copies[(b0 >> 2) & 3];
	if (b0 & 0x10) {
		argv[argc++] = "--csum";
		argv[argc++] = "trust";
	}
	if (b0 & 0x20)
		argv[argc++] = "--udp";
	if (b0 & 0x40) {
		argv[argc++] = "--max-size";
		argv[argc++] = "131072";
	}
	if (b0 & 0x80) {
		argv[argc++] = "--snaplen";
		argv[argc++] = "64";
	}
	argv[argc++] = in_path;
	argv[argc++] = out_path;
	argv[argc] = NULL;

	optind = 0;	/* glibc: start getopt over */
	status = xrx_replay_main(argc, (char **)argv);
	close(fd);
	FZ_CHECK(status == 0 || status == EXIT_USAGE,
		 "xrx-replay exited %d (runtime failure) on this capture",
		 status);
	return 0;
}
