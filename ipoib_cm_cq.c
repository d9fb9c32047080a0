// SPDX-License-Identifier: GPL-2.0
/*
 * Connected mode: the CQs connections share.  The interface makes one
 * when connected mode starts; when its seats run out another is added,
 * and an added one goes again once its last connection has.
 *
 * A CQ must never overflow.  Any QP may take any of the SRQ's buffers, so
 * every CQ has room for all of them; beyond that a connection takes a
 * seat for each request it can have posted at once: its send queue, and
 * its own receive ring when there is no SRQ.
 */
#include "ipoib_cm.h"

/* Entries every CQ keeps for receives from the SRQ. */
static unsigned int srq_entries(const struct ipoib_dev *priv)
{
	return priv->cm->srq ? priv->cm->srq_size : 0;
}

static struct ipoib_cm_cq *cq_add(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	unsigned int base = srq_entries(priv);
	unsigned int want = min_t(unsigned int, base + IPOIB_CM_CQ_SEATS,
				  priv->ca->attrs.max_cqe);
	struct ipoib_cm_cq *scq;
	struct ib_cq *cq;

	lockdep_assert_held(&cm->cq_lock);
	scq = kzalloc(sizeof(*scq), GFP_KERNEL);
	if (!scq)
		return ERR_PTR(-ENOMEM);
	cq = ib_alloc_cq(priv->ca, priv, want, priv->send_cq->comp_vector,
			 IB_POLL_SOFTIRQ);
	if (IS_ERR(cq)) {
		kfree(scq);
		return ERR_CAST(cq);
	}
	scq->cq = cq;
	/* The HCA may have given more than asked for. */
	scq->seats = cq->cqe > base ? cq->cqe - base : 0;
	list_add_tail(&scq->link, &cm->cqs);
	return scq;
}

static void cq_remove(struct ipoib_dev *priv, struct ipoib_cm_cq *scq)
{
	lockdep_assert_held(&priv->cm->cq_lock);
	list_del(&scq->link);
	ib_free_cq(scq->cq);
	kfree(scq);
}

/* Connected mode starts, the SRQ (if any) made: the first CQ. */
int ipoib_cm_cq_init(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_cq *scq;

	mutex_lock(&cm->cq_lock);
	scq = cq_add(priv);
	mutex_unlock(&cm->cq_lock);
	return PTR_ERR_OR_ZERO(scq);
}

/* Every connection is gone. */
void ipoib_cm_cq_cleanup(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_cq *scq, *tmp;

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
