// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation, the IBA state machine, the error flush, and
 * destruction.  Work queues are rings of fixed-size entries.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/wait.h>
#include <rdma/ib_mad.h>
#include "sib.h"
#include "sib_timers.h"

/*
 * Lock order: a QP's send queue lock, then its receive queue lock (only
 * set_state() holds both), then a CQ lock.  The two queues' locks are
 * lockdep classes of their own, so that nesting them is not taken for
 * recursion; an SRQ's lock has a class of its own too (sib_srq.c).
 */
static struct lock_class_key sib_sq_lock_key, sib_rq_lock_key;

/* One spot names the class: lockdep warns when a key is seen under two names. */
static void sib_wq_lock_init(struct sib_wq *wq, struct lock_class_key *key)
{
	spin_lock_init(&wq->lock);
	lockdep_set_class(&wq->lock, key);
}

int sib_wq_init(struct sib_wq *wq, u32 entries, u32 max_sge, size_t hdr,
		struct lock_class_key *key)
{
	u32 n = roundup_pow_of_two(max_t(u32, entries, 1));

	sib_wq_lock_init(wq, key);
	wq->stride = ALIGN(hdr + max_sge * sizeof(struct ib_sge), 16);
	wq->buf = kvcalloc(n, wq->stride, GFP_KERNEL);
	if (!wq->buf)
		return -ENOMEM;
	wq->mask = n - 1;
	wq->head = 0;
	wq->tail = 0;
	wq->max_sge = max_sge;
	return 0;
}

void sib_wq_free(struct sib_wq *wq)
{
	kvfree(wq->buf);
	wq->buf = NULL;
}

/* Caps past the device's limits are refused, as an HCA refuses them. */
static int check_caps(struct sib_dev *sdev, struct ib_qp_init_attr *init)
{
	const struct ib_device_attr *lim = &sdev->ibdev.attrs;
	struct ib_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > lim->max_qp_wr ||
	    cap->max_send_sge > lim->max_send_sge ||
	    cap->max_inline_data > sib_max_inline)
		return -EINVAL;
	if (!init->srq &&
	    (cap->max_recv_wr > lim->max_qp_wr ||
	     cap->max_recv_sge > lim->max_recv_sge))
		return -EINVAL;
	if (init->create_flags & ~(IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |
				   IB_QP_CREATE_IPOIB_UD_LSO |
				   IB_QP_CREATE_SOURCE_QPN))
		return -EOPNOTSUPP;
	if ((init->create_flags & IB_QP_CREATE_IPOIB_UD_LSO) &&
	    (!sib_lso_enabled || init->qp_type != IB_QPT_UD))
		return -EINVAL;
	/*
	 * ib_core has no capability bit for it: a provider takes the flag or
	 * refuses it, -EOPNOTSUPP as mlx5 does for a port that is not IB.
	 */
	if ((init->create_flags & IB_QP_CREATE_SOURCE_QPN) &&
	    (!sib_source_qpn_enabled || init->qp_type != IB_QPT_UD))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * IB_QP_CREATE_SOURCE_QPN: the QP's sends carry another UD QP's number as
 * their DETH source QPN (enhanced IPoIB's send queues, which all send as
 * the one QPN the interface advertises).  It must name a UD QP of ours.
 * Before the QP has a number; 0 until then when the flag is not given.
 */
static int set_send_qpn(struct sib_qp *qp, struct ib_qp_init_attr *init)
{
	struct sib_qp *owner;
	int ret = 0;

	qp->send_qpn = 0;
	if (!(init->create_flags & IB_QP_CREATE_SOURCE_QPN))
		return 0;
	xa_lock(&qp->sdev->qps);
	owner = init->source_qpn > 1 ?
		xa_load(&qp->sdev->qps, init->source_qpn) : NULL;
	if (!owner || owner->type != IB_QPT_UD)
		ret = -EINVAL;
	xa_unlock(&qp->sdev->qps);
	if (ret) {
		pr_warn_ratelimited("sib: %s: source QPN 0x%x is not a UD QP of this HCA\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    init->source_qpn);
		return ret;
	}
	qp->send_qpn = init->source_qpn;
	return 0;
}

/* QP0 and QP1 live in their port; all others in the device's table. */
static int assign_qpn(struct sib_qp *qp, struct ib_qp_init_attr *init)
{
	struct sib_dev *sdev = qp->sdev;
	unsigned long flags;
	u32 qpn;
	int ret;

	if (init->qp_type == IB_QPT_SMI || init->qp_type == IB_QPT_GSI) {
		struct sib_port *port;

		if (init->port_num < 1 || init->port_num > sdev->nports)
			return -EINVAL;
		qpn = init->qp_type == IB_QPT_GSI;
		port = sib_port(sdev, init->port_num);
		spin_lock_irqsave(&sib_fabric.lock, flags);
		if (rcu_access_pointer(port->special_qp[qpn])) {
			spin_unlock_irqrestore(&sib_fabric.lock, flags);
			return -EBUSY;
		}
		rcu_assign_pointer(port->special_qp[qpn], qp);
		spin_unlock_irqrestore(&sib_fabric.lock, flags);
		qp->port_num = init->port_num;
		qp->ibqp.qp_num = qpn;
		return 0;
	}

	ret = xa_alloc_cyclic(&sdev->qps, &qpn, qp, XA_LIMIT(2, 0xffffff),
			      &sdev->next_qpn, GFP_KERNEL);
	if (ret < 0)
		return ret;
	qp->ibqp.qp_num = qpn;
	qp->port_num = 1;
	return 0;
}

static void release_qpn(struct sib_qp *qp)
{
	u32 qpn = qp->ibqp.qp_num;
	unsigned long flags;

	if (qpn > 1) {
		xa_erase(&qp->sdev->qps, qpn);
		return;
	}
	spin_lock_irqsave(&sib_fabric.lock, flags);
	RCU_INIT_POINTER(sib_port(qp->sdev, qp->port_num)->special_qp[qpn],
			 NULL);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
}

int sib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct sib_dev *sdev = to_sdev(ibqp->device);
	struct sib_qp *qp = to_sqp(ibqp);
	size_t send_hdr = sizeof(struct sib_send_wqe);
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (READ_ONCE(sdev->fatal))
		return -EIO;
	switch (init->qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
	case IB_QPT_UD:
	case IB_QPT_RC:
	case IB_QPT_UC:
		break;
	default:
		return -EOPNOTSUPP;
	}
	ret = check_caps(sdev, init);
	if (ret)
		return ret;

	qp->sdev = sdev;
	qp->type = init->qp_type;
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->block_mcast_loopback = init->create_flags &
				   IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	INIT_LIST_HEAD(&qp->mcast_list);
	INIT_DELAYED_WORK(&qp->retry_work, sib_retry_work);
	INIT_WORK(&qp->event_work, sib_qp_event_work);
	sib_exec_init_qp(qp);

	/* LSO headers and inline data are copied into the WQE when posted. */
	if (init->create_flags & IB_QP_CREATE_IPOIB_UD_LSO)
		send_hdr += SIB_MAX_LSO_HDR;
	qp->lso = init->create_flags & IB_QP_CREATE_IPOIB_UD_LSO;
	qp->max_inline = init->cap.max_inline_data;
	send_hdr += qp->max_inline;
	ret = sib_wq_init(&qp->sq, init->cap.max_send_wr,
			  max_t(u32, init->cap.max_send_sge, 1), send_hdr,
			  &sib_sq_lock_key);
	if (ret)
		return ret;
	if (!init->srq) {
		ret = sib_wq_init(&qp->rq, init->cap.max_recv_wr,
				  max_t(u32, init->cap.max_recv_sge, 1),
				  sizeof(struct sib_recv_wqe), &sib_rq_lock_key);
		if (ret)
			goto err_sq;
	} else {
		sib_wq_lock_init(&qp->rq, &sib_rq_lock_key);
	}

	ret = set_send_qpn(qp, init);
	if (ret)
		goto err_rq;
	ret = assign_qpn(qp, init);
	if (ret)
		goto err_rq;
	if (!qp->send_qpn)
		qp->send_qpn = qp->ibqp.qp_num;

	init->cap.max_send_wr = qp->sq.mask + 1;
	init->cap.max_send_sge = qp->sq.max_sge;
	if (!init->srq) {
		init->cap.max_recv_wr = qp->rq.mask + 1;
		init->cap.max_recv_sge = qp->rq.max_sge;
	}
	qp->cap = init->cap;
	atomic_inc(&sdev->nr_qps);
	return 0;

err_rq:
	sib_wq_free(&qp->rq);
err_sq:
	sib_wq_free(&qp->sq);
	return ret;
}

static int check_attrs(struct sib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct sib_dev *sdev = qp->sdev;

	if ((mask & IB_QP_PORT) &&
	    (attr->port_num < 1 || attr->port_num > sdev->nports ||
	     qp->ibqp.qp_num <= 1))
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SIB_PKEY_TABLE_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > 0xffffff)
		return -EINVAL;
	if ((mask & IB_QP_AV) &&
	    (attr->ah_attr.type != RDMA_AH_ATTR_TYPE_IB ||
	     !sib_sgid_index_ok(&attr->ah_attr)))
		return -EINVAL;
	/* Fields of 3 and 5 bits (IBA 11.2.4.2). */
	if (((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7) ||
	    ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > SIB_RETRY_CNT_MAX) ||
	    ((mask & IB_QP_TIMEOUT) && attr->timeout > SIB_ACK_TIMER_MAX))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SIB_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SIB_MAX_RD_ATOMIC)
		return -EINVAL;
	return 0;
}

static void apply_attrs(struct sib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	if (mask & IB_QP_PORT)
		qp->port_num = attr->port_num;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_AV)
		sib_av_from_attr(&qp->dest, &attr->ah_attr);
	if (mask & IB_QP_PATH_MTU)
		qp->path_mtu = attr->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	/* Read by the fabric without a lock. */
	if (mask & IB_QP_RNR_RETRY)
		WRITE_ONCE(qp->rnr_retry, attr->rnr_retry);
	if (mask & IB_QP_RETRY_CNT)
		WRITE_ONCE(qp->retry_cnt, attr->retry_cnt);
	if (mask & IB_QP_TIMEOUT)
		WRITE_ONCE(qp->timeout, attr->timeout);
	if (mask & IB_QP_ACCESS_FLAGS)
		WRITE_ONCE(qp->access_flags, attr->qp_access_flags);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		WRITE_ONCE(qp->max_rd_atomic, attr->max_rd_atomic);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		WRITE_ONCE(qp->max_dest_rd_atomic, attr->max_dest_rd_atomic);
}

/* Change state with both queues locked, so senders and receivers agree. */
static enum ib_qp_state set_state(struct sib_qp *qp, enum ib_qp_state state)
{
	enum ib_qp_state old;
	unsigned long flags;

	/* An SRQ user's own rq is empty, but its lock is initialised. */
	spin_lock_irqsave(&qp->sq.lock, flags);
	spin_lock(&qp->rq.lock);
	old = qp->state;
	WRITE_ONCE(qp->state, state);
	if (state == IB_QPS_RESET) {
		qp->sq.head = qp->sq.tail;
		qp->rq.head = qp->rq.tail;
		qp->rnr_tries = 0;
		qp->ack_tries = 0;
	}
	/* A waiting head WQE is flushed (ERR) or forgotten (RESET) now. */
	if (state == IB_QPS_RESET || state == IB_QPS_ERR) {
		qp->sq_wait = SIB_SQ_GOING;
		qp->ack_expired = false;
	}
	spin_unlock(&qp->rq.lock);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return old;
}

/* An affiliated asynchronous event, raised from work as from an EQ. */
void sib_qp_event(struct sib_qp *qp, enum ib_event_type type)
{
	if (WARN_ON_ONCE(type >= BITS_PER_LONG))
		return;
	set_bit(type, &qp->events);
	queue_work(sib_fabric.wq, &qp->event_work);
}

void sib_qp_event_work(struct work_struct *work)
{
	struct sib_qp *qp = container_of(work, struct sib_qp, event_work);
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
	};
	struct sib_dev *sdev = qp->sdev;
	unsigned int type;

	/* In enum order: an access error comes before the last WQE. */
	for (type = 0; type < BITS_PER_LONG; type++) {
		if (!test_and_clear_bit(type, &qp->events))
			continue;
		ev.event = type;
		if (!qp->ibqp.event_handler)
			continue;
		if (type == IB_EVENT_QP_FATAL)
			atomic_inc(&sdev->async_handled[SIB_ASYNC_QP_FATAL]);
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

/*
 * Move to the error state: every outstanding work request completes with
 * a flush error, and a QP on an SRQ reports its last WQE (asynchronously,
 * as from an event queue).  Safe in any context.
 */
void sib_qp_set_error(struct sib_qp *qp)
{
	if (set_state(qp, IB_QPS_ERR) == IB_QPS_ERR)
		return;
	sib_qp_flush(qp);
}

/* Just moved to error: what is still queued comes back flushed. */
void sib_qp_flush(struct sib_qp *qp)
{
	sib_sq_run(qp);
	sib_flush_rq(qp);
	if (qp->ibqp.srq)
		sib_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

static bool qp_uses_cq(const struct sib_qp *qp, const struct sib_cq *cq)
{
	return !cq || qp->ibqp.send_cq == &cq->ibcq ||
	       qp->ibqp.recv_cq == &cq->ibcq;
}

/*
 * The device's QPs, QP0 and QP1 too, to error: those that complete on
 * cq, or all when cq is NULL.
 */
void sib_dev_qps_set_error(struct sib_dev *sdev, const struct sib_cq *cq)
{
	unsigned long qpn;
	struct sib_qp *qp;
	u32 p, i;

	/* A QP leaves the tables a grace period before it is freed. */
	rcu_read_lock();
	xa_for_each(&sdev->qps, qpn, qp)
		if (qp_uses_cq(qp, cq))
			sib_qp_set_error(qp);
	for (p = 1; p <= sdev->nports; p++) {
		for (i = 0; i < 2; i++) {
			qp = rcu_dereference(sib_port(sdev, p)->special_qp[i]);
			if (qp && qp_uses_cq(qp, cq))
				sib_qp_set_error(qp);
		}
	}
	rcu_read_unlock();
}

/*
 * debugfs sibN/qp_fatal: the QP fails as on a local work queue
 * catastrophic error.  It goes to error (what it holds flushed, what is
 * posted after flushed too) and its consumer hears QP_FATAL.
 */
int sib_qp_fatal(struct sib_dev *sdev, u32 qpn)
{
	struct sib_qp *qp;
	int ret = 0;

	/* Destroy waits a grace period, then cancels the event's work. */
	rcu_read_lock();
	qp = qpn > 1 ? xa_load(&sdev->qps, qpn) : NULL;
	if (qp) {
		sib_qp_set_error(qp);
		atomic_inc(&sdev->async_raised[SIB_ASYNC_QP_FATAL]);
		sib_qp_event(qp, IB_EVENT_QP_FATAL);
	} else {
		ret = -ENOENT;
	}
	rcu_read_unlock();
	return ret;
}

/*
 * debugfs sibN/fatal: the HCA's firmware died.  Every QP goes to error
 * with its work flushed, the ports go down with no event (nobody is left
 * to send one), DEVICE_FATAL goes to every registered handler, and from
 * then on the device does nothing but let its objects be destroyed.  A
 * real driver recovers by unregistering the device and registering it
 * anew (mlx5's health recovery); here that is reloading sib.
 */
void sib_dev_fatal(struct sib_dev *sdev)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = IB_EVENT_DEVICE_FATAL,
	};
	u32 p;

	/* Under ctl_mutex, as every debugfs control. */
	if (READ_ONCE(sdev->fatal))
		return;
	WRITE_ONCE(sdev->fatal, true);
	sib_dev_qps_set_error(sdev, NULL);
	for (p = 1; p <= sdev->nports; p++)
		sib_sm_port_dead(sib_port(sdev, p));
	atomic_inc(&sdev->async_raised[SIB_ASYNC_DEVICE_FATAL]);
	ib_dispatch_event(&ev);
}

/*
 * Fault injection (debugfs rtr_hold): a connected QP's move to RTR waits
 * until the test lets it go, so that a connection's set-up is caught
 * half way, as a slow HCA would leave it.  modify_qp may sleep.
 */
static DECLARE_WAIT_QUEUE_HEAD(rtr_waitq);
static bool rtr_hold;
static atomic_t rtr_held = ATOMIC_INIT(0);

static void rtr_wait(void)
{
	might_sleep();
	if (!READ_ONCE(rtr_hold))
		return;
	atomic_inc(&rtr_held);
	wait_event(rtr_waitq, !READ_ONCE(rtr_hold));
	atomic_dec(&rtr_held);
}

/* Arm the hold, or end it: what it holds goes on (and on unload). */
void sib_qp_rtr_hold(bool hold)
{
	WRITE_ONCE(rtr_hold, hold);
	if (!hold)
		wake_up_all(&rtr_waitq);
}

/* How many modifies to RTR wait now. */
unsigned int sib_qp_rtr_held(void)
{
	return atomic_read(&rtr_held);
}

int sib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct sib_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, next;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	/*
	 * A dead HCA's QPs stay in error (posts come back flushed, so
	 * drains end) or go to reset, to be freed.
	 */
	if (READ_ONCE(qp->sdev->fatal) && (mask & IB_QP_STATE) &&
	    attr->qp_state != IB_QPS_RESET && attr->qp_state != IB_QPS_ERR)
		return -EIO;
	/* Fault injection (debugfs fail_qkey_set): a Q_Key change alone. */
	if (mask == IB_QP_QKEY &&
	    atomic_add_unless(&sib_fabric.fail_qkey_set, -1, 0))
		return -EIO;
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RTR &&
	    (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC))
		rtr_wait();
	cur = READ_ONCE(qp->state);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur &&
	    !(cur == IB_QPS_SQE && attr->cur_qp_state == IB_QPS_RTS))
		return -EINVAL;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, qp->type, mask))
		return -EINVAL;
	ret = check_attrs(qp, attr, mask);
	if (ret)
		return ret;

	apply_attrs(qp, attr, mask);
	if (!(mask & IB_QP_STATE) || next == cur)
		return 0;

	switch (next) {
	case IB_QPS_ERR:
		sib_qp_set_error(qp);
		break;
	case IB_QPS_RESET:
		set_state(qp, IB_QPS_RESET);
		cancel_delayed_work_sync(&qp->retry_work);
		sib_cq_purge_qp(to_scq(ibqp->send_cq), qp);
		if (ibqp->recv_cq != ibqp->send_cq)
			sib_cq_purge_qp(to_scq(ibqp->recv_cq), qp);
		break;
	default:
		set_state(qp, next);
		/* Sends posted while draining may go again. */
		if (next == IB_QPS_RTS)
			sib_exec_start(qp);
		break;
	}
	return 0;
}

int sib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct sib_qp *qp = to_sqp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->cap = qp->cap;
	sib_av_to_attr(&qp->dest, &attr->ah_attr);
	attr->pkey_index = qp->pkey_index;
	attr->port_num = qp->port_num;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->rnr_retry = qp->rnr_retry;
	attr->retry_cnt = qp->retry_cnt;
	attr->timeout = qp->timeout;
	attr->qp_access_flags = qp->access_flags;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->sq_draining = attr->qp_state == IB_QPS_SQD;

	init->qp_type = qp->type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	init->port_num = qp->port_num;
	return 0;
}

struct sib_qp *sib_qp_lookup(struct sib_port *port, u32 qpn)
{
	if (qpn <= 1)
		return rcu_dereference(port->special_qp[qpn]);
	return xa_load(&port->sdev->qps, qpn);
}

int sib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sib_qp *qp = to_sqp(ibqp);

	/* Unreachable first, then wait out deliveries already under way. */
	release_qpn(qp);
	sib_mcast_detach_all(qp);
	set_state(qp, IB_QPS_RESET);
	synchronize_rcu();
	/* The worker first: a send it has under way may start the timers. */
	sib_exec_stop(qp);
	cancel_delayed_work_sync(&qp->retry_work);
	cancel_work_sync(&qp->event_work);

	sib_cq_purge_qp(to_scq(ibqp->send_cq), qp);
	if (ibqp->recv_cq != ibqp->send_cq)
		sib_cq_purge_qp(to_scq(ibqp->recv_cq), qp);
	sib_wq_free(&qp->sq);
	sib_wq_free(&qp->rq);
	atomic_dec(&qp->sdev->nr_qps);
	return 0;
}
