/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation failures on demand, on kernels built with
 * CONFIG_FAULT_INJECTION_DEBUG_FS (the debug tier's).  Every allocator and
 * verbs-object constructor the driver calls is mapped here to a wrapper
 * that first asks the module's fault attribute, the kernel's standard knobs
 * in /sys/kernel/debug/<module>/fail_alloc/ (probability, interval, times,
 * space, verbose, task-filter), and then fails as the real call would: NULL,
 * ERR_PTR(-ENOMEM) or -ENOMEM.  failslab and fail_page_alloc cannot be held
 * to one module on x86-64 (it has no stack-trace filter); this is.  Each
 * call site is counted, calls and failures: fail_alloc/sites.
 *
 * ipoib.h includes this last, after every header that declares what it
 * wraps: the driver's own calls are rewritten, the kernel's inline helpers
 * are not.  On other kernels it is two empty stubs.
 */
#ifndef IPOIB_FAULT_H
#define IPOIB_FAULT_H

struct dentry;

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS

#include <linux/slab.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/rhashtable.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_cm.h>
#include "compat.h"

/* ipoib_fault.c */
bool ipoib_fault_alloc(const char *what, size_t size);
void ipoib_fault_init(struct dentry *root);
void ipoib_fault_exit(void);

/*
 * The wrappers are always inlined, so that the site ipoib_fault_alloc()
 * records is the driver's call, not the wrapper.  Each one calls the real
 * function or macro as it is defined above: the names are redefined at
 * the end.
 */
static __always_inline bool ipoib_fault_gfp(const char *what, size_t size,
					    gfp_t gfp)
{
	return !(gfp & __GFP_NOFAIL) && ipoib_fault_alloc(what, size);
}

static __always_inline void *ipoib_fault_kmalloc(size_t size, gfp_t gfp)
{
	return ipoib_fault_gfp("kmalloc", size, gfp) ? NULL :
	       kmalloc(size, gfp);
}

static __always_inline void *ipoib_fault_kzalloc(size_t size, gfp_t gfp)
{
	return ipoib_fault_gfp("kzalloc", size, gfp) ? NULL :
	       kzalloc(size, gfp);
}

static __always_inline void *ipoib_fault_kcalloc(size_t n, size_t size,
						 gfp_t gfp)
{
	return ipoib_fault_gfp("kcalloc", size_mul(n, size), gfp) ? NULL :
	       kcalloc(n, size, gfp);
}

static __always_inline void *ipoib_fault_kmalloc_array(size_t n, size_t size,
						       gfp_t gfp)
{
	return ipoib_fault_gfp("kmalloc_array", size_mul(n, size), gfp) ?
	       NULL : kmalloc_array(n, size, gfp);
}

static __always_inline void *ipoib_fault_kvmalloc(size_t size, gfp_t gfp)
{
	return ipoib_fault_gfp("kvmalloc", size, gfp) ? NULL :
	       kvmalloc(size, gfp);
}

static __always_inline void *ipoib_fault_kvzalloc(size_t size, gfp_t gfp)
{
	return ipoib_fault_gfp("kvzalloc", size, gfp) ? NULL :
	       kvzalloc(size, gfp);
}

static __always_inline void *ipoib_fault_kvcalloc(size_t n, size_t size,
						  gfp_t gfp)
{
	return ipoib_fault_gfp("kvcalloc", size_mul(n, size), gfp) ? NULL :
	       kvcalloc(n, size, gfp);
}

static __always_inline struct sk_buff *
ipoib_fault_netdev_alloc_skb(struct net_device *dev, unsigned int len,
			     gfp_t gfp)
{
	return ipoib_fault_gfp("__netdev_alloc_skb", len, gfp) ? NULL :
	       __netdev_alloc_skb(dev, len, gfp);
}

static __always_inline struct sk_buff *
ipoib_fault_netdev_alloc_skb_ip_align(struct net_device *dev,
				      unsigned int len)
{
	return ipoib_fault_alloc("netdev_alloc_skb_ip_align", len) ? NULL :
	       netdev_alloc_skb_ip_align(dev, len);
}

static __always_inline struct sk_buff *
ipoib_fault_napi_alloc_skb(struct napi_struct *napi, unsigned int len)
{
	return ipoib_fault_alloc("napi_alloc_skb", len) ? NULL :
	       napi_alloc_skb(napi, len);
}

static __always_inline struct sk_buff *
ipoib_fault_napi_build_skb(void *data, unsigned int frag_size)
{
	return ipoib_fault_alloc("napi_build_skb", sizeof(struct sk_buff)) ?
	       NULL : napi_build_skb(data, frag_size);
}

/* Only a fragmented skb allocates a new head. */
static __always_inline int ipoib_fault_skb_linearize(struct sk_buff *skb)
{
	if (skb_is_nonlinear(skb) &&
	    ipoib_fault_alloc("skb_linearize", skb->data_len))
		return -ENOMEM;
	return skb_linearize(skb);
}

static __always_inline struct page *
ipoib_fault_dev_alloc_pages(unsigned int order)
{
	return ipoib_fault_alloc("dev_alloc_pages", PAGE_SIZE << order) ?
	       NULL : dev_alloc_pages(order);
}

#ifdef IPOIB_RX_PAGE_POOL
static __always_inline struct page *
ipoib_fault_page_pool_dev_alloc_pages(struct page_pool *pool)
{
	return ipoib_fault_alloc("page_pool_dev_alloc_pages", PAGE_SIZE) ?
	       NULL : page_pool_dev_alloc_pages(pool);
}

static __always_inline struct page_pool *
ipoib_fault_page_pool_create(const struct page_pool_params *params)
{
	return ipoib_fault_alloc("page_pool_create", 1) ? ERR_PTR(-ENOMEM) :
	       page_pool_create(params);
}
#endif

static __always_inline struct net_device *
ipoib_fault_alloc_netdev_mqs(int sizeof_priv, const char *name,
			     unsigned char name_assign_type,
			     void (*setup)(struct net_device *),
			     unsigned int txqs, unsigned int rxqs)
{
	return ipoib_fault_alloc("alloc_netdev", sizeof_priv) ? NULL :
	       alloc_netdev_mqs(sizeof_priv, name, name_assign_type, setup,
				txqs, rxqs);
}

static __always_inline int
ipoib_fault_rhashtable_init(struct rhashtable *ht,
			    const struct rhashtable_params *params)
{
	return ipoib_fault_alloc("rhashtable_init", 1) ? -ENOMEM :
	       rhashtable_init(ht, params);
}

static __always_inline int
ipoib_fault_rhltable_init(struct rhltable *hlt,
			  const struct rhashtable_params *params)
{
	return ipoib_fault_alloc("rhltable_init", 1) ? -ENOMEM :
	       rhltable_init(hlt, params);
}

/* A new entry may need a bigger (or a nested) bucket table. */
static __always_inline void *
ipoib_fault_rhashtable_lookup_get_insert_fast(struct rhashtable *ht,
					      struct rhash_head *obj,
					      const struct rhashtable_params params)
{
	return ipoib_fault_alloc("rhashtable_insert", 1) ? ERR_PTR(-ENOMEM) :
	       rhashtable_lookup_get_insert_fast(ht, obj, params);
}

static __always_inline int
ipoib_fault_rhltable_insert(struct rhltable *hlt, struct rhlist_head *list,
			    const struct rhashtable_params params)
{
	return ipoib_fault_alloc("rhltable_insert", 1) ? -ENOMEM :
	       rhltable_insert(hlt, list, params);
}

static __always_inline struct ib_pd *
ipoib_fault_ib_alloc_pd(struct ib_device *ca, unsigned int flags)
{
	return ipoib_fault_alloc("ib_alloc_pd", 1) ? ERR_PTR(-ENOMEM) :
	       ib_alloc_pd(ca, flags);
}

static __always_inline struct ib_cq *
ipoib_fault_ib_create_cq(struct ib_device *ca, ib_comp_handler comp,
			 void (*event)(struct ib_event *, void *), void *ctx,
			 const struct ib_cq_init_attr *attr)
{
	return ipoib_fault_alloc("ib_create_cq", attr->cqe) ?
	       ERR_PTR(-ENOMEM) : ib_create_cq(ca, comp, event, ctx, attr);
}

static __always_inline struct ib_qp *ipoib_fault_ib_create_qp(struct ib_pd *pd,
							      struct ib_qp_init_attr *attr)
{
	return ipoib_fault_alloc("ib_create_qp", 1) ? ERR_PTR(-ENOMEM) :
	       ib_create_qp(pd, attr);
}

static __always_inline struct ib_srq *
ipoib_fault_ib_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *attr)
{
	return ipoib_fault_alloc("ib_create_srq", attr->attr.max_wr) ?
	       ERR_PTR(-ENOMEM) : ib_create_srq(pd, attr);
}

static __always_inline struct ib_ah *
ipoib_fault_rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *attr,
			   u32 flags)
{
	return ipoib_fault_alloc("rdma_create_ah", 1) ? ERR_PTR(-ENOMEM) :
	       rdma_create_ah(pd, attr, flags);
}

static __always_inline struct ib_cm_id *
ipoib_fault_ib_create_cm_id(struct ib_device *ca, ib_cm_handler handler,
			    void *ctx)
{
	return ipoib_fault_alloc("ib_create_cm_id", 1) ? ERR_PTR(-ENOMEM) :
	       ib_create_cm_id(ca, handler, ctx);
}

/* The CM's sends allocate their MAD; so do SA queries and joins. */
static __always_inline int ipoib_fault_ib_send_cm_req(struct ib_cm_id *id,
						      struct ib_cm_req_param *param)
{
	return ipoib_fault_alloc("ib_send_cm_req", 1) ? -ENOMEM :
	       ib_send_cm_req(id, param);
}

static __always_inline int ipoib_fault_ib_send_cm_rep(struct ib_cm_id *id,
						      struct ib_cm_rep_param *param)
{
	return ipoib_fault_alloc("ib_send_cm_rep", 1) ? -ENOMEM :
	       ib_send_cm_rep(id, param);
}

static __always_inline int ipoib_fault_ib_send_cm_rtu(struct ib_cm_id *id,
						      const void *data, u8 len)
{
	return ipoib_fault_alloc("ib_send_cm_rtu", 1) ? -ENOMEM :
	       ib_send_cm_rtu(id, data, len);
}

/* A REJ or DREP that is not sent: the peer's timers take over. */
static __always_inline int ipoib_fault_ib_send_cm_rej(struct ib_cm_id *id,
						      enum ib_cm_rej_reason reason,
						      void *ari, u8 ari_len,
						      const void *data, u8 len)
{
	return ipoib_fault_alloc("ib_send_cm_rej", 1) ? -ENOMEM :
	       ib_send_cm_rej(id, reason, ari, ari_len, data, len);
}

static __always_inline int ipoib_fault_ib_send_cm_drep(struct ib_cm_id *id,
						       const void *data, u8 len)
{
	return ipoib_fault_alloc("ib_send_cm_drep", 1) ? -ENOMEM :
	       ib_send_cm_drep(id, data, len);
}

static __always_inline struct ib_sa_multicast *
ipoib_fault_ib_sa_join_multicast(struct ib_sa_client *client,
				 struct ib_device *ca, u32 port,
				 struct ib_sa_mcmember_rec *rec,
				 ib_sa_comp_mask mask, gfp_t gfp,
				 int (*done)(int status,
					     struct ib_sa_multicast *multicast),
				 void *ctx)
{
	return ipoib_fault_gfp("ib_sa_join_multicast", 1, gfp) ?
	       ERR_PTR(-ENOMEM) :
	       ib_sa_join_multicast(client, ca, port, rec, mask, gfp, done,
				    ctx);
}

static __always_inline int
ipoib_fault_ib_sa_path_rec_get(struct ib_sa_client *client,
			       struct ib_device *ca, u32 port,
			       struct sa_path_rec *rec, ib_sa_comp_mask mask,
			       unsigned long timeout_ms, gfp_t gfp,
			       void (*done)(int status,
					    struct sa_path_rec *resp,
					    ipoib_sa_num_prs num_prs,
					    void *ctx),
			       void *ctx, struct ib_sa_query **query)
{
	return ipoib_fault_gfp("ib_sa_path_rec_get", 1, gfp) ? -ENOMEM :
	       ib_sa_path_rec_get(client, ca, port, rec, mask, timeout_ms,
				  gfp, done, ctx, query);
}

/* Some of these are macros on some kernels: each name is redefined. */
#undef kmalloc
#define kmalloc(size, gfp) ipoib_fault_kmalloc(size, gfp)
#undef kzalloc
#define kzalloc(size, gfp) ipoib_fault_kzalloc(size, gfp)
#undef kcalloc
#define kcalloc(n, size, gfp) ipoib_fault_kcalloc(n, size, gfp)
#undef kmalloc_array
#define kmalloc_array(n, size, gfp) ipoib_fault_kmalloc_array(n, size, gfp)
#undef kvmalloc
#define kvmalloc(size, gfp) ipoib_fault_kvmalloc(size, gfp)
#undef kvzalloc
#define kvzalloc(size, gfp) ipoib_fault_kvzalloc(size, gfp)
#undef kvcalloc
#define kvcalloc(n, size, gfp) ipoib_fault_kvcalloc(n, size, gfp)
#undef __netdev_alloc_skb
#define __netdev_alloc_skb(dev, len, gfp) \
	ipoib_fault_netdev_alloc_skb(dev, len, gfp)
#undef netdev_alloc_skb_ip_align
#define netdev_alloc_skb_ip_align(dev, len) \
	ipoib_fault_netdev_alloc_skb_ip_align(dev, len)
#undef napi_alloc_skb
#define napi_alloc_skb(napi, len) ipoib_fault_napi_alloc_skb(napi, len)
#undef napi_build_skb
#define napi_build_skb(data, size) ipoib_fault_napi_build_skb(data, size)
#undef skb_linearize
#define skb_linearize(skb) ipoib_fault_skb_linearize(skb)
#undef dev_alloc_pages
#define dev_alloc_pages(order) ipoib_fault_dev_alloc_pages(order)
#ifdef IPOIB_RX_PAGE_POOL
#undef page_pool_dev_alloc_pages
#define page_pool_dev_alloc_pages(pool) \
	ipoib_fault_page_pool_dev_alloc_pages(pool)
#undef page_pool_create
#define page_pool_create(params) ipoib_fault_page_pool_create(params)
#endif
#define alloc_netdev_mqs(sizeof_priv, name, name_assign_type, setup, txqs, \
			 rxqs)							\
	ipoib_fault_alloc_netdev_mqs(sizeof_priv, name, name_assign_type,	\
				     setup, txqs, rxqs)
/* A type, not a value, for an argument: no function can take it. */
#undef netdev_alloc_pcpu_stats
#define netdev_alloc_pcpu_stats(type)					\
	(ipoib_fault_alloc("netdev_alloc_pcpu_stats", sizeof(type)) ?	\
	 NULL : __netdev_alloc_pcpu_stats(type, GFP_KERNEL))
/* A function, with a format: it names itself in its own expansion. */
#define alloc_workqueue(fmt, flags, max_active, ...)			\
	(ipoib_fault_alloc("alloc_workqueue", 1) ? NULL :		\
	 alloc_workqueue(fmt, flags, max_active, ##__VA_ARGS__))
#undef rhashtable_init
#define rhashtable_init(ht, params) ipoib_fault_rhashtable_init(ht, params)
#undef rhashtable_lookup_get_insert_fast
#define rhashtable_lookup_get_insert_fast(ht, obj, params) \
	ipoib_fault_rhashtable_lookup_get_insert_fast(ht, obj, params)
#undef rhltable_init
#define rhltable_init(hlt, params) ipoib_fault_rhltable_init(hlt, params)
#undef rhltable_insert
#define rhltable_insert(hlt, list, params) \
	ipoib_fault_rhltable_insert(hlt, list, params)
#undef ib_alloc_pd
#define ib_alloc_pd(ca, flags) ipoib_fault_ib_alloc_pd(ca, flags)
#undef ib_create_cq
#define ib_create_cq(ca, comp, event, ctx, attr) \
	ipoib_fault_ib_create_cq(ca, comp, event, ctx, attr)
#undef ib_create_qp
#define ib_create_qp(pd, attr) ipoib_fault_ib_create_qp(pd, attr)
#undef ib_create_srq
#define ib_create_srq(pd, attr) ipoib_fault_ib_create_srq(pd, attr)
#undef rdma_create_ah
#define rdma_create_ah(pd, attr, flags) \
	ipoib_fault_rdma_create_ah(pd, attr, flags)
#undef ib_create_cm_id
#define ib_create_cm_id(ca, handler, ctx) \
	ipoib_fault_ib_create_cm_id(ca, handler, ctx)
#undef ib_send_cm_req
#define ib_send_cm_req(id, param) ipoib_fault_ib_send_cm_req(id, param)
#undef ib_send_cm_rep
#define ib_send_cm_rep(id, param) ipoib_fault_ib_send_cm_rep(id, param)
#undef ib_send_cm_rtu
#define ib_send_cm_rtu(id, data, len) ipoib_fault_ib_send_cm_rtu(id, data, len)
#undef ib_send_cm_rej
#define ib_send_cm_rej(id, reason, ari, ari_len, data, len) \
	ipoib_fault_ib_send_cm_rej(id, reason, ari, ari_len, data, len)
#undef ib_send_cm_drep
#define ib_send_cm_drep(id, data, len) ipoib_fault_ib_send_cm_drep(id, data, len)
#undef ib_sa_join_multicast
#define ib_sa_join_multicast(client, ca, port, rec, mask, gfp, done, ctx) \
	ipoib_fault_ib_sa_join_multicast(client, ca, port, rec, mask, gfp, \
					 done, ctx)
#undef ib_sa_path_rec_get
#define ib_sa_path_rec_get(client, ca, port, rec, mask, timeout, gfp, done, \
			   ctx, query)					\
	ipoib_fault_ib_sa_path_rec_get(client, ca, port, rec, mask, timeout, \
				       gfp, done, ctx, query)

#else /* no fault injection in this kernel */

static inline void ipoib_fault_init(struct dentry *root)
{
}

static inline void ipoib_fault_exit(void)
{
}

#endif /* CONFIG_FAULT_INJECTION_DEBUG_FS */

#endif /* IPOIB_FAULT_H */
