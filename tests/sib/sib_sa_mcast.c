// SPDX-License-Identifier: GPL-2.0
/*
 * The SA's multicast groups (MCMemberRecord, IBA 15.2.5.17): joins, leaves
 * and queries, the partitions' IPoIB broadcast groups the SM asks for, and
 * the switch's forwarding, which follows the members that receive.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "tests_compat.h"
#include "sib_sa.h"

#define SA_SCOPE_LINK		2
#define SA_IPOIB_QKEY		0x00000b1b	/* what OpenSM gives an ipoib partition */
#define SA_PKEY_FULL		0x8000
#define SA_LIFE_MAX		0x3f	/* PacketLifeTime is 6 bits */

/*
 * JoinState bits.  FullMembers and NonMembers receive, so the switch
 * forwards to them; the two send-only kinds only send.  Only full members
 * of either kind may create a group.
 */
#define SA_JOIN_FULL		BIT(FULLMEMBER_JOIN)
#define SA_JOIN_NON		BIT(NONMEMBER_JOIN)
#define SA_JOIN_SENDONLY_FULL	BIT(SENDONLY_FULLMEMBER_JOIN)
#define SA_JOIN_ALL		0x0f
#define SA_JOIN_RECEIVE		(SA_JOIN_FULL | SA_JOIN_NON)
#define SA_JOIN_CREATE		(SA_JOIN_FULL | SA_JOIN_SENDONLY_FULL)

struct sa_member {
	struct list_head link;		/* sa_group.members */
	struct sib_port *port;		/* valid until sib_sa_port_gone() */
	union ib_gid gid;		/* the one its first join named */
	u8 join_state;
};

struct sa_group {
	struct list_head link;		/* sa_groups */
	struct list_head members;
	struct sa_mcm rec;		/* port_gid and join_state unused */
	bool permanent;
};

static DEFINE_MUTEX(sa_mutex);		/* the group store and MLIDs */
static LIST_HEAD(sa_groups);
static DECLARE_BITMAP(sa_mlids, SIB_MAX_MLIDS);
static unsigned int sa_next_mlid;	/* round robin: old MLIDs rest */
static u32 sa_mgid_seq;			/* SA-assigned MGIDs */

/* The multicast group store; all under sa_mutex. */

static struct sa_group *sa_group_find(const union ib_gid *mgid)
{
	struct sa_group *grp;

	lockdep_assert_held(&sa_mutex);
	list_for_each_entry(grp, &sa_groups, link)
		if (sa_gid_eq(&grp->rec.mgid, mgid))
			return grp;
	return NULL;
}

static struct sa_member *sa_member_find(const struct sa_group *grp,
					const struct sib_port *port)
{
	struct sa_member *mbr;

	list_for_each_entry(mbr, &grp->members, link)
		if (mbr->port == port)
			return mbr;
	return NULL;
}

static u16 sa_mlid_alloc(void)
{
	unsigned long bit;

	bit = find_next_zero_bit(sa_mlids, SIB_MAX_MLIDS, sa_next_mlid);
	if (bit >= SIB_MAX_MLIDS)
		bit = find_first_zero_bit(sa_mlids, SIB_MAX_MLIDS);
	if (bit >= SIB_MAX_MLIDS)
		return 0;
	__set_bit(bit, sa_mlids);
	sa_next_mlid = (bit + 1) % SIB_MAX_MLIDS;
	return SIB_MLID_BASE + bit;
}

/* A group with these attributes and a fresh MLID, not yet listed. */
static struct sa_group *sa_group_alloc(const struct sa_mcm *attr)
{
	struct sa_group *grp;

	grp = kzalloc(sizeof(*grp), GFP_KERNEL);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	grp->rec = *attr;
	grp->rec.mlid = sa_mlid_alloc();
	if (!grp->rec.mlid) {
		kfree(grp);
		return ERR_PTR(-ENOSPC);
	}
	INIT_LIST_HEAD(&grp->link);
	INIT_LIST_HEAD(&grp->members);
	return grp;
}

/* Drop join-state bits; the switch stops forwarding when none receive. */
static void sa_member_clear(struct sa_group *grp, struct sa_member *mbr,
			    u8 bits)
{
	u8 state = mbr->join_state & ~bits;

	if ((mbr->join_state & SA_JOIN_RECEIVE) && !(state & SA_JOIN_RECEIVE))
		sib_mft_set(grp->rec.mlid, mbr->port, false);
	mbr->join_state = state;
	if (!state) {
		list_del(&mbr->link);
		kfree(mbr);
	}
}

static void sa_group_free(struct sa_group *grp)
{
	struct sa_member *mbr, *next;

	list_for_each_entry_safe(mbr, next, &grp->members, link)
		sa_member_clear(grp, mbr, SA_JOIN_ALL);
	__clear_bit(grp->rec.mlid - SIB_MLID_BASE, sa_mlids);
	list_del(&grp->link);
	kfree(grp);
}

/* A group lives while it has members, or for ever when permanent. */
static void sa_group_reap(struct sa_group *grp)
{
	if (list_empty(&grp->members) && !grp->permanent)
		sa_group_free(grp);
}

/* Add join-state bits for a port, by one of its GIDs; idempotent. */
static u16 sa_member_join(struct sa_group *grp, struct sib_port *port,
			  const union ib_gid *gid, u8 bits, u8 *state)
{
	struct sa_member *mbr = sa_member_find(grp, port);
	bool fresh = !mbr;
	u8 old;

	if (fresh) {
		mbr = kzalloc(sizeof(*mbr), GFP_KERNEL);
		if (!mbr)
			return SA_ERR_NO_RESOURCES;
		mbr->port = port;
		mbr->gid = *gid;
	}
	old = mbr->join_state;
	if (!(old & SA_JOIN_RECEIVE) && (bits & SA_JOIN_RECEIVE) &&
	    sib_mft_set(grp->rec.mlid, port, true)) {
		if (fresh)
			kfree(mbr);
		return SA_ERR_NO_RESOURCES;
	}
	mbr->join_state = old | bits;
	if (fresh)
		list_add_tail(&mbr->link, &grp->members);
	*state = mbr->join_state;
	return 0;
}

/* Put the group's record, as one port sees it, into the answer. */
static void sa_mcm_reply(struct sa_ctx *ctx, const struct sa_group *grp,
			 const union ib_gid *port_gid, u8 join_state)
{
	struct sa_mcm rec = grp->rec;
	u8 *slot = sib_sa_slot(ctx);

	if (!slot)
		return;
	rec.port_gid = *port_gid;
	rec.join_state = join_state;
	sa_mcm_encode(&rec, slot);
}

/*
 * A query's record: IBA has the SA zero PortGID, JoinState and
 * ProxyJoin for a requester without the SM_Key, and this SA has none to
 * give, so every requester gets them zeroed (as OpenSM answers saquery).
 */
static void sa_mcm_reply_untrusted(struct sa_ctx *ctx,
				   const struct sa_group *grp)
{
	static const union ib_gid no_gid;

	sa_mcm_reply(ctx, grp, &no_gid, 0);
}

/* The group attributes a request names, checked against a group. */
static bool sa_group_matches(const struct sa_mcm *g, const struct sa_mcm *q,
			     ib_sa_comp_mask cm)
{
	if ((cm & IB_SA_MCMEMBER_REC_MGID) && !sa_gid_eq(&g->mgid, &q->mgid))
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_QKEY) && g->qkey != q->qkey)
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_MLID) && g->mlid != q->mlid)
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_PKEY) && ((g->pkey ^ q->pkey) & 0x7fff))
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_TRAFFIC_CLASS) && g->tclass != q->tclass)
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_SL) && g->sl != q->sl)
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_FLOW_LABEL) &&
	    g->flow_label != q->flow_label)
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_HOP_LIMIT) && g->hop_limit != q->hop_limit)
		return false;
	if ((cm & IB_SA_MCMEMBER_REC_SCOPE) && g->scope != q->scope)
		return false;
	return sa_sel_ok(sa_req_sel(cm, IB_SA_MCMEMBER_REC_MTU_SELECTOR,
				    IB_SA_MCMEMBER_REC_MTU, q->mtu),
			 g->mtu.val, q->mtu.val) &&
	       sa_rate_ok(sa_req_sel(cm, IB_SA_MCMEMBER_REC_RATE_SELECTOR,
				     IB_SA_MCMEMBER_REC_RATE, q->rate),
			  g->rate.val, q->rate.val) &&
	       sa_sel_ok(sa_req_sel(cm,
				    IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME_SELECTOR,
				    IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME,
				    q->life),
			 g->life.val, q->life.val);
}

/*
 * Joins and leaves speak for the asker's own port only (no proxy joins),
 * by any of its GIDs (an SR-IOV function joins by its alias), and need
 * the port GID, plus the MGID to leave or the JoinState to join.
 */
static u16 sa_mcm_check_asker(const struct sa_ctx *ctx,
			      const struct sa_mcm *req, ib_sa_comp_mask need)
{
	const struct sib_port *port = ctx->src->port;

	need |= IB_SA_MCMEMBER_REC_PORT_GID;
	if ((ctx->comp & need) != need)
		return SA_ERR_INSUFFICIENT_COMPONENTS;
	if (!port || sib_port_gid_index(port, &req->port_gid) < 0)
		return SA_ERR_REQ_INVALID;
	return 0;
}

/* A join to an existing group: the port must fit the group. */
static u16 sa_join_check(const struct sa_group *grp, const struct sa_mcm *req,
			 ib_sa_comp_mask cm, const struct sib_port *port)
{
	if (sib_pkey_find(port, grp->rec.pkey) < 0 ||
	    grp->rec.mtu.val > READ_ONCE(port->active_mtu) ||
	    !sa_group_matches(&grp->rec, req, cm))
		return SA_ERR_REQ_INVALID;
	return 0;
}

/* MGID ff1S:a01b:PPPP::NNNN, unused, as an SA assigns them. */
static void sa_assign_mgid(union ib_gid *mgid, u8 scope, u16 pkey)
{
	do {
		memset(mgid, 0, sizeof(*mgid));
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x10 | scope;
		put_unaligned_be16(0xa01b, &mgid->raw[2]);
		put_unaligned_be16(pkey, &mgid->raw[4]);
		put_unaligned_be32(++sa_mgid_seq, &mgid->raw[12]);
	} while (sa_group_find(mgid));
}

/* The new group's MGID and scope: the requested ones, or assigned. */
static u16 sa_create_mgid(const struct sa_mcm *req, ib_sa_comp_mask cm,
			  struct sa_mcm *attr)
{
	bool scoped = !!(cm & IB_SA_MCMEMBER_REC_SCOPE);

	if (!(cm & IB_SA_MCMEMBER_REC_MGID) || sa_gid_zero(&req->mgid)) {
		attr->scope = scoped ? req->scope : SA_SCOPE_LINK;
		sa_assign_mgid(&attr->mgid, attr->scope, req->pkey);
		return 0;
	}
	attr->mgid = req->mgid;
	attr->scope = req->mgid.raw[1] & 0x0f;
	if (req->mgid.raw[0] != 0xff || (scoped && req->scope != attr->scope))
		return SA_ERR_REQ_INVALID;
	return 0;
}

/* The components a new group cannot choose: the SA sets them. */
#define SA_MCM_FIXED	(IB_SA_MCMEMBER_REC_RATE_SELECTOR |		\
			 IB_SA_MCMEMBER_REC_RATE |			\
			 IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME_SELECTOR |	\
			 IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME)

/* Create a group for a join that names none that exists. */
static u16 sa_group_create(const struct sa_ctx *ctx, const struct sa_mcm *req,
			   struct sa_group **out)
{
	const ib_sa_comp_mask need = IB_SA_MCMEMBER_REC_QKEY |
		IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_SL |
		IB_SA_MCMEMBER_REC_FLOW_LABEL |
		IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;
	const struct sib_port *port = ctx->src->port;
	ib_sa_comp_mask cm = ctx->comp;
	struct sa_mcm attr = {};
	struct sa_group *grp;
	int mtu, life = 0;
	u16 status;

	if ((cm & need) != need)
		return SA_ERR_INSUFFICIENT_COMPONENTS;
	if (!(req->join_state & SA_JOIN_CREATE) ||
	    sib_pkey_find(port, req->pkey) < 0)
		return SA_ERR_REQ_INVALID;
	/*
	 * The rate is the fabric's; the lifetime the one the join names, or
	 * 0 (as OpenSM keeps it); the MTU the port's, or less, and never
	 * above the configured group MTU: a request that insists on more is
	 * refused.
	 */
	attr.rate = sa_exactly(SA_RATE);
	if (cm & IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME)
		life = sa_sel_pick(sa_req_sel(cm,
					      IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME_SELECTOR,
					      IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME,
					      req->life),
				   req->life.val, 0, SA_LIFE_MAX);
	if (life < 0)
		return SA_ERR_REQ_INVALID;
	attr.life = sa_exactly(life);
	mtu = sa_sel_pick(sa_req_sel(cm, IB_SA_MCMEMBER_REC_MTU_SELECTOR,
				     IB_SA_MCMEMBER_REC_MTU, req->mtu),
			  req->mtu.val, IB_MTU_256,
			  sib_group_mtu_cap(READ_ONCE(port->active_mtu)));
	if (mtu < 0 || !sa_group_matches(&attr, req, cm & SA_MCM_FIXED))
		return SA_ERR_REQ_INVALID;
	status = sa_create_mgid(req, cm, &attr);
	if (status)
		return status;

	attr.qkey = req->qkey;
	attr.pkey = req->pkey;
	attr.tclass = req->tclass;
	attr.sl = req->sl;
	attr.flow_label = req->flow_label;
	if (cm & IB_SA_MCMEMBER_REC_HOP_LIMIT)
		attr.hop_limit = req->hop_limit;
	attr.mtu = sa_exactly(mtu);
	grp = sa_group_alloc(&attr);
	if (IS_ERR(grp))
		return SA_ERR_NO_RESOURCES;
	*out = grp;
	return 0;
}

/* Set: join, creating the group when it does not exist. */
static u16 sa_mcm_join(struct sa_ctx *ctx, const struct sa_mcm *req)
{
	struct sib_port *port = ctx->src->port;
	struct sa_group *grp = NULL;
	bool created = false;
	u16 status;
	u8 state;

	status = sa_mcm_check_asker(ctx, req, IB_SA_MCMEMBER_REC_JOIN_STATE);
	if (status)
		return status;
	/* Checked under sa_mutex: sib_sa_port_gone() follows a port down. */
	if (!req->join_state || READ_ONCE(port->state) != IB_PORT_ACTIVE)
		return SA_ERR_REQ_INVALID;
	if ((ctx->comp & IB_SA_MCMEMBER_REC_MGID) && !sa_gid_zero(&req->mgid))
		grp = sa_group_find(&req->mgid);
	if (grp) {
		status = sa_join_check(grp, req, ctx->comp, port);
	} else {
		status = sa_group_create(ctx, req, &grp);
		created = !status;
	}
	if (!status)
		status = sa_member_join(grp, port, &req->port_gid,
					req->join_state, &state);
	if (status) {
		if (created)
			sa_group_free(grp);
		return status;
	}
	if (created)
		list_add_tail(&grp->link, &sa_groups);
	sa_mcm_reply(ctx, grp, &req->port_gid, state);
	return 0;
}

/* Delete: leave with some join-state bits, all of them if unnamed. */
static u16 sa_mcm_leave(struct sa_ctx *ctx, const struct sa_mcm *req)
{
	u8 bits = SA_JOIN_ALL;
	struct sa_member *mbr;
	struct sa_group *grp;
	u16 status;

	status = sa_mcm_check_asker(ctx, req, IB_SA_MCMEMBER_REC_MGID);
	if (status)
		return status;
	if (ctx->comp & IB_SA_MCMEMBER_REC_JOIN_STATE)
		bits = req->join_state;
	grp = sa_group_find(&req->mgid);
	mbr = grp ? sa_member_find(grp, ctx->src->port) : NULL;
	if (!mbr || !bits)
		return SA_ERR_REQ_INVALID;
	sa_mcm_reply(ctx, grp, &req->port_gid, mbr->join_state & bits);
	sa_member_clear(grp, mbr, bits);
	sa_group_reap(grp);
	return 0;
}

/* A group matches a query's join state by its members' (one or all). */
static void sa_mcm_query_one(struct sa_ctx *ctx, const struct sa_group *grp,
			     u8 state, const struct sa_mcm *req)
{
	if ((ctx->comp & IB_SA_MCMEMBER_REC_JOIN_STATE) &&
	    (state & req->join_state) != req->join_state)
		return;
	sa_mcm_reply_untrusted(ctx, grp);
}

/*
 * Get and GetTable.  Naming a port GID (any of the port's) asks whether
 * that port is a member of each group; otherwise a group matches by its
 * members' join states together.  Either way a group answers once, with
 * no port GID or join state (sa_mcm_reply_untrusted).
 */
static u16 sa_mcm_query(struct sa_ctx *ctx, const struct sa_mcm *req)
{
	const struct sa_member *mbr;
	const struct sa_group *grp;
	u8 state;

	list_for_each_entry(grp, &sa_groups, link) {
		if (!sa_group_matches(&grp->rec, req, ctx->comp))
			continue;
		if (!(ctx->comp & IB_SA_MCMEMBER_REC_PORT_GID)) {
			state = 0;
			list_for_each_entry(mbr, &grp->members, link)
				state |= mbr->join_state;
			sa_mcm_query_one(ctx, grp, state, req);
			continue;
		}
		list_for_each_entry(mbr, &grp->members, link)
			if (sib_port_gid_index(mbr->port, &req->port_gid) >= 0)
				sa_mcm_query_one(ctx, grp, mbr->join_state,
						 req);
	}
	return sib_sa_found(ctx);
}

u16 sib_sa_mcm_request(struct sa_ctx *ctx)
{
	struct sa_mcm req;
	u16 status;

	ctx->stride = MCM_STRIDE;
	sa_mcm_decode(ctx->req.data, &req);
	mutex_lock(&sa_mutex);
	switch (ctx->req.mad_hdr.method) {
	case IB_MGMT_METHOD_SET:
		status = sa_mcm_join(ctx, &req);
		break;
	case IB_SA_METHOD_DELETE:
		status = sa_mcm_leave(ctx, &req);
		break;
	default:
		status = sa_mcm_query(ctx, &req);
		break;
	}
	mutex_unlock(&sa_mutex);
	return status;
}

/* Events from the SM. */

void sib_sa_port_gone(struct sib_port *port)
{
	struct sa_group *grp, *next;
	struct sa_member *mbr;

	mutex_lock(&sa_mutex);
	list_for_each_entry_safe(grp, next, &sa_groups, link) {
		mbr = sa_member_find(grp, port);
		if (!mbr)
			continue;
		sa_member_clear(grp, mbr, SA_JOIN_ALL);
		sa_group_reap(grp);
	}
	mutex_unlock(&sa_mutex);
}

/* Every membership is forgotten; only the permanent groups stay. */
void sib_sa_reregister(void)
{
	struct sa_group *grp, *next;
	struct sa_member *mbr, *tmp;

	mutex_lock(&sa_mutex);
	list_for_each_entry_safe(grp, next, &sa_groups, link) {
		list_for_each_entry_safe(mbr, tmp, &grp->members, link)
			sa_member_clear(grp, mbr, SA_JOIN_ALL);
		sa_group_reap(grp);
	}
	mutex_unlock(&sa_mutex);
}

/* 0, or the bytes of an IB MTU: what group_mtu may be set to. */
int sib_group_mtu_check(unsigned int bytes)
{
	int mtu;

	if (!bytes)
		return 0;
	mtu = ib_mtu_int_to_enum(bytes);
	return mtu > 0 && ib_mtu_enum_to_int(mtu) == bytes ? 0 : -EINVAL;
}

/*
 * The MTU a new group may have at most, given the port's: group_mtu caps
 * it, as a subnet manager's per-partition mtu= does.
 */
enum ib_mtu sib_group_mtu_cap(enum ib_mtu mtu)
{
	unsigned int bytes = READ_ONCE(sib_group_mtu);

	if (!bytes)
		return mtu;
	return min_t(enum ib_mtu, mtu, ib_mtu_int_to_enum(bytes));
}

/* Pre-create a partition's IPoIB broadcast group, as opensm does. */
int sib_sa_add_partition(u16 pkey)
{
	struct sa_mcm attr = {
		.qkey = SA_IPOIB_QKEY,
		.pkey = pkey | SA_PKEY_FULL,
		.mtu = sa_exactly(sib_group_mtu_cap(ib_mtu_int_to_enum(sib_port_mtu))),
		.rate = sa_exactly(SA_RATE),
		.life = sa_exactly(SA_PKT_LIFE),
		.scope = SA_SCOPE_LINK,
	};
	struct sa_group *grp;
	int ret = 0;

	if (!sib_pkey_valid(pkey))
		return -EINVAL;
	sa_ipoib_bcast_mgid(&attr.mgid, attr.pkey);

	mutex_lock(&sa_mutex);
	grp = sa_group_find(&attr.mgid);
	if (!grp) {
		grp = sa_group_alloc(&attr);
		if (IS_ERR(grp))
			ret = PTR_ERR(grp);
		else
			list_add_tail(&grp->link, &sa_groups);
	}
	if (!ret)
		grp->permanent = true;
	mutex_unlock(&sa_mutex);
	return ret;
}

/*
 * One line per group:
 *   MGID mlid 0xMLID qkey 0xQKEY pkey 0xPKEY mtu BYTES rate GBPS sl SL
 *   scope SCOPE [permanent] {member PORT_GID 0xJOIN_STATE}...
 */
int sib_sa_show_groups(struct seq_file *m, void *unused)
{
	const struct sa_member *mbr;
	const struct sa_group *grp;

	mutex_lock(&sa_mutex);
	list_for_each_entry(grp, &sa_groups, link) {
		const struct sa_mcm *r = &grp->rec;

		seq_printf(m, "%pI6 mlid 0x%04x qkey 0x%08x pkey 0x%04x mtu %d rate %d sl %u scope %u%s",
			   r->mgid.raw, r->mlid, r->qkey, r->pkey,
			   ib_mtu_enum_to_int(r->mtu.val),
			   ib_rate_to_mbps(r->rate.val) / 1000, r->sl,
			   r->scope, grp->permanent ? " permanent" : "");
		list_for_each_entry(mbr, &grp->members, link)
			seq_printf(m, " member %pI6 0x%x", mbr->gid.raw,
				   mbr->join_state);
		seq_putc(m, '\n');
	}
	mutex_unlock(&sa_mutex);
	return 0;
}

int sib_sa_init(void)
{
	bitmap_zero(sa_mlids, SIB_MAX_MLIDS);
	sa_next_mlid = 0;
	sa_mgid_seq = 0;
	return 0;
}

/* At unload, after every port has gone: only memory is left to free. */
void sib_sa_exit(void)
{
	struct sa_group *grp, *next;

	mutex_lock(&sa_mutex);
	list_for_each_entry_safe(grp, next, &sa_groups, link)
		sa_group_free(grp);
	mutex_unlock(&sa_mutex);
}
