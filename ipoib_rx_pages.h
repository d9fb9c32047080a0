/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_rx_pages.c's functions for the driver's other files: receive pages
 * recycled through a page_pool.
 */
#ifndef IPOIB_RX_PAGES_H
#define IPOIB_RX_PAGES_H

#include "ipoib.h"

/* ipoib_rx_pages.c */
int ipoib_rx_pages_init(struct ipoib_dev *priv, struct ipoib_rx_pages *rp,
			unsigned int order, unsigned int offset,
			unsigned int len, unsigned int cache);
void ipoib_rx_pages_destroy(struct ipoib_rx_pages *rp);
u64 ipoib_rx_pages_new(const struct ipoib_rx_pages *rp);
struct page *ipoib_rx_page_get(struct ipoib_rx_pages *rp, u64 *addr);
void ipoib_rx_page_put(struct ipoib_rx_pages *rp, struct page *page,
		       u64 addr);
#ifdef IPOIB_RX_PAGE_POOL
/* A page goes up in skb: it comes back to the pool when the stack is done. */
static inline void ipoib_rx_page_to_stack(struct ipoib_rx_pages *rp,
					  struct sk_buff *skb, u64 addr)
{
	skb_mark_for_recycle(skb);
}
#else
void ipoib_rx_page_to_stack(struct ipoib_rx_pages *rp, struct sk_buff *skb,
			    u64 addr);
#endif
void ipoib_rx_page_sync(struct ipoib_dev *priv, u64 addr, unsigned int len);

#endif /* IPOIB_RX_PAGES_H */
