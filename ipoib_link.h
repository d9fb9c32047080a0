/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_link.c's functions for the driver's other files: header ops, link
 * address, MTU rules, statistics.
 */
#ifndef IPOIB_LINK_H
#define IPOIB_LINK_H

#include "ipoib.h"

/* ipoib_link.c */
extern const struct header_ops ipoib_header_ops;
bool ipoib_is_our_netdev(const struct net_device *dev);
void ipoib_tx_queue_stats(struct ipoib_dev *priv, unsigned int q,
			  u64 *packets, u64 *bytes);
void ipoib_stats_fold(struct ipoib_dev *priv, struct rtnl_link_stats64 *s);
int ipoib_set_umcast(struct ipoib_dev *priv, bool on);
unsigned int ipoib_mode_max_mtu(const struct ipoib_dev *priv);
unsigned int ipoib_usable_mtu(const struct ipoib_dev *priv);
int ipoib_set_mtu_limits(struct ipoib_dev *priv);
void ipoib_update_mtu(struct ipoib_dev *priv);
void ipoib_set_dev_addr(struct ipoib_dev *priv);
void ipoib_update_dev_addr(struct ipoib_dev *priv);

#endif /* IPOIB_LINK_H */
