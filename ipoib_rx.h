/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_rx.c's functions for the driver's other files: what both modes do
 * with a received packet.
 */
#ifndef IPOIB_RX_H
#define IPOIB_RX_H

#include "ipoib.h"

/* ipoib_rx.c */
struct sk_buff *ipoib_rx_small_skb(struct ipoib_dev *priv, unsigned int len);
bool ipoib_rx_to_stack(struct ipoib_dev *priv, struct sk_buff *skb,
		       unsigned char pkt_type, const struct ib_wc *wc,
		       struct napi_struct *napi);

#endif /* IPOIB_RX_H */
