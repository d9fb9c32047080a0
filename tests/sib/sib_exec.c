// SPDX-License-Identifier: GPL-2.0
/*
 * Where posted sends execute.  By default (module parameter async) as on
 * an HCA: the post rings a doorbell and returns, and the fabric's worker
 * drains the QP's send queue later, reading each gather list only then;
 * with async=0 in the poster's context, before ib_post_send returns.  A
 * driver that reuses, unmaps or frees a send buffer before its completion
 * then sends whatever the buffer holds by then, or is caught reading freed
 * memory (KASAN).
 *
 * The doorbell arms the QP's timer for async_delay_us plus up to
 * async_jitter_us (0: the worker is queued at once); sends posted before
 * the worker runs join its batch, whose completions come together.  Each
 * QP has one timer and one work item, so its WQEs execute in order; QPs
 * run in parallel on an unbound queue, and with jitter overtake each other
 * as they would across an HCA's engines.
 */
#include <linux/random.h>
#include "sib.h"

int sib_exec_init(void)
{
	sib_fabric.exec_wq = alloc_workqueue("sib_exec", WQ_UNBOUND, 0);
	return sib_fabric.exec_wq ? 0 : -ENOMEM;
}

void sib_exec_exit(void)
{
	destroy_workqueue(sib_fabric.exec_wq);
}

static void exec_work(struct work_struct *work)
{
	struct sib_qp *qp = container_of(work, struct sib_qp, exec_work);
	struct sib_port *port = sib_port(qp->sdev, qp->port_num);
	unsigned long flags;
	u32 done;

	/* A doorbell from now on arms a new batch. */
	spin_lock_irqsave(&qp->sq.lock, flags);
	qp->exec_armed = false;
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	/*
	 * Deliveries and completion handlers run as they do when the poster
	 * executes: with bottom halves off (NAPI's poll runs as they end).
	 */
	local_bh_disable();
	done = sib_sq_run(qp);
	sib_count(port, SIB_CNT_ASYNC_BATCHES, 1);
	sib_count(port, SIB_CNT_ASYNC_WQES, done);
	local_bh_enable();
}

static enum hrtimer_restart exec_timer_fired(struct hrtimer *timer)
{
	struct sib_qp *qp = container_of(timer, struct sib_qp, exec_timer);

	queue_work(sib_fabric.exec_wq, &qp->exec_work);
	return HRTIMER_NORESTART;
}

void sib_exec_init_qp(struct sib_qp *qp)
{
	hrtimer_init(&qp->exec_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	qp->exec_timer.function = exec_timer_fired;
	INIT_WORK(&qp->exec_work, exec_work);
}

static u64 exec_delay_ns(void)
{
	u32 us = READ_ONCE(sib_async_delay_us);
	u32 jitter = READ_ONCE(sib_async_jitter_us);

	if (jitter)
		us += get_random_u32_below(jitter + 1);
	return (u64)us * NSEC_PER_USEC;
}

/*
 * Work was posted (or may go on, back in RTS): execute it here, or ring
 * the doorbell for the worker.  Never for a QP in RESET: destroy_qp moves
 * it there before it stops the timer and the worker for good.
 */
void sib_exec_start(struct sib_qp *qp)
{
	unsigned long flags;
	u64 ns;

	if (!READ_ONCE(sib_async)) {
		sib_sq_run(qp);
		return;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	if (!qp->exec_armed && qp->state != IB_QPS_RESET &&
	    !sib_wq_empty(&qp->sq)) {
		qp->exec_armed = true;
		ns = exec_delay_ns();
		if (ns)
			hrtimer_start(&qp->exec_timer, ns_to_ktime(ns),
				      HRTIMER_MODE_REL);
		else
			queue_work(sib_fabric.exec_wq, &qp->exec_work);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/* destroy_qp, the QP in RESET: no batch runs or is pending after this. */
void sib_exec_stop(struct sib_qp *qp)
{
	WARN_ON_ONCE(READ_ONCE(qp->state) != IB_QPS_RESET);
	hrtimer_cancel(&qp->exec_timer);
	cancel_work_sync(&qp->exec_work);
}
