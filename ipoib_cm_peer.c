// SPDX-License-Identifier: GPL-2.0
/*
 * Connected mode's peer table: one struct ipoib_cm_peer per peer of an
 * interface, found by its link address or by its GID, so that an event
 * about a peer (a REQ, a crossing, a lost or moved peer, a send) touches
 * that peer's few connections and nothing else.
 *
 * The key is the address from its second octet on, QPN and GID: the
 * flags octet says what the peer takes, not who it is, and two addresses
 * that differ only there are the same peer.  The GID index is a list
 * table, for the peers that share a GID.  Entries are made, found and
 * let go under priv->lock; ipoib_cm.h says how long one lives.
 */
#include <linux/slab.h>
#include "ipoib_cm.h"

static const struct rhashtable_params peer_params = {
	.key_len = IPOIB_ALEN - 1,
	.key_offset = offsetof(struct ipoib_cm_peer, addr) + 1,
	.head_offset = offsetof(struct ipoib_cm_peer, node),
	.automatic_shrinking = true,
};

static const struct rhashtable_params gid_params = {
	.key_len = sizeof(union ib_gid),
	.key_offset = offsetof(struct ipoib_cm_peer, addr) + 4,
	.head_offset = offsetof(struct ipoib_cm_peer, gid_node),
	.automatic_shrinking = true,
};

int ipoib_cm_peer_table_init(struct ipoib_cm_dev *cm)
{
	int ret;

	INIT_LIST_HEAD(&cm->peer_list);
	ret = rhashtable_init(&cm->peers, &peer_params);
	if (ret)
		return ret;
	ret = rhltable_init(&cm->peers_by_gid, &gid_params);
	if (ret)
		rhashtable_destroy(&cm->peers);
	return ret;
}

/* Every neighbour and connection has let go by now. */
void ipoib_cm_peer_table_destroy(struct ipoib_cm_dev *cm)
{
	WARN_ON_ONCE(!list_empty(&cm->peer_list));
	rhltable_destroy(&cm->peers_by_gid);
	rhashtable_destroy(&cm->peers);
}

/* The peer at this address, flags aside; NULL if none. */
struct ipoib_cm_peer *ipoib_cm_peer_find(struct ipoib_dev *priv,
					 const u8 *addr)
{
	lockdep_assert_held(&priv->lock);
	return rhashtable_lookup_fast(&priv->cm->peers, addr + 1, peer_params);
}

/*
 * The peers at this GID, for rhl_for_each_entry_rcu(..., gid_node): under
 * priv->lock, and rcu_read_lock() for the walk's checks.
 */
struct rhlist_head *ipoib_cm_peers_at(struct ipoib_dev *priv,
				      const union ib_gid *gid)
{
	lockdep_assert_held(&priv->lock);
	return rhltable_lookup(&priv->cm->peers_by_gid, gid->raw, gid_params);
}

static struct ipoib_cm_peer *peer_new(struct ipoib_dev *priv, const u8 *addr)
{
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_peer *peer;
	void *old;

	peer = kzalloc(sizeof(*peer), GFP_ATOMIC);
	if (!peer)
		return NULL;
	memcpy(peer->addr, addr, IPOIB_ALEN);
	peer->addr[0] = 0;
	peer->priv = priv;
	kref_init(&peer->ref);
	INIT_LIST_HEAD(&peer->conns);
	old = rhashtable_lookup_get_insert_fast(&cm->peers, &peer->node,
						peer_params);
	if (old) {
		/* Only an error: under priv->lock no other is made. */
		WARN_ON_ONCE(!IS_ERR(old));
		goto err_free;
	}
	if (rhltable_insert(&cm->peers_by_gid, &peer->gid_node, gid_params))
		goto err_unhash;
	list_add_tail(&peer->all_link, &cm->peer_list);
	return peer;

err_unhash:
	rhashtable_remove_fast(&cm->peers, &peer->node, peer_params);
err_free:
	/* Readers under RCU may have found it in the first table. */
	kfree_rcu(peer, rcu);
	return NULL;
}

/*
 * The peer at this address, made if there is none, with a reference for
 * the caller; NULL without memory.
 */
struct ipoib_cm_peer *ipoib_cm_peer_get(struct ipoib_dev *priv,
					const u8 *addr)
{
	struct ipoib_cm_peer *peer = ipoib_cm_peer_find(priv, addr);

	if (!peer)
		return peer_new(priv, addr);
	kref_get(&peer->ref);
	return peer;
}

static void peer_release(struct kref *ref)
{
	struct ipoib_cm_peer *peer = container_of(ref, struct ipoib_cm_peer,
						  ref);
	struct ipoib_cm_dev *cm = peer->priv->cm;

	WARN_ON_ONCE(!list_empty(&peer->conns));
	rhashtable_remove_fast(&cm->peers, &peer->node, peer_params);
	rhltable_remove(&cm->peers_by_gid, &peer->gid_node, gid_params);
	list_del(&peer->all_link);
	kfree_rcu(peer, rcu);
}

/* Under priv->lock: the last reference unhashes the peer. */
void ipoib_cm_peer_put(struct ipoib_cm_peer *peer)
{
	lockdep_assert_held(&peer->priv->lock);
	kref_put(&peer->ref, peer_release);
}
