/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_netpoll.c's functions for the driver's other files: netpoll's
 * (netconsole's) Ethernet frames, sent on UD.
 */
#ifndef IPOIB_NETPOLL_H
#define IPOIB_NETPOLL_H

#include "ipoib.h"

/* ipoib_netpoll.c */
void ipoib_netpoll_xmit(struct ipoib_dev *priv, struct sk_buff *skb);

#endif /* IPOIB_NETPOLL_H */
