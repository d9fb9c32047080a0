// SPDX-License-Identifier: GPL-2.0
/*
 * Unicast resolution: one path per destination GID, resolved by an SA
 * PathRecord query into an address handle that all neighbours behind that
 * GID share.  A failed query backs off, and while it does, packets to that
 * GID are dropped and counted rather than held.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include "ipoib_cm.h"
#include "ipoib_ah.h"
#include "ipoib_neigh.h"
#include "ipoib_path.h"
#include "ipoib_tx.h"
#include "ipoib_waitq.h"

static u32 gid_hash(const union ib_gid *gid)
{
	return jhash(gid->raw, sizeof(gid->raw), 0);
}

static struct ipoib_path *path_find(struct ipoib_dev *priv,
				    const union ib_gid *gid)
{
	struct ipoib_path *path;

	lockdep_assert_held(&priv->lock);
	hash_for_each_possible(priv->paths, path, hash_link, gid_hash(gid))
		if (!memcmp(&path->dgid, gid, sizeof(*gid)))
			return path;
	return NULL;
}

static struct ipoib_path *path_create(struct ipoib_dev *priv,
				      const union ib_gid *gid)
{
	struct ipoib_path *path = kzalloc(sizeof(*path), GFP_ATOMIC);

	if (!path)
		return NULL;
	path->priv = priv;
	path->dgid = *gid;
	INIT_LIST_HEAD(&path->neighs);
	init_completion(&path->query_done);
	complete(&path->query_done);	/* no query outstanding */
	hash_add(priv->paths, &path->hash_link, gid_hash(gid));
	return path;
}

/* The query failed; hold off and drop what waited. */
static void path_failed(struct ipoib_dev *priv, struct ipoib_path *path,
			int status)
{
	struct ipoib_neigh *neigh;

	lockdep_assert_held(&priv->lock);
	path->valid = false;
	path->backoff = ipoib_backoff_next(path->backoff, IPOIB_RETRY_MIN,
					   IPOIB_RETRY_MAX);
	path->retry_at = jiffies + path->backoff;
	list_for_each_entry(neigh, &path->neighs, owner_link)
		ipoib_waitq_purge(priv, &neigh->queue);
	ipoib_count(priv, IPOIB_CNT_PATH_FAILURES);
	net_info_ratelimited("%s: no path to %pI6 (%d); retrying in %u ms\n",
			     priv->dev->name, path->dgid.raw, status,
			     jiffies_to_msecs(path->backoff));
}

static void path_done(int status, struct sa_path_rec *rec,
		      ipoib_sa_num_prs num_prs, void *context)
{
	struct ipoib_path *path = context;
	struct ipoib_dev *priv = path->priv;
	struct ipoib_ah *ah = NULL, *old = NULL;
	struct ipoib_neigh *neigh;
	struct rdma_ah_attr attr;
	struct sk_buff_head ready;

	__skb_queue_head_init(&ready);
	if (!status && rec) {
		status = ib_init_ah_attr_from_path(priv->ca, priv->port, rec,
						   &attr, NULL);
		if (!status) {
			ah = ipoib_ah_create(priv, &attr);
			rdma_destroy_ah_attr(&attr);
			if (IS_ERR(ah)) {
				status = PTR_ERR(ah);
				ah = NULL;
			}
		}
	} else if (!status) {
		status = -EIO;
	}

	spin_lock_bh(&priv->lock);
	path->query = NULL;
	if (ah) {
		old = path->ah;
		path->ah = ah;
		path->rec = *rec;
		path->valid = true;
		path->backoff = 0;
		list_for_each_entry(neigh, &path->neighs, owner_link) {
			ipoib_neigh_set_ah(neigh, ah);
			ipoib_waitq_splice(priv, &neigh->queue, &ready);
		}
	} else {
		path_failed(priv, path, status);
	}
	spin_unlock_bh(&priv->lock);
	/* The path may be freed as soon as this completes. */
	complete(&path->query_done);

	ipoib_ah_put(old);
	ipoib_send_staged(priv, &ready);
}

static void path_query(struct ipoib_dev *priv, struct ipoib_path *path)
{
	struct sa_path_rec rec = {
		.dgid = path->dgid,
		.sgid = priv->local_gid,
		.pkey = cpu_to_be16(priv->pkey),
		.numb_path = 1,
		.reversible = 1,
		.rec_type = SA_PATH_REC_TYPE_IB,
	};
	int id;

	lockdep_assert_held(&priv->lock);
	reinit_completion(&path->query_done);
	id = ib_sa_path_rec_get(&ipoib_sa_client, priv->ca, priv->port, &rec,
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_NUMB_PATH |
				IB_SA_PATH_REC_TRAFFIC_CLASS |
				IB_SA_PATH_REC_PKEY,
				IPOIB_PATH_TIMEOUT_MS, GFP_ATOMIC, path_done,
				path, &path->query);
	if (id < 0) {
		path->query = NULL;
		complete(&path->query_done);
		path_failed(priv, path, id);
		return;
	}
	path->query_id = id;
	ipoib_count(priv, IPOIB_CNT_PATH_QUERIES);
}

/*
 * Tie the neighbour to the path of its GID and get that path resolved.
 * Packets the neighbour holds that can go now are moved to ready; ones
 * that cannot go at all, to the drop counters.
 */
static void ipoib_path_resolve(struct ipoib_dev *priv,
			       struct ipoib_neigh *neigh,
			       struct sk_buff_head *ready)
{
	const union ib_gid *gid = (const union ib_gid *)ipoib_addr_gid(neigh->daddr);
	struct ipoib_path *path = neigh->path;

	lockdep_assert_held(&priv->lock);
	if (!path) {
		path = path_find(priv, gid);
		if (!path)
			path = path_create(priv, gid);
		if (!path) {
			ipoib_waitq_purge(priv, &neigh->queue);
			return;
		}
		neigh->path = path;
		list_add_tail(&neigh->owner_link, &path->neighs);
	}
	if (path->valid && path->ah) {
		ipoib_neigh_set_ah(neigh, path->ah);
		ipoib_waitq_splice(priv, &neigh->queue, ready);
		return;
	}
	if (path->query)
		return;
	if (time_before(jiffies, path->retry_at))
		ipoib_waitq_purge(priv, &neigh->queue);
	else
		path_query(priv, path);
}

/*
 * Transmit to a unicast address whose neighbour is not resolved yet, under
 * the transmit lock.  The packet waits on the neighbour; whatever can go
 * now is staged, and the caller sends it.
 */
void ipoib_xmit_unicast_slow(struct ipoib_dev *priv, struct sk_buff *skb,
			     const u8 *daddr)
{
	struct ipoib_neigh *neigh;
	struct sk_buff_head ready;
	enum ipoib_counter why;

	__skb_queue_head_init(&ready);
	spin_lock_bh(&priv->lock);
	why = IPOIB_CNT_TX_DROP_POST;
	if (!test_bit(IPOIB_QP_READY, &priv->flags))
		goto drop;
	why = IPOIB_CNT_TX_DROP_NO_PATH;
	neigh = ipoib_neigh_get_or_create(priv, daddr);
	if (!neigh)
		goto drop;
	ipoib_waitq_add(priv, &neigh->queue, skb, neigh->daddr);
	/* Resolved since the lockless look: it goes at once. */
	if (rcu_access_pointer(neigh->ah))
		ipoib_waitq_splice(priv, &neigh->queue, &ready);
	else
		ipoib_path_resolve(priv, neigh, &ready);
	spin_unlock_bh(&priv->lock);
	ipoib_stage(priv, &ready);
	return;

drop:
	spin_unlock_bh(&priv->lock);
	ipoib_tx_drop(priv, skb, why);
}

/* Neighbours lose their AH, so their next packet asks the SA anew. */
static void path_invalidate(struct ipoib_dev *priv, struct ipoib_path *path)
{
	struct ipoib_neigh *neigh;

	lockdep_assert_held(&priv->lock);
	path->valid = false;
	path->backoff = 0;
	path->retry_at = jiffies;
	list_for_each_entry(neigh, &path->neighs, owner_link)
		ipoib_neigh_set_ah(neigh, NULL);
	ipoib_ah_put(path->ah);
	path->ah = NULL;
}

/* The fabric changed (port event): every path must be looked up again. */
void ipoib_paths_invalidate(struct ipoib_dev *priv)
{
	struct ipoib_path *path;
	int bkt;

	spin_lock_bh(&priv->lock);
	hash_for_each(priv->paths, bkt, path, hash_link)
		path_invalidate(priv, path);
	spin_unlock_bh(&priv->lock);
}

/*
 * Address resolution from gid arrived from LID slid.  A path that names
 * another port's LID is stale: the peer's LID changed, and only the
 * peer's port was told.  The in-tree driver keeps sending to the old LID
 * until some event flushes its paths; we ask the SA again.  With LMC > 0
 * the peer sends from whichever of its LIDs its own path names, so only
 * base LIDs are compared, with our LMC standing for the peer's: subnet
 * managers give every end port the same one (OpenSM's lmc option).
 */
void ipoib_path_check_lid(struct ipoib_dev *priv, const union ib_gid *gid,
			  u32 slid)
{
	struct ipoib_path *path;
	bool moved = false;

	spin_lock_bh(&priv->lock);
	path = path_find(priv, gid);
	if (path && path->valid &&
	    !ipoib_lid_same_port(be32_to_cpu(sa_path_get_dlid(&path->rec)),
				 slid, READ_ONCE(priv->lmc))) {
		ipoib_dbg(priv, "%pI6 now at LID 0x%x: path asked again\n",
			  gid->raw, slid);
		path_invalidate(priv, path);
		ipoib_count(priv, IPOIB_CNT_PATH_LID_MOVED);
		moved = true;
	}
	spin_unlock_bh(&priv->lock);
	if (moved)
		ipoib_cm_peer_moved(priv, gid);
}

/* Cancel outstanding queries, then free every path and its neighbours. */
void ipoib_paths_flush(struct ipoib_dev *priv)
{
	struct ipoib_neigh *neigh, *nn;
	struct ipoib_path *path;
	struct hlist_node *tmp;
	int bkt;

	spin_lock_bh(&priv->lock);
	hash_for_each(priv->paths, bkt, path, hash_link)
		if (path->query)
			ib_sa_cancel_query(path->query_id, path->query);
	spin_unlock_bh(&priv->lock);

	/* Callbacks take priv->lock; wait for them with it released. */
	hash_for_each(priv->paths, bkt, path, hash_link)
		wait_for_completion(&path->query_done);

	spin_lock_bh(&priv->lock);
	hash_for_each_safe(priv->paths, bkt, tmp, path, hash_link) {
		list_for_each_entry_safe(neigh, nn, &path->neighs, owner_link)
			ipoib_neigh_kill(neigh);
		hash_del(&path->hash_link);
		ipoib_ah_put(path->ah);
		kfree(path);
	}
	spin_unlock_bh(&priv->lock);
}
