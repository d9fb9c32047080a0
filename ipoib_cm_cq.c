// SPDX-License-Identifier: GPL-2.0
/*
 * Connected mode: the CQs connections share, and the NAPI poll that reaps
 * them.  The interface makes one CQ when connected mode starts; when its
 * seats run out another is added, and an added one goes again once its
 * last connection has.
 *
 * A CQ must never overflow.  Any QP may take any of the SRQ's buffers, so
 * every CQ has room for all of them; beyond that a connection takes a
 * seat for each request it can have posted at once: its send queue, and
 * its own receive ring when there is no SRQ.
 *
 * One NAPI instance polls every CQ of the interface, a batch from each in
 * turn, and calls each completion's handler (wr_cqe->done): receives go
 * to the stack as UD's do (ipoib_rx_to_stack).  The list of CQs is read
 * under RCU there.
 */
#include "ipoib_cm.h"

/* Entries every CQ keeps for receives from the SRQ. */
static unsigned int srq_entries(const struct ipoib_dev *priv)
{
	return priv->cm->pool ? priv->cm->pool->max_wr : 0;
}

static void cq_event(struct ib_cq *cq, void *ctx)
{
	struct ipoib_dev *priv = ctx;

	napi_schedule(&priv->cm->napi);
}

/* Softirq: every CQ in turn, a batch at a time, within the budget. */
int ipoib_cm_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_cm_dev *cm = container_of(napi, struct ipoib_cm_dev,
					       napi);
	struct ib_wc *wcs = cm->wcs;
	struct ipoib_cm_cq *scq;
	bool more, missed = false;
	int done = 0;

	if (unlikely(!budget))
		return 0;	/* netpoll: nothing here is a plain send */
	rcu_read_lock();
	do {
		more = false;
		list_for_each_entry_rcu(scq, &cm->cqs, link) {
			int want = min(IPOIB_POLL_BATCH, budget - done);
			int n, i;

			if (!want)
				break;
			n = ib_poll_cq(scq->cq, want, wcs);
			for (i = 0; i < n; i++)
				wcs[i].wr_cqe->done(scq->cq, &wcs[i]);
			done += n;
			more |= n == want;
		}
	} while (more && done < budget);

	/* Behind: the shared SRQ's pressure sheds our load (ipoib_cm_pool.c). */
	WRITE_ONCE(cm->behind, done >= budget);
	if (done < budget && napi_complete_done(napi, done)) {
		list_for_each_entry_rcu(scq, &cm->cqs, link)
			missed |= ib_req_notify_cq(scq->cq, IB_CQ_NEXT_COMP |
						   IB_CQ_REPORT_MISSED_EVENTS) > 0;
		if (missed)
			napi_schedule(napi);
	}
	rcu_read_unlock();
	return done;
}

/*
 * Run the poll now if it is due.  A CQ event raised in a task (an HCA
 * that flushes from modify_qp, say) only marks the softirq pending.
 */
void ipoib_cm_poll_kick(struct ipoib_dev *priv)
{
	local_bh_disable();
	napi_schedule(&priv->cm->napi);
	local_bh_enable();
}

static struct ipoib_cm_cq *cq_add(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	unsigned int base = srq_entries(priv);
	struct ib_cq_init_attr attr = {
		.cqe = min_t(unsigned int, base + IPOIB_CM_CQ_SEATS,
			     priv->ca->attrs.max_cqe),
		.comp_vector = priv->send_cq->comp_vector,
	};
	struct ipoib_cm_cq *scq;
	struct ib_cq *cq;

	lockdep_assert_held(&cm->cq_lock);
	scq = kzalloc(sizeof(*scq), GFP_KERNEL);
	if (!scq)
		return ERR_PTR(-ENOMEM);
	cq = ib_create_cq(priv->ca, cq_event, NULL, priv, &attr);
	if (IS_ERR(cq)) {
		kfree(scq);
		return ERR_CAST(cq);
	}
	scq->cq = cq;
	/* The HCA may have given more than asked for. */
	scq->seats = cq->cqe > base ? cq->cqe - base : 0;
	list_add_tail_rcu(&scq->link, &cm->cqs);
	/* No QP uses it yet, so nothing can have completed unseen. */
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return scq;
}

/* Nothing completes on it any more; the poll may still be reading it. */
static void cq_remove(struct ipoib_dev *priv, struct ipoib_cm_cq *scq)
{
	lockdep_assert_held(&priv->cm->cq_lock);
	list_del_rcu(&scq->link);
	synchronize_rcu();
	ib_destroy_cq(scq->cq);
	kfree(scq);
}

/* Connected mode starts, the SRQ (if any) made: the poll and a CQ. */
int ipoib_cm_cq_init(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_cq *scq;

	lockdep_assert_held(&priv->state_lock);
	napi_enable(&cm->napi);
	mutex_lock(&cm->cq_lock);
	scq = cq_add(priv);
	mutex_unlock(&cm->cq_lock);
	if (IS_ERR(scq)) {
		napi_disable(&cm->napi);
		return PTR_ERR(scq);
	}
	return 0;
}

/* Every connection is gone, so nothing completes: no poll, no CQ. */
void ipoib_cm_cq_cleanup(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_cq *scq, *tmp;

	lockdep_assert_held(&priv->state_lock);
	napi_disable(&cm->napi);
	mutex_lock(&cm->cq_lock);
	list_for_each_entry_safe(scq, tmp, &cm->cqs, link) {
		WARN_ON_ONCE(scq->nr_conns);
		cq_remove(priv, scq);
	}
	mutex_unlock(&cm->cq_lock);
}

/* Seats on a CQ for the connection's QP, before it is made.  Sleeps. */
int ipoib_cm_cq_take(struct ipoib_cm_conn *conn, unsigned int seats)
{
	struct ipoib_dev *priv = conn->priv;
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_cq *scq, *found = NULL;

	if (WARN_ON_ONCE(conn->cq))
		return -EINVAL;
	mutex_lock(&cm->cq_lock);
	list_for_each_entry(scq, &cm->cqs, link) {
		if (scq->seats >= seats) {
			found = scq;
			break;
		}
	}
	if (!found) {
		found = cq_add(priv);
		if (IS_ERR(found)) {
			mutex_unlock(&cm->cq_lock);
			return PTR_ERR(found);
		}
		if (found->seats < seats) {
			/* An HCA whose CQs hold too little for one QP. */
			cq_remove(priv, found);
			mutex_unlock(&cm->cq_lock);
			return -ENOSPC;
		}
	}
	found->seats -= seats;
	found->nr_conns++;
	conn->cq = found;
	conn->cq_seats = seats;
	mutex_unlock(&cm->cq_lock);
	return 0;
}

/* The connection's QP is gone and none of its completions is left. */
void ipoib_cm_cq_give_back(struct ipoib_cm_conn *conn)
{
	struct ipoib_cm_dev *cm = conn->priv->cm;
	struct ipoib_cm_cq *scq = conn->cq;

	if (!scq)
		return;
	mutex_lock(&cm->cq_lock);
	scq->seats += conn->cq_seats;
	scq->nr_conns--;
	if (!scq->nr_conns && scq != list_first_entry(&cm->cqs,
						      struct ipoib_cm_cq, link))
		cq_remove(conn->priv, scq);
	mutex_unlock(&cm->cq_lock);
	conn->cq = NULL;
	conn->cq_seats = 0;
}
