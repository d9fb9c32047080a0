/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_rx.c's functions for the driver's other files: what both modes do
 * with a received packet.
 */
#ifndef IPOIB_RX_H
#define IPOIB_RX_H

#include "ipoib.h"

/* Whose receive completed: their errors are told and counted apart. */
enum ipoib_rx_mode {
	IPOIB_RX_UD,
	IPOIB_RX_CM,
};

/* ipoib_rx.c */
bool ipoib_rx_failed(struct ipoib_dev *priv, const struct ib_wc *wc,
		     enum ipoib_rx_mode mode);
void ipoib_rx_drop(struct ipoib_dev *priv, struct sk_buff *skb,
		   enum ipoib_counter why);
struct sk_buff *ipoib_rx_copy(struct ipoib_dev *priv, const void *data,
			      u64 addr, unsigned int len);
struct sk_buff *ipoib_rx_page_skb(struct ipoib_dev *priv,
				  struct ipoib_rx_pages *rp, struct page *page,
				  u64 addr, unsigned int headroom,
				  unsigned int len);
void ipoib_rx_page_frag(struct ipoib_dev *priv, struct ipoib_rx_pages *rp,
			struct sk_buff *skb, struct page *page, u64 addr,
			unsigned int size);
bool ipoib_rx_to_stack(struct ipoib_dev *priv, struct sk_buff *skb,
		       unsigned char pkt_type, const struct ib_wc *wc,
		       struct napi_struct *napi);
unsigned int ipoib_rx_drain(unsigned int (*left)(void *ctx), void *ctx);

#endif /* IPOIB_RX_H */
