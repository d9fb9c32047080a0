// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: a ring of work completions, notification arming,
 * interrupt moderation (fire after N completions or T microseconds), and
 * the CQ's error state.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "sib.h"

static void sib_cq_call_handler(struct sib_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/* Hard IRQ on the vector's CPU. */
static void sib_cq_event_irq(void *data)
{
	struct sib_cq *cq = data;

	/* Taken before the handler runs: an event after this is raised anew. */
	clear_bit(0, &cq->event_pending);
	/*
	 * The consumer's poll of the ring comes after the clear; pairs with
	 * the test_and_set_bit() after a push in sib_cq_fire(): one of the
	 * two sees the other's.
	 */
	smp_mb__after_atomic();
	sib_cq_call_handler(cq);
	atomic_dec(&cq->events_in_flight);
}

/*
 * An HCA raises a CQ's event as an interrupt on the CPU its vector is
 * steered to; with cq_irq so does the fabric, else the handler runs here,
 * on the poster's CPU.  An event still pending covers a second one: the
 * consumer polls until the CQ is empty before it re-arms.
 */
void sib_cq_fire(struct sib_cq *cq)
{
	struct sib_dev *sdev = to_sdev(cq->ibcq.device);
	int ret;

	if (!READ_ONCE(sib_cq_irq)) {
		this_cpu_inc(sdev->cq_events->n[SIB_CQ_EVENT_INLINE]);
		sib_cq_call_handler(cq);
		return;
	}
	if (test_and_set_bit(0, &cq->event_pending))
		return;
	atomic_inc(&cq->events_in_flight);
	if (cq->event_cpu == raw_smp_processor_id())
		this_cpu_inc(sdev->cq_events->n[SIB_CQ_EVENT_IRQ_LOCAL]);
	else
		this_cpu_inc(sdev->cq_events->n[SIB_CQ_EVENT_IRQ_REMOTE]);
	/* The csd is free: its last handler cleared the bit after it was. */
	ret = smp_call_function_single_async(cq->event_cpu, &cq->event);
	if (ret) {
		WARN_ON_ONCE(ret == -EBUSY);
		sib_cq_event_irq(cq);	/* its CPU went offline */
	}
}

static enum hrtimer_restart sib_cq_moderation_expired(struct hrtimer *timer)
{
	struct sib_cq *cq = container_of(timer, struct sib_cq,
					 moderation_timer);
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->armed && cq->unreported) {
		cq->armed = 0;
		cq->unreported = 0;
		fire = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire)
		sib_cq_fire(cq);
	return HRTIMER_NORESTART;
}

int sib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct sib_create_cq_udata *udata)
{
	struct sib_dev *sdev = to_sdev(ibcq->device);
	struct sib_cq *cq = to_scq(ibcq);
	u32 entries, cqn;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (READ_ONCE(sdev->fatal))
		return -EIO;
	if (attr->cqe < 1 || attr->cqe > sdev->ibdev.attrs.max_cqe ||
	    attr->comp_vector >= sdev->ibdev.num_comp_vectors)
		return -EINVAL;

	entries = roundup_pow_of_two(attr->cqe);
	cq->ring = kvcalloc(entries, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;
	spin_lock_init(&cq->lock);
	cq->mask = entries - 1;
	ibcq->cqe = entries;
	hrtimer_init(&cq->moderation_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cq->moderation_timer.function = sib_cq_moderation_expired;
	INIT_CSD(&cq->event, sib_cq_event_irq, cq);
	cq->event_cpu = cpumask_local_spread(attr->comp_vector, NUMA_NO_NODE);
	INIT_WORK(&cq->err_work, sib_cq_err_work);
	ret = xa_alloc_cyclic(&sdev->cqs, &cqn, cq, xa_limit_32b,
			      &sdev->next_cqn, GFP_KERNEL);
	if (ret < 0) {
		kvfree(cq->ring);
		return ret;
	}
	cq->cqn = cqn;
	atomic_inc(&sdev->nr_cqs);
	return 0;
}

int sib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sib_cq *cq = to_scq(ibcq);

	/* Out of debugfs's reach first: cq_err finds it no more. */
	xa_erase(&to_sdev(ibcq->device)->cqs, cq->cqn);
	cancel_work_sync(&cq->err_work);
	hrtimer_cancel(&cq->moderation_timer);
	/* No QP completes here any more; an event may still be on its way. */
	while (atomic_read(&cq->events_in_flight))
		cpu_relax();
	kvfree(cq->ring);
	atomic_dec(&to_sdev(ibcq->device)->nr_cqs);
	return 0;
}

/*
 * A CQ in error (an overrun, or cq_err from debugfs) takes
 * no more completions until it is destroyed; its consumer hears CQ_ERR
 * and the QPs that complete on it go to error, from work as from an EQ.
 * Any context.
 */
void sib_cq_set_error(struct sib_cq *cq)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&cq->lock, flags);
	first = !cq->error;
	cq->error = true;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (!first)
		return;
	atomic_inc(&to_sdev(cq->ibcq.device)->async_raised[SIB_ASYNC_CQ_ERR]);
	queue_work(sib_fabric.wq, &cq->err_work);
}

void sib_cq_err_work(struct work_struct *work)
{
	struct sib_cq *cq = container_of(work, struct sib_cq, err_work);
	struct sib_dev *sdev = to_sdev(cq->ibcq.device);
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler) {
		atomic_inc(&sdev->async_handled[SIB_ASYNC_CQ_ERR]);
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	sib_dev_qps_set_error(sdev, cq);
}

/* debugfs sibN/cq_err: a CQN, or "all" of the device's CQs. */
int sib_cq_err_store(struct sib_dev *sdev, const char *buf)
{
	bool all = !strcmp(buf, "all");
	unsigned long cqn = 0;
	struct sib_cq *cq;
	int ret = 0;

	if (!all && kstrtoul(buf, 0, &cqn))
		return -EINVAL;
	/* Held against destroy, which erases first, then cancels the work. */
	xa_lock(&sdev->cqs);
	if (all) {
		xa_for_each(&sdev->cqs, cqn, cq)
			sib_cq_set_error(cq);
	} else {
		cq = xa_load(&sdev->cqs, cqn);
		if (cq)
			sib_cq_set_error(cq);
		else
			ret = -ENOENT;
	}
	xa_unlock(&sdev->cqs);
	return ret;
}

/* debugfs sibN/cqs: one line per CQ. */
int sib_cqs_show(struct seq_file *m, void *unused)
{
	struct sib_dev *sdev = m->private;
	unsigned long cqn;
	struct sib_cq *cq;

	xa_lock(&sdev->cqs);
	xa_for_each(&sdev->cqs, cqn, cq)
		seq_printf(m, "cqn %lu entries %u queued %u error %d\n", cqn,
			   cq->mask + 1, READ_ONCE(cq->tail) - READ_ONCE(cq->head),
			   READ_ONCE(cq->error));
	xa_unlock(&sdev->cqs);
	return 0;
}

/*
 * Queue one completion.  Returns true when the CQ was armed for it: the
 * caller then calls sib_cq_fire() once it holds no sib lock.
 */
bool sib_cq_push(struct sib_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->error) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return false;
	}
	if (cq->tail - cq->head > cq->mask) {
		spin_unlock_irqrestore(&cq->lock, flags);
		pr_warn_ratelimited("sib: %s: completion queue %u overrun; it is in error\n",
				    dev_name(&cq->ibcq.device->dev), cq->cqn);
		sib_cq_set_error(cq);
		return false;
	}
	cq->ring[cq->tail & cq->mask] = *wc;
	cq->tail++;

	if (cq->armed == IB_CQ_NEXT_COMP ||
	    (cq->armed == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		if (!cq->moderation_usec) {
			fire = true;
		} else if (++cq->unreported >= cq->moderation_count) {
			fire = true;
			cq->unreported = 0;
		} else if (!hrtimer_active(&cq->moderation_timer)) {
			hrtimer_start(&cq->moderation_timer,
				      ns_to_ktime(cq->moderation_usec *
						  NSEC_PER_USEC),
				      HRTIMER_MODE_REL);
		}
		if (fire)
			cq->armed = 0;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return fire;
}

int sib_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct sib_cq *cq = to_scq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->head != cq->tail) {
		wc[n++] = cq->ring[cq->head & cq->mask];
		cq->head++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int sib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sib_cq *cq = to_scq(ibcq);
	u8 want = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int missed = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->armed != IB_CQ_NEXT_COMP)
		cq->armed = want;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->head != cq->tail)
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/*
 * A period of 0 turns moderation off whatever the count: a count alone
 * could hold the last completions of a burst forever.
 */
int sib_modify_cq(struct ib_cq *ibcq, u16 count, u16 usec)
{
	struct sib_cq *cq = to_scq(ibcq);
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->moderation_count = max_t(u16, count, 1);
	cq->moderation_usec = usec;
	cq->unreported = 0;
	spin_unlock_irqrestore(&cq->lock, flags);
	return 0;
}

/* Drop the completions of a QP being reset or destroyed, as HCAs do. */
void sib_cq_purge_qp(struct sib_cq *cq, struct sib_qp *qp)
{
	unsigned long flags;
	u32 from, to;

	spin_lock_irqsave(&cq->lock, flags);
	to = cq->tail;
	for (from = cq->tail; from != cq->head; ) {
		from--;
		if (cq->ring[from & cq->mask].qp == &qp->ibqp)
			continue;
		to--;
		if (to != from)
			cq->ring[to & cq->mask] = cq->ring[from & cq->mask];
	}
	cq->head = to;
	spin_unlock_irqrestore(&cq->lock, flags);
}
