// SPDX-License-Identifier: GPL-2.0
/*
 * Send rings, the UD QP's and every connection's, and the rules that keep
 * them whole:
 *
 * - A ring's head moves only under its netdev TX queue's lock (ring->txq):
 *   the UD QP's under TX queue 0's (the transmit lock), a further UD send
 *   queue's under its own, a connection's under the queue it was given
 *   (ipoib_cm_tx.c).  ndo_start_xmit holds it, and so does a connection's
 *   completion handler when it posts what waited in the connection's
 *   backlog.  A ring's counters are its queue's, written under that lock.
 * - A slot is taken only after a room check (ipoib_tx_claim); completions
 *   come in posting order and free the slot at the tail.
 * - Only the UD rings stop and wake their TX queues.  A connection
 *   whose ring is full keeps further packets in its own short backlog and
 *   drops beyond it (ipoib_cm_tx.c), so a slow or stalled peer holds back
 *   only its own traffic.
 *
 * And the staged queue, priv->staged: packets that waited for a path, a
 * join or a connection, ready to go again.  Resolvers put them there; the
 * transmit decision (ipoib_xmit.c) drains it under the transmit lock,
 * through priv->xmit_staged, which ipoib_setup() hands down.
 */
#include <linux/netpoll.h>
#include "ipoib.h"
#include "ipoib_tx.h"

void ipoib_tx_drop(struct ipoib_dev *priv, struct sk_buff *skb,
		   enum ipoib_counter why)
{
	ipoib_count(priv, why);
	atomic_long_inc(&priv->tx_dropped);
	dev_kfree_skb_any(skb);
}

static void drop_queue(struct ipoib_dev *priv, struct sk_buff_head *q,
		       enum ipoib_counter why)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)) != NULL)
		ipoib_tx_drop(priv, skb, why);
}

static void tx_unmap(struct ipoib_dev *priv, struct sk_buff *skb,
		     const struct ipoib_tx_map *map)
{
	unsigned int m = 0, f;

	if (map->head_len)
		ib_dma_unmap_single(priv->ca, map->mapping[m++],
				    map->head_len, DMA_TO_DEVICE);
	for (f = 0; f < skb_shinfo(skb)->nr_frags; f++)
		ib_dma_unmap_page(priv->ca, map->mapping[m++],
				  skb_frag_size(&skb_shinfo(skb)->frags[f]),
				  DMA_TO_DEVICE);
}

/*
 * Map the skb for the HCA into map and sge; the first hlen bytes travel in
 * the LSO header.  Returns the number of SGEs, or -EIO with nothing mapped.
 */
static int tx_map(struct ipoib_dev *priv, struct sk_buff *skb,
		  unsigned int hlen, struct ipoib_tx_map *map, struct ib_sge *sge)
{
	unsigned int head = skb_headlen(skb) - hlen;
	unsigned int m = 0, f;
	u64 addr;

	map->head_len = head;
	if (head) {
		addr = ib_dma_map_single(priv->ca, skb->data + hlen, head,
					 DMA_TO_DEVICE);
		if (unlikely(ib_dma_mapping_error(priv->ca, addr)))
			return -EIO;
		map->mapping[m] = addr;
		sge[m].addr = addr;
		sge[m].length = head;
		m++;
	}
	for (f = 0; f < skb_shinfo(skb)->nr_frags; f++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[f];

		addr = ib_dma_map_page(priv->ca, skb_frag_page(frag),
				       skb_frag_off(frag), skb_frag_size(frag),
				       DMA_TO_DEVICE);
		if (unlikely(ib_dma_mapping_error(priv->ca, addr)))
			goto unwind;
		map->mapping[m] = addr;
		sge[m].addr = addr;
		sge[m].length = skb_frag_size(frag);
		m++;
	}
	return m;

unwind:
	while (f--)
		ib_dma_unmap_page(priv->ca, map->mapping[--m],
				  skb_frag_size(&skb_shinfo(skb)->frags[f]),
				  DMA_TO_DEVICE);
	if (head)
		ib_dma_unmap_single(priv->ca, map->mapping[0], head,
				    DMA_TO_DEVICE);
	return -EIO;
}

int ipoib_tx_ring_init(struct ipoib_tx_ring *ring, unsigned int size,
		       gfp_t gfp)
{
	if (WARN_ON_ONCE(!is_power_of_2(size)))
		return -EINVAL;
	ring->slots = kvcalloc(size, sizeof(*ring->slots), gfp);
	if (!ring->slots)
		return -ENOMEM;
	/* head and tail run on: AHs being reaped wait on the UD ring's. */
	ring->size = size;
	return 0;
}

static struct ipoib_tx_slot *slot_at(struct ipoib_tx_ring *ring,
				     unsigned int n)
{
	return &ring->slots[n & (ring->size - 1)];
}

/* The QP is reset or gone: free what never completed. */
void ipoib_tx_ring_discard(struct ipoib_dev *priv, struct ipoib_tx_ring *ring)
{
	if (!ring->slots)
		return;
	for (; ring->tail != ring->head; ring->tail++) {
		struct ipoib_tx_slot *slot = slot_at(ring, ring->tail);

		if (!slot->skb)
			continue;
		tx_unmap(priv, slot->skb, &slot->map);
		dev_kfree_skb_any(slot->skb);
		slot->skb = NULL;
	}
}

void ipoib_tx_ring_free(struct ipoib_tx_ring *ring)
{
	kvfree(ring->slots);
	ring->slots = NULL;
}

/*
 * The slot the next post goes into.  NULL, with the packet dropped and
 * counted, when the ring is full: callers check for room first, so that
 * is a bug, and the warning says so.
 */
struct ipoib_tx_slot *ipoib_tx_claim(struct ipoib_dev *priv,
				     struct ipoib_tx_ring *ring,
				     struct sk_buff *skb)
{
	struct ipoib_tx_slot *slot = slot_at(ring, ring->head);

	ipoib_assert_txq_locked(priv, ring->txq);
	if (WARN_ON_ONCE(!ipoib_tx_room(ring) || slot->skb)) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_RING_FULL);
		return NULL;
	}
	return slot;
}

/* Map the skb into the slot and sge: the SGE count, or <0 when dropped. */
int ipoib_tx_load(struct ipoib_dev *priv, struct ipoib_tx_slot *slot,
		  struct sk_buff *skb, unsigned int hlen, struct ib_sge *sge)
{
	int n;

	if (skb_shinfo(skb)->nr_frags + 1 > priv->max_send_sge) {
		if (unlikely(skb_linearize(skb))) {
			ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_MAP);
			return -ENOMEM;
		}
		ipoib_count(priv, IPOIB_CNT_TX_LINEARIZED);
	}
	n = tx_map(priv, skb, hlen, &slot->map, sge);
	if (unlikely(n < 0)) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_MAP);
		return n;
	}
	slot->skb = skb;
	return n;
}

/* After ib_post_send() returned ret: count and advance, or undo and drop. */
int ipoib_tx_posted(struct ipoib_dev *priv, struct ipoib_tx_ring *ring,
		    struct ipoib_tx_slot *slot, unsigned int len, int ret)
{
	struct ipoib_ring_stats *stats;

	if (unlikely(ret)) {
		netdev_warn_once(priv->dev, "posting a send failed: %d\n", ret);
		tx_unmap(priv, slot->skb, &slot->map);
		ipoib_tx_drop(priv, slot->skb, IPOIB_CNT_TX_DROP_POST);
		slot->skb = NULL;
		return ret;
	}
	stats = ring->stats ?: &priv->tx_stats;
	u64_stats_update_begin(&stats->syncp);
	stats->packets++;
	stats->bytes += len;
	u64_stats_update_end(&stats->syncp);
	WRITE_ONCE(ring->head, ring->head + 1);
	return 0;
}

/* A send completed: its slot is the oldest outstanding one. */
void ipoib_tx_release(struct ipoib_dev *priv, struct ipoib_tx_ring *ring,
		      struct ipoib_tx_slot *slot, int budget)
{
	WARN_ON_ONCE(slot != slot_at(ring, ring->tail) || !slot->skb);
	if (likely(slot->skb)) {
		tx_unmap(priv, slot->skb, &slot->map);
		napi_consume_skb(slot->skb, budget);
		slot->skb = NULL;
	}
	/* The room check reads it without its queue lock's help. */
	WRITE_ONCE(ring->tail, ring->tail + 1);
}

/* After a UD post: a full ring stops its TX queue. */
void ipoib_tx_ud_posted(struct ipoib_dev *priv, struct ipoib_tx_ring *ring)
{
	struct netdev_queue *txq;

	if (likely(ipoib_tx_room(ring)))
		return;
	txq = netdev_get_tx_queue(priv->dev, ring->txq);
	netif_tx_stop_queue(txq);
	/* Pairs with the barrier in ipoib_tx_ud_reaped(). */
	smp_mb();
	if (ipoib_tx_room(ring))
		netif_tx_wake_queue(txq);
}

/* After UD completions: half the ring free wakes its TX queue again. */
void ipoib_tx_ud_reaped(struct ipoib_dev *priv, struct ipoib_tx_ring *ring)
{
	struct netdev_queue *txq = netdev_get_tx_queue(priv->dev, ring->txq);

	/* Pairs with the barrier in ipoib_tx_ud_posted(). */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(txq)) &&
	    ipoib_tx_outstanding(ring) <= ring->size / 2 &&
	    test_bit(IPOIB_QP_READY, &priv->flags)) {
		netif_tx_wake_queue(txq);
		if (ring->txq)
			return;
		/*
		 * Nothing may come behind what waited: send it now, unless
		 * netpoll polls with interrupts off (the drain enables bottom
		 * halves); the next send drains it first then.
		 */
		if (!skb_queue_empty_lockless(&priv->staged) &&
		    !netpoll_tx_running(priv->dev))
			ipoib_send_staged(priv, NULL);
	}
}

/*
 * Packets that waited (destination pushed back on) are ready: queue them
 * for the next drain.  Whoever holds the transmit lock drains after.
 */
void ipoib_stage(struct ipoib_dev *priv, struct sk_buff_head *ready)
{
	if (skb_queue_empty(ready))
		return;
	spin_lock_bh(&priv->staged.lock);
	skb_queue_splice_tail_init(ready, &priv->staged);
	spin_unlock_bh(&priv->staged.lock);
}

/*
 * From a resolver, or when the queue wakes (ready NULL), not under the
 * transmit lock: stage what is ready and send what is staged.
 */
void ipoib_send_staged(struct ipoib_dev *priv, struct sk_buff_head *ready)
{
	struct netdev_queue *txq = netdev_get_tx_queue(priv->dev, 0);

	if (ready)
		ipoib_stage(priv, ready);
	if (skb_queue_empty_lockless(&priv->staged))
		return;
	local_bh_disable();
	__netif_tx_lock(txq, smp_processor_id());
	priv->xmit_staged(priv);
	__netif_tx_unlock(txq);
	local_bh_enable();
}

/*
 * A further TX queue found a packet it cannot send (its neighbour went,
 * the mode changed): staged, it goes out through TX queue 0 from here, as
 * that queue's lock may not be taken under another's.
 */
void ipoib_staged_task(struct work_struct *work)
{
	ipoib_send_staged(container_of(work, struct ipoib_dev, staged_task),
			  NULL);
}

/* The data path went down: what was staged will not go. */
void ipoib_staged_drop(struct ipoib_dev *priv)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->staged.lock);
	skb_queue_splice_init(&priv->staged, &q);
	spin_unlock_bh(&priv->staged.lock);
	drop_queue(priv, &q, IPOIB_CNT_TX_DROP_NO_PATH);
}
