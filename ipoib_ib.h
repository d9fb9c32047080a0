/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_ib.c's functions for the driver's other files: UD data path:
 * rings, NAPI, send, receive.
 */
#ifndef IPOIB_IB_H
#define IPOIB_IB_H

#include "ipoib.h"

/* ipoib_ib.c */
int ipoib_rings_up(struct ipoib_dev *priv);
void ipoib_rings_down(struct ipoib_dev *priv);
int ipoib_ud_send(struct ipoib_dev *priv, struct sk_buff *skb,
		  struct ipoib_ah *ah, u32 qpn);
int ipoib_sendq_send(struct ipoib_dev *priv, unsigned int txq,
		     struct sk_buff *skb, struct ipoib_ah *ah, u32 qpn);
extern const struct ipoib_ud_handlers ipoib_ud_handlers;

#endif /* IPOIB_IB_H */
