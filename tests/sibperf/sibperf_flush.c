// SPDX-License-Identifier: GPL-2.0
/*
 * What becomes of sends still queued when their QP leaves RTS, seen from
 * outside: a few SENDs posted and the QP moved to the error state as soon
 * as the posts return.  A fabric that executes in the post (sib's
 * default) has delivered them all; one whose worker executes them later
 * (sib async=1) completes them with a flush error, and none arrives.
 * Then the same posts on a new pair whose sender is destroyed at once:
 * the destroy must not return while the fabric still holds its queue.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include "sibperf.h"

#define FLUSH_WAIT_MS	5000

/* Post n sends from the pair's sender; on the receiver n receives first. */
static int post_n(struct sibperf_pair *p, u32 size, u32 n, bool recvs)
{
	u32 i;
	int ret;

	for (i = 0; i < n && recvs; i++) {
		ret = sibperf_post_recv(&p->dst);
		if (ret)
			return ret;
	}
	memset(p->src.buf, 0x3c, size);
	ib_dma_sync_single_for_device(p->src.dev, p->src.dma, p->src.len,
				      DMA_BIDIRECTIONAL);
	for (i = 0; i < n; i++) {
		ret = sibperf_post_send(&p->src, p->ah, size,
					p->dst.qp->qp_num);
		if (ret)
			return ret;
	}
	return 0;
}

/* The sender's n completions, by status; -ETIMEDOUT if they do not come. */
static int reap_sends(struct ib_cq *cq, u32 n, struct sibperf_flush *res)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(FLUSH_WAIT_MS);
	struct ib_wc wc;
	u32 got = 0;
	int ret;

	while (got < n) {
		ret = ib_poll_cq(cq, 1, &wc);
		if (ret < 0)
			return ret;
		if (!ret) {
			if (time_after(jiffies, deadline))
				return -ETIMEDOUT;
			usleep_range(100, 200);
			continue;
		}
		got++;
		if (wc.status == IB_WC_SUCCESS)
			res->succeeded++;
		else if (wc.status == IB_WC_WR_FLUSH_ERR)
			res->flushed++;
		else
			res->failed++;
	}
	return 0;
}

int sibperf_flush(const struct sibperf_job *job, struct sibperf_flush *res)
{
	struct ib_qp_attr err = { .qp_state = IB_QPS_ERR };
	struct sibperf_pair p;
	struct ib_wc wc;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = sibperf_pair_up(job, &p);
	if (ret)
		return ret;
	ret = post_n(&p, job->size, SIBPERF_FLUSH_SENDS, true);
	if (!ret)
		ret = ib_modify_qp(p.src.qp, &err, IB_QP_STATE);
	if (!ret)
		ret = reap_sends(p.src.cq, SIBPERF_FLUSH_SENDS, res);
	/* A delivery comes before its send's completion: all are in by now. */
	while (!ret && ib_poll_cq(p.dst.cq, 1, &wc) == 1)
		res->delivered += wc.status == IB_WC_SUCCESS;
	sibperf_pair_down(&p);
	if (ret)
		return ret;

	ret = sibperf_pair_up(job, &p);
	if (ret)
		return ret;
	ret = post_n(&p, job->size, SIBPERF_FLUSH_SENDS, false);
	while (!ret && ib_poll_cq(p.src.cq, 1, &wc) == 1)
		res->done_before_destroy++;
	sibperf_pair_down(&p);
	return ret;
}
