// SPDX-License-Identifier: GPL-2.0
/*
 * Packets that wait before they can be sent: for their path (on the
 * neighbour), for a join (on the group), for their connection to come up,
 * and for room in a live connection's send ring (its backlog).  Each such
 * place is a struct ipoib_waitq, and the rules are here once: the limits
 * in one table, one policy when a queue is full, the destination pushed
 * back on where the packet goes through the transmit decision again, the
 * socket let go while the fabric is waited for, and every drop counted by
 * queue and reason.  A queue is guarded by its owner's lock, not its own:
 * priv->lock, or for a backlog its connection's TX queue's lock.
 */
#include "ipoib.h"
#include "ipoib_tx.h"
#include "ipoib_waitq.h"

struct waitq_rules {
	unsigned int limit;		/* packets */
	bool tx_locked;			/* wq->txq's lock guards it */
	bool redo_xmit;			/* leaves through the staged queue */
	bool keep_owner;		/* the socket stays charged */
	enum ipoib_counter full;	/* drops of this queue, by reason */
	enum ipoib_counter purged;
	enum ipoib_counter cause_full;	/* ... and under their cause */
	enum ipoib_counter cause_purged;
};

static const struct waitq_rules waitq_rules[IPOIB_WAITQ_KINDS] = {
	/* A new destination: a flow's first packets, ARP already done. */
	[IPOIB_WAITQ_PATH] = {
		.limit = 16,
		.redo_xmit = true,
		.full = IPOIB_CNT_WAIT_PATH_FULL,
		.purged = IPOIB_CNT_WAIT_PATH_PURGED,
		.cause_full = IPOIB_CNT_TX_DROP_QUEUE_FULL,
		.cause_purged = IPOIB_CNT_TX_DROP_NO_PATH,
	},
	[IPOIB_WAITQ_JOIN] = {
		.limit = 16,
		.redo_xmit = true,
		.full = IPOIB_CNT_WAIT_JOIN_FULL,
		.purged = IPOIB_CNT_WAIT_JOIN_PURGED,
		.cause_full = IPOIB_CNT_TX_DROP_QUEUE_FULL,
		.cause_purged = IPOIB_CNT_TX_DROP_NO_MCAST,
	},
	/*
	 * Flows already running over UD when their connection is made keep
	 * sending at full rate for the CM's round trips (REQ, REP, RTU).
	 */
	[IPOIB_WAITQ_CONNECT] = {
		.limit = 64,
		.redo_xmit = true,
		.full = IPOIB_CNT_WAIT_CONNECT_FULL,
		.purged = IPOIB_CNT_WAIT_CONNECT_PURGED,
		.cause_full = IPOIB_CNT_CM_TX_DROP_QUEUE,
		.cause_purged = IPOIB_CNT_CM_TX_DROP_QUEUE,
	},
	/*
	 * Bigger, for throughput: TSQ lets each TCP flow to a peer have a
	 * MiB or more outstanding, 16 packets of 64 KiB or more, and several
	 * flows share the 16-entry ring.  And the socket stays charged: the
	 * wait is the peer's pace, and that charge is what holds TSQ and
	 * sndbuf to it; let go, a bulk stream would overrun the backlog and
	 * lose packets at every full ring.  A stalled peer's wait ends with
	 * its connection, once the RC retries run out (IPOIB_CM_RETRY_COUNT).
	 */
	[IPOIB_WAITQ_RING] = {
		.limit = 128,
		.tx_locked = true,
		.keep_owner = true,
		.full = IPOIB_CNT_WAIT_RING_FULL,
		.purged = IPOIB_CNT_WAIT_RING_PURGED,
		.cause_full = IPOIB_CNT_CM_TX_DROP_BACKLOG,
		.cause_purged = IPOIB_CNT_CM_TX_DROP_BACKLOG,
	},
};

static const struct waitq_rules *rules_of(const struct ipoib_waitq *wq)
{
	return &waitq_rules[wq->kind];
}

static void assert_owner_locked(struct ipoib_dev *priv,
				const struct ipoib_waitq *wq)
{
	if (rules_of(wq)->tx_locked)
		ipoib_assert_txq_locked(priv, wq->txq);
	else
		lockdep_assert_held(&priv->lock);
}

void ipoib_waitq_init(struct ipoib_waitq *wq, enum ipoib_waitq_kind kind)
{
	__skb_queue_head_init(&wq->skbs);
	wq->kind = kind;
	wq->txq = 0;
}

/*
 * One policy for every queue: when it is full, its oldest packet is
 * dropped to make room for the new one.  The oldest is the one its sender
 * is likeliest to have sent again already (TCP's copy waits behind it),
 * and newer packets getting through let the receiver's SACKs name the
 * hole at once; losing the newest instead cuts off a window's end, which
 * only a retransmit timeout finds.  The kernel's neighbour queue drops
 * the oldest too; the in-tree driver drops the newest.
 */
void ipoib_waitq_add(struct ipoib_dev *priv, struct ipoib_waitq *wq,
		     struct sk_buff *skb, const u8 *daddr)
{
	const struct waitq_rules *r = rules_of(wq);

	assert_owner_locked(priv, wq);
	if (WARN_ON_ONCE(r->redo_xmit != !!daddr)) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_BAD_ADDR);
		return;
	}
	if (skb_queue_len(&wq->skbs) >= r->limit) {
		ipoib_count(priv, r->full);
		ipoib_tx_drop(priv, __skb_dequeue(&wq->skbs), r->cause_full);
	}
	/* A stalled resolution must not hold the sender's buffer space. */
	if (!r->keep_owner)
		skb_orphan(skb);
	if (daddr)
		ipoib_push_pseudo_header(skb, daddr);
	__skb_queue_tail(&wq->skbs, skb);
}

/* What waited may go: all of it, oldest first, onto the tail of to. */
void ipoib_waitq_splice(struct ipoib_dev *priv, struct ipoib_waitq *wq,
			struct sk_buff_head *to)
{
	assert_owner_locked(priv, wq);
	skb_queue_splice_tail_init(&wq->skbs, to);
}

/* The oldest packet, or NULL. */
struct sk_buff *ipoib_waitq_pop(struct ipoib_dev *priv,
				struct ipoib_waitq *wq)
{
	assert_owner_locked(priv, wq);
	return __skb_dequeue(&wq->skbs);
}

/*
 * What it waited for failed or went away: drop it all, counted.  Under
 * the owner's lock, or once nothing else can reach the queue.  Packets
 * that waited on the fabric were orphaned, so freeing them under
 * priv->lock runs no socket callback.
 */
void ipoib_waitq_purge(struct ipoib_dev *priv, struct ipoib_waitq *wq)
{
	const struct waitq_rules *r = rules_of(wq);
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&wq->skbs)) != NULL) {
		ipoib_count(priv, r->purged);
		ipoib_tx_drop(priv, skb, r->cause_purged);
	}
}
