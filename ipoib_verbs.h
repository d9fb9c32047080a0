/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_verbs.c's functions for the driver's other files: QP and CQ set-up
 * and state changes, the further send queues' QPs and CQs.
 */
#ifndef IPOIB_VERBS_H
#define IPOIB_VERBS_H

#include "ipoib.h"

/* ipoib_verbs.c */
int ipoib_transport_init(struct ipoib_dev *priv,
			 const struct ipoib_ud_handlers *h);
int ipoib_transport_resize(struct ipoib_dev *priv,
			   const struct ipoib_ud_handlers *h, unsigned int rx,
			   unsigned int tx);
void ipoib_transport_cleanup(struct ipoib_dev *priv);
int ipoib_qp_bring_up(struct ipoib_dev *priv);
int ipoib_qp_to_error(struct ipoib_dev *priv);
int ipoib_qp_reset(struct ipoib_dev *priv);
int ipoib_qp_set_qkey(struct ipoib_dev *priv, u32 qkey);
int ipoib_mcast_attach(struct ipoib_dev *priv, struct ipoib_mcast *mcast);
void ipoib_mcast_detach(struct ipoib_dev *priv, struct ipoib_mcast *mcast);
bool ipoib_find_pkey_index(struct ipoib_dev *priv);
int ipoib_sendq_create(struct ipoib_dev *priv, struct ipoib_sendq *sq,
		       unsigned int index, const struct ipoib_ud_handlers *h);
void ipoib_sendq_destroy(struct ipoib_sendq *sq);
int ipoib_sendq_to_error(struct ipoib_sendq *sq);

#endif /* IPOIB_VERBS_H */
