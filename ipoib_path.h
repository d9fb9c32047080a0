/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_path.c's functions for the driver's other files: SA path records
 * and unicast address handles.
 */
#ifndef IPOIB_PATH_H
#define IPOIB_PATH_H

#include "ipoib.h"

/* ipoib_path.c */
void ipoib_xmit_unicast_slow(struct ipoib_dev *priv, struct sk_buff *skb,
			     const u8 *daddr);
void ipoib_paths_invalidate(struct ipoib_dev *priv);
void ipoib_path_check_lid(struct ipoib_dev *priv, const union ib_gid *gid,
			  u32 slid);
void ipoib_paths_flush(struct ipoib_dev *priv);

#endif /* IPOIB_PATH_H */
