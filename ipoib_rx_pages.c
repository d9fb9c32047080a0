// SPDX-License-Identifier: GPL-2.0
/*
 * Receive pages that come back.  A page the stack is done with returns to
 * the interface's page_pool instead of the page allocator, still mapped
 * for the HCA, and goes straight back onto a receive queue: no allocation,
 * no mapping and no zeroing (Debian kernels zero every page they hand
 * out: init_on_alloc) per packet.
 *
 * Taking pages from a pool is for one context at a time; the poll and a
 * connection being set up both fill receive queues, so the lock here
 * decides between them.  Pages go back from any context.
 *
 * A kernel built without page_pool gets the same calls over the page
 * allocator: a page per buffer, mapped here and unmapped as it goes up.
 */
#include <linux/dma-mapping.h>
#include "ipoib.h"
#include "ipoib_rx_pages.h"

#ifdef IPOIB_RX_PAGE_POOL

/*
 * A pool of pages of 2^order, of which the HCA writes len bytes from
 * offset on: what is synced for it when a page comes back.  cache: pages
 * kept for reuse when more come back than are taken.
 */
int ipoib_rx_pages_init(struct ipoib_dev *priv, struct ipoib_rx_pages *rp,
			unsigned int order, unsigned int offset,
			unsigned int len, unsigned int cache)
{
	struct page_pool_params pp = {
		.order = order,
		.pool_size = cache,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
		.offset = offset,
		.max_len = len,
	};
	struct page_pool *pool;

	/* Software HCAs take kernel addresses: nothing to map. */
	rp->virt_dma = ib_uses_virt_dma(priv->ca);
	if (!rp->virt_dma) {
		pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
		pp.dev = priv->ca->dma_device;
	}
	pool = page_pool_create(&pp);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	spin_lock_init(&rp->lock);
	rp->order = order;
	rp->pool = pool;
	return 0;
}

/* Pages still with the stack are freed when they come back. */
void ipoib_rx_pages_destroy(struct ipoib_rx_pages *rp)
{
	if (!rp->pool)
		return;
	rp->new_before += READ_ONCE(rp->pool->pages_state_hold_cnt);
	page_pool_destroy(rp->pool);
	rp->pool = NULL;
}

/*
 * Pages taken from the page allocator, over the pools this one replaced
 * too: what recycling did not save.  The caller keeps the pool from
 * going away meanwhile.
 */
u64 ipoib_rx_pages_new(const struct ipoib_rx_pages *rp)
{
	u64 n = rp->new_before;

	if (rp->pool)
		n += READ_ONCE(rp->pool->pages_state_hold_cnt);
	return n;
}

/* A page and the address the HCA writes it at; NULL without memory. */
struct page *ipoib_rx_page_get(struct ipoib_rx_pages *rp, u64 *addr)
{
	struct page *page;

	spin_lock_bh(&rp->lock);
	page = page_pool_dev_alloc_pages(rp->pool);
	spin_unlock_bh(&rp->lock);
	if (unlikely(!page))
		return NULL;
	*addr = rp->virt_dma ? (u64)(uintptr_t)page_address(page) :
			       page_pool_get_dma_addr(page);
	return page;
}

/* A page that never carried a packet up. */
void ipoib_rx_page_put(struct ipoib_rx_pages *rp, struct page *page,
		       u64 addr)
{
	page_pool_put_full_page(rp->pool, page, false);
}

#else /* no page_pool in this kernel */

int ipoib_rx_pages_init(struct ipoib_dev *priv, struct ipoib_rx_pages *rp,
			unsigned int order, unsigned int offset,
			unsigned int len, unsigned int cache)
{
	rp->ca = priv->ca;
	rp->virt_dma = ib_uses_virt_dma(priv->ca);
	rp->order = order;
	return 0;
}

void ipoib_rx_pages_destroy(struct ipoib_rx_pages *rp)
{
}

u64 ipoib_rx_pages_new(const struct ipoib_rx_pages *rp)
{
	return atomic_long_read(&rp->allocated);
}

struct page *ipoib_rx_page_get(struct ipoib_rx_pages *rp, u64 *addr)
{
	struct page *page = dev_alloc_pages(rp->order);

	if (unlikely(!page))
		return NULL;
	atomic_long_inc(&rp->allocated);
	if (rp->virt_dma) {
		*addr = (u64)(uintptr_t)page_address(page);
		return page;
	}
	*addr = ib_dma_map_page(rp->ca, page, 0, PAGE_SIZE << rp->order,
				DMA_FROM_DEVICE);
	if (unlikely(ib_dma_mapping_error(rp->ca, *addr))) {
		__free_pages(page, rp->order);
		return NULL;
	}
	return page;
}

static void rx_page_unmap(struct ipoib_rx_pages *rp, u64 addr)
{
	if (!rp->virt_dma)
		ib_dma_unmap_page(rp->ca, addr, PAGE_SIZE << rp->order,
				  DMA_FROM_DEVICE);
}

void ipoib_rx_page_put(struct ipoib_rx_pages *rp, struct page *page,
		       u64 addr)
{
	rx_page_unmap(rp, addr);
	__free_pages(page, rp->order);
}

/*
 * The stack frees the page itself; the HCA must not write it any more.
 * The caller synced the packet's bytes already, and the skb's shared info
 * may be in the page by now: an unmap that copied a bounce buffer back
 * (swiotlb) would overwrite it with stale bytes.
 */
void ipoib_rx_page_to_stack(struct ipoib_rx_pages *rp, struct sk_buff *skb,
			    u64 addr)
{
	if (!rp->virt_dma)
		dma_unmap_page_attrs(rp->ca->dma_device, addr,
				     PAGE_SIZE << rp->order, DMA_FROM_DEVICE,
				     DMA_ATTR_SKIP_CPU_SYNC);
}

#endif /* IPOIB_RX_PAGE_POOL */

/* Before the CPU reads what the HCA wrote into a page. */
void ipoib_rx_page_sync(struct ipoib_dev *priv, u64 addr, unsigned int len)
{
	ib_dma_sync_single_for_cpu(priv->ca, addr, len, DMA_FROM_DEVICE);
}
