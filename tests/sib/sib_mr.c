// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and their keys (IBA 10.6).  A DMA region (get_dma_mr)
 * covers all memory by DMA address (sib_dma.c translates).  A
 * fast-registration region (alloc_mr) starts Free; map_mr_sg stages a page
 * list, an IB_WR_REG_MR puts it in force under a new key variant and makes
 * the region Valid, and IB_WR_LOCAL_INV or a peer's SEND_WITH_INV makes it
 * Free again.  An HCA copies the page list when it executes the
 * registration; so do we, so that staging the next list changes nothing
 * in force.
 *
 * Keys are checked where an HCA checks them: the lkeys of a work request
 * when it executes, an rkey when the request reaches the responder.  A
 * region is freed after an RCU grace period: the fabric looks keys up
 * under rcu_read_lock().
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include "sib.h"

#define SIB_KEY_INDEX_SHIFT	8
#define SIB_KEY_VARIANT		0xff
#define SIB_MR_MAX_INDEX	0xffffff
#define SIB_ACCESS_REMOTE	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
/* Page sizes a registration may use: 4 KiB to 1 GiB. */
#define SIB_PAGE_SIZE_CAP	GENMASK_ULL(30, 12)

static inline struct sib_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sib_mr, ibmr);
}

static u32 key_index(u32 key)
{
	return key >> SIB_KEY_INDEX_SHIFT;
}

/* Remote Write and Remote Atomic need Local Write (IBA 10.6.3.1). */
static bool access_valid(int access)
{
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return false;
	return !(access & ~IB_ACCESS_SUPPORTED);
}

static struct sib_mr *new_mr(struct ib_pd *ibpd, int access, bool dma,
			     u32 max_pages)
{
	struct sib_dev *sdev = to_sdev(ibpd->device);
	struct sib_mr *mr;
	u32 index;
	int ret;

	if (atomic_inc_return(&sdev->nr_mrs) > SIB_MAX_MRS) {
		ret = -ENOMEM;
		goto err_count;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		ret = -ENOMEM;
		goto err_count;
	}
	spin_lock_init(&mr->lock);
	mr->pd = ibpd;
	mr->dma = dma;
	mr->access = access;
	mr->state = dma ? SIB_MR_VALID : SIB_MR_FREE;
	if (max_pages) {
		mr->pages = kcalloc(max_pages, sizeof(u64), GFP_KERNEL);
		mr->map_pages = kcalloc(max_pages, sizeof(u64), GFP_KERNEL);
		if (!mr->pages || !mr->map_pages) {
			ret = -ENOMEM;
			goto err_free;
		}
		mr->max_pages = max_pages;
	}
	/* Published only once whole: the fabric may look it up at once. */
	ret = xa_alloc_cyclic(&sdev->mrs, &index, mr,
			      XA_LIMIT(1, SIB_MR_MAX_INDEX), &sdev->next_mr,
			      GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	/* The variant starts from the index, so reused indexes differ. */
	mr->key = index << SIB_KEY_INDEX_SHIFT | (index & SIB_KEY_VARIANT);
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return mr;

err_free:
	kfree(mr->map_pages);
	kfree(mr->pages);
	kfree(mr);
err_count:
	atomic_dec(&sdev->nr_mrs);
	return ERR_PTR(ret);
}

struct ib_mr *sib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sib_mr *mr;

	if (!access_valid(access))
		return ERR_PTR(-EINVAL);
	mr = new_mr(ibpd, access, true, 0);
	return IS_ERR(mr) ? ERR_CAST(mr) : &mr->ibmr;
}

struct ib_mr *sib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct sib_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > SIB_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = new_mr(ibpd, 0, false, max_num_sg);
	return IS_ERR(mr) ? ERR_CAST(mr) : &mr->ibmr;
}

static int stage_page(struct ib_mr *ibmr, u64 addr)
{
	struct sib_mr *mr = to_smr(ibmr);

	if (mr->map_npages == mr->max_pages)
		return -ENOMEM;
	mr->map_pages[mr->map_npages++] = addr;
	return 0;
}

/* Stage the page list the next REG_MR puts in force. */
int sib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct sib_mr *mr = to_smr(ibmr);

	if (mr->dma)
		return -EINVAL;
	if (!is_power_of_2(ibmr->page_size) ||
	    !(ibmr->page_size & SIB_PAGE_SIZE_CAP))
		return -EINVAL;
	mr->map_npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, stage_page);
}

static void free_mr_rcu(struct rcu_head *rcu)
{
	struct sib_mr *mr = container_of(rcu, struct sib_mr, rcu);

	kfree(mr->map_pages);
	kfree(mr->pages);
	kfree(mr);
}

int sib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sib_dev *sdev = to_sdev(ibmr->device);
	struct sib_mr *mr = to_smr(ibmr);

	xa_erase(&sdev->mrs, key_index(mr->key));
	atomic_dec(&sdev->nr_mrs);
	/* Deliveries under way may still read its pages. */
	call_rcu(&mr->rcu, free_mr_rcu);
	return 0;
}

/* Under rcu_read_lock(): the region a key's index names, if any. */
struct sib_mr *sib_mr_find(struct sib_dev *sdev, u32 key)
{
	if (!key_index(key))
		return NULL;
	return xa_load(&sdev->mrs, key_index(key));
}

static bool range_ok(const struct sib_mr *mr, u64 addr, u64 len)
{
	if (mr->dma)
		return addr + len >= addr;	/* no wrap */
	return addr >= mr->iova && len <= mr->length &&
	       addr - mr->iova <= mr->length - len;
}

/*
 * Under rcu_read_lock(): may [addr, addr + len) be used with access
 * (IB_ACCESS_* bits; 0 for a local read) under key in this PD?  The
 * reserved L_Key allows every local access; sib's own key is none of a
 * consumer's.  0 or -EACCES.
 */
int sib_mr_check(struct sib_dev *sdev, struct ib_pd *pd, u32 key, u64 addr,
		 u64 len, int access)
{
	unsigned long flags;
	struct sib_mr *mr;
	bool ok;

	if (key == SIB_LOCAL_DMA_LKEY && !(access & SIB_ACCESS_REMOTE))
		return 0;
	mr = sib_mr_find(sdev, key);
	if (!mr)
		return -EACCES;
	spin_lock_irqsave(&mr->lock, flags);
	ok = mr->key == key && mr->state == SIB_MR_VALID && mr->pd == pd &&
	     (access & mr->access) == access && range_ok(mr, addr, len);
	spin_unlock_irqrestore(&mr->lock, flags);
	return ok ? 0 : -EACCES;
}

/* As sib_mr_check(), for the entries holding the first len bytes of a list. */
int sib_sgl_check(struct sib_dev *sdev, struct ib_pd *pd,
		  const struct ib_sge *sg, u32 num_sge, u64 len, int access)
{
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		u32 n = min_t(u64, sg[i].length, len);

		if (n && sib_mr_check(sdev, pd, sg[i].lkey, sg[i].addr, n,
				      access))
			return -EACCES;
		len -= n;
	}
	return 0;
}

/*
 * Under mr->lock: the staged list's page shift when it holds
 * [iova, iova + length) of the ib_mr, else -1.
 */
static int staged_list_shift(const struct sib_mr *mr)
{
	const struct ib_mr *ibmr = &mr->ibmr;
	u64 first;
	int shift;

	if (!mr->map_npages || mr->map_npages > mr->max_pages ||
	    !is_power_of_2(ibmr->page_size))
		return -1;
	shift = ilog2(ibmr->page_size);
	first = ibmr->iova & ((1ULL << shift) - 1);
	if (first + ibmr->length > (u64)mr->map_npages << shift)
		return -1;
	return shift;
}

/*
 * IB_WR_REG_MR, from the send queue of qp: a Free region of the QP's PD
 * becomes Valid with the staged page list, the request's key variant and
 * access.  Returns a WC status: a region, PD or key that does not fit is a
 * protection error, a list or access that cannot be put in force a
 * malformed request.
 */
int sib_mr_fast_reg(struct sib_qp *qp, const struct sib_send_wqe *wqe)
{
	struct sib_mr *mr = wqe->reg_mr;
	int status = IB_WC_SUCCESS;
	unsigned long flags;
	int shift;

	if (!access_valid(wqe->reg_access))
		return IB_WC_LOC_QP_OP_ERR;
	spin_lock_irqsave(&mr->lock, flags);
	shift = staged_list_shift(mr);
	if (mr->dma || mr->state != SIB_MR_FREE || mr->pd != qp->ibqp.pd ||
	    key_index(wqe->reg_key) != key_index(mr->key)) {
		status = IB_WC_LOC_PROT_ERR;
	} else if (shift < 0) {
		status = IB_WC_LOC_QP_OP_ERR;
	} else {
		memcpy(mr->pages, mr->map_pages, mr->map_npages * sizeof(u64));
		mr->npages = mr->map_npages;
		mr->page_shift = shift;
		mr->iova = mr->ibmr.iova;
		mr->length = mr->ibmr.length;
		mr->access = wqe->reg_access;
		mr->key = wqe->reg_key;
		mr->state = SIB_MR_VALID;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return status;
}

/*
 * IB_WR_LOCAL_INV, or a SEND_WITH_INV that reached qp: the fast-registered
 * region key names, in the QP's PD, becomes Free.  0 or -EACCES.
 */
int sib_mr_invalidate(struct sib_qp *qp, u32 key)
{
	unsigned long flags;
	struct sib_mr *mr;
	int ret = -EACCES;

	rcu_read_lock();
	mr = sib_mr_find(qp->sdev, key);
	if (mr) {
		spin_lock_irqsave(&mr->lock, flags);
		if (!mr->dma && mr->key == key && mr->pd == qp->ibqp.pd) {
			mr->state = SIB_MR_FREE;
			ret = 0;
		}
		spin_unlock_irqrestore(&mr->lock, flags);
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Under rcu_read_lock(): the kernel address of addr in sdev's region mr,
 * and in contig how many bytes are contiguous from there.  NULL when addr
 * is outside the pages in force, or no memory.  The range was checked;
 * the pages array (DMA addresses) lives as long as the region.
 */
void *sib_mr_addr(struct sib_dev *sdev, const struct sib_mr *mr, u64 addr,
		  u32 *contig)
{
	u32 shift, npages, n;
	u64 index, off;
	void *p;

	if (mr->dma)
		return sib_dma_to_virt(sdev, addr, contig);
	shift = READ_ONCE(mr->page_shift);
	npages = min(READ_ONCE(mr->npages), mr->max_pages);
	index = (addr >> shift) - (READ_ONCE(mr->iova) >> shift);
	if (index >= npages)
		return NULL;
	off = addr & ((1ULL << shift) - 1);
	p = sib_dma_to_virt(sdev, READ_ONCE(mr->pages[index]) + off, &n);
	*contig = min_t(u64, n, (1ULL << shift) - off);
	return p;
}
