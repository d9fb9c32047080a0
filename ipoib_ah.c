// SPDX-License-Identifier: GPL-2.0
/*
 * Address handle lifetime.  Transmit reads a neighbour's AH under RCU and
 * posts without a reference of its own, so a dead AH is destroyed in two
 * steps: wait for an RCU grace period (no xmit can pick it up any more),
 * then for every send posted until then to complete.
 */
#include <linux/slab.h>
#include "ipoib.h"
#include "ipoib_ah.h"

#define IPOIB_AH_REAP_DELAY	(HZ / 10)

struct ipoib_ah *ipoib_ah_create(struct ipoib_dev *priv,
				 struct rdma_ah_attr *attr)
{
	struct ipoib_ah *ah = kzalloc(sizeof(*ah), GFP_KERNEL);
	struct ib_ah *ib_ah;

	if (!ah)
		return ERR_PTR(-ENOMEM);
	ib_ah = rdma_create_ah(priv->pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ib_ah)) {
		kfree(ah);
		return ERR_CAST(ib_ah);
	}
	ah->ah = ib_ah;
	ah->priv = priv;
	kref_init(&ah->ref);
	INIT_LIST_HEAD(&ah->dead_link);
	return ah;
}

static void ah_release(struct kref *ref)
{
	struct ipoib_ah *ah = container_of(ref, struct ipoib_ah, ref);
	struct ipoib_dev *priv = ah->priv;
	unsigned long flags;

	spin_lock_irqsave(&priv->ah_lock, flags);
	ah->rcu_cookie = get_state_synchronize_rcu();
	list_add_tail(&ah->dead_link, &priv->dead_ahs);
	spin_unlock_irqrestore(&priv->ah_lock, flags);
	mod_delayed_work(priv->wq, &priv->ah_reap_task, IPOIB_AH_REAP_DELAY);
}

void ipoib_ah_put(struct ipoib_ah *ah)
{
	if (ah)
		kref_put(&ah->ref, ah_release);
}

/*
 * May this dead AH be destroyed now?  Every UD send queue may have posted
 * with it: each ring's sends up to then must have completed.  The rings
 * outlive their QPs (head and tail run on), so a queue brought down and
 * up again in between is no exception.
 */
static bool ah_done(struct ipoib_dev *priv, struct ipoib_ah *ah)
{
	unsigned int q, nq = priv->dev->num_tx_queues;

	lockdep_assert_held(&priv->ah_lock);
	if (!ah->draining) {
		if (!poll_state_synchronize_rcu(ah->rcu_cookie))
			return false;
		for (q = 0; q < nq; q++)
			ah->drain_to[q] = READ_ONCE(ipoib_ud_ring(priv, q)->head);
		ah->draining = true;
	}
	for (q = 0; q < nq; q++)
		if ((int)(READ_ONCE(ipoib_ud_ring(priv, q)->tail) -
			  ah->drain_to[q]) < 0)
			return false;
	return true;
}

void ipoib_ah_reap(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev, ah_reap_task);
	struct ipoib_ah *ah, *next;
	unsigned long flags;
	LIST_HEAD(done);
	bool more;

	spin_lock_irqsave(&priv->ah_lock, flags);
	list_for_each_entry_safe(ah, next, &priv->dead_ahs, dead_link)
		if (ah_done(priv, ah))
			list_move_tail(&ah->dead_link, &done);
	more = !list_empty(&priv->dead_ahs);
	spin_unlock_irqrestore(&priv->ah_lock, flags);

	list_for_each_entry_safe(ah, next, &done, dead_link) {
		rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(ah);
	}
	if (more)
		queue_delayed_work(priv->wq, &priv->ah_reap_task,
				   IPOIB_AH_REAP_DELAY);
}

/* Teardown: the QP is quiet, nothing can be in flight. */
void ipoib_ah_reap_all(struct ipoib_dev *priv)
{
	struct ipoib_ah *ah, *next;
	LIST_HEAD(done);

	synchronize_rcu();
	spin_lock_irq(&priv->ah_lock);
	list_splice_init(&priv->dead_ahs, &done);
	spin_unlock_irq(&priv->ah_lock);
	list_for_each_entry_safe(ah, next, &done, dead_link) {
		rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(ah);
	}
}
