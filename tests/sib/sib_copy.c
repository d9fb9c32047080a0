// SPDX-License-Identifier: GPL-2.0
/*
 * Moving bytes between memory that keys name.  A scatter or gather list
 * holds addresses under keys: the reserved L_Key and DMA regions name DMA
 * addresses, a fast-registered region an I/O address its page list of DMA
 * addresses translates; sib_dma.c turns those into kernel addresses.  sib's
 * own lists (SIB_LKEY_KERNEL, or a cursor of no device) hold kernel
 * addresses as they are.  A
 * cursor walks a list piece by contiguous piece; keys were checked before
 * (sib_mr.c), so a key that no longer resolves only ends the walk.  Called
 * under rcu_read_lock(), as the fabric delivers.
 */
#include "sib.h"

void sib_cursor_init(struct sib_cursor *c, struct sib_dev *sdev,
		     const struct ib_sge *sg, u32 num_sge)
{
	*c = (struct sib_cursor) {
		.sdev = sdev,
		.sg = sg,
		.num_sge = num_sge,
	};
}

/* Step past entries used up and empty ones; false at the end. */
static bool settle(struct sib_cursor *c)
{
	while (c->i < c->num_sge && c->off >= c->sg[c->i].length) {
		c->i++;
		c->off = 0;
		c->mr_found = false;
	}
	return c->i < c->num_sge;
}

/*
 * The kernel address the cursor is at, and in contig how many bytes are
 * contiguous from there; NULL at the end.
 */
void *sib_cursor_map(struct sib_cursor *c, u32 *contig)
{
	const struct ib_sge *sge;
	u32 n;
	void *p;

	if (!settle(c))
		return NULL;
	sge = &c->sg[c->i];
	if (!c->mr_found) {
		c->mr = NULL;
		c->dma = c->sdev && sge->lkey != SIB_LKEY_KERNEL;
		if (c->dma && sge->lkey != SIB_LOCAL_DMA_LKEY) {
			c->mr = sib_mr_find(c->sdev, sge->lkey);
			if (!c->mr)
				return NULL;
		}
		if (c->dma)
			sib_dma_count_sge(c->sdev);
		c->mr_found = true;
	}
	if (c->mr) {
		p = sib_mr_addr(c->sdev, c->mr, sge->addr + c->off, &n);
	} else if (c->dma) {
		p = sib_dma_to_virt(c->sdev, sge->addr + c->off, &n);
	} else {
		p = (void *)(uintptr_t)(sge->addr + c->off);
		n = U32_MAX;
	}
	if (!p)
		return NULL;
	*contig = min(n, sge->length - c->off);
	return p;
}

void sib_cursor_skip(struct sib_cursor *c, u32 len)
{
	while (len && settle(c)) {
		u32 n = min(len, c->sg[c->i].length - c->off);

		c->off += n;
		len -= n;
	}
}

/* Copy up to len bytes from src to dst; returns how many were. */
u32 sib_copy(struct sib_cursor *dst, struct sib_cursor *src, u32 len)
{
	u32 done = 0;

	while (done < len) {
		u32 dn, sn, n;
		const void *from;
		void *to;

		to = sib_cursor_map(dst, &dn);
		from = sib_cursor_map(src, &sn);
		if (!to || !from)
			break;
		n = min3(len - done, dn, sn);
		memcpy(to, from, n);
		sib_cursor_skip(dst, n);
		sib_cursor_skip(src, n);
		done += n;
	}
	return done;
}

/* The first len bytes of a message's payload into buf (len at most). */
u32 sib_copy_out(void *buf, const struct sib_pkt *pkt, u32 len)
{
	struct ib_sge sge = { .addr = (uintptr_t)buf, .length = len };
	struct sib_cursor dst, src;

	sib_cursor_init(&dst, NULL, &sge, 1);
	sib_cursor_init(&src, pkt->sg_dev, pkt->sg, pkt->num_sge);
	return sib_copy(&dst, &src, min(len, pkt->length));
}
