/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_waitq.c's functions for the driver's other files: packets waiting
 * for a path, a join, a connection or ring room.
 */
#ifndef IPOIB_WAITQ_H
#define IPOIB_WAITQ_H

#include "ipoib.h"

/* ipoib_waitq.c */
void ipoib_waitq_init(struct ipoib_waitq *wq, enum ipoib_waitq_kind kind);
void ipoib_waitq_add(struct ipoib_dev *priv, struct ipoib_waitq *wq,
		     struct sk_buff *skb, const u8 *daddr);
void ipoib_waitq_splice(struct ipoib_dev *priv, struct ipoib_waitq *wq,
			struct sk_buff_head *to);
struct sk_buff *ipoib_waitq_pop(struct ipoib_dev *priv,
				struct ipoib_waitq *wq);
void ipoib_waitq_purge(struct ipoib_dev *priv, struct ipoib_waitq *wq);

/*
 * A backlog's owner is its connection's TX queue: its lock guards it.
 * Set before the queue is first used.
 */
static inline void ipoib_waitq_set_txq(struct ipoib_waitq *wq,
				       unsigned int txq)
{
	wq->txq = txq;
}

/* Lockless reads: a racy figure, or a hint the owner checks again. */
static inline unsigned int ipoib_waitq_len(const struct ipoib_waitq *wq)
{
	return skb_queue_len_lockless(&wq->skbs);
}

static inline bool ipoib_waitq_empty(const struct ipoib_waitq *wq)
{
	return skb_queue_empty_lockless(&wq->skbs);
}

#endif /* IPOIB_WAITQ_H */
