/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_multicast.c's functions for the driver's other files: groups,
 * joins, leaves, send-only groups.
 */
#ifndef IPOIB_MULTICAST_H
#define IPOIB_MULTICAST_H

#include "ipoib.h"

/* ipoib_multicast.c */
void ipoib_mcast_start(struct ipoib_dev *priv);
void ipoib_mcast_stop(struct ipoib_dev *priv);
void ipoib_mcast_restart(struct ipoib_dev *priv);
void ipoib_mcast_send(struct ipoib_dev *priv, struct sk_buff *skb,
		      const u8 *daddr);
void ipoib_mcast_task(struct work_struct *work);
void ipoib_mcast_restart_task(struct work_struct *work);
void ipoib_mcast_gc(struct ipoib_dev *priv);

#endif /* IPOIB_MULTICAST_H */
