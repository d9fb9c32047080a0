// SPDX-License-Identifier: GPL-2.0
/*
 * When the fabric reads a send buffer, seen from outside: one SEND whose
 * buffer holds one byte value when it is posted and another as soon as
 * ib_post_send returns, as a driver that reuses a buffer before its
 * completion would leave it.  A fabric that executes in the post (sib's
 * default) delivers the first value; one that reads the buffer later, as
 * an HCA's DMA does (sib async=1), the second.  On UD the AH is destroyed
 * right after the post as well: an HCA has the address vector in its WQE
 * by then, so the message must still arrive.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include "sibperf.h"

#define SCRIBBLE_FIRST		0xa5
#define SCRIBBLE_AFTER		0x5a
#define SCRIBBLE_WAIT_MS	5000

/* One completion from cq, polling until deadline. */
int sibperf_poll_one(struct ib_cq *cq, struct ib_wc *wc, unsigned long deadline)
{
	int n;

	for (;;) {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(100, 200);
	}
}

/* What the receiver's buffer holds: first values, after values. */
static void count_bytes(const struct sibperf_end *dst, size_t off, u32 size,
			struct sibperf_scribble *res)
{
	const u8 *got = (const u8 *)dst->buf + off;
	u32 i;

	ib_dma_sync_single_for_cpu(dst->dev, dst->dma, dst->len,
				   DMA_BIDIRECTIONAL);
	for (i = 0; i < size; i++) {
		res->original += got[i] == SCRIBBLE_FIRST;
		res->overwritten += got[i] == SCRIBBLE_AFTER;
	}
}

int sibperf_scribble(const struct sibperf_job *job,
		     struct sibperf_scribble *res)
{
	bool ud = job->type == IB_QPT_UD;
	struct sibperf_end *src, *dst;
	unsigned long deadline;
	struct sibperf_pair p;
	struct ib_wc wc;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = sibperf_pair_up(job, &p);
	if (ret)
		return ret;
	src = &p.src;
	dst = &p.dst;
	ret = sibperf_post_recv(dst);
	if (ret)
		goto out;
	memset(src->buf, SCRIBBLE_FIRST, job->size);
	ib_dma_sync_single_for_device(src->dev, src->dma, src->len,
				      DMA_BIDIRECTIONAL);
	ret = sibperf_post_send(src, p.ah, job->size, dst->qp->qp_num);
	if (ret)
		goto out;
	res->done_at_post = ib_poll_cq(src->cq, 1, &wc) == 1;
	/* The bug, at once: the buffer reused before its completion. */
	memset(src->buf, SCRIBBLE_AFTER, job->size);
	ib_dma_sync_single_for_device(src->dev, src->dma, src->len,
				      DMA_BIDIRECTIONAL);
	if (ud) {
		rdma_destroy_ah(p.ah, RDMA_DESTROY_AH_SLEEPABLE);
		p.ah = NULL;
		res->ah_gone = !res->done_at_post;
	}

	deadline = jiffies + msecs_to_jiffies(SCRIBBLE_WAIT_MS);
	if (!res->done_at_post) {
		ret = sibperf_poll_one(src->cq, &wc, deadline);
		if (ret)
			goto out;
	}
	res->send_status = wc.status;
	if (wc.status != IB_WC_SUCCESS) {
		pr_warn("sibperf: scribble: the send failed: %s\n",
			ib_wc_status_msg(wc.status));
		ret = -EIO;
		goto out;
	}
	ret = sibperf_poll_one(dst->cq, &wc, deadline);
	if (ret)
		goto out;
	res->recv_status = wc.status;
	if (wc.status == IB_WC_SUCCESS && wc.byte_len >= job->size)
		count_bytes(dst, ud ? sizeof(struct ib_grh) : 0, job->size,
			    res);
out:
	sibperf_pair_down(&p);
	return ret;
}
