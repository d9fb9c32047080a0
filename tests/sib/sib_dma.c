// SPDX-License-Identifier: GPL-2.0
/*
 * How sib reaches the memory a consumer names, as a device's DMA does.
 * With dma=1 (the default) each HCA is registered with its platform device
 * as the DMA device, so ib_dma_map_*() gives real DMA addresses (bounce
 * buffers under swiotlb=force) and the consumer's unmaps and syncs are
 * what carry the bytes between it and sib.  sib turns such an address into
 * the physical page, then into the kernel's direct map, one page at a
 * time.  With dma=0 ib_core maps nothing (virtual DMA): an address is the
 * kernel address itself.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include "sib.h"

/*
 * Before registering: make dev the HCA's DMA device, 64-bit.  dma_to_phys()
 * would call a helper modules cannot for a device with DMA ranges; ours
 * has none, so its DMA addresses are physical ones (less the memory
 * encryption bit), and we refuse one that has.
 */
int sib_dma_setup(struct sib_dev *sdev, struct device *dev)
{
	int ret;

	if (!sib_dma)
		return 0;
	if (dev->dma_range_map) {
		pr_err("sib: %s has DMA ranges: dma=1 cannot translate them\n",
		       dev_name(dev));
		return -EOPNOTSUPP;
	}
	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (!ret)
		ret = tests_dma_set_max_seg_size(dev, UINT_MAX);
	if (ret) {
		pr_err("sib: %s: no 64-bit DMA: %d\n", dev_name(dev), ret);
		return ret;
	}
	sdev->dma_dev = dev;
	return 0;
}

/* A list entry that names DMA addresses (not sib's own buffers). */
void sib_dma_count_sge(struct sib_dev *sdev)
{
	if (sdev->dma_dev)
		this_cpu_inc(*sdev->dma_sges);
}

/*
 * Under rcu_read_lock(): the kernel address of sdev's DMA address addr,
 * and in contig the bytes from there to the end of its page; NULL (and
 * counted) when no memory is there.
 */
void *sib_dma_to_virt(struct sib_dev *sdev, u64 addr, u32 *contig)
{
	phys_addr_t phys;

	if (!sdev->dma_dev) {
		*contig = U32_MAX;
		return (void *)(uintptr_t)addr;
	}
	phys = __sme_clr(addr);
	if (!pfn_valid(PHYS_PFN(phys))) {
		atomic64_inc(&sdev->dma_refused);
		return NULL;
	}
	*contig = PAGE_SIZE - offset_in_page(phys);
	return phys_to_virt(phys);
}
