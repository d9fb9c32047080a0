/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sibperf: how fast the software fabric itself moves messages between two
 * QPs, with no IPoIB on top.  The ceiling the benchmark compares against.
 */
#ifndef SIBPERF_H
#define SIBPERF_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/* What one run is asked to do. */
struct sibperf_job {
	enum ib_qp_type type;		/* IB_QPT_UD or IB_QPT_RC */
	u32 size;			/* bytes per message */
	u32 msecs;			/* how long to send */
	const char *src;		/* IB device names, port 1 of each */
	const char *dst;
};

/* What it did. */
struct sibperf_result {
	u64 msgs;			/* received by the destination QP */
	u64 bytes;			/* payload bytes received */
	u64 nsecs;			/* wall time of the sending loop */
};

/* A QP with what it needs: its own device, PD, CQ and one buffer. */
struct sibperf_end {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;		/* send and receive, polled */
	struct ib_qp *qp;
	void *buf;
	u64 dma;
	size_t len;
	u16 lid;
	enum ib_mtu mtu;
};

/* The job's sender and receiver; ah: the sender's to the receiver (UD). */
struct sibperf_pair {
	struct sibperf_end src, dst;
	struct ib_ah *ah;
};

/* Sending for a while (sibperf_run.c). */
int sibperf_run(const struct sibperf_job *job, struct sibperf_result *res);
int sibperf_pair_up(const struct sibperf_job *job, struct sibperf_pair *p);
void sibperf_pair_down(struct sibperf_pair *p);
int sibperf_post_recv(struct sibperf_end *e);
int sibperf_post_send(struct sibperf_end *e, struct ib_ah *ah, u32 size,
		      u32 remote_qpn);
int sibperf_poll_one(struct ib_cq *cq, struct ib_wc *wc,
		     unsigned long deadline);

/*
 * One send whose buffer the poster overwrites as soon as the post returns
 * (sibperf_scribble.c): what the receiver got tells when the fabric read it.
 */
struct sibperf_scribble {
	bool done_at_post;		/* the send's completion came in the post */
	bool ah_gone;			/* UD: AH destroyed before the completion */
	u32 original;			/* bytes received as first written */
	u32 overwritten;		/* bytes received as written after */
	enum ib_wc_status send_status, recv_status;
};

int sibperf_scribble(const struct sibperf_job *job,
		     struct sibperf_scribble *res);

/*
 * Sends still queued when their QP goes to error, or is destroyed
 * (sibperf_flush.c).
 */
#define SIBPERF_FLUSH_SENDS	8

struct sibperf_flush {
	u32 succeeded, flushed, failed;	/* the sender's completions */
	u32 delivered;			/* receives completed */
	u32 done_before_destroy;	/* second pair: completed by then */
};

int sibperf_flush(const struct sibperf_job *job, struct sibperf_flush *res);

/*
 * One message received into a DMA-mapped buffer, read before and after
 * its sync for the CPU (sibperf_dmasync.c).
 */
enum sibperf_mapping {
	SIBPERF_MAP_VIRTUAL,		/* the DMA address is the kernel one */
	SIBPERF_MAP_PHYSICAL,		/* the buffer's physical address */
	SIBPERF_MAP_REMAPPED,		/* elsewhere: a bounce buffer, an IOVA */
};

enum sibperf_seen {
	SIBPERF_SEEN_OLD,		/* the bytes before the receive */
	SIBPERF_SEEN_SENT,		/* the message */
	SIBPERF_SEEN_MIXED,
};

struct sibperf_dmasync {
	enum sibperf_mapping mapping;
	enum sibperf_seen unsynced, synced;
	enum ib_wc_status send_status, recv_status;
};

int sibperf_dmasync(const struct sibperf_job *job,
		    struct sibperf_dmasync *res);

#endif /* SIBPERF_H */
