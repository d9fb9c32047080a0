/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_xmit.c's functions for the driver's other files: where a packet
 * goes; packets that waited, sent again.
 */
#ifndef IPOIB_XMIT_H
#define IPOIB_XMIT_H

#include "ipoib.h"

/* ipoib_xmit.c */
netdev_tx_t ipoib_start_xmit(struct sk_buff *skb, struct net_device *dev);
void ipoib_xmit_staged(struct ipoib_dev *priv);
u16 ipoib_select_queue(struct net_device *dev, struct sk_buff *skb,
		       struct net_device *sb_dev);

#endif /* IPOIB_XMIT_H */
