/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_tx.c's functions for the driver's other files: send rings of every
 * QP: room, mapping, queue.
 */
#ifndef IPOIB_TX_H
#define IPOIB_TX_H

#include "ipoib.h"

/* ipoib_tx.c */
int ipoib_tx_ring_init(struct ipoib_tx_ring *ring, unsigned int size,
		       gfp_t gfp);
void ipoib_tx_ring_discard(struct ipoib_dev *priv, struct ipoib_tx_ring *ring);
void ipoib_tx_ring_free(struct ipoib_tx_ring *ring);
struct ipoib_tx_slot *ipoib_tx_claim(struct ipoib_dev *priv,
				     struct ipoib_tx_ring *ring,
				     struct sk_buff *skb);
int ipoib_tx_load(struct ipoib_dev *priv, struct ipoib_tx_slot *slot,
		  struct sk_buff *skb, unsigned int hlen, struct ib_sge *sge);
int ipoib_tx_posted(struct ipoib_dev *priv, struct ipoib_tx_ring *ring,
		    struct ipoib_tx_slot *slot, unsigned int len, int ret);
void ipoib_tx_release(struct ipoib_dev *priv, struct ipoib_tx_ring *ring,
		      struct ipoib_tx_slot *slot, int budget);
void ipoib_tx_ud_posted(struct ipoib_dev *priv, struct ipoib_tx_ring *ring);
void ipoib_tx_ud_reaped(struct ipoib_dev *priv, struct ipoib_tx_ring *ring);
void ipoib_tx_drop(struct ipoib_dev *priv, struct sk_buff *skb,
		   enum ipoib_counter why);
void ipoib_stage(struct ipoib_dev *priv, struct sk_buff_head *ready);
void ipoib_send_staged(struct ipoib_dev *priv, struct sk_buff_head *ready);
void ipoib_staged_task(struct work_struct *work);
void ipoib_staged_drop(struct ipoib_dev *priv);

#endif /* IPOIB_TX_H */
