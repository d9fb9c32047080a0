// SPDX-License-Identifier: GPL-2.0
/*
 * UD datagrams addressed by GID, which rdma_cm does not send: an endpoint
 * (a UD QP with receives posted) on a device's port, and single sends
 * from one to another with a GRH whose source is any entry of the port's
 * GID table.  Each endpoint counts what it took and keeps the last one's
 * GRH, so a case sees which SGID reached it and to which of its GIDs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "rdmaprobe.h"

#define RP_UD_QKEY	0x52505544	/* "RPUD" */
#define RP_UD_RECVS	8
#define RP_UD_GRH	40		/* each receive buffer starts with it */
#define RP_UD_HOP_LIMIT	1		/* stays in the subnet */

struct rp_ud;

struct rp_ud_recv {
	struct ib_cqe cqe;
	struct rp_ud *ud;
	struct rp_buf buf;
};

struct rp_ud {
	struct list_head link;		/* rp_uds, under rp_ud_mutex */
	struct ib_device *dev;
	u32 port;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct rp_ud_recv recv[RP_UD_RECVS];
	struct rp_buf send;
	struct ib_cqe send_cqe;
	struct completion sent;
	enum ib_wc_status send_status;
	struct ib_ah *stale_ah;		/* of a send that never completed */
	u32 seq;			/* of the last send */

	spinlock_t lock;		/* posting receives and what follows */
	bool closing;			/* no more posting: the QP is going */
	u64 got, bad;
	u32 last_seq, last_len;
	u16 last_slid;
	bool last_grh, last_ok;
	union ib_gid last_sgid, last_dgid;
};

static LIST_HEAD(rp_uds);
static DEFINE_MUTEX(rp_ud_mutex);	/* the list, opening and closing */
static struct ib_client rp_ud_client;

static struct rp_ud *rp_ud_find(struct ib_device *dev, u32 port)
{
	struct rp_ud *ud;

	lockdep_assert_held(&rp_ud_mutex);
	list_for_each_entry(ud, &rp_uds, link)
		if (ud->dev == dev && ud->port == port)
			return ud;
	return NULL;
}

/* Under ud->lock. */
static int rp_ud_post_recv(struct rp_ud_recv *r)
{
	struct ib_sge sge = {
		.addr = r->buf.dma,
		.length = r->buf.size,
		.lkey = r->ud->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	if (r->ud->closing)
		return 0;
	return ib_post_recv(r->ud->qp, &wr, NULL);
}

/* A datagram: [be32 seq][rp_fill() of the rest], after the GRH room. */
static void rp_ud_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_ud_recv *r = container_of(wc->wr_cqe, struct rp_ud_recv, cqe);
	struct rp_ud *ud = r->ud;
	const struct ib_grh *grh = r->buf.va;
	const u8 *msg = r->buf.va + RP_UD_GRH;
	u32 len = wc->byte_len > RP_UD_GRH ? wc->byte_len - RP_UD_GRH : 0;
	unsigned long flags;
	u32 seq;
	bool ok;

	if (wc->status != IB_WC_SUCCESS)
		return;			/* flushed: the endpoint is closing */
	ib_dma_sync_single_for_cpu(ud->dev, r->buf.dma, r->buf.size,
				   DMA_FROM_DEVICE);
	seq = len >= sizeof(__be32) ? be32_to_cpup((const __be32 *)msg) : 0;
	ok = len >= sizeof(__be32) &&
	     rp_check(msg + sizeof(__be32), len - sizeof(__be32), seq,
		      RP_MSG_DATA);
	spin_lock_irqsave(&ud->lock, flags);
	ud->got++;
	ud->bad += !ok;
	ud->last_seq = seq;
	ud->last_len = len;
	ud->last_slid = wc->slid;
	ud->last_ok = ok;
	ud->last_grh = wc->wc_flags & IB_WC_GRH;
	if (ud->last_grh) {
		ud->last_sgid = grh->sgid;
		ud->last_dgid = grh->dgid;
	}
	ib_dma_sync_single_for_device(ud->dev, r->buf.dma, r->buf.size,
				      DMA_FROM_DEVICE);
	if (rp_ud_post_recv(r))
		rp_log("ud %s:%u: receive not posted again",
		       dev_name(&ud->dev->dev), ud->port);
	spin_unlock_irqrestore(&ud->lock, flags);
}

static void rp_ud_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_ud *ud = container_of(wc->wr_cqe, struct rp_ud, send_cqe);

	ud->send_status = wc->status;
	complete(&ud->sent);
}

/* Reset, INIT, RTR, RTS: a UD QP as IBA 11.4 has it set up. */
static int rp_ud_qp_up(struct rp_ud *ud)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = ud->port,
		.qkey = RP_UD_QKEY,
	};
	int ret;

	ret = ib_modify_qp(ud->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(ud->qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	return ib_modify_qp(ud->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static void rp_ud_free(struct rp_ud *ud)
{
	int i;

	spin_lock_irq(&ud->lock);
	ud->closing = true;
	spin_unlock_irq(&ud->lock);
	if (ud->qp)
		ib_destroy_qp(ud->qp);
	if (ud->stale_ah)
		rdma_destroy_ah(ud->stale_ah, 0);
	if (ud->cq)
		ib_free_cq(ud->cq);
	for (i = 0; i < RP_UD_RECVS; i++)
		rp_buf_free(ud->dev, &ud->recv[i].buf);
	rp_buf_free(ud->dev, &ud->send);
	if (ud->pd)
		ib_dealloc_pd(ud->pd);
	kfree(ud);
}

static int rp_ud_open(struct ib_device *dev, u32 port)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = RP_UD_RECVS,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	size_t size = RP_UD_GRH + RP_UD_MAX;
	struct rp_ud *ud;
	int i, ret;

	if (rp_ud_find(dev, port))
		return -EEXIST;
	ud = kzalloc(sizeof(*ud), GFP_KERNEL);
	if (!ud)
		return -ENOMEM;
	ud->dev = dev;
	ud->port = port;
	spin_lock_init(&ud->lock);
	init_completion(&ud->sent);
	ud->send_cqe.done = rp_ud_send_done;
	ud->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(ud->pd)) {
		ret = PTR_ERR(ud->pd);
		ud->pd = NULL;
		goto err;
	}
	ud->cq = ib_alloc_cq(dev, ud, RP_UD_RECVS + 1, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(ud->cq)) {
		ret = PTR_ERR(ud->cq);
		ud->cq = NULL;
		goto err;
	}
	ret = rp_buf_alloc(dev, &ud->send, size, DMA_TO_DEVICE);
	for (i = 0; !ret && i < RP_UD_RECVS; i++) {
		ud->recv[i].ud = ud;
		ud->recv[i].cqe.done = rp_ud_recv_done;
		ret = rp_buf_alloc(dev, &ud->recv[i].buf, size,
				   DMA_FROM_DEVICE);
	}
	if (ret)
		goto err;
	init.send_cq = ud->cq;
	init.recv_cq = ud->cq;
	ud->qp = ib_create_qp(ud->pd, &init);
	if (IS_ERR(ud->qp)) {
		ret = PTR_ERR(ud->qp);
		ud->qp = NULL;
		goto err;
	}
	ret = rp_ud_qp_up(ud);
	spin_lock_irq(&ud->lock);
	for (i = 0; !ret && i < RP_UD_RECVS; i++)
		ret = rp_ud_post_recv(&ud->recv[i]);
	spin_unlock_irq(&ud->lock);
	if (ret)
		goto err;
	list_add_tail(&ud->link, &rp_uds);
	rp_log("ud %s:%u open: qpn 0x%x qkey 0x%x", dev_name(&dev->dev), port,
	       ud->qp->qp_num, RP_UD_QKEY);
	return 0;

err:
	rp_ud_free(ud);
	return ret;
}

/* One datagram from ud with a GRH: SGID entry a->sgid_index to a->dgid. */
static int rp_ud_send(struct rp_ud *ud, const struct rp_ud_args *a)
{
	struct rdma_ah_attr ah_attr = {};
	struct ib_sge sge = {
		.addr = ud->send.dma,
		.length = a->len,
		.lkey = ud->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &ud->send_cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_qpn = a->qpn,
		.remote_qkey = RP_UD_QKEY,
	};
	const char *dev = dev_name(&ud->dev->dev);
	union ib_gid dgid = a->dgid;
	unsigned long wait;
	struct ib_ah *ah;
	int ret;

	ah_attr.type = rdma_ah_find_type(ud->dev, ud->port);
	rdma_ah_set_port_num(&ah_attr, ud->port);
	rdma_ah_set_dlid(&ah_attr, a->lid);
	rdma_ah_set_grh(&ah_attr, &dgid, 0, a->sgid_index,
			RP_UD_HOP_LIMIT, 0);
	ah = rdma_create_ah(ud->pd, &ah_attr, 0);
	if (IS_ERR(ah)) {
		rp_log("ud %s:%u: no address handle with SGID index %u: %ld",
		       dev, ud->port, a->sgid_index, PTR_ERR(ah));
		return PTR_ERR(ah);
	}
	wr.ah = ah;
	ud->seq++;
	*(__be32 *)ud->send.va = cpu_to_be32(ud->seq);
	rp_fill(ud->send.va + sizeof(__be32), a->len - sizeof(__be32),
		ud->seq, RP_MSG_DATA);
	ib_dma_sync_single_for_device(ud->dev, ud->send.dma, a->len,
				      DMA_TO_DEVICE);
	reinit_completion(&ud->sent);
	ret = ib_post_send(ud->qp, &wr.wr, NULL);
	wait = msecs_to_jiffies(a->timeout_ms);
	if (!ret && !wait_for_completion_timeout(&ud->sent, wait))
		ret = -ETIMEDOUT;
	if (!ret && ud->send_status != IB_WC_SUCCESS)
		ret = -EIO;
	rp_log("ud %s:%u sent seq %u len %u from SGID index %u to %pI6 LID %u QPN 0x%x: %d",
	       dev, ud->port, ud->seq, a->len, a->sgid_index, a->dgid.raw,
	       a->lid, a->qpn, ret);
	/* A send that never completed may still use its AH: kept till close. */
	if (ret == -ETIMEDOUT && !ud->stale_ah)
		ud->stale_ah = ah;
	else
		rdma_destroy_ah(ah, 0);
	return ret;
}

static struct ib_device *rp_ud_dev(const char *name)
{
	struct ib_device *dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);

	if (!dev)
		pr_info("ud: no RDMA device %s\n", name);
	return dev;
}

int rp_ud_command(enum rp_ud_op op, const struct rp_ud_args *a)
{
	struct ib_device *dev = rp_ud_dev(a->dev);
	struct rp_ud *ud;
	int ret;

	if (!dev)
		return -ENODEV;
	mutex_lock(&rp_ud_mutex);
	ud = rp_ud_find(dev, a->port);
	if (op == RP_UD_OPEN) {
		ret = a->port >= 1 && a->port <= dev->phys_port_cnt ?
		      rp_ud_open(dev, a->port) : -EINVAL;
	} else if (!ud) {
		pr_info("ud: no endpoint on %s port %u\n", a->dev, a->port);
		ret = -ENOENT;
	} else if (op == RP_UD_SEND) {
		ret = rp_ud_send(ud, a);
	} else {
		list_del(&ud->link);
		rp_ud_free(ud);
		ret = 0;
	}
	mutex_unlock(&rp_ud_mutex);
	ib_device_put(dev);
	return ret;
}

/* One line per endpoint: what it took, and the last one's GRH. */
void rp_uds_show(struct seq_file *s)
{
	struct rp_ud *ud;

	mutex_lock(&rp_ud_mutex);
	list_for_each_entry(ud, &rp_uds, link) {
		spin_lock_irq(&ud->lock);
		seq_printf(s, "ud %s:%u qpn 0x%x received %llu bad %llu",
			   dev_name(&ud->dev->dev), ud->port, ud->qp->qp_num,
			   ud->got, ud->bad);
		if (ud->got)
			seq_printf(s, " last seq %u len %u slid %u %s",
				   ud->last_seq, ud->last_len, ud->last_slid,
				   ud->last_ok ? "bytes ok" : "bytes BAD");
		if (ud->got && ud->last_grh)
			seq_printf(s, " sgid %pI6 dgid %pI6",
				   ud->last_sgid.raw, ud->last_dgid.raw);
		spin_unlock_irq(&ud->lock);
		seq_putc(s, '\n');
	}
	mutex_unlock(&rp_ud_mutex);
}

static int rp_ud_add_one(struct ib_device *dev)
{
	return 0;
}

/* A device going away takes its endpoints with it. */
static void rp_ud_remove_one(struct ib_device *dev, void *client_data)
{
	struct rp_ud *ud, *next;

	mutex_lock(&rp_ud_mutex);
	list_for_each_entry_safe(ud, next, &rp_uds, link) {
		if (ud->dev != dev)
			continue;
		list_del(&ud->link);
		rp_ud_free(ud);
	}
	mutex_unlock(&rp_ud_mutex);
}

static struct ib_client rp_ud_client = {
	.name = "rdmaprobe_ud",
	.add = rp_ud_add_one,
	.remove = rp_ud_remove_one,
};

int rp_ud_init(void)
{
	return ib_register_client(&rp_ud_client);
}

void rp_ud_exit(void)
{
	ib_unregister_client(&rp_ud_client);
}
