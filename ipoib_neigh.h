/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_neigh.c's functions for the driver's other files: neighbours
 * (20-byte address -> AH, QPN, connection).
 */
#ifndef IPOIB_NEIGH_H
#define IPOIB_NEIGH_H

#include "ipoib.h"

/* ipoib_neigh.c */
int ipoib_neigh_table_init(struct ipoib_dev *priv);
void ipoib_neigh_table_destroy(struct ipoib_dev *priv);
struct ipoib_neigh *ipoib_neigh_find(struct ipoib_dev *priv, const u8 *daddr);
struct ipoib_neigh *ipoib_neigh_get_or_create(struct ipoib_dev *priv,
					      const u8 *daddr);
void ipoib_neigh_set_ah(struct ipoib_neigh *neigh, struct ipoib_ah *ah);
void ipoib_neigh_kill(struct ipoib_neigh *neigh);
void ipoib_neigh_gc(struct ipoib_dev *priv);

#endif /* IPOIB_NEIGH_H */
