// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups.  The broadcast group comes first: it gives the Q_Key
 * and MTU the whole partition uses (RFC 4391 5) and is created with our
 * defaults when the SM has none.  Then the groups in the netdev's mc list
 * are joined as full members, and groups we only send to as send-only
 * members.  Joins run concurrently from one task; failures back off.
 */
#include <linux/slab.h>
#include <linux/jhash.h>
#include "ipoib.h"
#include "ipoib_ah.h"
#include "ipoib_ib.h"
#include "ipoib_multicast.h"
#include "ipoib_neigh.h"
#include "ipoib_tx.h"
#include "ipoib_verbs.h"
#include "ipoib_waitq.h"

#define IPOIB_JOIN_FULL		BIT(FULLMEMBER_JOIN)
#define IPOIB_JOIN_SENDONLY	BIT(SENDONLY_FULLMEMBER_JOIN)

static u32 mgid_hash(const union ib_gid *mgid)
{
	return jhash(mgid->raw, sizeof(mgid->raw), 0);
}

static struct ipoib_mcast *mcast_find(struct ipoib_dev *priv,
				      const union ib_gid *mgid)
{
	struct ipoib_mcast *mcast;

	lockdep_assert_held(&priv->lock);
	hash_for_each_possible(priv->mcasts, mcast, hash_link, mgid_hash(mgid))
		if (!memcmp(&mcast->mgid, mgid, sizeof(*mgid)))
			return mcast;
	return NULL;
}

static struct ipoib_mcast *mcast_add(struct ipoib_dev *priv,
				     const union ib_gid *mgid, bool sendonly)
{
	struct ipoib_mcast *mcast = kzalloc(sizeof(*mcast), GFP_ATOMIC);

	lockdep_assert_held(&priv->lock);
	if (!mcast)
		return NULL;
	mcast->priv = priv;
	mcast->mgid = *mgid;
	mcast->sendonly = sendonly;
	mcast->last_used = jiffies;
	INIT_LIST_HEAD(&mcast->neighs);
	ipoib_waitq_init(&mcast->queue, IPOIB_WAITQ_JOIN);
	hash_add(priv->mcasts, &mcast->hash_link, mgid_hash(mgid));
	list_add_tail(&mcast->list, &priv->mcast_list);
	return mcast;
}

static void mcast_backoff(struct ipoib_mcast *mcast)
{
	mcast->backoff = ipoib_backoff_next(mcast->backoff, IPOIB_RETRY_MIN,
					    IPOIB_RETRY_MAX);
	mcast->retry_at = jiffies + mcast->backoff;
}

/* Run the join task now, or later unless it runs sooner anyway. */
static void kick_task(struct ipoib_dev *priv, unsigned long delay)
{
	if (!test_bit(IPOIB_MCAST_RUN, &priv->flags))
		return;
	if (delay)
		queue_delayed_work(priv->wq, &priv->mcast_task, delay);
	else
		mod_delayed_work(priv->wq, &priv->mcast_task, 0);
}

/* What the SA needs to make the broadcast group when the SM has none. */
static void broadcast_create_fields(struct ipoib_dev *priv,
				    struct ib_sa_mcmember_rec *rec,
				    ib_sa_comp_mask *mask)
{
	rec->qkey = cpu_to_be32(IPOIB_DEFAULT_QKEY);
	rec->mtu_selector = IB_SA_EQ;
	rec->mtu = ib_mtu_int_to_enum(priv->max_ib_mtu);
	rec->traffic_class = 0;
	rec->sl = 0;
	rec->flow_label = 0;
	rec->hop_limit = 0;
	*mask |= IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_MTU_SELECTOR |
		 IB_SA_MCMEMBER_REC_MTU | IB_SA_MCMEMBER_REC_TRAFFIC_CLASS |
		 IB_SA_MCMEMBER_REC_SL | IB_SA_MCMEMBER_REC_FLOW_LABEL |
		 IB_SA_MCMEMBER_REC_HOP_LIMIT;
}

/* RFC 4391 5: every group uses the broadcast group's parameters. */
static void follow_broadcast(struct ipoib_dev *priv,
			     struct ib_sa_mcmember_rec *rec,
			     ib_sa_comp_mask *mask)
{
	const struct ib_sa_mcmember_rec *bc = &priv->broadcast->rec;

	rec->qkey = bc->qkey;
	rec->mtu_selector = IB_SA_EQ;
	rec->mtu = bc->mtu;
	rec->traffic_class = bc->traffic_class;
	rec->rate_selector = IB_SA_EQ;
	rec->rate = bc->rate;
	rec->sl = bc->sl;
	rec->flow_label = bc->flow_label;
	rec->hop_limit = bc->hop_limit;
	*mask |= IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_MTU_SELECTOR |
		 IB_SA_MCMEMBER_REC_MTU | IB_SA_MCMEMBER_REC_TRAFFIC_CLASS |
		 IB_SA_MCMEMBER_REC_RATE_SELECTOR | IB_SA_MCMEMBER_REC_RATE |
		 IB_SA_MCMEMBER_REC_SL | IB_SA_MCMEMBER_REC_FLOW_LABEL |
		 IB_SA_MCMEMBER_REC_HOP_LIMIT;
}

/* Undo what a join callback set up for a group that died meanwhile. */
static void undo_join(struct ipoib_dev *priv, struct ipoib_mcast *mcast,
		      struct ipoib_ah *ah, bool attached)
{
	if (attached)
		ipoib_mcast_detach(priv, mcast);
	ipoib_ah_put(ah);
}

/* Attach the QP and make the AH: the slow, sleeping half of a join. */
static int finish_join(struct ipoib_dev *priv, struct ipoib_mcast *mcast,
		       struct ib_sa_mcmember_rec *rec, struct ipoib_ah **ahp,
		       bool *attached)
{
	struct rdma_ah_attr attr;
	struct ipoib_ah *ah;
	int ret;

	*attached = false;
	ret = ib_init_ah_from_mcmember(priv->ca, priv->port, rec, NULL,
				       IB_GID_TYPE_IB, &attr);
	if (ret)
		return ret;
	ah = ipoib_ah_create(priv, &attr);
	rdma_destroy_ah_attr(&attr);
	if (IS_ERR(ah))
		return PTR_ERR(ah);

	/* Without the group's Q_Key the QP takes nothing: join again. */
	if (mcast == READ_ONCE(priv->broadcast)) {
		ret = ipoib_qp_set_qkey(priv, be32_to_cpu(rec->qkey));
		if (ret) {
			ipoib_ah_put(ah);
			return ret;
		}
	}
	if (!mcast->sendonly) {
		mcast->rec = *rec;	/* attach reads the MLID */
		ret = ipoib_mcast_attach(priv, mcast);
		if (ret) {
			ipoib_ah_put(ah);
			return ret;
		}
		*attached = true;
	}
	*ahp = ah;
	return 0;
}

static void broadcast_ready(struct ipoib_dev *priv,
			    const struct ib_sa_mcmember_rec *rec)
{
	/* A dead HCA's join can still complete: it carries nothing. */
	if (test_bit(IPOIB_DEV_FATAL, &priv->flags))
		return;
	priv->mcast_mtu = ipoib_ud_mtu(ib_mtu_enum_to_int(rec->mtu));
	if (!netif_carrier_ok(priv->dev))
		set_bit(IPOIB_ANNOUNCE, &priv->flags);
	queue_delayed_work(priv->wq, &priv->link_task, 0);
	netif_carrier_on(priv->dev);
	netdev_info(priv->dev, "joined the broadcast group %pI6: MLID 0x%04x, Q_Key 0x%08x, IB MTU %d\n",
		    rec->mgid.raw, be16_to_cpu(rec->mlid),
		    be32_to_cpu(rec->qkey), ib_mtu_enum_to_int(rec->mtu));
}

static int join_done(int status, struct ib_sa_multicast *multicast)
{
	struct ipoib_mcast *mcast = multicast->context;
	struct ipoib_dev *priv = mcast->priv;
	struct ipoib_ah *ah = NULL;
	struct ipoib_neigh *neigh;
	bool attached = false, is_bc;
	struct sk_buff_head ready;
	unsigned long retry_in;
	union ib_gid mgid;

	/* A fatal error on a joined group: everything is rejoined. */
	if (status == -ENETRESET) {
		if (!READ_ONCE(mcast->dead))
			queue_work(priv->wq, &priv->flush_normal);
		return 0;
	}
	if (!status)
		status = finish_join(priv, mcast, &multicast->rec, &ah,
				     &attached);

	__skb_queue_head_init(&ready);
	spin_lock_bh(&priv->lock);
	mcast->busy = false;
	if (mcast->dead) {
		spin_unlock_bh(&priv->lock);
		undo_join(priv, mcast, ah, attached);
		return 0;
	}
	is_bc = mcast == priv->broadcast;
	if (status) {
		/* The core frees the SA handle when we return non-zero. */
		mcast->sa = NULL;
		mcast_backoff(mcast);
		if (is_bc)
			mcast->create = !mcast->create;
		ipoib_waitq_purge(priv, &mcast->queue);
		/*
		 * With sa cleared, a leave no longer waits for this callback
		 * and may free the group as soon as the lock is dropped.
		 */
		mgid = mcast->mgid;
		retry_in = mcast->backoff;
		spin_unlock_bh(&priv->lock);
		ipoib_count(priv, IPOIB_CNT_MCAST_JOIN_FAILURES);
		net_info_ratelimited("%s: joining %pI6 failed (%d); retrying in %u ms\n",
				     priv->dev->name, mgid.raw, status,
				     jiffies_to_msecs(retry_in));
		kick_task(priv, retry_in);
		return 1;
	}
	mcast->rec = multicast->rec;
	mcast->ah = ah;
	mcast->qp_attached = attached;
	mcast->ready = true;
	mcast->backoff = 0;
	list_for_each_entry(neigh, &mcast->neighs, owner_link)
		ipoib_neigh_set_ah(neigh, ah);
	ipoib_waitq_splice(priv, &mcast->queue, &ready);
	spin_unlock_bh(&priv->lock);

	ipoib_count(priv, IPOIB_CNT_MCAST_JOINS);
	if (is_bc) {
		broadcast_ready(priv, &multicast->rec);
		kick_task(priv, 0);
	}
	ipoib_send_staged(priv, &ready);
	return 0;
}

/* Ask the SA; when that cannot even start, returns when to try again. */
static unsigned long start_join(struct ipoib_dev *priv,
				struct ipoib_mcast *mcast)
{
	struct ib_sa_mcmember_rec rec = {
		.mgid = mcast->mgid,
		.port_gid = priv->local_gid,
		.pkey = cpu_to_be16(priv->pkey),
		.join_state = IPOIB_JOIN_FULL,
	};
	ib_sa_comp_mask mask = IB_SA_MCMEMBER_REC_MGID |
			       IB_SA_MCMEMBER_REC_PORT_GID |
			       IB_SA_MCMEMBER_REC_PKEY |
			       IB_SA_MCMEMBER_REC_JOIN_STATE;
	struct ib_sa_multicast *sa;

	lockdep_assert_held(&priv->lock);
	if (mcast == priv->broadcast) {
		if (mcast->create)
			broadcast_create_fields(priv, &rec, &mask);
	} else {
		follow_broadcast(priv, &rec, &mask);
		if (mcast->sendonly)
			rec.join_state = IPOIB_JOIN_SENDONLY;
	}

	mcast->busy = true;
	sa = ib_sa_join_multicast(&ipoib_sa_client, priv->ca, priv->port,
				  &rec, mask, GFP_ATOMIC, join_done, mcast);
	if (IS_ERR(sa)) {
		mcast->busy = false;
		mcast_backoff(mcast);
		netdev_warn(priv->dev, "cannot start joining %pI6: %ld\n",
			    mcast->mgid.raw, PTR_ERR(sa));
		return mcast->retry_at;
	}
	mcast->sa = sa;
	return 0;
}

/* The earlier of two retry times, 0 being none. */
static unsigned long sooner(unsigned long next, unsigned long t)
{
	return !next || (t && time_before(t, next)) ? t : next;
}

/*
 * What may be joined now; returns the next retry time (0: none), a join
 * that could not start included: nothing else would run the task again.
 */
static unsigned long join_pending(struct ipoib_dev *priv)
{
	struct ipoib_mcast *bc = priv->broadcast, *mcast;
	unsigned long next = 0;

	lockdep_assert_held(&priv->lock);
	if (!bc->ready) {
		if (bc->busy)
			return 0;
		if (time_before(jiffies, bc->retry_at))
			return bc->retry_at;
		return start_join(priv, bc);
	}
	list_for_each_entry(mcast, &priv->mcast_list, list) {
		if (mcast == bc || mcast->ready || mcast->busy ||
		    (!mcast->wanted && !mcast->sendonly))
			continue;
		if (time_before(jiffies, mcast->retry_at))
			next = sooner(next, mcast->retry_at);
		else
			next = sooner(next, start_join(priv, mcast));
	}
	return next;
}

void ipoib_mcast_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev, mcast_task);
	union ib_gid bc_mgid;
	unsigned long next;
	struct ib_port_attr attr;

	if (!test_bit(IPOIB_MCAST_RUN, &priv->flags) ||
	    !test_bit(IPOIB_QP_READY, &priv->flags))
		return;
	if (!ib_query_port(priv->ca, priv->port, &attr)) {
		if (attr.state != IB_PORT_ACTIVE)
			return;	/* the port event will restart us */
		ipoib_set_local_lid(priv, &attr);
	}
	memcpy(bc_mgid.raw, ipoib_addr_gid(priv->dev->broadcast),
	       sizeof(bc_mgid));

	spin_lock_bh(&priv->lock);
	if (!priv->broadcast) {
		priv->broadcast = mcast_add(priv, &bc_mgid, false);
		if (!priv->broadcast) {
			spin_unlock_bh(&priv->lock);
			kick_task(priv, HZ);
			return;
		}
	}
	next = join_pending(priv);
	spin_unlock_bh(&priv->lock);
	if (next)
		kick_task(priv, time_after(next, jiffies) ? next - jiffies : 1);
}

/*
 * Take a group out of every table.  Its SA handle, AH and attachment now
 * belong to whoever called; see mcast_leave().
 */
static void mcast_unlink(struct ipoib_dev *priv, struct ipoib_mcast *mcast,
			 struct list_head *leaving)
{
	struct ipoib_neigh *neigh, *next;

	lockdep_assert_held(&priv->lock);
	mcast->dead = true;
	hash_del(&mcast->hash_link);
	list_move_tail(&mcast->list, leaving);
	list_for_each_entry_safe(neigh, next, &mcast->neighs, owner_link)
		ipoib_neigh_kill(neigh);
	if (priv->broadcast == mcast)
		priv->broadcast = NULL;
}

/* Sleeps: waits for the SA to let go of the group. */
static void mcast_leave(struct ipoib_dev *priv, struct ipoib_mcast *mcast)
{
	if (mcast->sa)
		ib_sa_free_multicast(mcast->sa);
	if (mcast->qp_attached)
		ipoib_mcast_detach(priv, mcast);
	ipoib_ah_put(mcast->ah);
	ipoib_waitq_purge(priv, &mcast->queue);
	if (mcast->ready)
		ipoib_count(priv, IPOIB_CNT_MCAST_LEAVES);
	kfree(mcast);
}

static void leave_all(struct ipoib_dev *priv, struct list_head *leaving)
{
	struct ipoib_mcast *mcast, *next;

	list_for_each_entry_safe(mcast, next, leaving, list) {
		list_del(&mcast->list);
		mcast_leave(priv, mcast);
	}
}

/* Leave every group, the broadcast group included. */
static void ipoib_mcast_flush(struct ipoib_dev *priv)
{
	struct ipoib_mcast *mcast, *next;
	LIST_HEAD(leaving);

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(mcast, next, &priv->mcast_list, list)
		mcast_unlink(priv, mcast, &leaving);
	spin_unlock_bh(&priv->lock);
	netif_carrier_off(priv->dev);
	leave_all(priv, &leaving);
}

void ipoib_mcast_start(struct ipoib_dev *priv)
{
	set_bit(IPOIB_MCAST_RUN, &priv->flags);
	kick_task(priv, 0);
	queue_work(priv->wq, &priv->mcast_restart_task);
}

void ipoib_mcast_stop(struct ipoib_dev *priv)
{
	clear_bit(IPOIB_MCAST_RUN, &priv->flags);
	cancel_delayed_work_sync(&priv->mcast_task);
	cancel_work_sync(&priv->mcast_restart_task);
	ipoib_mcast_flush(priv);
}

void ipoib_mcast_restart(struct ipoib_dev *priv)
{
	if (test_bit(IPOIB_MCAST_RUN, &priv->flags))
		queue_work(priv->wq, &priv->mcast_restart_task);
}

/* Want this group as a full member. */
static void want_group(struct ipoib_dev *priv, const union ib_gid *mgid,
		       struct list_head *leaving)
{
	struct ipoib_mcast *mcast = mcast_find(priv, mgid);

	lockdep_assert_held(&priv->lock);
	if (mcast && mcast->sendonly) {
		/* We now listen, too: rejoin as a full member. */
		mcast_unlink(priv, mcast, leaving);
		mcast = NULL;
	}
	if (!mcast)
		mcast = mcast_add(priv, mgid, false);
	if (mcast)
		mcast->wanted = true;
}

/* umcast: a group this port joined for another client, not for us. */
static bool joined_elsewhere(struct ipoib_dev *priv, union ib_gid *mgid)
{
	struct ib_sa_mcmember_rec rec;
	bool ours;

	spin_lock_bh(&priv->lock);
	ours = mcast_find(priv, mgid);
	spin_unlock_bh(&priv->lock);
	return !ours && !ib_sa_get_mcmember_rec(priv->ca, priv->port, mgid,
						&rec);
}

/*
 * The netdev's multicast list changed: join what is new, leave what is
 * gone.  With umcast set, groups some other client of this port joined
 * (user space through the CM or umad) are theirs, not ours.
 */
void ipoib_mcast_restart_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      mcast_restart_task);
	struct net_device *dev = priv->dev;
	struct ipoib_mcast *mcast, *next;
	struct netdev_hw_addr *ha;
	union ib_gid *wanted;
	unsigned int n = 0, i;
	LIST_HEAD(leaving);

	if (!test_bit(IPOIB_MCAST_RUN, &priv->flags))
		return;
	netif_addr_lock_bh(dev);
	wanted = kcalloc(netdev_mc_count(dev) ?: 1, sizeof(*wanted), GFP_ATOMIC);
	if (wanted) {
		netdev_for_each_mc_addr(ha, dev)
			if (ipoib_mcast_addr_ok(ha->addr, priv->pkey))
				memcpy(wanted[n++].raw, ipoib_addr_gid(ha->addr),
				       sizeof(union ib_gid));
	}
	netif_addr_unlock_bh(dev);
	if (!wanted) {
		queue_work(priv->wq, &priv->mcast_restart_task);
		return;
	}

	if (test_bit(IPOIB_UMCAST, &priv->flags))
		for (i = 0; i < n; i++)
			if (joined_elsewhere(priv, &wanted[i]))
				memset(&wanted[i], 0, sizeof(wanted[i]));

	spin_lock_bh(&priv->lock);
	list_for_each_entry(mcast, &priv->mcast_list, list)
		mcast->wanted = false;
	for (i = 0; i < n; i++)
		if (ipoib_gid_is_multicast(wanted[i].raw))
			want_group(priv, &wanted[i], &leaving);
	list_for_each_entry_safe(mcast, next, &priv->mcast_list, list)
		if (mcast != priv->broadcast && !mcast->wanted &&
		    !mcast->sendonly)
			mcast_unlink(priv, mcast, &leaving);
	spin_unlock_bh(&priv->lock);

	kfree(wanted);
	leave_all(priv, &leaving);
	kick_task(priv, 0);
}

/*
 * When a group was last sent to.  Once joined, packets take the fast path
 * through its neighbours, which stamp themselves: the group's own stamp
 * only says when the slow path last saw it.
 */
static unsigned long mcast_last_used(struct ipoib_mcast *mcast)
{
	unsigned long last = READ_ONCE(mcast->last_used);
	struct ipoib_neigh *neigh;

	lockdep_assert_held(&mcast->priv->lock);
	list_for_each_entry(neigh, &mcast->neighs, owner_link)
		if (time_after(READ_ONCE(neigh->last_used), last))
			last = READ_ONCE(neigh->last_used);
	return last;
}

/* Send-only groups nobody sent to for a while are left. */
void ipoib_mcast_gc(struct ipoib_dev *priv)
{
	unsigned long idle = READ_ONCE(priv->sendonly_idle_s) * HZ;
	struct ipoib_mcast *mcast, *next;
	LIST_HEAD(leaving);

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(mcast, next, &priv->mcast_list, list)
		if (mcast->sendonly && !mcast->busy &&
		    time_after(jiffies, mcast_last_used(mcast) + idle))
			mcast_unlink(priv, mcast, &leaving);
	spin_unlock_bh(&priv->lock);
	leave_all(priv, &leaving);
}

/* Transmit to a multicast address whose neighbour is not resolved yet. */
void ipoib_mcast_send(struct ipoib_dev *priv, struct sk_buff *skb,
		      const u8 *daddr)
{
	const union ib_gid *mgid = (const union ib_gid *)ipoib_addr_gid(daddr);
	struct ipoib_neigh *neigh;
	struct ipoib_mcast *mcast;
	struct ipoib_ah *ah;

	spin_lock_bh(&priv->lock);
	if (!priv->broadcast || !priv->broadcast->ready ||
	    !test_bit(IPOIB_QP_READY, &priv->flags))
		goto drop;
	mcast = mcast_find(priv, mgid);
	if (!mcast) {
		mcast = mcast_add(priv, mgid, true);
		if (!mcast)
			goto drop;
		kick_task(priv, 0);
	}
	WRITE_ONCE(mcast->last_used, jiffies);
	if (!mcast->ready) {
		ipoib_waitq_add(priv, &mcast->queue, skb, daddr);
		spin_unlock_bh(&priv->lock);
		return;
	}

	/* A neighbour makes the next packet to this group take the fast path. */
	neigh = ipoib_neigh_get_or_create(priv, daddr);
	if (neigh && !neigh->mcast && !neigh->path) {
		neigh->mcast = mcast;
		neigh->qpn = IPOIB_MCAST_QPN;
		list_add_tail(&neigh->owner_link, &mcast->neighs);
		ipoib_neigh_set_ah(neigh, mcast->ah);
	}
	ah = mcast->ah;
	rcu_read_lock();
	spin_unlock_bh(&priv->lock);
	ipoib_ud_send(priv, skb, ah, IPOIB_MCAST_QPN);
	rcu_read_unlock();
	return;

drop:
	spin_unlock_bh(&priv->lock);
	ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_NO_MCAST);
}
