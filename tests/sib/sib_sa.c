// SPDX-License-Identifier: GPL-2.0
/*
 * The subnet administrator behind the SM's LID (IBA 15.2): takes the MADs
 * sent to it, answers ClassPortInfo, PathRecord and PortInfoRecord here
 * and hands MCMemberRecord to the group store (sib_sa_mcast.c).  Paths
 * and ports are read from the fabric on every query.
 *
 * Records are read and written in their big-endian wire layout, through
 * the codecs in sib_sa_wire.h.  A GetTable answer is an RMPP transfer of
 * as many segments as its records need, all sent at once: the receiver
 * (ib_core) opens a window of 64 segments after the first.
 */
#include <linux/slab.h>
#include <rdma/ib_smi.h>
#include "sib_sa.h"
#include "sib_smp_wire.h"

#define SA_RESP_TIME		18	/* 4.096 us << 18: about a second */

/* The answer: records at a fixed stride, one for a Get. */

bool sib_sa_table_query(const struct sa_ctx *ctx)
{
	return ctx->table;
}

/* Where the next record goes; NULL when no more fit (or, for a Get, one). */
u8 *sib_sa_slot(struct sa_ctx *ctx)
{
	u32 max = ctx->table ? SA_TABLE_MAX / ctx->stride : 1;
	u8 *base = ctx->table ? ctx->records : ctx->resp.data;

	if (ctx->nrec >= max) {
		ctx->overflow = true;
		return NULL;
	}
	return base + ctx->nrec++ * ctx->stride;
}

/*
 * How a query ends, by what it found.  A Get needs exactly one record; a
 * GetTable may find none (as OpenSM answers), and answers
 * ERR_NO_RESOURCES only when its records outgrow SA_TABLE_MAX.
 */
u16 sib_sa_found(const struct sa_ctx *ctx)
{
	if (ctx->overflow)
		return ctx->table ? SA_ERR_NO_RESOURCES :
				    SA_ERR_TOO_MANY_RECORDS;
	return ctx->nrec || ctx->table ? 0 : SA_ERR_NO_RECORDS;
}

/* ClassPortInfo: what the SA can do. */
static u16 sa_class_port_info(struct sa_ctx *ctx)
{
	struct ib_class_port_info cpi = {
		.base_version = IB_MGMT_BASE_VERSION,
		.class_version = IB_SA_CLASS_VERSION,
	};

	ib_set_cpi_capmask2(&cpi, IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT);
	ib_set_cpi_resp_time(&cpi, SA_RESP_TIME);
	memcpy(ctx->resp.data, &cpi, sizeof(cpi));
	return 0;
}

/* PathRecord. */

/* One end of a path, by GID, else LID, else the fallback port. */
static u16 sa_path_end(bool by_gid, const union ib_gid *gid, bool by_lid,
		       u16 lid, struct sib_port *fallback,
		       struct sib_port **out)
{
	struct sib_port *port = fallback;

	if (by_gid) {
		port = sib_port_by_gid(gid);
		if (port && by_lid && READ_ONCE(port->lid) != lid)
			port = NULL;
	} else if (by_lid) {
		port = sib_port_by_lid(lid);
	} else if (!port) {
		return SA_ERR_INSUFFICIENT_COMPONENTS;
	}
	if (!port || READ_ONCE(port->state) != IB_PORT_ACTIVE)
		return SA_ERR_NO_RECORDS;
	*out = port;
	return 0;
}

/* Both ends hold the partition, and at least one as a full member. */
static bool sa_pkey_shared(const struct sib_port *a, const struct sib_port *b,
			   u16 pkey)
{
	int ia = sib_pkey_find(a, pkey);
	int ib = sib_pkey_find(b, pkey);

	return ia >= 0 && ib >= 0 &&
	       sib_pkey_match(sib_pkey_at(a, ia), sib_pkey_at(b, ib));
}

/* The requested P_Key, or else the first one the ends share. */
static int sa_path_pkey(const struct sib_port *sp, const struct sib_port *dp,
			bool given, u16 want, u16 *pkey)
{
	u16 i;

	if (given) {
		*pkey = want;
		return sa_pkey_shared(sp, dp, want) ? 0 : -ENOENT;
	}
	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++) {
		u16 entry = sib_pkey_at(sp, i);

		if (sib_pkey_valid(entry) && sa_pkey_shared(sp, dp, entry)) {
			*pkey = entry;
			return 0;
		}
	}
	return -ENOENT;
}

/* Under rcu_read_lock(): the one path from sp to dp the request allows. */
static u16 sa_path_fill(const struct sa_ctx *ctx, const struct sa_path *req,
			struct sib_port *sp, struct sib_port *dp,
			struct sa_path *pr)
{
	ib_sa_comp_mask cm = ctx->comp;
	int mtu, path_mtu;

	if ((cm & IB_SA_PATH_REC_RAW_TRAFFIC) && req->raw_traffic)
		return SA_ERR_NO_RECORDS;

	memset(pr, 0, sizeof(*pr));
	if (sa_path_pkey(sp, dp, !!(cm & IB_SA_PATH_REC_PKEY), req->pkey,
			 &pr->pkey))
		return SA_ERR_NO_RECORDS;
	path_mtu = min_t(int, READ_ONCE(sp->active_mtu),
			 READ_ONCE(dp->active_mtu));
	mtu = sa_sel_pick(sa_req_sel(cm, IB_SA_PATH_REC_MTU_SELECTOR,
				     IB_SA_PATH_REC_MTU, req->mtu),
			  req->mtu.val, IB_MTU_256, path_mtu);
	if (mtu < 0 ||
	    !sa_rate_ok(sa_req_sel(cm, IB_SA_PATH_REC_RATE_SELECTOR,
				   IB_SA_PATH_REC_RATE, req->rate),
			SA_RATE, req->rate.val) ||
	    !sa_sel_ok(sa_req_sel(cm, IB_SA_PATH_REC_PACKET_LIFE_TIME_SELECTOR,
				  IB_SA_PATH_REC_PACKET_LIFE_TIME, req->life),
		       SA_PKT_LIFE, req->life.val))
		return SA_ERR_NO_RECORDS;

	if (cm & IB_SA_PATH_REC_SERVICE_ID)
		memcpy(pr->service_id, req->service_id, sizeof(pr->service_id));
	pr->dgid = sib_port_gid(dp);
	pr->sgid = sib_port_gid(sp);
	pr->dlid = READ_ONCE(dp->lid);
	pr->slid = READ_ONCE(sp->lid);
	if (cm & IB_SA_PATH_REC_FLOW_LABEL)
		pr->flow_label = req->flow_label;
	if (cm & IB_SA_PATH_REC_HOP_LIMIT)
		pr->hop_limit = req->hop_limit;
	if (cm & IB_SA_PATH_REC_TRAFFIC_CLASS)
		pr->tclass = req->tclass;
	if (cm & IB_SA_PATH_REC_QOS_CLASS)
		pr->qos_class = req->qos_class;
	if (cm & IB_SA_PATH_REC_SL)
		pr->sl = req->sl;
	pr->reversible = true;
	pr->numb_path = 1;
	pr->mtu = sa_exactly(mtu);
	pr->rate = sa_exactly(SA_RATE);
	pr->life = sa_exactly(SA_PKT_LIFE);
	return 0;
}

/* Under rcu_read_lock(): the ends a request names (source: the asker). */
static u16 sa_path_ends(const struct sa_ctx *ctx, const struct sa_path *req,
			struct sib_port *src_fallback, struct sib_port **sp,
			struct sib_port **dp)
{
	ib_sa_comp_mask cm = ctx->comp;
	u16 status;

	status = sa_path_end(!!(cm & IB_SA_PATH_REC_SGID), &req->sgid,
			     !!(cm & IB_SA_PATH_REC_SLID), req->slid,
			     src_fallback, sp);
	if (!status)
		status = sa_path_end(!!(cm & IB_SA_PATH_REC_DGID), &req->dgid,
				     !!(cm & IB_SA_PATH_REC_DLID), req->dlid,
				     NULL, dp);
	return status;
}

/* Under rcu_read_lock(): the named port, or the index-th active one. */
static struct sib_port *sa_path_nth(struct sib_port *named, u32 index)
{
	struct sib_port *port;

	if (named)
		return index ? NULL : named;
	port = sib_port_by_index(index);
	return port && READ_ONCE(port->state) == IB_PORT_ACTIVE ? port : NULL;
}

/*
 * Under rcu_read_lock(): GetTable.  An end the request does not name is
 * every active port, as OpenSM answers: no components at all, every path
 * of the subnet.
 */
static void sa_path_table(struct sa_ctx *ctx, const struct sa_path *req)
{
	ib_sa_comp_mask cm = ctx->comp;
	struct sib_port *s_named = NULL, *d_named = NULL, *sp, *dp;
	struct sa_path pr;
	u32 si, di;
	u8 *slot;

	if ((cm & (IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_SLID)) &&
	    sa_path_end(!!(cm & IB_SA_PATH_REC_SGID), &req->sgid,
			!!(cm & IB_SA_PATH_REC_SLID), req->slid, NULL,
			&s_named))
		return;
	if ((cm & (IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_DLID)) &&
	    sa_path_end(!!(cm & IB_SA_PATH_REC_DGID), &req->dgid,
			!!(cm & IB_SA_PATH_REC_DLID), req->dlid, NULL,
			&d_named))
		return;
	for (di = 0; di < SIB_FABRIC_PORTS; di++) {
		dp = sa_path_nth(d_named, di);
		for (si = 0; dp && si < SIB_FABRIC_PORTS; si++) {
			sp = sa_path_nth(s_named, si);
			if (!sp || sa_path_fill(ctx, req, sp, dp, &pr))
				continue;
			slot = sib_sa_slot(ctx);
			if (!slot)
				return;
			sa_path_encode(&pr, slot);
		}
	}
}

/*
 * Get: the source defaults to the asker's port, the destination must be
 * named; there is one path per pair of ports.  GetTable: see above.
 */
static u16 sa_path_query(struct sa_ctx *ctx)
{
	struct sib_port *sp, *dp;
	struct sa_path req, pr;
	u16 status;
	u8 *slot;

	ctx->stride = PR_SIZE;
	sa_path_decode(ctx->req.data, &req);
	rcu_read_lock();
	if (ctx->table) {
		sa_path_table(ctx, &req);
		status = 0;
	} else {
		status = sa_path_ends(ctx, &req, ctx->src->port, &sp, &dp);
		if (!status)
			status = sa_path_fill(ctx, &req, sp, dp, &pr);
	}
	rcu_read_unlock();
	if (status)
		return status;
	if (!ctx->table) {
		slot = sib_sa_slot(ctx);
		if (slot)
			sa_path_encode(&pr, slot);
	}
	return sib_sa_found(ctx);
}

/*
 * PortInfoRecord (IBA 15.2.5.3): every port the SM knows, the switch's
 * included, as its SMA shows it (M_Key zeroed: no requester is trusted).
 * The SA matches on LID, port, SM LID, port state and CapabilityMask
 * (bitwise when the attribute modifier's bit 31 says so, as saquery -s
 * asks for IsSM); a request naming any other component is refused.
 */
#define PIR_SIZE		72
#define PIR_LID			0
#define PIR_PORT_NUM		2
#define PIR_PORT_INFO		4
#define PIR_COMP_LID		IB_SA_COMP_MASK(0)
#define PIR_COMP_PORT_NUM	IB_SA_COMP_MASK(1)
#define PIR_COMP_OPTIONS	IB_SA_COMP_MASK(2)
#define PIR_COMP_SM_LID		IB_SA_COMP_MASK(6)
#define PIR_COMP_CAP_MASK	IB_SA_COMP_MASK(7)
#define PIR_COMP_PORT_STATE	IB_SA_COMP_MASK(15)
#define PIR_COMP_KNOWN		(PIR_COMP_LID | PIR_COMP_PORT_NUM |	\
				 PIR_COMP_OPTIONS | PIR_COMP_SM_LID |	\
				 PIR_COMP_CAP_MASK | PIR_COMP_PORT_STATE)
#define PIR_CAP_MASK_BITWISE	BIT(31)

struct sa_pir_want {
	ib_sa_comp_mask comp;
	bool bitwise;
	u16 lid;
	u8 port_num;
	struct sib_portinfo pi;
};

static void sa_pir_add(struct sa_ctx *ctx, const struct sa_pir_want *w,
		       u16 lid, u8 port_num, struct sib_portinfo *pi)
{
	u32 caps = w->pi.cap_mask;
	u8 *slot;

	if (((w->comp & PIR_COMP_LID) && lid != w->lid) ||
	    ((w->comp & PIR_COMP_PORT_NUM) && port_num != w->port_num) ||
	    ((w->comp & PIR_COMP_SM_LID) && pi->sm_lid != w->pi.sm_lid) ||
	    ((w->comp & PIR_COMP_PORT_STATE) && pi->state != w->pi.state))
		return;
	if ((w->comp & PIR_COMP_CAP_MASK) &&
	    (w->bitwise ? (pi->cap_mask & caps) != caps : pi->cap_mask != caps))
		return;
	slot = sib_sa_slot(ctx);
	if (!slot)
		return;
	pi->mkey = 0;
	put_unaligned_be16(lid, slot + PIR_LID);
	slot[PIR_PORT_NUM] = port_num;
	sib_portinfo_encode(pi, slot + PIR_PORT_INFO);
}

static u16 sa_portinfo_query(struct sa_ctx *ctx)
{
	struct sa_pir_want w = {
		.comp = ctx->comp,
		.bitwise = be32_to_cpu(ctx->req.mad_hdr.attr_mod) &
			   PIR_CAP_MASK_BITWISE,
		.lid = get_unaligned_be16(ctx->req.data + PIR_LID),
		.port_num = ctx->req.data[PIR_PORT_NUM],
	};
	struct sib_portinfo pi;
	struct sib_port *port;
	u32 i;

	ctx->stride = PIR_SIZE;
	if (w.comp & ~PIR_COMP_KNOWN)
		return SA_ERR_REQ_INVALID;
	sib_portinfo_decode(ctx->req.data + PIR_PORT_INFO, &w.pi);
	rcu_read_lock();
	for (i = 0; i < SIB_FABRIC_PORTS; i++) {
		port = sib_port_by_index(i);
		if (!port || READ_ONCE(port->state) == IB_PORT_DOWN)
			continue;
		sib_sma_portinfo(port, &pi);
		sa_pir_add(ctx, &w, READ_ONCE(port->lid), port->port_num, &pi);
	}
	rcu_read_unlock();
	for (i = 0; i <= sib_fabric.sw.nports; i++) {
		sib_switch_portinfo(i, &pi);
		sa_pir_add(ctx, &w, SIB_SM_LID, i, &pi);
	}
	return sib_sa_found(ctx);
}

/*
 * NodeRecord (IBA 15.2.5.2): one per HCA port (its LID, the NodeInfo
 * read through it) and one for the switch, at port 0's LID.  The SA
 * matches on LID, NodeType, NodeGUID and PortGUID; a request naming any
 * other component is refused.
 */
#define NR_SIZE			112	/* 108 bytes, to a multiple of 8 */
#define NR_LID			0
#define NR_NODE_INFO		4
#define NR_NODE_DESC		44
#define NR_COMP_LID		IB_SA_COMP_MASK(0)
#define NR_COMP_NODE_TYPE	IB_SA_COMP_MASK(4)
#define NR_COMP_NODE_GUID	IB_SA_COMP_MASK(7)
#define NR_COMP_PORT_GUID	IB_SA_COMP_MASK(8)
#define NR_COMP_KNOWN		(NR_COMP_LID | NR_COMP_NODE_TYPE |	\
				 NR_COMP_NODE_GUID | NR_COMP_PORT_GUID)

static void sa_nr_add(struct sa_ctx *ctx, u16 lid,
		      const struct ib_node_info *ni, const char *desc)
{
	const struct ib_node_info *want = (const void *)(ctx->req.data +
							 NR_NODE_INFO);
	ib_sa_comp_mask comp = ctx->comp;
	u8 *slot;

	if (((comp & NR_COMP_LID) &&
	     lid != get_unaligned_be16(ctx->req.data + NR_LID)) ||
	    ((comp & NR_COMP_NODE_TYPE) && ni->node_type != want->node_type) ||
	    ((comp & NR_COMP_NODE_GUID) && ni->node_guid != want->node_guid) ||
	    ((comp & NR_COMP_PORT_GUID) && ni->port_guid != want->port_guid))
		return;
	slot = sib_sa_slot(ctx);
	if (!slot)
		return;
	put_unaligned_be16(lid, slot + NR_LID);
	memcpy(slot + NR_NODE_INFO, ni, sizeof(*ni));
	strscpy(slot + NR_NODE_DESC, desc, IB_DEVICE_NODE_DESC_MAX);
}

static u16 sa_node_query(struct sa_ctx *ctx)
{
	struct ib_node_info ni;
	struct sib_port *port;
	u32 i;

	ctx->stride = NR_SIZE;
	if (ctx->comp & ~NR_COMP_KNOWN)
		return SA_ERR_REQ_INVALID;
	rcu_read_lock();
	for (i = 0; i < SIB_FABRIC_PORTS; i++) {
		port = sib_port_by_index(i);
		if (!port || READ_ONCE(port->state) == IB_PORT_DOWN)
			continue;
		sib_sma_node_info(port, &ni);
		sa_nr_add(ctx, READ_ONCE(port->lid), &ni,
			  port->sdev->ibdev.node_desc);
	}
	rcu_read_unlock();
	sib_switch_node_info(0, &ni);
	sa_nr_add(ctx, SIB_SM_LID, &ni, SIB_SWITCH_DESC);
	return sib_sa_found(ctx);
}

/* MAD handling. */

/* Responses (an RMPP ACK of ours among them) and traps get no answer. */
static bool sa_wants_answer(u8 method)
{
	return !(method & IB_MGMT_METHOD_RESP) &&
	       method != IB_MGMT_METHOD_TRAP &&
	       method != IB_MGMT_METHOD_REPORT &&
	       method != IB_MGMT_METHOD_TRAP_REPRESS;
}

static u16 sa_dispatch(struct sa_ctx *ctx)
{
	u8 method = ctx->req.mad_hdr.method;
	bool get = method == IB_MGMT_METHOD_GET;

	switch (method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
	case IB_SA_METHOD_GET_TABLE:
	case IB_SA_METHOD_DELETE:
		break;
	default:
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	}

	switch (be16_to_cpu(ctx->req.mad_hdr.attr_id)) {
	case IB_SA_ATTR_CLASS_PORTINFO:
		if (get)
			return sa_class_port_info(ctx);
		break;
	case IB_SA_ATTR_PATH_REC:
		if (get || ctx->table)
			return sa_path_query(ctx);
		break;
	case IB_SA_ATTR_PORT_INFO_REC:
		if (get || ctx->table)
			return sa_portinfo_query(ctx);
		break;
	case IB_SA_ATTR_NODE_REC:
		if (get || ctx->table)
			return sa_node_query(ctx);
		break;
	case IB_SA_ATTR_MC_MEMBER_REC:
		return sib_sa_mcm_request(ctx);
	}
	return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
}

static void sa_answer_header(struct sa_ctx *ctx)
{
	const struct ib_mad_hdr *in = &ctx->req.mad_hdr;
	struct ib_mad_hdr *out = &ctx->resp.mad_hdr;

	out->base_version = IB_MGMT_BASE_VERSION;
	out->mgmt_class = in->mgmt_class;
	out->class_version = in->class_version;
	if (in->mgmt_class == IB_MGMT_CLASS_SUBN_ADM)
		out->class_version = IB_SA_CLASS_VERSION;
	out->method = in->method == IB_MGMT_METHOD_SET ?
		      IB_MGMT_METHOD_GET_RESP : in->method | IB_MGMT_METHOD_RESP;
	out->tid = in->tid;
	out->attr_id = in->attr_id;
	out->attr_mod = in->attr_mod;
}

/*
 * A GetTable answer: RMPP DATA segments (IBA 13.6), each with the SA
 * header and the next IB_MGMT_SA_DATA bytes of records.  PayloadLength
 * counts the SA header once per segment: all segments' worth in the
 * first, the last's own in the last (ib_core's receiver reads that one),
 * none in between.
 */
static void sa_send_table(struct sa_ctx *ctx)
{
	u32 total = ctx->nrec * ctx->stride;
	u32 segs = max_t(u32, 1, DIV_ROUND_UP(total, IB_MGMT_SA_DATA));
	u32 pad = segs * IB_MGMT_SA_DATA - total;
	struct ib_rmpp_hdr *rmpp = &ctx->resp.rmpp_hdr;
	u32 seg, off, n, paylen;
	u8 flags;

	ctx->resp.sa_hdr.attr_offset = cpu_to_be16(ctx->nrec ?
						   ctx->stride / 8 : 0);
	rmpp->rmpp_version = IB_MGMT_RMPP_VERSION;
	rmpp->rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
	for (seg = 1; seg <= segs; seg++) {
		off = (seg - 1) * IB_MGMT_SA_DATA;
		n = min_t(u32, IB_MGMT_SA_DATA, total - off);
		flags = IB_MGMT_RMPP_FLAG_ACTIVE;
		paylen = 0;
		if (seg == 1) {
			flags |= IB_MGMT_RMPP_FLAG_FIRST;
			paylen = segs * IB_MGMT_RMPP_DATA - pad;
		}
		if (seg == segs) {
			flags |= IB_MGMT_RMPP_FLAG_LAST;
			paylen = IB_MGMT_RMPP_DATA - pad;
		}
		rmpp->rmpp_rtime_flags = IB_MGMT_RMPP_NO_RESPTIME << 3 | flags;
		rmpp->seg_num = cpu_to_be32(seg);
		rmpp->paylen_newwin = cpu_to_be32(paylen);
		memset(ctx->resp.data, 0, sizeof(ctx->resp.data));
		memcpy(ctx->resp.data, ctx->records + off, n);
		sib_sm_send_mad(ctx->src, &ctx->resp, sizeof(ctx->resp));
	}
}

static void sa_answer(struct sa_ctx *ctx, u32 len)
{
	const struct ib_mad_hdr *hdr = &ctx->req.mad_hdr;
	bool sa = hdr->mgmt_class == IB_MGMT_CLASS_SUBN_ADM;
	u16 status;

	sa_answer_header(ctx);
	ctx->table = sa && hdr->method == IB_SA_METHOD_GET_TABLE;
	ctx->stride = 8;
	if (hdr->base_version != IB_MGMT_BASE_VERSION || !sa ||
	    hdr->class_version != IB_SA_CLASS_VERSION) {
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	} else if (len < IB_MGMT_MAD_SIZE) {
		status = IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	} else {
		ctx->comp = ctx->req.sa_hdr.comp_mask;
		ctx->resp.sa_hdr.comp_mask = ctx->comp;
		status = sa_dispatch(ctx);
	}
	if (status) {
		memset(ctx->resp.data, 0, sizeof(ctx->resp.data));
		ctx->nrec = 0;
	}
	ctx->resp.mad_hdr.status = cpu_to_be16(status);
}

void sib_sa_recv(const struct sib_mad_src *src, const void *mad, u32 len)
{
	const struct ib_mad_hdr *hdr = mad;
	struct sa_ctx *ctx;

	if (len < sizeof(*hdr) || !sa_wants_answer(hdr->method))
		return;
	/* Without memory there is no answer; the asker times out, retries. */
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return;
	memcpy(&ctx->req, mad, min_t(u32, len, sizeof(ctx->req)));
	ctx->src = src;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_ADM &&
	    hdr->method == IB_SA_METHOD_GET_TABLE) {
		ctx->records = kvzalloc(SA_TABLE_MAX, GFP_KERNEL);
		if (!ctx->records)
			goto out;
	}
	sa_answer(ctx, len);
	if (ctx->table)
		sa_send_table(ctx);
	else
		sib_sm_send_mad(src, &ctx->resp, sizeof(ctx->resp));
out:
	kvfree(ctx->records);
	kfree(ctx);
}

