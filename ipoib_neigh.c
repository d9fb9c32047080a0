// SPDX-License-Identifier: GPL-2.0
/*
 * Neighbours: one per 20-byte destination address, found by the transmit
 * path under RCU.  A neighbour hangs off the path (unicast) or group
 * (multicast) that resolves it, holds the packets waiting for that, and
 * ages out when unused.
 */
#include <linux/slab.h>
#include "ipoib.h"
#include "ipoib_ah.h"
#include "ipoib_cm.h"
#include "ipoib_neigh.h"
#include "ipoib_waitq.h"

static const struct rhashtable_params neigh_params = {
	.key_len = IPOIB_ALEN,
	.key_offset = offsetof(struct ipoib_neigh, daddr),
	.head_offset = offsetof(struct ipoib_neigh, hash_node),
	.automatic_shrinking = true,
};

int ipoib_neigh_table_init(struct ipoib_dev *priv)
{
	INIT_LIST_HEAD(&priv->neigh_list);
	return rhashtable_init(&priv->neighs, &neigh_params);
}

/* Under rcu_read_lock(). */
struct ipoib_neigh *ipoib_neigh_find(struct ipoib_dev *priv, const u8 *daddr)
{
	return rhashtable_lookup(&priv->neighs, daddr, neigh_params);
}

struct ipoib_neigh *ipoib_neigh_get_or_create(struct ipoib_dev *priv,
					      const u8 *daddr)
{
	struct ipoib_neigh *neigh, *old;

	lockdep_assert_held(&priv->lock);
	neigh = rhashtable_lookup_fast(&priv->neighs, daddr, neigh_params);
	if (neigh)
		return neigh;

	neigh = kzalloc(sizeof(*neigh), GFP_ATOMIC);
	if (!neigh)
		return NULL;
	memcpy(neigh->daddr, daddr, IPOIB_ALEN);
	neigh->priv = priv;
	neigh->qpn = ipoib_addr_qpn(daddr);
	neigh->last_used = jiffies;
	ipoib_waitq_init(&neigh->queue, IPOIB_WAITQ_PATH);
	INIT_LIST_HEAD(&neigh->owner_link);
	old = rhashtable_lookup_get_insert_fast(&priv->neighs,
						&neigh->hash_node,
						neigh_params);
	if (old) {
		kfree(neigh);
		return IS_ERR(old) ? NULL : old;
	}
	list_add_tail(&neigh->all_link, &priv->neigh_list);
	ipoib_count(priv, IPOIB_CNT_NEIGH_CREATED);
	return neigh;
}

/* Point the neighbour at a new AH (or none). */
void ipoib_neigh_set_ah(struct ipoib_neigh *neigh, struct ipoib_ah *ah)
{
	struct ipoib_ah *old;

	lockdep_assert_held(&neigh->priv->lock);
	old = rcu_dereference_protected(neigh->ah,
					lockdep_is_held(&neigh->priv->lock));
	if (old == ah)
		return;
	rcu_assign_pointer(neigh->ah, ah ? ipoib_ah_get(ah) : NULL);
	ipoib_ah_put(old);
}

static void neigh_free_rcu(struct rcu_head *head)
{
	struct ipoib_neigh *neigh = container_of(head, struct ipoib_neigh, rcu);

	ipoib_ah_put(rcu_dereference_protected(neigh->ah, 1));
	kfree(neigh);
}

/* Unhash, drop what waits and its peer, free after a grace period. */
void ipoib_neigh_kill(struct ipoib_neigh *neigh)
{
	struct ipoib_dev *priv = neigh->priv;
	struct ipoib_cm_peer *cp;

	lockdep_assert_held(&priv->lock);
	if (neigh->dead)
		return;
	neigh->dead = true;
	rhashtable_remove_fast(&priv->neighs, &neigh->hash_node, neigh_params);
	list_del(&neigh->all_link);
	list_del_init(&neigh->owner_link);
	neigh->path = NULL;
	neigh->mcast = NULL;
	/* A transmit under RCU may still read it: the peer is freed after. */
	cp = rcu_dereference_protected(neigh->cm_peer,
				       lockdep_is_held(&priv->lock));
	if (cp) {
		RCU_INIT_POINTER(neigh->cm_peer, NULL);
		ipoib_cm_peer_put(cp);
	}
	ipoib_waitq_purge(priv, &neigh->queue);
	call_rcu(&neigh->rcu, neigh_free_rcu);
}

static void ipoib_neigh_flush_all(struct ipoib_dev *priv)
{
	struct ipoib_neigh *neigh, *next;

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(neigh, next, &priv->neigh_list, all_link)
		ipoib_neigh_kill(neigh);
	spin_unlock_bh(&priv->lock);
}

/* Interface teardown: no transmit can run any more. */
void ipoib_neigh_table_destroy(struct ipoib_dev *priv)
{
	ipoib_neigh_flush_all(priv);
	/* Neighbours free their AH references from RCU callbacks. */
	rcu_barrier();
	rhashtable_destroy(&priv->neighs);
}

/* Neighbours unused for IPOIB_NEIGH_IDLE go (ipoib_gc_task()). */
void ipoib_neigh_gc(struct ipoib_dev *priv)
{
	struct ipoib_neigh *neigh, *next;

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(neigh, next, &priv->neigh_list, all_link) {
		if (!ipoib_waitq_empty(&neigh->queue) ||
		    time_before(jiffies, READ_ONCE(neigh->last_used) +
				IPOIB_NEIGH_IDLE))
			continue;
		ipoib_neigh_kill(neigh);
		ipoib_count(priv, IPOIB_CNT_NEIGH_GC);
	}
	spin_unlock_bh(&priv->lock);
}
