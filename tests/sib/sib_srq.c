// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: one ring of receive WQEs that many QPs consume,
 * with the low-water "limit" event.
 */
#include "sib.h"

static struct lock_class_key sib_srq_lock_key;

int sib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct sib_dev *sdev = to_sdev(ibsrq->device);
	struct sib_srq *srq = to_ssrq(ibsrq);
	int ret;

	if (!sib_srq_enabled || udata)
		return -EOPNOTSUPP;
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (init->attr.max_wr < 1 ||
	    init->attr.max_wr > sdev->ibdev.attrs.max_srq_wr ||
	    init->attr.max_sge < 1 ||
	    init->attr.max_sge > sdev->ibdev.attrs.max_srq_sge ||
	    init->attr.srq_limit > init->attr.max_wr)
		return -EINVAL;

	ret = sib_wq_init(&srq->rq, init->attr.max_wr, init->attr.max_sge,
			  sizeof(struct sib_recv_wqe), &sib_srq_lock_key);
	if (ret)
		return ret;
	srq->limit = init->attr.srq_limit;
	init->attr.max_wr = srq->rq.mask + 1;
	atomic_inc(&sdev->nr_srqs);
	return 0;
}

int sib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sib_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int ret = 0;

	if (mask & IB_SRQ_MAX_WR) {
		/* Past the device's limit is wrong; within, not offered. */
		if (attr->max_wr < 1 ||
		    attr->max_wr > ibsrq->device->attrs.max_srq_wr)
			return -EINVAL;
		return -EOPNOTSUPP;	/* no resizing */
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	spin_lock_irqsave(&srq->rq.lock, flags);
	if (attr->srq_limit > srq->rq.mask + 1)
		ret = -EINVAL;
	else
		srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return ret;
}

int sib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sib_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = srq->rq.mask + 1;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int sib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sib_srq *srq = to_ssrq(ibsrq);

	sib_wq_free(&srq->rq);
	atomic_dec(&to_sdev(ibsrq->device)->nr_srqs);
	return 0;
}

int sib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct sib_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&srq->rq.lock, flags);
	for (; wr; wr = wr->next) {
		ret = sib_wq_add_recv(&srq->rq, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return ret;
}
