/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_rdma_cm.c's functions for the driver's other files: which
 * interface owns an address, for rdma_cm.
 */
#ifndef IPOIB_RDMA_CM_H
#define IPOIB_RDMA_CM_H

#include "ipoib.h"

/* ipoib_rdma_cm.c */
struct net_device *ipoib_rdma_cm_owner(struct ib_device *ca, u32 port,
				       u16 pkey, const union ib_gid *gid,
				       const struct sockaddr *addr,
				       struct list_head *parents);

#endif /* IPOIB_RDMA_CM_H */
