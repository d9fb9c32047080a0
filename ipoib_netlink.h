/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_netlink.c's functions for the driver's other files.
 */
#ifndef IPOIB_NETLINK_H
#define IPOIB_NETLINK_H

#include "ipoib.h"

/* ipoib_netlink.c */
extern struct rtnl_link_ops ipoib_link_ops;
int ipoib_netlink_init(void);
void ipoib_netlink_exit(void);

#endif /* IPOIB_NETLINK_H */
