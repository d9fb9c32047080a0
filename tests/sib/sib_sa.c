// SPDX-License-Identifier: GPL-2.0
/*
 * The subnet administrator behind the SM's LID (IBA 15.2): takes the MADs
 * sent to it, answers ClassPortInfo and PathRecord here and hands
 * MCMemberRecord to the group store (sib_sa_mcast.c).  Paths are computed
 * from the fabric on every query.
 *
 * Records are read and written in their big-endian wire layout, through
 * the codecs in sib_sa_wire.h.
 */
#include <linux/slab.h>
#include "sib_sa.h"

#define SA_RESP_TIME		18	/* 4.096 us << 18: about a second */

/* The answer: one MAD, records at a fixed stride. */

u8 *sib_sa_slot(struct sa_ctx *ctx)
{
	u32 max = ctx->table ? IB_MGMT_SA_DATA / ctx->stride : 1;

	if (ctx->nrec >= max) {
		ctx->overflow = true;
		return NULL;
	}
	return ctx->resp.data + ctx->nrec++ * ctx->stride;
}

/*
 * How a query ends, by what it found.  A table that does not fit in one
 * MAD would need a multi-segment RMPP transfer, which this SA does not
 * do: it answers ERR_NO_RESOURCES instead, and the asker narrows down.
 */
u16 sib_sa_found(const struct sa_ctx *ctx)
{
	if (ctx->overflow)
		return ctx->table ? SA_ERR_NO_RESOURCES :
				    SA_ERR_TOO_MANY_RECORDS;
	return ctx->nrec ? 0 : SA_ERR_NO_RECORDS;
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

/* Under rcu_read_lock(): the one path between two ports. */
static u16 sa_path_build(const struct sa_ctx *ctx, const struct sa_path *req,
			 struct sa_path *pr)
{
	ib_sa_comp_mask cm = ctx->comp;
	struct sib_port *sp, *dp;
	int mtu, path_mtu;
	u16 status;

	status = sa_path_end(!!(cm & IB_SA_PATH_REC_SGID), &req->sgid,
			     !!(cm & IB_SA_PATH_REC_SLID), req->slid,
			     ctx->src->port, &sp);
	if (!status)
		status = sa_path_end(!!(cm & IB_SA_PATH_REC_DGID), &req->dgid,
				     !!(cm & IB_SA_PATH_REC_DLID), req->dlid,
				     NULL, &dp);
	if (status)
		return status;
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

/*
 * Get and GetTable.  The source defaults to the asker's port; the
 * destination must be named.  There is one path per pair of ports.
 */
static u16 sa_path_query(struct sa_ctx *ctx)
{
	struct sa_path req, pr;
	u16 status;
	u8 *slot;

	ctx->stride = PR_SIZE;
	sa_path_decode(ctx->req.data, &req);
	rcu_read_lock();
	status = sa_path_build(ctx, &req, &pr);
	rcu_read_unlock();
	if (status)
		return status;
	slot = sib_sa_slot(ctx);
	if (slot)
		sa_path_encode(&pr, slot);
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

/* A GetTable answer is one RMPP DATA segment, first and last. */
static void sa_rmpp_frame(struct sa_ctx *ctx)
{
	u32 paylen = IB_MGMT_SA_HDR - IB_MGMT_RMPP_HDR +
		     ctx->nrec * ctx->stride;

	ctx->resp.rmpp_hdr.rmpp_version = IB_MGMT_RMPP_VERSION;
	ctx->resp.rmpp_hdr.rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
	ctx->resp.rmpp_hdr.rmpp_rtime_flags = IB_MGMT_RMPP_NO_RESPTIME << 3 |
					      IB_MGMT_RMPP_FLAG_ACTIVE |
					      IB_MGMT_RMPP_FLAG_FIRST |
					      IB_MGMT_RMPP_FLAG_LAST;
	ctx->resp.rmpp_hdr.seg_num = cpu_to_be32(1);
	ctx->resp.rmpp_hdr.paylen_newwin = cpu_to_be32(paylen);
	ctx->resp.sa_hdr.attr_offset = cpu_to_be16(ctx->stride / 8);
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
	if (ctx->table)
		sa_rmpp_frame(ctx);
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
	sa_answer(ctx, len);
	sib_sm_send_mad(src, &ctx->resp, sizeof(ctx->resp));
	kfree(ctx);
}

