/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the SA's two halves share: sib_sa.c takes MADs in and answers them
 * (ClassPortInfo, PathRecord), sib_sa_mcast.c keeps the multicast groups
 * (MCMemberRecord).
 */
#ifndef SIB_SA_H
#define SIB_SA_H

#include <linux/string.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>
#include "sib.h"
#include "sib_sa_wire.h"

/* MAD status: the SA's own codes sit in bits 8-14 (IBA 15.2.4). */
#define SA_STATUS(code)			((code) << 8)
#define SA_ERR_NO_RESOURCES		SA_STATUS(1)
#define SA_ERR_REQ_INVALID		SA_STATUS(2)
#define SA_ERR_NO_RECORDS		SA_STATUS(3)
#define SA_ERR_TOO_MANY_RECORDS		SA_STATUS(4)
#define SA_ERR_INSUFFICIENT_COMPONENTS	SA_STATUS(6)

/* What every path and group gets: the links are all 4x EDR. */
#define SA_RATE			IB_RATE_100_GBPS
#define SA_PKT_LIFE		0x0e	/* 4.096 us << 14: 67 ms */

/* A GetTable answer holds at most this much: 160-odd RMPP segments. */
#define SA_TABLE_MAX		(32 * 1024)

/* One request being answered. */
struct sa_ctx {
	struct ib_sa_mad req;
	struct ib_sa_mad resp;		/* the header, and a Get's record */
	const struct sib_mad_src *src;
	ib_sa_comp_mask comp;
	bool table;			/* GetTable: RMPP-framed answer */
	bool overflow;			/* more records than fit */
	u8 *records;			/* GetTable: SA_TABLE_MAX bytes */
	u32 stride;			/* bytes per record in the answer */
	u32 nrec;
};

static inline struct sa_sel sa_exactly(u8 val)
{
	struct sa_sel s = { .sel = IB_SA_EQ, .val = val };

	return s;
}

/*
 * The selector a request puts on a field: none (IB_SA_BEST) unless the
 * value is a component; "exactly" when the value comes without selector.
 */
static inline u8 sa_req_sel(ib_sa_comp_mask cm, ib_sa_comp_mask sel_bit,
			    ib_sa_comp_mask val_bit, struct sa_sel s)
{
	if (!(cm & val_bit))
		return IB_SA_BEST;
	return (cm & sel_bit) ? s.sel : IB_SA_EQ;
}

/* Does what we have satisfy "greater than", "less than", "exactly"? */
static inline bool sa_sel_ok(u8 sel, int have, int want)
{
	switch (sel) {
	case IB_SA_GT:
		return have > want;
	case IB_SA_LT:
		return have < want;
	case IB_SA_EQ:
		return have == want;
	default:
		return true;
	}
}

/* The largest value in [lo, hi] that satisfies the selector, or -1. */
static inline int sa_sel_pick(u8 sel, int want, int lo, int hi)
{
	switch (sel) {
	case IB_SA_GT:
		lo = max(lo, want + 1);
		break;
	case IB_SA_LT:
		hi = min(hi, want - 1);
		break;
	case IB_SA_EQ:
		lo = max(lo, want);
		hi = min(hi, want);
		break;
	}
	return lo <= hi ? hi : -1;
}

/* Rate codes are not ordered by speed: compare what they mean. */
static inline bool sa_rate_ok(u8 sel, u8 have, u8 want)
{
	int want_mbps = ib_rate_to_mbps(want);

	if (sel == IB_SA_BEST)
		return true;
	return want_mbps > 0 && sa_sel_ok(sel, ib_rate_to_mbps(have), want_mbps);
}

static inline bool sa_gid_zero(const union ib_gid *gid)
{
	return !memchr_inv(gid->raw, 0, sizeof(gid->raw));
}

static inline bool sa_gid_eq(const union ib_gid *a, const union ib_gid *b)
{
	return !memcmp(a->raw, b->raw, sizeof(a->raw));
}

/* sib_sa.c */
u8 *sib_sa_slot(struct sa_ctx *ctx);
bool sib_sa_table_query(const struct sa_ctx *ctx);
u16 sib_sa_found(const struct sa_ctx *ctx);

/* sib_sa_mcast.c */
u16 sib_sa_mcm_request(struct sa_ctx *ctx);

#endif /* SIB_SA_H */
