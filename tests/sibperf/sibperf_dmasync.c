// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a receive buffer needs its sync, seen from the consumer: one
 * SEND into a DMA-mapped buffer that held other bytes, read once before
 * ib_dma_sync_single_for_cpu() and once after.  On a device that maps for
 * real through bounce buffers (sib dma=1, swiotlb=force) the bytes reach
 * the buffer only through the sync: the first read sees the old bytes.
 * Under virtual DMA (sib dma=0), or where the device writes the buffer
 * itself (dma=1, no bounce), both reads see the message.
 */
#include <linux/io.h>
#include <linux/jiffies.h>
#include "sibperf.h"

#define DMASYNC_OLD		0xc3
#define DMASYNC_SENT		0x3c
#define DMASYNC_WAIT_MS		5000

/* Which of the two patterns size bytes at p hold. */
static enum sibperf_seen seen(const u8 *p, u32 size)
{
	u32 old = 0, sent = 0, i;

	for (i = 0; i < size; i++) {
		old += p[i] == DMASYNC_OLD;
		sent += p[i] == DMASYNC_SENT;
	}
	if (sent == size)
		return SIBPERF_SEEN_SENT;
	if (old == size)
		return SIBPERF_SEEN_OLD;
	return SIBPERF_SEEN_MIXED;
}

/* What the receiver's DMA address is to its kernel address. */
static enum sibperf_mapping mapping(const struct sibperf_end *e)
{
	if (e->dma == (uintptr_t)e->buf)
		return SIBPERF_MAP_VIRTUAL;
	if (e->dma == virt_to_phys(e->buf))
		return SIBPERF_MAP_PHYSICAL;
	return SIBPERF_MAP_REMAPPED;
}

int sibperf_dmasync(const struct sibperf_job *job, struct sibperf_dmasync *res)
{
	size_t off = job->type == IB_QPT_UD ? sizeof(struct ib_grh) : 0;
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
	res->mapping = mapping(dst);

	/* The old bytes, where the device will look for them. */
	memset(dst->buf, DMASYNC_OLD, dst->len);
	ib_dma_sync_single_for_device(dst->dev, dst->dma, dst->len,
				      DMA_BIDIRECTIONAL);
	memset(src->buf, DMASYNC_SENT, src->len);
	ib_dma_sync_single_for_device(src->dev, src->dma, src->len,
				      DMA_BIDIRECTIONAL);
	ret = sibperf_post_recv(dst);
	if (!ret)
		ret = sibperf_post_send(src, p.ah, job->size, dst->qp->qp_num);
	if (ret)
		goto out;

	deadline = jiffies + msecs_to_jiffies(DMASYNC_WAIT_MS);
	ret = sibperf_poll_one(src->cq, &wc, deadline);
	if (ret)
		goto out;
	res->send_status = wc.status;
	ret = sibperf_poll_one(dst->cq, &wc, deadline);
	if (ret)
		goto out;
	res->recv_status = wc.status;
	if (res->send_status != IB_WC_SUCCESS ||
	    wc.status != IB_WC_SUCCESS || wc.byte_len < job->size) {
		ret = -EIO;
		goto out;
	}
	/* The bug on purpose first: read what the CPU sees, no sync. */
	res->unsynced = seen((const u8 *)dst->buf + off, job->size);
	ib_dma_sync_single_for_cpu(dst->dev, dst->dma, dst->len,
				   DMA_BIDIRECTIONAL);
	res->synced = seen((const u8 *)dst->buf + off, job->size);
out:
	sibperf_pair_down(&p);
	return ret;
}
