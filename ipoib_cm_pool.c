// SPDX-License-Identifier: GPL-2.0
/*
 * Connected-mode receive buffers, and the pool of them each HCA port
 * shares.  A buffer is a 512-byte skb head then pages, up to 64 KiB, so
 * a queue of 512 of them is 32 MiB: paid once per port, not once per
 * interface.  The interface and all its P_Key children in connected mode
 * post to one SRQ; a receive completes on the CQ of the QP that took the
 * buffer, so the interface that owns the connection gets the packet.
 *
 * Lifetime: a pool per (ib_device, port), on a list under pools_mutex.
 * The first interface to start connected mode makes it, each one after
 * takes a reference, and the last to stop (all its connections gone, so
 * no QP can use the SRQ) frees it.  Nothing else holds one.
 *
 * The load: the SRQ has a WQE for every buffer the users' rings may ask
 * for (the largest recv_queue_size or ethtool -G ring among them, its
 * ceiling; it never grows past the size the pool was made with), but
 * starts with IPOIB_CM_POOL_START buffers.  Its limit is armed at three
 * quarters of the target: when the HCA says a quarter of the buffers are
 * out at once (one-shot), the work item doubles the target, fills up to
 * it and re-arms.  After
 * cm_pool_quiet_ms without such an event the target halves, down to
 * the start: buffers that come back while the pool holds more than the
 * target are freed instead of posted again.  An idle pool holds what it
 * has until traffic returns its buffers.
 *
 * Fairness: every user reposts a buffer in its own poll the moment it
 * has taken the packet out (fresh pages in, the old ones up), so a
 * buffer is out of the SRQ only while its completion waits for a poll.
 * An interface flooded faster than its poll runs would keep the SRQ
 * empty, and its parent's and siblings' peers would get RNR NAKs.  So
 * when the pool is at its ceiling and below its limit, an interface
 * whose last poll used its whole budget drops what it reaps (counted,
 * cm_rx_drop_over_share) and reposts the buffers at once; interfaces
 * that keep up are served as before.  The pressure holds for
 * IPOIB_CM_POOL_HOLD after each event, then the limit is re-armed.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "ipoib_cm.h"
#include "ipoib_rx_pages.h"

#define IPOIB_CM_POOL_START	64	/* buffers a new pool posts */
#define IPOIB_CM_POOL_HOLD	(HZ / 10)	/* pressure after an event */
/* Pages the page pool keeps for reuse when more come back than go out. */
#define IPOIB_CM_POOL_CACHE	(64 * IPOIB_CM_RX_PAGES)

static unsigned int ipoib_cm_pool_quiet_ms = 5000;
module_param_named(cm_pool_quiet_ms, ipoib_cm_pool_quiet_ms, uint, 0444);
MODULE_PARM_DESC(cm_pool_quiet_ms,
		 "Milliseconds without a low-buffer event before a port's shared connected-mode receive pool halves, 100-600000 (default 5000)");

static LIST_HEAD(pools);
static DEFINE_MUTEX(pools_mutex);	/* pools, each pool's users */

int ipoib_cm_pool_check_params(void)
{
	if (ipoib_cm_pool_quiet_ms < 100 || ipoib_cm_pool_quiet_ms > 600000) {
		pr_err(DRV_NAME ": cm_pool_quiet_ms=%u out of range 100-600000\n",
		       ipoib_cm_pool_quiet_ms);
		return -EINVAL;
	}
	return 0;
}

static unsigned long pool_quiet(void)
{
	return msecs_to_jiffies(ipoib_cm_pool_quiet_ms);
}

void ipoib_cm_buf_head_unmap(const struct ipoib_cm_bufs *b,
			     struct ipoib_cm_rx_buf *buf)
{
	ib_dma_unmap_single(b->ca, buf->sge[0].addr, IPOIB_CM_HEAD_SIZE,
			    DMA_FROM_DEVICE);
}

/* Everything a buffer holds goes back; it is empty after. */
void ipoib_cm_buf_free(const struct ipoib_cm_bufs *b,
		       struct ipoib_cm_rx_buf *buf)
{
	unsigned int i;

	if (!buf->skb)
		return;
	ipoib_cm_buf_head_unmap(b, buf);
	dev_kfree_skb_any(buf->skb);
	buf->skb = NULL;
	for (i = 0; i < IPOIB_CM_RX_PAGES; i++) {
		if (buf->pages[i])
			ipoib_rx_page_put(b->pages, buf->pages[i],
					  buf->sge[i + 1].addr);
		buf->pages[i] = NULL;
	}
}

/*
 * A fresh head and the first npages pages into skb/pages/mapping, all or
 * nothing.  To fill a buffer (napi NULL: may sleep), and from a poll to
 * replace what a packet took.
 */
int ipoib_cm_buf_get(const struct ipoib_cm_bufs *b, unsigned int npages,
		     struct napi_struct *napi, struct sk_buff **skbp,
		     struct page **pages, u64 *mapping)
{
	struct sk_buff *skb;
	unsigned int i;

	if (napi)
		skb = napi_alloc_skb(napi, IPOIB_CM_HEAD_SIZE);
	else
		skb = __netdev_alloc_skb(NULL, IPOIB_CM_HEAD_SIZE, GFP_KERNEL);
	if (unlikely(!skb))
		return -ENOMEM;
	mapping[0] = ib_dma_map_single(b->ca, skb->data, IPOIB_CM_HEAD_SIZE,
				       DMA_FROM_DEVICE);
	if (unlikely(ib_dma_mapping_error(b->ca, mapping[0]))) {
		dev_kfree_skb_any(skb);
		return -EIO;
	}
	for (i = 0; i < npages; i++) {
		pages[i] = ipoib_rx_page_get(b->pages, &mapping[i + 1]);
		if (unlikely(!pages[i]))
			goto unwind;
	}
	*skbp = skb;
	return 0;

unwind:
	while (i--)
		ipoib_rx_page_put(b->pages, pages[i], mapping[i + 1]);
	ib_dma_unmap_single(b->ca, mapping[0], IPOIB_CM_HEAD_SIZE,
			    DMA_FROM_DEVICE);
	dev_kfree_skb_any(skb);
	return -ENOMEM;
}

/* A whole buffer, its scatter list made once: only addresses change. */
int ipoib_cm_buf_fill(const struct ipoib_cm_bufs *b,
		      struct ipoib_cm_rx_buf *buf)
{
	u64 mapping[IPOIB_CM_RX_SGE];
	unsigned int i;
	int ret;

	ret = ipoib_cm_buf_get(b, b->nsge - 1, NULL, &buf->skb, buf->pages,
			       mapping);
	if (ret)
		return ret;
	for (i = 0; i < b->nsge; i++) {
		buf->sge[i].addr = mapping[i];
		buf->sge[i].length = i ? PAGE_SIZE : IPOIB_CM_HEAD_SIZE;
		buf->sge[i].lkey = b->lkey;
	}
	return 0;
}

static int pool_post(struct ipoib_cm_pool *pool, struct ipoib_cm_rx_buf *buf)
{
	struct ib_recv_wr wr = {
		.wr_cqe = &buf->cqe,
		.sg_list = buf->sge,
		.num_sge = pool->bufs.nsge,
	};
	int ret;

	buf->cqe.done = pool->done;
	buf->posted = true;
	ret = ib_post_srq_recv(pool->srq, &wr, NULL);
	if (unlikely(ret)) {
		buf->posted = false;
		pr_warn_once(DRV_NAME ": posting to the shared SRQ failed: %d\n",
			     ret);
	}
	return ret;
}

/* A buffer the pool no longer holds: emptied, its slot free again. */
static void pool_buf_drop(struct ipoib_cm_pool *pool,
			  struct ipoib_cm_rx_buf *buf)
{
	ipoib_cm_buf_free(&pool->bufs, buf);
	spin_lock_bh(&pool->lock);
	WRITE_ONCE(pool->nr_bufs, pool->nr_bufs - 1);
	pool->free[pool->nr_free++] = buf - pool->ring;
	spin_unlock_bh(&pool->lock);
}

/*
 * A buffer whose completion its interface has handled (the packet's
 * pages replaced, or a flush): posted again, or freed while the pool
 * holds more than its target.  Any context but hard IRQ.  Every packet
 * comes here, so no lock: two buffers racing past the target may both
 * go, one too many, which the work's next fill brings back.
 */
void ipoib_cm_pool_recycle(struct ipoib_cm_pool *pool,
			   struct ipoib_cm_rx_buf *buf)
{
	if (likely(READ_ONCE(pool->nr_bufs) <= READ_ONCE(pool->target)) &&
	    likely(!pool_post(pool, buf)))
		return;
	pool_buf_drop(pool, buf);
}

/* Up to the target, sleeping for memory.  Under pool->mutex. */
static void pool_fill(struct ipoib_cm_pool *pool)
{
	struct ipoib_cm_rx_buf *buf;

	lockdep_assert_held(&pool->mutex);
	for (;;) {
		spin_lock_bh(&pool->lock);
		if (pool->nr_bufs >= pool->target || !pool->nr_free) {
			spin_unlock_bh(&pool->lock);
			return;
		}
		buf = &pool->ring[pool->free[--pool->nr_free]];
		WRITE_ONCE(pool->nr_bufs, pool->nr_bufs + 1);
		spin_unlock_bh(&pool->lock);
		if (ipoib_cm_buf_fill(&pool->bufs, buf) ||
		    pool_post(pool, buf)) {
			pool_buf_drop(pool, buf);
			return;		/* the next event or quiet check retries */
		}
	}
}

/*
 * Arm the SRQ limit at three quarters of the target.  An HCA that refuses
 * gets every buffer its ceiling allows at once: nothing to follow.
 */
static void pool_arm(struct ipoib_cm_pool *pool)
{
	struct ib_srq_attr attr = {
		.srq_limit = pool->target - pool->target / 4,
	};
	int ret;

	lockdep_assert_held(&pool->mutex);
	if (pool->no_limit)
		return;
	WRITE_ONCE(pool->low, false);
	ret = ib_modify_srq(pool->srq, &attr, IB_SRQ_LIMIT);
	if (!ret)
		return;
	pr_info(DRV_NAME ": %s port %u: no SRQ limit (%d): the receive pool holds its ceiling\n",
		dev_name(&pool->ca->dev), pool->port, ret);
	pool->no_limit = true;
	WRITE_ONCE(pool->target, pool->ceiling);
}

static void pool_work(struct work_struct *work)
{
	struct ipoib_cm_pool *pool = container_of(to_delayed_work(work),
						  struct ipoib_cm_pool, work);
	unsigned int start = min(IPOIB_CM_POOL_START, pool->ceiling);
	bool again = false;

	mutex_lock(&pool->mutex);
	if (READ_ONCE(pool->dying)) {
		mutex_unlock(&pool->mutex);
		return;
	}
	if (READ_ONCE(pool->low)) {
		if (pool->target < pool->ceiling) {
			WRITE_ONCE(pool->target, min(pool->target * 2,
						     pool->ceiling));
			atomic_long_inc(&pool->grows);
		}
		pool_fill(pool);
		/* At the ceiling the pressure holds a while (the top of file). */
		if (pool->target < pool->ceiling ||
		    time_after_eq(jiffies, pool->low_at + IPOIB_CM_POOL_HOLD))
			pool_arm(pool);
		else
			again = true;
	} else if (pool->target > start &&
		   time_after_eq(jiffies, pool->low_at + pool_quiet())) {
		WRITE_ONCE(pool->target, max(pool->target / 2, start));
		atomic_long_inc(&pool->shrinks);
		pool_arm(pool);
	} else {
		pool_fill(pool);	/* what failed for memory, or a new ceiling */
	}
	if (again)
		mod_delayed_work(system_wq, &pool->work, IPOIB_CM_POOL_HOLD);
	else if (pool->target > start || READ_ONCE(pool->nr_bufs) < pool->target)
		mod_delayed_work(system_wq, &pool->work, pool_quiet());
	mutex_unlock(&pool->mutex);
}

/* Any context: the HCA's event, one-shot until pool_arm(). */
static void pool_event(struct ib_event *ev, void *ctx)
{
	struct ipoib_cm_pool *pool = ctx;

	if (ev->event != IB_EVENT_SRQ_LIMIT_REACHED) {
		pr_warn_ratelimited(DRV_NAME ": %s port %u: shared SRQ event %s\n",
				    dev_name(&pool->ca->dev), pool->port,
				    ib_event_msg(ev->event));
		return;
	}
	WRITE_ONCE(pool->low_at, jiffies);
	WRITE_ONCE(pool->low, true);
	if (!READ_ONCE(pool->dying))
		mod_delayed_work(system_wq, &pool->work, 0);
}

/* The largest ring among the users, within the SRQ. */
static void pool_set_ceiling(struct ipoib_cm_pool *pool)
{
	struct ipoib_cm_dev *cm;
	unsigned int c = 0;

	lockdep_assert_held(&pools_mutex);
	list_for_each_entry(cm, &pool->users, pool_link)
		c = max(c, cm->pool_want);
	c = clamp(c, 1U, pool->max_wr);
	mutex_lock(&pool->mutex);
	WRITE_ONCE(pool->ceiling, c);
	if (pool->target > c || pool->no_limit)
		WRITE_ONCE(pool->target, c);
	mutex_unlock(&pool->mutex);
	mod_delayed_work(system_wq, &pool->work, 0);
}

/*
 * No QP uses the SRQ any more.  The work item stops first: it posts to
 * the SRQ.  A late event may still queue it until the SRQ is gone; it
 * then returns at once.
 */
static void pool_destroy(struct ipoib_cm_pool *pool)
{
	unsigned int i;

	WRITE_ONCE(pool->dying, true);
	cancel_delayed_work_sync(&pool->work);
	if (pool->srq)
		ib_destroy_srq(pool->srq);
	cancel_delayed_work_sync(&pool->work);
	if (pool->ring)
		for (i = 0; i < pool->max_wr; i++)
			ipoib_cm_buf_free(&pool->bufs, &pool->ring[i]);
	kvfree(pool->ring);
	kvfree(pool->free);
	ipoib_rx_pages_destroy(&pool->pages);
	if (pool->pd)
		ib_dealloc_pd(pool->pd);
	mutex_destroy(&pool->mutex);
	kfree(pool);
}

/*
 * A new pool for priv's port, its start posted and its limit armed.
 * NULL when the HCA makes no SRQ (per-QP rings then).
 */
static struct ipoib_cm_pool *pool_create(struct ipoib_dev *priv,
					 unsigned int nsge,
					 void (*done)(struct ib_cq *cq,
						      struct ib_wc *wc))
{
	const struct ib_device_attr *a = &priv->ca->attrs;
	struct ib_srq_init_attr attr = {
		.event_handler = pool_event,
		.srq_type = IB_SRQT_BASIC,
		.attr.max_sge = nsge,
	};
	struct ipoib_cm_pool *pool;
	unsigned int i;
	int ret;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&pool->users);
	pool->ca = priv->ca;
	pool->port = priv->port;
	pool->done = done;
	spin_lock_init(&pool->lock);
	mutex_init(&pool->mutex);
	INIT_DELAYED_WORK(&pool->work, pool_work);
	atomic_long_set(&pool->grows, 0);
	atomic_long_set(&pool->shrinks, 0);
	pool->max_wr = min_t(unsigned int,
			     max(ipoib_recvq_size, priv->cm->pool_want),
			     a->max_srq_wr);
	pool->ceiling = pool->max_wr;

	pool->pd = ib_alloc_pd(priv->ca, 0);
	if (IS_ERR(pool->pd)) {
		ret = PTR_ERR(pool->pd);
		pool->pd = NULL;
		goto fail;
	}
	ret = ipoib_rx_pages_init(priv, &pool->pages, 0, 0, PAGE_SIZE,
				  IPOIB_CM_POOL_CACHE);
	if (ret)
		goto fail;
	pool->bufs.ca = priv->ca;
	pool->bufs.pages = &pool->pages;
	pool->bufs.lkey = pool->pd->local_dma_lkey;
	pool->bufs.nsge = nsge;
	pool->ring = kvcalloc(pool->max_wr, sizeof(*pool->ring), GFP_KERNEL);
	pool->free = kvcalloc(pool->max_wr, sizeof(*pool->free), GFP_KERNEL);
	ret = -ENOMEM;
	if (!pool->ring || !pool->free)
		goto fail;
	for (i = 0; i < pool->max_wr; i++)
		pool->free[i] = pool->max_wr - 1 - i;
	pool->nr_free = pool->max_wr;

	attr.srq_context = pool;
	attr.attr.max_wr = pool->max_wr;
	pool->srq = ib_create_srq(pool->pd, &attr);
	if (IS_ERR(pool->srq)) {
		netdev_info(priv->dev, "no SRQ (%ld): per-connection receive rings\n",
			    PTR_ERR(pool->srq));
		pool->srq = NULL;
		pool_destroy(pool);
		return NULL;
	}
	mutex_lock(&pool->mutex);
	pool->target = min(IPOIB_CM_POOL_START, pool->ceiling);
	pool_fill(pool);
	ret = pool->nr_bufs ? 0 : -ENOMEM;
	if (!ret)
		pool_arm(pool);
	mutex_unlock(&pool->mutex);
	if (ret)
		goto fail;
	return pool;

fail:
	netdev_warn(priv->dev, "making the receive pool failed: %d\n", ret);
	pool_destroy(pool);
	return ERR_PTR(ret);
}

/*
 * Connected mode starts on priv: its port's pool, made if it has none,
 * with priv's ring size counted in the ceiling (cm->pool_want).  A
 * receive completes through done (ipoib_cm_rx.c's, for every user).
 * NULL without an SRQ.
 */
struct ipoib_cm_pool *ipoib_cm_pool_get(struct ipoib_dev *priv,
					unsigned int nsge,
					void (*done)(struct ib_cq *cq,
						     struct ib_wc *wc))
{
	struct ipoib_cm_pool *pool;

	lockdep_assert_held(&priv->state_lock);
	mutex_lock(&pools_mutex);
	list_for_each_entry(pool, &pools, link)
		if (pool->ca == priv->ca && pool->port == priv->port)
			goto found;
	pool = pool_create(priv, nsge, done);
	if (IS_ERR_OR_NULL(pool)) {
		mutex_unlock(&pools_mutex);
		return pool;
	}
	list_add(&pool->link, &pools);
found:
	list_add_tail(&priv->cm->pool_link, &pool->users);
	pool->nr_users++;
	pool_set_ceiling(pool);
	mutex_unlock(&pools_mutex);
	return pool;
}

/* priv's connections are all gone: it stops using its pool. */
void ipoib_cm_pool_put(struct ipoib_dev *priv)
{
	struct ipoib_cm_pool *pool = priv->cm->pool;

	lockdep_assert_held(&priv->state_lock);
	mutex_lock(&pools_mutex);
	list_del(&priv->cm->pool_link);
	if (--pool->nr_users) {
		pool_set_ceiling(pool);
		pool = NULL;
	} else {
		list_del(&pool->link);
	}
	mutex_unlock(&pools_mutex);
	if (pool)
		pool_destroy(pool);
}

/* ethtool -S: buffers, target, ceiling, users, grows, shrinks. */
void ipoib_cm_pool_stats(struct ipoib_dev *priv, u64 *v)
{
	struct ipoib_cm_pool *pool = priv->cm ? priv->cm->pool : NULL;

	lockdep_assert_held(&priv->state_lock);
	memset(v, 0, IPOIB_CM_POOL_NR_STATS * sizeof(*v));
	if (!pool)
		return;
	v[0] = READ_ONCE(pool->nr_bufs);
	v[1] = READ_ONCE(pool->target);
	v[2] = READ_ONCE(pool->ceiling);
	v[3] = READ_ONCE(pool->nr_users);
	v[4] = atomic_long_read(&pool->grows);
	v[5] = atomic_long_read(&pool->shrinks);
}
