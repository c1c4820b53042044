// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One capture file for all queues (sink/merge.h).
 *
 * Each queue's worker copies its records, laid out as the file will hold
 * them (a pcap record header or an EPB with its options, then the bytes
 * up to snaplen), into a ring of its own: one producer, one consumer, as
 * the tee's. The copy is what lets the worker give its frames back at
 * once: the writer writes from the rings, never from the UMEM, and a
 * file system that stalls costs records only once a ring is full.
 *
 * The writer thread takes, of the records waiting at the heads of the
 * rings, the earliest, as long as every other queue either has a record
 * waiting (its ring is in time order), or marked a later time, or is in
 * no delivery while the record is no later than the writer's clock. A
 * record's time is its packet's arrival: a queue in a receive batch
 * (xrx_merge__batch()) is in a delivery from before the batch's clock
 * read to its end, and a packet that arrived before the queue's last
 * record or mark (an aggregate held across batches) takes that time as
 * its place in the order (its own goes into the file as it is); up to
 * MERGE_IOVS records go out in one writev(), straight from the rings.
 * It holds the group's lock for a pass, so that queues join and leave
 * between passes, never under it; the workers do not take the lock.
 *
 * Rotation is done by the writer: by size (PATH -> PATH.1 ..., as the
 * per-queue files) or, with rotate_secs, when a record's time (or the
 * clock, when no record comes) reaches the end of the period, periods
 * aligned to the clock (a multiple of rotate_secs since the epoch), the
 * new file named by strftime(3) of the period's start, in local time as
 * tcpdump -G. A closed file of a time rotation goes to the closer.
 *
 * The closer thread compresses a closed file to FILE.zst (libzstd, then
 * the original removed) and runs the hook with the file's final name as
 * its one argument, like tcpdump -z. A failure (no room for the .zst, a
 * hook that fails or exits non-zero) is counted and logged once; the
 * file stays as it was. The closer's queue is bounded: a closer that
 * falls behind (a hook that hangs) costs the files beyond it their
 * compression and hook, counted, never the capture.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <zstd.h>

#include "sink/capfile.h"
#include "sink/merge.h"
#include "sink/pcapng.h"

#define MERGE_IOVS 1024			/* UIO_MAXIOV */
#define MERGE_HOLD_NS 200000000ull	/* a worker stopped this long in a
					 * delivery holds no one up */
/*
 * The writer sleeps MERGE_IDLE_NS between passes, unless a queue's ring
 * fills past MERGE_WAKE_BYTES (its worker wakes it at a batch end): a
 * wake-up per batch would cost more than the writes it saves (the
 * worker's futex call and two switches, at every batch of a slow flow).
 * A ring filling faster than that wakes the writer at a quarter full.
 */
#define MERGE_IDLE_NS 10000000ull
#define MERGE_WAIT_NS 5000000ull	/* ... with records held for order */
#define MERGE_WAKE_BYTES (XRX_MERGE_RING_BYTES / 4)
#define MERGE_CLOSER_QUEUE 64		/* closed files waiting */
#define MERGE_SEQ_MAX 1000		/* names tried within a period */
#define MERGE_LEAVE_WAIT_MS 5000	/* a leaving queue's drain, at most */

/* A record in a ring; size 0: the records go on at the ring's start. */
struct merge_rec {
	__u32 size;			/* in the ring, padded to 8 */
	__u32 len;			/* the file's bytes in data */
	__u32 segs;			/* the packet's, for segs_out */
	__u32 unused;
	__u64 ts;
	__u8 data[];
};

#define MERGE_ALIGN(n) (((n) + 7u) & ~(__u64)7)

struct xrx_merge_q {
	struct xrx_merge *m;
	struct xrx_sink *s;
	__u32 queue;
	__u8 *ring;
	__u64 head_own;			/* the worker's */
	_Atomic __u64 head;		/* published by the worker */
	_Atomic __u64 tail;		/* freed by the writer */
	_Atomic __u64 mark;		/* nothing earlier comes any more */
	_Atomic __u32 busy;		/* in a delivery: from before its
					 * clock read to after its commit,
					 * or in a batch: to its mark */
	bool in_batch;			/* the worker's: xrx_merge__batch() */
	__u64 floor;			/* the worker's: its last record's
					 * order or mark; none earlier */
	__u64 wtail;			/* the writer's, ahead of tail until
					 * its writev() is done */
	__u64 reserved;			/* the record being filled */
};

struct merge_closer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool running, stop;
	__u32 head, tail;		/* files [tail, head) */
	char files[MERGE_CLOSER_QUEUE][PATH_MAX];
	bool zstd_logged, hook_logged;
};

struct xrx_merge {
	struct xrx_merge *next;		/* the groups, by path */
	struct xrx_merge_cfg cfg;
	pthread_mutex_t lock;		/* q[], and a writer's pass */
	struct xrx_merge_q **q;		/* [cfg.nr_queues] */
	__u32 members;
	pthread_t thread;
	_Atomic bool stop;
	/* The writer's sleep: a worker that marks a batch end wakes it. */
	pthread_mutex_t wlock;
	pthread_cond_t wcond;
	_Atomic bool sleeping;
	/* The writer's. */
	int fd;
	bool fifo;
	__u64 file_bytes;		/* 0: its header is still to write */
	__u32 hdr_bytes;
	__u8 hdr[4096];			/* SHB and IDBs, or pcap's header */
	char cur[PATH_MAX + 16];
	__u64 period_end;		/* ns; time rotation */
	__u64 period_start;
	__u32 seq;
	bool failing;			/* a write error, logged */
	struct iovec iov[MERGE_IOVS];
	__u32 lens[MERGE_IOVS];		/* each record's, as iov_len was */
	__u32 segs[MERGE_IOVS];
	struct xrx_merge_q *owner[MERGE_IOVS];
	/* The closer's counts, moved into a queue's sink by the writer. */
	_Atomic __u64 compress_errors, hook_errors, rotations;
	struct merge_closer c;
};

static pthread_mutex_t merge_groups_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xrx_merge *merge_groups;

__u64 xrx_merge__hold_ns = MERGE_HOLD_NS;
__u32 xrx_merge__leave_ms = MERGE_LEAVE_WAIT_MS;

static __u64 merge_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

static void merge_count(struct xrx_merge_q *q, enum xrx_sink_stat st, __u64 v)
{
	__atomic_fetch_add(&q->s->stats[st], v, __ATOMIC_RELAXED);
}

/* ---- the closer ---------------------------------------------------- */

/* @path into @path.zst; 0, or a negative errno (the .zst removed). */
static int merge_zstd(const char *path, char *out, size_t outlen)
{
	size_t inlen = ZSTD_CStreamInSize(), olen = ZSTD_CStreamOutSize();
	void *ib = malloc(inlen), *ob = malloc(olen);
	ZSTD_CCtx *cx = ZSTD_createCCtx();
	int in = -1, fd = -1, err = 0;
	bool last = false;
	ssize_t n;

	snprintf(out, outlen, "%s.zst", path);
	if (!ib || !ob || !cx) {
		err = -ENOMEM;
		goto out;
	}
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		err = -errno;
		goto out;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (!last && !err) {
		ZSTD_inBuffer ibuf;

		n = read(in, ib, inlen);
		if (n < 0) {
			err = -errno;
			break;
		}
		last = n == 0;
		ibuf = (ZSTD_inBuffer){ ib, (size_t)n, 0 };
		for (;;) {
			ZSTD_outBuffer obuf = { ob, olen, 0 };
			size_t left = ZSTD_compressStream2(cx, &obuf, &ibuf,
				last ? ZSTD_e_end : ZSTD_e_continue);

			if (ZSTD_isError(left)) {
				err = -EIO;
				break;
			}
			if (obuf.pos &&
			    write(fd, ob, obuf.pos) != (ssize_t)obuf.pos) {
				err = errno ? -errno : -ENOSPC;
				break;
			}
			if (last ? left == 0 : ibuf.pos == ibuf.size)
				break;
		}
	}
	if (!err && fsync(fd))
		err = -errno;
out:
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	if (in >= 0)
		close(in);
	if (err && fd >= 0)
		unlink(out);
	if (!err)
		unlink(path);
	ZSTD_freeCCtx(cx);
	free(ib);
	free(ob);
	return err;
}

extern char **environ;

/* The hook on @path: 0 if it ran and exited 0; else a status to log. */
static int merge_hook(const char *hook, const char *path, char *why,
		      size_t whylen)
{
	char *argv[] = { (char *)hook, (char *)path, NULL };
	posix_spawnattr_t attr;
	sigset_t none, all;
	int st, err;
	pid_t pid;

	/* The daemon's threads block signals it takes by signalfd: the
	 * hook starts with none blocked and every one at its default. */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
					 POSIX_SPAWN_SETSIGDEF);
	err = posix_spawn(&pid, hook, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (err) {
		snprintf(why, whylen, "cannot run it: %s", strerror(err));
		return -err;
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "waitpid: %s", strerror(errno));
			return -errno;
		}
	}
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	if (WIFEXITED(st))
		snprintf(why, whylen, "it exited %d", WEXITSTATUS(st));
	else
		snprintf(why, whylen, "it was killed by signal %d",
			 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return -ECHILD;
}

static void merge_close_file(struct xrx_merge *m, const char *path)
{
	struct merge_closer *c = &m->c;
	char out[PATH_MAX + 8], why[128];
	const char *final = path;
	int err;

	if (m->cfg.zstd) {
		err = merge_zstd(path, out, sizeof(out));
		if (err) {
			atomic_fetch_add(&m->compress_errors, 1);
			if (!c->zstd_logged)
				fprintf(stderr, "xrx: pcap %s: cannot compress it to %s: %s; the file stays uncompressed, counted in compress_errors (logged once)\n",
					path, out, strerror(-err));
			c->zstd_logged = true;
		} else {
			final = out;
		}
	}
	if (*m->cfg.hook) {
		err = merge_hook(m->cfg.hook, final, why, sizeof(why));
		if (err) {
			atomic_fetch_add(&m->hook_errors, 1);
			if (!c->hook_logged)
				fprintf(stderr, "xrx: pcap hook %s on %s: %s; counted in hook_errors (logged once), the capture goes on\n",
					m->cfg.hook, final, why);
			c->hook_logged = true;
		}
	}
}

static void *merge_closer_main(void *arg)
{
	struct xrx_merge *m = arg;
	struct merge_closer *c = &m->c;
	char path[PATH_MAX];

	pthread_mutex_lock(&c->lock);
	for (;;) {
		if (c->tail == c->head) {
			if (c->stop)
				break;
			pthread_cond_wait(&c->cond, &c->lock);
			continue;
		}
		memcpy(path, c->files[c->tail % MERGE_CLOSER_QUEUE],
		       sizeof(path));
		pthread_mutex_unlock(&c->lock);
		merge_close_file(m, path);
		pthread_mutex_lock(&c->lock);
		c->tail++;
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* A closed file for the closer; never waits for it. */
static void merge_closed(struct xrx_merge *m, const char *path)
{
	struct merge_closer *c = &m->c;
	bool full;

	if (!c->running)
		return;
	pthread_mutex_lock(&c->lock);
	full = c->head - c->tail == MERGE_CLOSER_QUEUE;
	if (!full) {
		snprintf(c->files[c->head % MERGE_CLOSER_QUEUE], PATH_MAX,
			 "%s", path);
		c->head++;
		pthread_cond_signal(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	if (full) {
		if (m->cfg.zstd)
			atomic_fetch_add(&m->compress_errors, 1);
		if (*m->cfg.hook)
			atomic_fetch_add(&m->hook_errors, 1);
		fprintf(stderr, "xrx: pcap %s closed while %u files still wait for compression or the hook; this one is left as it is (counted)\n",
			path, MERGE_CLOSER_QUEUE);
	}
}

/* ---- the file ------------------------------------------------------ */

static void merge_build_header(struct xrx_merge *m)
{
	char name[32], comment[160];
	__u32 i, n = 0;

	if (!m->cfg.ng) {
		__u32 h[6] = { PCAP_MAGIC_NS, 2 | (4u << 16), 0, 0,
			       m->cfg.snaplen, XRX_PCAPNG_LINKTYPE_ETHERNET };

		memcpy(m->hdr, h, sizeof(h));
		m->hdr_bytes = sizeof(h);
		return;
	}
	n = xrx_pcapng_shb(m->hdr, sizeof(m->hdr), "xrx");
	for (i = 0; i < m->cfg.nr_queues; i++) {
		__u32 k;

		snprintf(name, sizeof(name), "q%u", i);
		snprintf(comment, sizeof(comment), XRX_PCAPNG_IDB_COMMENT, i);
		k = xrx_pcapng_idb(m->hdr + n, sizeof(m->hdr) - n,
				   m->cfg.snaplen, 9, name, comment);
		if (!k) {
			/* Too many queues for the buffer: the rest as
			 * bare IDBs, the queue still their index. */
			k = xrx_pcapng_idb(m->hdr + n, sizeof(m->hdr) - n,
					   m->cfg.snaplen, 9, NULL, NULL);
		}
		n += k;
	}
	m->hdr_bytes = n;
}

static int merge_write_header(struct xrx_merge *m)
{
	ssize_t n = write(m->fd, m->hdr, m->hdr_bytes);

	if (n == (ssize_t)m->hdr_bytes) {
		m->file_bytes = m->hdr_bytes;
		return 0;
	}
	if (!m->fifo && n > 0 && !ftruncate(m->fd, 0))
		lseek(m->fd, 0, SEEK_SET);
	m->file_bytes = 0;
	return n < 0 ? -errno : -ENOSPC;
}

/* The period of @ts: its start into period_start, its end. */
static void merge_period(struct xrx_merge *m, __u64 ts)
{
	__u64 len = (__u64)m->cfg.rotate_secs * 1000000000ull;

	m->period_start = ts / len * len;
	m->period_end = m->period_start + len;
}

/* Open the next file: PATH, or the period's name. */
static int merge_open(struct xrx_merge *m)
{
	struct stat st;
	char base[PATH_MAX];
	time_t t;
	struct tm tm;

	if (!m->cfg.rotate_secs) {
		snprintf(m->cur, sizeof(m->cur), "%s", m->cfg.path);
		if (!stat(m->cur, &st) && S_ISFIFO(st.st_mode)) {
			if (m->cfg.no_wait) {
				fprintf(stderr, "xrx: pcap %s is a FIFO: a slow reader would hold up every write, and this writer must never wait; write to a file\n",
					m->cur);
				return -EINVAL;
			}
			m->fifo = true;
			m->fd = open(m->cur, O_WRONLY | O_CLOEXEC);
		} else {
			m->fd = open(m->cur, O_WRONLY | O_CREAT | O_TRUNC |
						     O_CLOEXEC, 0644);
		}
		if (m->fd < 0)
			return -errno;
		return merge_write_header(m);
	}
	t = (time_t)(m->period_start / 1000000000ull);
	localtime_r(&t, &tm);
	if (!strftime(base, sizeof(base), m->cfg.path, &tm))
		return -ENAMETOOLONG;
	for (; m->seq < MERGE_SEQ_MAX; m->seq++) {
		if (m->seq)
			snprintf(m->cur, sizeof(m->cur), "%s.%u", base, m->seq);
		else
			snprintf(m->cur, sizeof(m->cur), "%s", base);
		/* Never over a file of another run (or of a period whose
		 * name repeats: a pattern coarser than the period). */
		m->fd = open(m->cur, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0644);
		if (m->fd >= 0)
			return merge_write_header(m);
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static void merge_log_failing(struct xrx_merge *m, int err)
{
	if (m->failing)
		return;
	m->failing = true;
	fprintf(stderr, "xrx: pcap %s: %s; packets are lost, counted in errors%s, until it writes again (logged once)\n",
		m->cur, strerror(-err),
		err == -ENOSPC || err == -EDQUOT ? " and nospace" : "");
}

/* Close the file; the next one starts at @ts. */
static void merge_rotate(struct xrx_merge *m, __u64 ts, struct xrx_merge_q *q)
{
	int err = 0;

	if (m->fd >= 0) {
		close(m->fd);
		m->fd = -1;
		if (m->cfg.rotate_secs)
			merge_closed(m, m->cur);
	}
	if (m->cfg.rotate_secs) {
		__u64 old = m->period_start;

		merge_period(m, ts);
		if (m->period_start != old)
			m->seq = 0;
		else
			m->seq++;
	} else {
		err = xrx_pcap__shift(m->cfg.path, m->cfg.rotate_count);
	}
	if (q)
		merge_count(q, XRX_SINK_STAT_ROTATIONS, 1);
	else
		atomic_fetch_add(&m->rotations, 1);
	if (!err)
		err = merge_open(m);
	/* A header that did not fit is tried again at the next write. */
	if (err)
		merge_log_failing(m, err);
}

/* The oldest record of @q not yet taken by the writer, or NULL. */
static struct merge_rec *merge_peek(struct xrx_merge_q *q)
{
	__u64 head = atomic_load_explicit(&q->head, memory_order_acquire);
	struct merge_rec *r;
	__u64 pos;

	while (q->wtail != head) {
		pos = q->wtail % XRX_MERGE_RING_BYTES;
		r = (struct merge_rec *)(q->ring + pos);
		if (r->size)
			return r;
		q->wtail += XRX_MERGE_RING_BYTES - pos;
	}
	return NULL;
}

/*
 * Write the records gathered in m->iov[0, cnt); count each in its queue.
 * A write that fails part way is cut back to the end of the last whole
 * record (a file never ends in a torn one), the rest counted lost.
 */
static void merge_flush_iov(struct xrx_merge *m, int cnt)
{
	__u64 written = 0, whole = 0;
	int err = 0, i;

	if (m->fd < 0)
		err = -EBADF;
	else if (!m->file_bytes)
		err = merge_write_header(m);
	if (!err && cnt > 0)
		err = xrx_pcap__writev_all(m->fd, m->iov, cnt, &written);
	for (i = 0; i < cnt; i++) {
		struct xrx_merge_q *q = m->owner[i];

		if (whole + m->lens[i] <= written) {
			whole += m->lens[i];
			merge_count(q, XRX_SINK_STAT_PKTS_OUT, 1);
			merge_count(q, XRX_SINK_STAT_BYTES_OUT, m->lens[i]);
			merge_count(q, XRX_SINK_STAT_SEGS_OUT, m->segs[i]);
		} else {
			merge_count(q, XRX_SINK_STAT_ERRORS, 1);
			if (err == -ENOSPC || err == -EDQUOT)
				merge_count(q, XRX_SINK_STAT_NOSPACE, 1);
		}
	}
	if (err) {
		if (written > whole && !m->fifo &&
		    !ftruncate(m->fd, (off_t)(m->file_bytes + whole)))
			lseek(m->fd, (off_t)(m->file_bytes + whole), SEEK_SET);
		merge_log_failing(m, err);
	} else if (cnt && m->failing) {
		m->failing = false;
		fprintf(stderr, "xrx: pcap %s writes again\n", m->cur);
	}
	if (m->file_bytes)
		m->file_bytes += whole;
}

/* The closer's counts (and rotations of no queue) into a queue's sink. */
static void merge_move_counts(struct xrx_merge *m)
{
	struct xrx_merge_q *q = NULL;
	__u64 v;
	__u32 i;

	for (i = 0; i < m->cfg.nr_queues && !q; i++)
		q = m->q[i];
	if (!q)
		return;
	v = atomic_exchange(&m->compress_errors, 0);
	if (v)
		merge_count(q, XRX_SINK_STAT_COMPRESS_ERRORS, v);
	v = atomic_exchange(&m->hook_errors, 0);
	if (v)
		merge_count(q, XRX_SINK_STAT_HOOK_ERRORS, v);
	v = atomic_exchange(&m->rotations, 0);
	if (v)
		merge_count(q, XRX_SINK_STAT_ROTATIONS, v);
}

/* What the writer took of each ring is written: the worker may reuse it. */
static void merge_release(struct xrx_merge *m)
{
	__u32 i;

	for (i = 0; i < m->cfg.nr_queues; i++)
		if (m->q[i])
			atomic_store_explicit(&m->q[i]->tail, m->q[i]->wtail,
					      memory_order_release);
}

/*
 * One pass of the writer, under m->lock: records in time order until
 * none may go yet or the iovec array is full. Return: records written.
 */
static int merge_pass(struct xrx_merge *m, __u64 now, bool final)
{
	struct xrx_merge_q *best, *q;
	struct merge_rec *r, *br;
	__u64 pending = 0, mark;
	int cnt = 0, total = 0;
	__u32 i, busy;

	while (cnt < MERGE_IOVS) {
again:
		best = NULL;
		br = NULL;
		for (i = 0; i < m->cfg.nr_queues; i++) {
			q = m->q[i];
			if (!q)
				continue;
			r = merge_peek(q);
			if (r && (!br || r->ts < br->ts)) {
				best = q;
				br = r;
			}
		}
		if (!best)
			break;
		/*
		 * A queue with nothing waiting may still bring an earlier
		 * record, unless it marked a later time (its mark read
		 * before its ring, which the mark's release orders), or is
		 * in no delivery: its worker sets busy before it reads the
		 * clock for a stamp and clears it after the commit, so a
		 * queue seen not busy (after the clock read here), then
		 * with an empty ring, stamps whatever comes next at now or
		 * later. An idle queue thus holds no one up; a busy one
		 * commits within a copy (the hold bounds a worker stopped
		 * in between).
		 */
		if (br->ts > now)
			now = merge_now();
		/* The flags below are read after that clock read. */
		atomic_thread_fence(memory_order_seq_cst);
		for (i = 0; i < m->cfg.nr_queues && !final; i++) {
			q = m->q[i];
			if (!q || q == best)
				continue;
			mark = atomic_load_explicit(&q->mark,
						    memory_order_acquire);
			busy = atomic_load(&q->busy);
			/* the ring looked at again after busy: a batch that
			 * ended in between committed its records first */
			r = merge_peek(q);
			if (r && r->ts < br->ts)
				goto again;	/* came since: it is earlier */
			if (r || mark >= br->ts || (!busy && br->ts <= now))
				continue;
			if (now < br->ts + xrx_merge__hold_ns)
				goto out;
		}
		if ((m->cfg.rotate_secs && br->ts >= m->period_end) ||
		    (m->cfg.rotate_bytes && !m->fifo &&
		     m->file_bytes + pending + br->len > m->cfg.rotate_bytes &&
		     m->file_bytes + pending > m->hdr_bytes)) {
			merge_flush_iov(m, cnt);
			merge_release(m);
			cnt = 0;
			pending = 0;
			merge_rotate(m, br->ts, best);
		}
		m->iov[cnt].iov_base = br->data;
		m->iov[cnt].iov_len = br->len;
		m->lens[cnt] = br->len;
		m->segs[cnt] = br->segs;
		m->owner[cnt++] = best;
		pending += br->len;
		best->wtail += br->size;
		total++;
	}
out:
	merge_flush_iov(m, cnt);
	merge_release(m);
	/* No record came to end the period: the clock does. */
	if (m->cfg.rotate_secs && now >= m->period_end + MERGE_HOLD_NS &&
	    !final)
		merge_rotate(m, now, NULL);
	merge_move_counts(m);
	return total;
}

/* Does any queue have records the writer has not taken? */
static bool merge_waiting(struct xrx_merge *m)
{
	__u32 i;

	for (i = 0; i < m->cfg.nr_queues; i++)
		if (m->q[i] && m->q[i]->wtail != atomic_load(&m->q[i]->head))
			return true;
	return false;
}

/* Sleep @ns, or until a worker with a filling ring wakes the writer. */
static void merge_sleep(struct xrx_merge *m, __u64 ns)
{
	struct timespec ts;
	__u64 t;

	pthread_mutex_lock(&m->wlock);
	atomic_store(&m->sleeping, true);
	if (!atomic_load(&m->stop)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		t = (__u64)ts.tv_nsec + ns;
		ts.tv_sec += (time_t)(t / 1000000000ull);
		ts.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&m->wcond, &m->wlock, &ts);
	}
	atomic_store(&m->sleeping, false);
	pthread_mutex_unlock(&m->wlock);
}

static void merge_wake(struct xrx_merge *m)
{
	if (!atomic_load(&m->sleeping))
		return;
	pthread_mutex_lock(&m->wlock);
	pthread_cond_signal(&m->wcond);
	pthread_mutex_unlock(&m->wlock);
}

static void *merge_writer(void *arg)
{
	struct xrx_merge *m = arg;
	bool stop, held;
	int n;

	for (;;) {
		stop = atomic_load(&m->stop);
		pthread_mutex_lock(&m->lock);
		/* After stop: everything, the order as far as it can be. */
		do
			n = merge_pass(m, merge_now(), stop);
		while (stop && n);
		held = merge_waiting(m);
		pthread_mutex_unlock(&m->lock);
		if (stop)
			break;
		if (n == MERGE_IOVS)
			continue;
		/* Records held for order wait for another queue's mark. */
		merge_sleep(m, held && !n ? MERGE_WAIT_NS : MERGE_IDLE_NS);
	}
	return NULL;
}

static void merge_free(struct xrx_merge *m)
{
	if (m->c.running) {
		pthread_mutex_lock(&m->c.lock);
		m->c.stop = true;
		pthread_cond_signal(&m->c.cond);
		pthread_mutex_unlock(&m->c.lock);
		pthread_join(m->c.thread, NULL);
	}
	pthread_cond_destroy(&m->c.cond);
	pthread_mutex_destroy(&m->c.lock);
	pthread_cond_destroy(&m->wcond);
	pthread_mutex_destroy(&m->wlock);
	pthread_mutex_destroy(&m->lock);
	if (m->fd >= 0)
		close(m->fd);
	free(m->q);
	free(m);
}

/* A new group for @cfg: the file opened, the threads started. */
static int merge_new(const struct xrx_merge_cfg *cfg, struct xrx_merge **out)
{
	struct xrx_merge *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	m->cfg = *cfg;
	m->fd = -1;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->wlock, NULL);
	pthread_cond_init(&m->wcond, NULL);
	pthread_mutex_init(&m->c.lock, NULL);
	pthread_cond_init(&m->c.cond, NULL);
	m->q = calloc(cfg->nr_queues, sizeof(*m->q));
	if (!m->q) {
		merge_free(m);
		return -ENOMEM;
	}
	merge_build_header(m);
	if (cfg->rotate_secs) {
		merge_period(m, merge_now());
		err = 0;
	} else {
		err = xrx_pcap__keep_earlier(cfg->path, cfg->rotate_count);
	}
	if (!err)
		err = merge_open(m);
	if (err && m->fd < 0) {
		fprintf(stderr, "xrx: pcap %s: cannot open it: %s\n", m->cur,
			strerror(-err));
		merge_free(m);
		return err;
	}
	if (cfg->zstd || *cfg->hook) {
		err = pthread_create(&m->c.thread, NULL, merge_closer_main, m);
		if (err) {
			merge_free(m);
			return -err;
		}
		m->c.running = true;
	}
	err = pthread_create(&m->thread, NULL, merge_writer, m);
	if (err) {
		merge_free(m);
		return -err;
	}
	*out = m;
	return 0;
}

static bool merge_same(const struct xrx_merge_cfg *a,
		       const struct xrx_merge_cfg *b)
{
	return !strcmp(a->path, b->path) && a->nr_queues == b->nr_queues;
}

int xrx_merge__join(const struct xrx_merge_cfg *cfg, __u32 queue,
		    struct xrx_sink *s, struct xrx_merge_q **out)
{
	struct xrx_merge_q *q;
	struct xrx_merge *m;
	int err = 0;

	if (queue >= cfg->nr_queues)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->ring = xrx_pcap__ring_alloc(XRX_MERGE_RING_BYTES);
	if (!q->ring) {
		free(q);
		return -ENOMEM;
	}
	q->s = s;
	q->queue = queue;
	pthread_mutex_lock(&merge_groups_lock);
	/* A group this queue is not in yet; a reload opens a new set of
	 * instances while the old ones still run: a group of its own. */
	for (m = merge_groups; m; m = m->next)
		if (merge_same(&m->cfg, cfg) && !m->q[queue])
			break;
	if (!m) {
		err = merge_new(cfg, &m);
		if (!err) {
			m->next = merge_groups;
			merge_groups = m;
		}
	}
	if (!err) {
		q->m = m;
		pthread_mutex_lock(&m->lock);
		m->q[queue] = q;
		m->members++;
		pthread_mutex_unlock(&m->lock);
	}
	pthread_mutex_unlock(&merge_groups_lock);
	if (err) {
		free(q->ring);
		free(q);
		return err;
	}
	*out = q;
	return 0;
}

void xrx_merge__begin(struct xrx_merge_q *q)
{
	/* seq_cst: seen by the writer before this worker reads its clock */
	atomic_store(&q->busy, 1);
}

void xrx_merge__batch(struct xrx_merge_q *q)
{
	q->in_batch = true;
	xrx_merge__begin(q);
}

/* A delivery is over: out of it unless the batch goes on. */
static void merge_done(struct xrx_merge_q *q)
{
	if (!q->in_batch)
		atomic_store_explicit(&q->busy, 0, memory_order_release);
}

void *xrx_merge__reserve(struct xrx_merge_q *q, __u32 len, __u64 ts,
			 __u32 segs)
{
	__u64 need = MERGE_ALIGN(sizeof(struct merge_rec) + len);
	__u64 head = q->head_own, pos = head % XRX_MERGE_RING_BYTES;
	__u64 room = XRX_MERGE_RING_BYTES -
		     (head - atomic_load_explicit(&q->tail,
						  memory_order_acquire));
	__u64 contig = XRX_MERGE_RING_BYTES - pos, skip = 0;
	struct merge_rec *r;

	if (contig < need)
		skip = contig;		/* the record starts over at 0 */
	if (need + skip > room || need > XRX_MERGE_RING_BYTES / 2) {
		merge_done(q);
		return NULL;
	}
	/* the ring stays in order: a packet that arrived before what this
	 * queue has handed off or marked goes where it is delivered */
	if (ts < q->floor)
		ts = q->floor;
	q->floor = ts;
	if (skip) {
		((struct merge_rec *)(q->ring + pos))->size = 0;
		head += skip;
		pos = 0;
	}
	r = (struct merge_rec *)(q->ring + pos);
	r->size = (__u32)need;
	r->len = len;
	r->segs = segs;
	r->ts = ts;
	q->reserved = head + need;
	return r->data;
}

void xrx_merge__commit(struct xrx_merge_q *q)
{
	q->head_own = q->reserved;
	atomic_store_explicit(&q->head, q->head_own, memory_order_release);
	/* After the head: a writer that sees it clear sees the record. */
	merge_done(q);
}

void xrx_merge__mark(struct xrx_merge_q *q, __u64 now, __u64 held)
{
	if (held && held < now)
		now = held;
	if (now > q->floor)
		q->floor = now;
	atomic_store_explicit(&q->mark, now, memory_order_release);
	/* the batch is over, after its records and its mark; with packets
	 * held, this queue is not idle: as in a delivery until they are
	 * out (the hold bounds the wait) */
	q->in_batch = held != 0;
	if (!held)
		atomic_store_explicit(&q->busy, 0, memory_order_release);
	if (q->head_own - atomic_load_explicit(&q->tail, memory_order_relaxed) >=
	    MERGE_WAKE_BYTES)
		merge_wake(q->m);
}

void xrx_merge__leave(struct xrx_merge_q *q)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	struct xrx_merge *m = q->m, **pp;
	struct merge_rec *r;
	bool last;
	int i;

	/* Nothing earlier comes from this queue: the others go on. */
	xrx_merge__mark(q, ~0ull, 0);
	pthread_mutex_lock(&merge_groups_lock);
	last = m->members == 1;
	if (last) {
		for (pp = &merge_groups; *pp; pp = &(*pp)->next)
			if (*pp == m) {
				*pp = m->next;
				break;
			}
	}
	pthread_mutex_unlock(&merge_groups_lock);
	if (last) {
		/* The writer writes everything, closes the file; the
		 * closer finishes with it. */
		atomic_store(&m->stop, true);
		atomic_store(&m->sleeping, true);
		merge_wake(m);
		pthread_join(m->thread, NULL);
		if (m->fd >= 0) {
			close(m->fd);
			m->fd = -1;
			if (m->cfg.rotate_secs)
				merge_closed(m, m->cur);
		}
		if (m->c.running) {
			pthread_mutex_lock(&m->c.lock);
			m->c.stop = true;
			pthread_cond_signal(&m->c.cond);
			pthread_mutex_unlock(&m->c.lock);
			pthread_join(m->c.thread, NULL);
			m->c.running = false;
		}
		merge_move_counts(m);
		merge_free(m);
	} else {
		for (i = 0; i < (int)xrx_merge__leave_ms &&
			    atomic_load(&q->tail) != q->head_own; i++)
			nanosleep(&ms, NULL);
		pthread_mutex_lock(&m->lock);
		/* What the writer has not taken by now (a file system that
		 * hangs, a queue that holds the order up) goes with the
		 * ring: lost, and counted as records that failed to write. */
		while ((r = merge_peek(q))) {
			merge_count(q, XRX_SINK_STAT_ERRORS, 1);
			q->wtail += r->size;
		}
		merge_release(m);
		m->q[q->queue] = NULL;
		m->members--;
		pthread_mutex_unlock(&m->lock);
	}
	free(q->ring);
	free(q);
}
