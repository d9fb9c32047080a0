// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA WRITE and READ through a fast-registered region, as kernel storage
 * protocols use them.  The passive side registers RP_REGION_PAGES pages
 * (ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR) when a DATA asks for it and
 * sends address, length and rkey in its REPLY; the active side writes a
 * pattern there, reads it back, compares, and says WRITTEN; the passive
 * side checks the region, invalidates the key (IB_WR_LOCAL_INV) and only
 * then answers CHECKED.  Devices without IB_DEVICE_MEM_MGT_EXTENSIONS
 * are told apart with a clear line in the log on both sides.
 */
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include "rdmaprobe.h"

#define RP_REGION_ORDER	get_order(RP_REGION_LEN)

static const char *const rp_qp_state_names[] = {
	[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT", [IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS", [IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

static void rp_no_fast_reg(struct rp_conn *conn)
{
	const struct ib_device_attr *attrs = &conn->id->device->attrs;

	if (!(attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		rp_log("%s: %s lacks IB_DEVICE_MEM_MGT_EXTENSIONS: no RDMA WRITE/READ",
		       conn->name, dev_name(&conn->id->device->dev));
	else
		rp_log("%s: %s registers %u pages at most, %u needed",
		       conn->name, dev_name(&conn->id->device->dev),
		       attrs->max_fast_reg_page_list_len, RP_REGION_PAGES);
}

static void rp_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *conn = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		rp_log("%s REG_MR: %s", conn->name,
		       ib_wc_status_msg(wc->status));
}

/* The key is invalid now: say CHECKED, with the verdict kept for it. */
static void rp_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *conn = cq->cq_context;
	int ret;

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		return;
	if (wc->status != IB_WC_SUCCESS) {
		rp_log("%s LOCAL_INV: %s", conn->name,
		       ib_wc_status_msg(wc->status));
		conn->region_status = EIO;
	} else {
		conn->region_live = false;
		rp_log("%s LOCAL_INV of rkey 0x%08x done", conn->name,
		       conn->mr->rkey);
	}
	ret = rp_post_msg(conn, NULL, RP_MSG_CHECKED, conn->region_seq, 0,
			  conn->region_status, 0);
	if (ret)
		rp_log("%s could not send CHECKED: %d", conn->name, ret);
}

/* At accept, when the device can: the pages, their mapping and an MR. */
int rp_region_alloc(struct rp_conn *conn)
{
	struct ib_device *dev = conn->id->device;
	int ret;

	conn->reg_cqe.done = rp_reg_done;
	conn->inv_cqe.done = rp_inv_done;
	conn->region = alloc_pages(GFP_KERNEL | __GFP_ZERO, RP_REGION_ORDER);
	if (!conn->region)
		return -ENOMEM;
	sg_init_table(&conn->region_sg, 1);
	sg_set_page(&conn->region_sg, conn->region, RP_REGION_LEN, 0);
	if (ib_dma_map_sg(dev, &conn->region_sg, 1, DMA_BIDIRECTIONAL) != 1) {
		ret = -ENOMEM;
		goto err_pages;
	}
	conn->region_mapped = true;
	conn->mr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG, RP_REGION_PAGES);
	if (IS_ERR(conn->mr)) {
		ret = PTR_ERR(conn->mr);
		conn->mr = NULL;
		goto err_map;
	}
	return 0;

err_map:
	ib_dma_unmap_sg(dev, &conn->region_sg, 1, DMA_BIDIRECTIONAL);
	conn->region_mapped = false;
err_pages:
	__free_pages(conn->region, RP_REGION_ORDER);
	conn->region = NULL;
	return ret;
}

/* After the QP is gone, before the PD goes. */
void rp_region_free(struct rp_conn *conn)
{
	if (conn->mr)
		ib_dereg_mr(conn->mr);
	conn->mr = NULL;
	if (conn->region_mapped)
		ib_dma_unmap_sg(conn->id->device, &conn->region_sg, 1,
				DMA_BIDIRECTIONAL);
	conn->region_mapped = false;
	if (conn->region)
		__free_pages(conn->region, RP_REGION_ORDER);
	conn->region = NULL;
}

/*
 * A DATA asked for a region: map it under a fresh key and build the
 * REG_MR to post before the REPLY, whose region fields are filled in.
 */
int rp_region_offer(struct rp_conn *conn, u32 seq, struct ib_reg_wr *reg,
		    struct rp_msg *reply)
{
	struct ib_device *dev = conn->id->device;
	int n;

	if (!conn->mr) {
		rp_no_fast_reg(conn);
		return -EOPNOTSUPP;
	}
	if (conn->region_live) {
		rp_log("%s: the region is still registered", conn->name);
		return -EBUSY;
	}
	/* Zeroes, so that a READ of bytes never written shows. */
	memset(page_address(conn->region), 0, RP_REGION_LEN);
	ib_dma_sync_single_for_device(dev, sg_dma_address(&conn->region_sg),
				      RP_REGION_LEN, DMA_BIDIRECTIONAL);
	n = ib_map_mr_sg(conn->mr, &conn->region_sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		rp_log("%s: ib_map_mr_sg mapped %d of 1 entries", conn->name,
		       n);
		return n < 0 ? n : -EINVAL;
	}
	ib_update_fast_reg_key(conn->mr, ib_inc_rkey(conn->mr->rkey));
	*reg = (struct ib_reg_wr) {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.wr_cqe = &conn->reg_cqe,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = conn->mr,
		.key = conn->mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	reply->addr = cpu_to_be64(conn->mr->iova);
	reply->rkey = cpu_to_be32(conn->mr->rkey);
	reply->rlen = cpu_to_be32(conn->mr->length);
	conn->region_seq = seq;
	conn->region_live = true;
	rp_log("%s registered %llu bytes (%u pages) at 0x%llx rkey 0x%08x",
	       conn->name, conn->mr->length, RP_REGION_PAGES, conn->mr->iova,
	       conn->mr->rkey);
	return 0;
}

/*
 * WRITTEN arrived: compare the region with what the peer wrote, then
 * invalidate the key; rp_inv_done() answers CHECKED.
 */
int rp_region_check(struct rp_conn *conn, const struct rp_msg *msg)
{
	u32 seq = be32_to_cpu(msg->seq), rlen = be32_to_cpu(msg->rlen);
	struct rp_msg *reply = conn->send.va;
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV,
		.wr_cqe = &conn->inv_cqe,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long flags;
	void *va;
	u32 crc;
	bool ok;
	int ret = -ENOTCONN;

	if (!conn->region_live || seq != conn->region_seq ||
	    rlen > conn->mr->length) {
		rp_log("%s: WRITTEN seq %u of %u bytes names no region of ours",
		       conn->name, seq, rlen);
		return rp_post_msg(conn, NULL, RP_MSG_CHECKED, seq, 0, EINVAL,
				   0);
	}
	ib_dma_sync_single_for_cpu(conn->id->device,
				   sg_dma_address(&conn->region_sg),
				   RP_REGION_LEN, DMA_BIDIRECTIONAL);
	va = page_address(conn->region);
	crc = rp_crc(va, rlen);
	ok = crc == be32_to_cpu(msg->crc) &&
	     rp_check(va, rlen, seq, RP_MSG_WRITTEN);
	rp_log("%s region holds %u bytes crc32 0x%08x, %s what the peer wrote",
	       conn->name, rlen, crc, ok ? "matches" : "DIFFERS from");
	conn->region_status = ok ? 0 : EBADMSG;
	reply->crc = cpu_to_be32(crc);
	inv.ex.invalidate_rkey = conn->mr->rkey;
	spin_lock_irqsave(&conn->lock, flags);
	if (!conn->dead)
		ret = ib_post_send(conn->id->qp, &inv, NULL);
	spin_unlock_irqrestore(&conn->lock, flags);
	return ret;
}

static const char *rp_qp_state(struct rp_conn *conn)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(conn->id->qp, &attr, IB_QP_STATE, &init) ||
	    attr.qp_state >= ARRAY_SIZE(rp_qp_state_names))
		return "unknown";
	return rp_qp_state_names[attr.qp_state];
}

/* One RDMA WRITE or READ of len bytes, waited for. */
static int rp_rdma_op(struct rp_conn *conn, enum ib_wr_opcode op,
		      struct rp_buf *local, u32 len, u64 addr, u32 rkey,
		      unsigned int timeout_ms)
{
	struct ib_sge sge = {
		.addr = local->dma,
		.length = len,
		.lkey = conn->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &conn->rdma_cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = addr,
		.rkey = rkey,
	};
	const char *what = op == IB_WR_RDMA_WRITE ? "RDMA WRITE" : "RDMA READ";
	unsigned long flags;
	int ret = -ENOTCONN;

	spin_lock_irqsave(&conn->lock, flags);
	if (!conn->dead) {
		conn->rdma.done = false;
		ret = ib_post_send(conn->id->qp, &wr.wr, NULL);
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	if (ret) {
		rp_log("%s %s: post failed: %d", conn->name, what, ret);
		return ret;
	}
	ret = rp_wait_done(conn, &conn->rdma, timeout_ms);
	if (ret) {
		rp_log("%s %s: no completion: %d", conn->name, what, ret);
		return ret;
	}
	if (conn->rdma.status != IB_WC_SUCCESS) {
		rp_log("%s %s of %u bytes at 0x%llx rkey 0x%08x: %s (%d), qp state %s",
		       conn->name, what, len, addr, rkey,
		       ib_wc_status_msg(conn->rdma.status), conn->rdma.status,
		       rp_qp_state(conn));
		return conn->rdma.status == IB_WC_REM_ACCESS_ERR ? -EREMOTEIO :
								     -EIO;
	}
	return 0;
}

/*
 * The active side, after a REPLY that offered a region: write it, read it
 * back, compare, say WRITTEN and wait for CHECKED.  rkey_mode RP_RKEY_BAD
 * writes with a key the region does not have; RP_RKEY_STALE writes once
 * more after the peer invalidated it.  Both must fail.
 */
int rp_rdma_run(struct rp_conn *conn, const struct rp_msg *offer, u32 seq,
		enum rp_rkey rkey_mode, unsigned int timeout_ms)
{
	struct ib_device *dev = conn->id->device;
	u32 rlen = be32_to_cpu(offer->rlen), rkey = be32_to_cpu(offer->rkey);
	u64 addr = be64_to_cpu(offer->addr);
	struct rp_msg *msg = conn->send.va, *ans = conn->recv.va;
	u32 crc, key;
	int ret;

	if (!rp_has_fast_reg(conn)) {
		rp_no_fast_reg(conn);
		return -EOPNOTSUPP;
	}
	if (offer->status) {
		rp_log("%s: the peer registered no region (errno %u)",
		       conn->name, be16_to_cpu(offer->status));
		return -EOPNOTSUPP;
	}
	if (!rlen || rlen > RP_REGION_LEN) {
		rp_log("%s: the peer offered a region of %u bytes", conn->name,
		       rlen);
		return -EPROTO;
	}
	if (!conn->wsrc.va) {
		ret = rp_buf_alloc(dev, &conn->wsrc, RP_REGION_LEN,
				   DMA_TO_DEVICE);
		if (!ret)
			ret = rp_buf_alloc(dev, &conn->rdst, RP_REGION_LEN,
					   DMA_FROM_DEVICE);
		if (ret)
			return ret;
	}
	rp_fill(conn->wsrc.va, rlen, seq, RP_MSG_WRITTEN);
	crc = rp_crc(conn->wsrc.va, rlen);
	ib_dma_sync_single_for_device(dev, conn->wsrc.dma, rlen,
				      DMA_TO_DEVICE);

	key = rkey_mode == RP_RKEY_BAD ? ib_inc_rkey(rkey) : rkey;
	ret = rp_rdma_op(conn, IB_WR_RDMA_WRITE, &conn->wsrc, rlen, addr, key,
			 timeout_ms);
	if (ret)
		return ret;
	rp_log("%s RDMA WRITE %u bytes crc32 0x%08x to 0x%llx rkey 0x%08x",
	       conn->name, rlen, crc, addr, key);

	memset(conn->rdst.va, 0, rlen);
	ib_dma_sync_single_for_device(dev, conn->rdst.dma, rlen,
				      DMA_FROM_DEVICE);
	ret = rp_rdma_op(conn, IB_WR_RDMA_READ, &conn->rdst, rlen, addr, key,
			 timeout_ms);
	if (ret)
		return ret;
	ib_dma_sync_single_for_cpu(dev, conn->rdst.dma, rlen, DMA_FROM_DEVICE);
	ret = memcmp(conn->rdst.va, conn->wsrc.va, rlen) ? -EBADMSG : 0;
	rp_log("%s RDMA READ %u bytes crc32 0x%08x back, %s what was written",
	       conn->name, rlen, rp_crc(conn->rdst.va, rlen),
	       ret ? "DIFFERS from" : "matches");
	if (ret)
		return ret;

	memset(msg, 0, sizeof(*msg));
	msg->crc = cpu_to_be32(crc);
	msg->rlen = cpu_to_be32(rlen);
	ret = rp_post_msg(conn, NULL, RP_MSG_WRITTEN, seq, 0, 0, 0);
	if (!ret)
		ret = rp_wait_done(conn, &conn->received, timeout_ms);
	if (!ret)
		ret = rp_recv_msg(conn, RP_MSG_CHECKED, seq);
	if (ret) {
		rp_log("%s: no CHECKED from the peer: %d", conn->name, ret);
		return ret;
	}
	rp_log("%s peer checked its region: crc32 0x%08x, %s", conn->name,
	       be32_to_cpu(ans->crc), ans->status ? "DIFFERS" : "matches");
	if (ans->status)
		return -EBADMSG;
	ret = rp_post_recv(conn);
	if (ret || rkey_mode != RP_RKEY_STALE)
		return ret;

	/* The peer invalidated the key before it answered. */
	ret = rp_rdma_op(conn, IB_WR_RDMA_WRITE, &conn->wsrc, rlen, addr, rkey,
			 timeout_ms);
	if (!ret)
		rp_log("%s RDMA WRITE with the invalidated rkey 0x%08x went through",
		       conn->name, rkey);
	return ret ?: -EPROTO;
}
