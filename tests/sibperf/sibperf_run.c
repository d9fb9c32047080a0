// SPDX-License-Identifier: GPL-2.0
/*
 * One measurement: a QP on each of two ports, SEND messages from the first
 * to the second for a while, counted as the second receives them.  The
 * loop never posts more sends than the receiver has buffers: nothing is
 * dropped or NAKed, and the figure is the fabric's copy-and-complete rate
 * (with sib's async, completions come from its worker; the loop polls).
 */
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include "sibperf.h"

#define SIBPERF_DEPTH	64	/* sends in flight, receives posted */
#define SIBPERF_QKEY	0x5eb1f00d
#define SIBPERF_PSN	0x1000

static void end_put(struct sibperf_end *e)
{
	if (e->qp)
		ib_destroy_qp(e->qp);
	if (e->cq)
		ib_free_cq(e->cq);
	if (e->dma)
		ib_dma_unmap_single(e->dev, e->dma, e->len, DMA_BIDIRECTIONAL);
	kfree(e->buf);
	if (e->pd)
		ib_dealloc_pd(e->pd);
	if (e->dev)
		ib_device_put(e->dev);
}

static int end_get(struct sibperf_end *e, const char *name,
		   enum ib_qp_type type, size_t len)
{
	struct ib_qp_init_attr init = {
		.cap = {
			.max_send_wr = SIBPERF_DEPTH,
			.max_recv_wr = SIBPERF_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = type,
	};
	struct ib_port_attr pa;
	struct ib_qp *qp;
	int ret;

	e->dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!e->dev)
		return -ENODEV;
	ret = ib_query_port(e->dev, 1, &pa);
	if (ret)
		return ret;
	if (pa.state != IB_PORT_ACTIVE)
		return -ENETDOWN;
	e->lid = pa.lid;
	e->mtu = pa.active_mtu;

	e->pd = ib_alloc_pd(e->dev, 0);
	if (IS_ERR(e->pd)) {
		ret = PTR_ERR(e->pd);
		e->pd = NULL;
		return ret;
	}
	/* Polled by the loop itself, never armed. */
	e->cq = ib_alloc_cq(e->dev, NULL, 2 * SIBPERF_DEPTH, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->cq)) {
		ret = PTR_ERR(e->cq);
		e->cq = NULL;
		return ret;
	}
	e->len = len;
	e->buf = kzalloc(len, GFP_KERNEL);
	if (!e->buf)
		return -ENOMEM;
	e->dma = ib_dma_map_single(e->dev, e->buf, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(e->dev, e->dma)) {
		e->dma = 0;
		return -ENOMEM;
	}
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	qp = ib_create_qp(e->pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	e->qp = qp;
	return 0;
}

static void ah_to(struct rdma_ah_attr *ah, const struct sibperf_end *peer)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(ah, peer->lid);
	rdma_ah_set_port_num(ah, 1);
}

/* RESET -> INIT -> RTR -> RTS; an RC QP is aimed at its peer on the way. */
static int end_ready(struct sibperf_end *e, const struct sibperf_end *peer)
{
	bool rc = e->qp->qp_type == IB_QPT_RC;
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qkey = SIBPERF_QKEY,
	};
	int ret;

	ret = ib_modify_qp(e->qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | (rc ? IB_QP_ACCESS_FLAGS : IB_QP_QKEY));
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	if (rc) {
		ah_to(&a.ah_attr, peer);
		a.path_mtu = e->mtu;
		a.dest_qp_num = peer->qp->qp_num;
		a.rq_psn = SIBPERF_PSN;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
	}
	ret = ib_modify_qp(e->qp, &a, IB_QP_STATE | (rc ? IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER : 0));
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = SIBPERF_PSN;
	if (rc) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
	}
	return ib_modify_qp(e->qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | (rc ?
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC : 0));
}

int sibperf_post_recv(struct sibperf_end *e)
{
	struct ib_sge sge = {
		.addr = e->dma,
		.length = e->len,
		.lkey = e->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(e->qp, &wr, NULL);
}

int sibperf_post_send(struct sibperf_end *e, struct ib_ah *ah, u32 size,
		      u32 remote_qpn)
{
	struct ib_sge sge = {
		.addr = e->dma,
		.length = size,
		.lkey = e->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.ah = ah,
		.remote_qpn = remote_qpn,
		.remote_qkey = SIBPERF_QKEY,
	};

	return ib_post_send(e->qp, &wr.wr, NULL);
}

/* Reap completions; return how many, or -EIO on a failed one. */
static int reap(struct sibperf_end *e)
{
	struct ib_wc wc[16];
	int n, i, total = 0;

	while ((n = ib_poll_cq(e->cq, ARRAY_SIZE(wc), wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].status != IB_WC_SUCCESS) {
				pr_warn("sibperf: completion failed: %s\n",
					ib_wc_status_msg(wc[i].status));
				return -EIO;
			}
		}
		total += n;
	}
	return n < 0 ? n : total;
}

static int send_loop(const struct sibperf_job *job, struct sibperf_end *src,
		     struct sibperf_end *dst, struct ib_ah *ah,
		     struct sibperf_result *res)
{
	u32 ready = 0, inflight = 0, i;
	ktime_t start, end;
	int ret, n;

	for (i = 0; i < SIBPERF_DEPTH; i++) {
		ret = sibperf_post_recv(dst);
		if (ret)
			return ret;
		ready++;
	}
	start = ktime_get();
	end = ktime_add_ms(start, job->msecs);
	while (ktime_before(ktime_get(), end)) {
		while (ready && inflight < SIBPERF_DEPTH) {
			ret = sibperf_post_send(src, ah, job->size, dst->qp->qp_num);
			if (ret)
				return ret;
			ready--;
			inflight++;
		}
		n = reap(src);
		if (n < 0)
			return n;
		inflight -= n;
		n = reap(dst);
		if (n < 0)
			return n;
		res->msgs += n;
		while (n--) {
			ret = sibperf_post_recv(dst);
			if (ret)
				return ret;
			ready++;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	res->nsecs = ktime_to_ns(ktime_sub(ktime_get(), start));
	res->bytes = res->msgs * job->size;
	return 0;
}

/* Undo sibperf_pair_up(), whatever of it was done. */
void sibperf_pair_down(struct sibperf_pair *p)
{
	if (p->ah)
		rdma_destroy_ah(p->ah, RDMA_DESTROY_AH_SLEEPABLE);
	p->ah = NULL;
	end_put(&p->dst);
	end_put(&p->src);
}

/* The job's two QPs in RTS, and for UD the sender's AH to the receiver. */
int sibperf_pair_up(const struct sibperf_job *job, struct sibperf_pair *p)
{
	bool ud = job->type == IB_QPT_UD;
	/* A UD receive buffer starts with room for the GRH. */
	size_t len = job->size + (ud ? sizeof(struct ib_grh) : 0);
	struct rdma_ah_attr ah_attr;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = end_get(&p->src, job->src, job->type, len);
	if (!ret)
		ret = end_get(&p->dst, job->dst, job->type, len);
	if (ret)
		goto err;
	if (ud && job->size > ib_mtu_enum_to_int(p->src.mtu)) {
		ret = -EMSGSIZE;
		goto err;
	}
	ret = end_ready(&p->src, &p->dst);
	if (!ret)
		ret = end_ready(&p->dst, &p->src);
	if (ret)
		goto err;
	if (ud) {
		ah_to(&ah_attr, &p->dst);
		p->ah = rdma_create_ah(p->src.pd, &ah_attr,
				       RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(p->ah)) {
			ret = PTR_ERR(p->ah);
			p->ah = NULL;
			goto err;
		}
	}
	return 0;
err:
	sibperf_pair_down(p);
	return ret;
}

int sibperf_run(const struct sibperf_job *job, struct sibperf_result *res)
{
	struct sibperf_pair p;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = sibperf_pair_up(job, &p);
	if (ret)
		return ret;
	ret = send_loop(job, &p.src, &p.dst, p.ah, res);
	sibperf_pair_down(&p);
	return ret;
}
