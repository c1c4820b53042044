// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tee (sink/tee.h): a copy of every packet to a second sink, written
 * by a thread of the tee's own, so that the primary never waits on it.
 *
 * A packet's frames go back to the UMEM once the primary releases it,
 * which a TUN primary does inside its deliver: what the tee writes later
 * cannot point into them. The worker therefore copies the packet (the
 * struct, then its head and frags as one linear buffer) into a ring of
 * bytes, one producer (the worker) and one consumer (the writer), before
 * the primary gets it. The writer delivers each record to the tee's sink
 * as a packet whose head is that buffer, flushes the sink, and only then
 * frees the records (pcap queues pointers to the bytes until its flush).
 * A full ring costs the tee the packet, counted, never the primary.
 *
 * A lossless pcap tee (sink/lossless.h) needs each aggregate's frames
 * for its segment record, and they are gone by the time the writer
 * writes the copy: the worker makes the record with the copy, while the
 * frames are still there (the cost of the copy and the record, no wait),
 * and puts it in the ring after the packet's bytes; the writer gives it
 * to the sink with the packet. An aggregate it makes none for (the
 * frames not kept in place) goes without one, which the sink writes as
 * it is and counts, as a lossless primary does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sink/capfile.h"
#include "sink/lossless.h"
#include "sink/tee.h"

/* A record: the packet as delivered, then pkt.len bytes, then a lossless
 * tee's segment record option of optlen bytes, padded to 8. A size of 0
 * says the records go on at the start of the ring. */
struct tee_rec {
	__u32 size;			/* the record's bytes, padding included */
	__u32 optlen;			/* lossless: the option's bytes */
	__u64 ts_ns;			/* lossless: the time it was made for */
	struct xrx_pkt pkt;
	__u8 data[];
};

#define TEE_ALIGN(n) (((n) + 7u) & ~(__u64)7)

static void tee_write(struct xrx_tee *t, __u64 from, __u64 to)
{
	struct tee_rec *r;
	__u64 pos;
	int err;

	while (from != to) {
		pos = from % XRX_TEE_RING_BYTES;
		r = (struct tee_rec *)(t->ring + pos);
		if (!r->size) {
			from += XRX_TEE_RING_BYTES - pos;
			continue;
		}
		r->pkt.head = r->data;
		r->pkt.head_len = r->pkt.len;
		r->pkt.frags = NULL;
		r->pkt.nr_frags = 0;
		if (t->sink_ll)
			xrx_lossless_give(t->sink_ll, r->data + r->pkt.len,
					  r->optlen, r->ts_ns);
		err = xrx_sink__deliver(t->sink, &r->pkt);
		if (err)
			atomic_store(&t->werr, err);
		from += r->size;
	}
}

static void *tee_writer(void *arg)
{
	struct xrx_tee *t = arg;
	__u64 tail = atomic_load(&t->tail), head;
	struct timespec ts;
	int err;

	for (;;) {
		head = atomic_load_explicit(&t->head, memory_order_acquire);
		if (head == tail) {
			if (atomic_load(&t->stop))
				break;
			pthread_mutex_lock(&t->lock);
			atomic_store(&t->sleeping, true);
			/* Seen with sleeping set, or the worker signals. */
			if (atomic_load(&t->head) == tail &&
			    !atomic_load(&t->stop)) {
				/* A bounded wait: a missed wake-up costs
				 * 100 ms, never the records. */
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += 100000000;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				pthread_cond_timedwait(&t->cond, &t->lock, &ts);
			}
			atomic_store(&t->sleeping, false);
			pthread_mutex_unlock(&t->lock);
			continue;
		}
		tee_write(t, tail, head);
		err = xrx_sink__flush(t->sink);
		if (err)
			atomic_store(&t->werr, err);
		pthread_mutex_lock(&t->lock);
		t->pub_lost = t->sink->stats[XRX_SINK_STAT_ERRORS] +
			      t->sink->stats[XRX_SINK_STAT_DROPPED];
		t->pub_out = t->sink->stats[XRX_SINK_STAT_PKTS_OUT];
		pthread_mutex_unlock(&t->lock);
		tail = head;
		atomic_store_explicit(&t->tail, tail, memory_order_release);
	}
	return NULL;
}

static void tee_wake(struct xrx_tee *t)
{
	if (!atomic_load(&t->sleeping))
		return;
	pthread_mutex_lock(&t->lock);
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

struct xrx_tee *xrx_tee__new(struct xrx_sink *sink)
{
	struct xrx_tee *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return NULL;
	t->ring = xrx_pcap__ring_alloc(XRX_TEE_RING_BYTES);
	if (!t->ring) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->sink = sink;
	/* A lossless capture: the worker makes the records (above). */
	t->sink_ll = xrx_sink_pcap__lossless(sink, &t->snaplen);
	if (t->sink_ll) {
		t->ll = xrx_lossless_new();
		if (!t->ll) {
			free(t->ring);
			free(t);
			errno = ENOMEM;
			return NULL;
		}
		t->sink_ll->given_only = true;
	}
	/* The tee's packets are its own copies: nothing to give back. */
	xrx_sink__bind(sink, NULL, NULL);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	err = pthread_create(&t->thread, NULL, tee_writer, t);
	if (err) {
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		if (t->sink_ll)
			t->sink_ll->given_only = false;
		xrx_lossless_free(t->ll);
		free(t->ring);
		free(t);
		errno = err;
		return NULL;
	}
	t->running = true;
	return t;
}

void xrx_tee__stop(struct xrx_tee *t)
{
	if (!t || !t->running)
		return;
	atomic_store(&t->stop, true);
	pthread_mutex_lock(&t->lock);
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	t->running = false;
}

void xrx_tee__free(struct xrx_tee *t)
{
	if (!t)
		return;
	xrx_tee__stop(t);
	xrx_sink__close(t->sink);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	xrx_lossless_free(t->ll);
	free(t->ring);
	free(t);
}

void xrx_tee__drain(struct xrx_tee *t)
{
	struct timespec ts = { .tv_nsec = 1000000 };

	if (!t)
		return;
	while (t->running && atomic_load(&t->tail) != t->head_own) {
		tee_wake(t);
		nanosleep(&ts, NULL);
	}
}

/*
 * A lossless tee: @pkt's record option, made now that its frames are
 * here, into t->ll->opt, for the block's time, its arrival time, into
 * *@ts_ns. Return: its bytes, 0 for none (the sink writes the aggregate
 * as it is, and counts it).
 */
static __u32 tee_record(struct xrx_tee *t, const struct xrx_pkt *pkt,
			__u64 *ts_ns)
{
	__u32 wire = pkt->len + (pkt->vlan_proto && pkt->head_len >= 12 ? 4 : 0);
	const __u8 *opt;

	return xrx_lossless_record(t->ll, pkt,
				   wire < t->snaplen ? wire : t->snaplen,
				   xrx_pcap__pkt_time(pkt), ts_ns, &opt);
}

/* Copy @pkt into the ring. Return: false when there is no room. */
static bool tee_put(struct xrx_tee *t, const struct xrx_pkt *pkt)
{
	__u64 ts_ns = 0;
	__u32 optlen = t->ll ? tee_record(t, pkt, &ts_ns) : 0;
	__u64 need = TEE_ALIGN(sizeof(struct tee_rec) + pkt->len + optlen);
	__u64 head = t->head_own, pos = head % XRX_TEE_RING_BYTES;
	__u64 room = XRX_TEE_RING_BYTES -
		     (head - atomic_load_explicit(&t->tail, memory_order_acquire));
	__u64 contig = XRX_TEE_RING_BYTES - pos, skip = 0;
	struct tee_rec *r;
	__u8 *d;
	__u32 i;

	if (contig < need)
		skip = contig;	/* the record starts over at 0 */
	if (need + skip > room || need > XRX_TEE_RING_BYTES / 2)
		return false;
	if (skip) {
		((struct tee_rec *)(t->ring + pos))->size = 0;
		head += skip;
		pos = 0;
	}
	r = (struct tee_rec *)(t->ring + pos);
	r->size = (__u32)need;
	r->optlen = optlen;
	r->ts_ns = ts_ns;
	r->pkt = *pkt;
	d = r->data;
	memcpy(d, pkt->head, pkt->head_len);
	d += pkt->head_len;
	for (i = 0; i < pkt->nr_frags; i++) {
		memcpy(d, pkt->frags[i].data, pkt->frags[i].len);
		d += pkt->frags[i].len;
	}
	if (optlen)
		memcpy(d, t->ll->opt, optlen);
	t->head_own = head + need;
	atomic_store_explicit(&t->head, t->head_own, memory_order_release);
	return true;
}

int xrx_tee__deliver(struct xrx_tee *t, struct xrx_sink *primary,
		     struct xrx_pkt *pkt)
{
	atomic_fetch_add_explicit(&t->in_pkts, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->in_bytes, pkt->len, memory_order_relaxed);
	/* Before the primary, which may give the frames back at once. */
	if (!tee_put(t, pkt))
		atomic_fetch_add_explicit(&t->full_pkts, 1, memory_order_relaxed);
	return xrx_sink__deliver(primary, pkt);
}

void xrx_tee__stats(const struct xrx_tee *t, __u64 *vals)
{
	xrx_sink__stats(t->sink, vals);
	vals[XRX_SINK_STAT_PKTS_IN] =
		atomic_load_explicit(&t->in_pkts, memory_order_relaxed);
	vals[XRX_SINK_STAT_BYTES_IN] =
		atomic_load_explicit(&t->in_bytes, memory_order_relaxed);
	vals[XRX_SINK_STAT_DROPPED] +=
		atomic_load_explicit(&t->full_pkts, memory_order_relaxed);
}

enum xrx_tee_turn xrx_tee__flush(struct xrx_tee *t)
{
	enum xrx_tee_turn turn = XRX_TEE_SAME;
	__u64 lost, out;
	int err;

	tee_wake(t);
	err = atomic_exchange(&t->werr, 0);
	if (err)
		t->err = err;
	pthread_mutex_lock(&t->lock);
	lost = t->pub_lost;
	out = t->pub_out;
	pthread_mutex_unlock(&t->lock);
	lost += atomic_load_explicit(&t->full_pkts, memory_order_relaxed);
	if (lost != t->lost_seen && !t->losing) {
		t->losing = true;
		t->lost_from = t->lost_seen;
		turn = XRX_TEE_LOSING;
	} else if (lost == t->lost_seen && out != t->out_seen && t->losing) {
		t->losing = false;
		t->err = 0;
		turn = XRX_TEE_WRITING;
	}
	t->lost_seen = lost;
	t->out_seen = out;
	return turn;
}

__u64 xrx_tee__episode_lost(const struct xrx_tee *t)
{
	return t->lost_seen - t->lost_from;
}
