// SPDX-License-Identifier: GPL-2.0
/*
 * One probe: resolve a path through the SA, make an RC (or UC) QP, send a
 * REQ and wait for REP, REJ or the CM's timeout.  A REP is followed through
 * as an initiator would (QP to RTS, RTU), then the connection is ended with
 * DREQ, so the peer sees a whole, clean connection; or (rtu=no) left half
 * made, to see how the peer ends it.  Everything the probe made is freed
 * before it returns.
 */
#include <linux/bits.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "cmprobe.h"

#define CMPROBE_SA_TIMEOUT_MS	2000
/* The CM sends the REQ three times, each waiting as cm_timeout= says. */
#define CMPROBE_CM_RETRIES	2
#define CMPROBE_PACKET_LIFE	14	/* of a hand-made path: about 67 ms */
#define CMPROBE_ANSWER_WAIT	(30 * HZ)
#define CMPROBE_DREP_WAIT	(10 * HZ)
#define CMPROBE_CMA_SPORT	40000	/* the source port pdata=cma names */

#define EV(e)		BIT(IB_CM_##e)
#define EV_ANSWER	(EV(REP_RECEIVED) | EV(REJ_RECEIVED) | EV(REQ_ERROR))
#define EV_GONE		(EV(DREP_RECEIVED) | EV(DREQ_ERROR) | EV(DREQ_RECEIVED) | \
			 EV(REJ_RECEIVED) | EV(TIMEWAIT_EXIT))

struct cmprobe_ctx {
	spinlock_t lock;	/* events */
	unsigned long events;	/* BIT(ib_cm_event_type) of those seen */
	struct cmprobe_result *res;
};

static struct ib_sa_client cmprobe_sa_client;

/*
 * The devices we may probe from, as our ib_client learns of them.  A
 * device's removal cuts short and waits for the probe running on it: our
 * client is removed before the CM's (clients leave in reverse order of
 * coming), so the CM stays whole for as long as a probe runs.
 */
struct cmprobe_dev {
	struct list_head list;
	struct ib_device *dev;
};

static LIST_HEAD(cmprobe_devs);
static DEFINE_SPINLOCK(cmprobe_devs_lock);	/* the three below */
static struct ib_device *cmprobe_busy;		/* where a probe runs */
static bool cmprobe_cut;			/* ... and it must stop */
static DECLARE_WAIT_QUEUE_HEAD(cmprobe_wait);
static DEFINE_MUTEX(cmprobe_run_mutex);		/* one probe at a time */
static struct ib_client cmprobe_client;

struct cmprobe_path {
	struct completion done;
	int status;
	struct sa_path_rec rec;
};

static void cmprobe_path_done(int status, struct sa_path_rec *resp,
			      tests_sa_num_prs num_paths, void *context)
{
	struct cmprobe_path *path = context;

	path->status = status;
	if (!status && (!resp || num_paths < 1))
		path->status = -ENODATA;
	if (!path->status)
		path->rec = resp[0];
	complete(&path->done);
}

static int cmprobe_resolve(struct ib_device *dev, u32 port,
			   const union ib_gid *dgid, u16 pkey,
			   struct sa_path_rec *out)
{
	struct cmprobe_path path = {};
	struct ib_sa_query *query;
	int id, ret;

	init_completion(&path.done);
	path.rec.rec_type = SA_PATH_REC_TYPE_IB;
	path.rec.dgid = *dgid;
	ret = rdma_query_gid(dev, port, 0, &path.rec.sgid);
	if (ret)
		return ret;
	path.rec.numb_path = 1;
	path.rec.pkey = cpu_to_be16(pkey);

	id = ib_sa_path_rec_get(&cmprobe_sa_client, dev, port, &path.rec,
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_NUMB_PATH | IB_SA_PATH_REC_PKEY,
				CMPROBE_SA_TIMEOUT_MS, GFP_KERNEL,
				cmprobe_path_done, &path, &query);
	if (id < 0)
		return id;
	/* The SA answers or times out by itself; this is a second guard. */
	if (!wait_for_completion_timeout(&path.done,
					 msecs_to_jiffies(2 * CMPROBE_SA_TIMEOUT_MS))) {
		ib_sa_cancel_query(id, query);
		wait_for_completion(&path.done);
	}
	if (!path.status)
		*out = path.rec;
	return path.status;
}

/*
 * A path to a port of our own subnet, from what we know: no SA query, so a
 * REQ can be sent while the fabric drops MADs.
 */
static int cmprobe_path_by_hand(struct ib_device *dev, u32 port,
				const union ib_gid *dgid, u32 dlid, u16 pkey,
				struct sa_path_rec *rec)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(dev, port, &attr);
	if (ret)
		return ret;
	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	rec->dgid = *dgid;
	ret = rdma_query_gid(dev, port, 0, &rec->sgid);
	if (ret)
		return ret;
	sa_path_set_dlid(rec, dlid);
	sa_path_set_slid(rec, attr.lid);
	rec->pkey = cpu_to_be16(pkey);
	rec->numb_path = 1;
	rec->reversible = 1;
	rec->mtu = attr.active_mtu;
	rec->rate = IB_RATE_PORT_CURRENT;
	rec->packet_life_time = CMPROBE_PACKET_LIFE;
	return 0;
}

/* Keep the first answer's private data; later events must not overwrite it. */
static void cmprobe_keep(struct cmprobe_result *res, const void *data,
			 unsigned int len)
{
	if (!data)
		return;
	res->pdata_len = min_t(unsigned int, len, sizeof(res->pdata));
	memcpy(res->pdata, data, res->pdata_len);
}

static int cmprobe_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct cmprobe_ctx *ctx = id->context;
	struct cmprobe_result *res = ctx->res;
	bool first;

	/* The CM calls one id's handler for one event at a time. */
	spin_lock(&ctx->lock);
	first = !(ctx->events & EV_ANSWER);
	spin_unlock(&ctx->lock);

	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		if (!first)
			break;
		res->remote_qpn = ev->param.rep_rcvd.remote_qpn;
		cmprobe_keep(res, ev->private_data, IB_CM_REP_PRIVATE_DATA_SIZE);
		break;
	case IB_CM_REJ_RECEIVED:
		if (!first) {
			/* The peer ends what our REP answer started. */
			res->teardown_reason = ev->param.rej_rcvd.reason;
			if (ev->private_data) {
				res->teardown_pdata_len =
					min_t(unsigned int,
					      IB_CM_REJ_PRIVATE_DATA_SIZE,
					      sizeof(res->teardown_pdata));
				memcpy(res->teardown_pdata, ev->private_data,
				       res->teardown_pdata_len);
			}
			break;
		}
		res->reason = ev->param.rej_rcvd.reason;
		res->ari_len = min_t(unsigned int, ev->param.rej_rcvd.ari_length,
				     sizeof(res->ari));
		if (ev->param.rej_rcvd.ari)
			memcpy(res->ari, ev->param.rej_rcvd.ari, res->ari_len);
		else
			res->ari_len = 0;
		cmprobe_keep(res, ev->private_data, IB_CM_REJ_PRIVATE_DATA_SIZE);
		break;
	case IB_CM_DREQ_RECEIVED:
		/* The peer ends the connection first: answer, as a peer must. */
		ib_send_cm_drep(id, NULL, 0);
		break;
	default:
		break;
	}

	spin_lock(&ctx->lock);
	ctx->events |= BIT(ev->event);
	spin_unlock(&ctx->lock);
	wake_up(&cmprobe_wait);
	return 0;
}

static unsigned long cmprobe_seen(struct cmprobe_ctx *ctx, unsigned long mask)
{
	unsigned long seen;

	spin_lock(&ctx->lock);
	seen = ctx->events & mask;
	spin_unlock(&ctx->lock);
	return seen;
}

static bool cmprobe_cut_short(void)
{
	return READ_ONCE(cmprobe_cut);
}

/* Wait for one of the events of mask; false when the device is leaving. */
static bool cmprobe_wait_for(struct cmprobe_ctx *ctx, unsigned long mask,
			     unsigned long timeout)
{
	wait_event_timeout(cmprobe_wait,
			   cmprobe_seen(ctx, mask) || cmprobe_cut_short(),
			   timeout);
	return !cmprobe_cut_short();
}

static int cmprobe_qp_init(struct ib_qp *qp, u32 port, u16 pkey_index)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = pkey_index,
		.port_num = port,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
	};

	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

/* Move the QP as the CM's view of the connection says. */
static int cmprobe_qp_to(struct ib_cm_id *id, struct ib_qp *qp,
			 enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(id, &attr, &mask);
	return ret ? ret : ib_modify_qp(qp, &attr, mask);
}

/*
 * rdma_cm's header, as its REQs begin (cma.c): version 0, the IP version
 * in the high nibble, the source port, then the source and destination
 * addresses, an IPv4 one in the last word of its 16 bytes.
 */
static u8 cmprobe_cma_hdr(const struct cmprobe_req *req, u8 *p)
{
	const struct sockaddr_in6 *s6 = (const void *)&req->src;
	const struct sockaddr_in6 *d6 = (const void *)&req->dst;
	const struct sockaddr_in *s4 = (const void *)&req->src;
	const struct sockaddr_in *d4 = (const void *)&req->dst;

	memset(p, 0, 36);
	if (req->src.ss_family == AF_INET) {
		p[1] = 4 << 4;
		memcpy(p + 4 + 12, &s4->sin_addr, 4);
		memcpy(p + 20 + 12, &d4->sin_addr, 4);
	} else {
		p[1] = 6 << 4;
		memcpy(p + 4, &s6->sin6_addr, 16);
		memcpy(p + 20, &d6->sin6_addr, 16);
	}
	put_unaligned_be16(CMPROBE_CMA_SPORT, p + 2);
	return 36;
}

/* The REQ's private data into w (IB_CM_REQ_PRIVATE_DATA_SIZE bytes). */
static u8 cmprobe_pdata(const struct cmprobe_req *req, u32 lqpn, __be32 *w)
{
	struct rnd_state rnd;

	switch (req->pdata) {
	case CMPROBE_PDATA_RANDOM:
		prandom_seed_state(&rnd, req->seed);
		prandom_bytes_state(&rnd, w, req->len);
		return req->len;
	case CMPROBE_PDATA_GOOD:
		w[0] = cpu_to_be32(lqpn);
		w[1] = cpu_to_be32(req->mtu);
		return 8;
	case CMPROBE_PDATA_SHORT:
		w[0] = cpu_to_be32(lqpn);
		return 4;
	case CMPROBE_PDATA_ZERO_QPN:
		w[0] = 0;
		w[1] = cpu_to_be32(req->mtu);
		return 8;
	case CMPROBE_PDATA_CMA:
		return cmprobe_cma_hdr(req, (u8 *)w);
	default:
		return 0;
	}
}

/* rtu=no: the connection stays half made until the peer ends it. */
static void cmprobe_wait_peer(struct cmprobe_ctx *ctx)
{
	struct cmprobe_result *res = ctx->res;

	if (!cmprobe_wait_for(ctx, EV_GONE, CMPROBE_DREP_WAIT)) {
		res->teardown = "device-removed";
		return;
	}
	res->teardown = cmprobe_seen(ctx, EV(REJ_RECEIVED)) ? "rej" :
			cmprobe_seen(ctx, EV_GONE) ? "other" : "none";
}

/* After a REP: complete the connection as an initiator, then end it. */
static void cmprobe_connect_and_end(struct cmprobe_ctx *ctx,
				    struct ib_cm_id *id, struct ib_qp *qp)
{
	struct cmprobe_result *res = ctx->res;
	unsigned long seen;
	int ret;

	ret = cmprobe_qp_to(id, qp, IB_QPS_RTR);
	if (!ret)
		ret = cmprobe_qp_to(id, qp, IB_QPS_RTS);
	if (ret) {
		res->stage = "qp-rts";
		res->err = ret;
		res->teardown = "rej-sent";
		ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		return;
	}
	ret = ib_send_cm_rtu(id, NULL, 0);
	if (ret) {
		res->stage = "rtu";
		res->err = ret;
	}
	/* Fails when the peer has already sent its DREQ. */
	ret = ib_send_cm_dreq(id, NULL, 0);
	if (ret && !cmprobe_seen(ctx, EV(DREQ_RECEIVED))) {
		res->stage = "dreq";
		res->err = ret;
		res->teardown = "none";
		return;
	}
	if (!cmprobe_wait_for(ctx, EV_GONE, CMPROBE_DREP_WAIT)) {
		res->teardown = "device-removed";
		return;
	}
	seen = cmprobe_seen(ctx, EV_GONE);
	if (seen & EV(DREQ_RECEIVED))
		res->teardown = "peer-dreq";
	else if (seen & EV(DREP_RECEIVED))
		res->teardown = "drep";
	else if (seen & EV(DREQ_ERROR))
		res->teardown = "dreq-timeout";
	else if (seen & EV(REJ_RECEIVED))
		res->teardown = "rej";
	else
		res->teardown = "none";
}

static void cmprobe_exchange(struct cmprobe_ctx *ctx, struct ib_cm_id *id,
			     struct ib_qp *qp, const struct cmprobe_req *req,
			     struct sa_path_rec *path)
{
	struct cmprobe_result *res = ctx->res;
	struct ib_cm_req_param param = {};
	unsigned long seen;
	__be32 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE / sizeof(__be32)];
	int ret;

	res->lqpn = req->lqpn ? req->lqpn : qp->qp_num;
	param.primary_path = path;
	param.service_id = cpu_to_be64(req->sid);
	param.qp_num = qp->qp_num;
	param.qp_type = req->qp_type;
	param.starting_psn = get_random_u32() & 0xffffff;
	param.private_data_len = cmprobe_pdata(req, res->lqpn, pdata);
	param.private_data = param.private_data_len ? pdata : NULL;
	param.responder_resources = req->qp_type == IB_QPT_RC ? 1 : 0;
	param.initiator_depth = param.responder_resources;
	param.remote_cm_response_timeout = req->cm_timeout;
	param.local_cm_response_timeout = req->cm_timeout;
	param.max_cm_retries = CMPROBE_CM_RETRIES;

	ret = ib_send_cm_req(id, &param);
	if (ret) {
		res->outcome = CMPROBE_ERROR;
		res->stage = "req";
		res->err = ret;
		return;
	}
	if (!cmprobe_wait_for(ctx, EV_ANSWER, CMPROBE_ANSWER_WAIT)) {
		res->outcome = CMPROBE_ERROR;
		res->stage = "device-removed";
		res->err = -ENODEV;
		return;
	}
	seen = cmprobe_seen(ctx, EV_ANSWER);
	if (seen & EV(REP_RECEIVED)) {
		res->outcome = CMPROBE_REP;
		if (req->no_rtu)
			cmprobe_wait_peer(ctx);
		else
			cmprobe_connect_and_end(ctx, id, qp);
	} else if (seen & EV(REJ_RECEIVED)) {
		res->outcome = CMPROBE_REJ;
	} else {
		/* REQ_ERROR, or (never expected) nothing at all. */
		res->outcome = CMPROBE_TIMEOUT;
		res->stage = seen ? "cm" : "local";
	}
}

/* Verbs objects for one probe; the QP waits in INIT for the answer. */
struct cmprobe_qp {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
};

static void cmprobe_qp_free(struct cmprobe_qp *q)
{
	if (!IS_ERR_OR_NULL(q->qp))
		ib_destroy_qp(q->qp);
	if (!IS_ERR_OR_NULL(q->cq))
		ib_free_cq(q->cq);
	if (!IS_ERR_OR_NULL(q->pd))
		ib_dealloc_pd(q->pd);
}

static const char *cmprobe_qp_make(struct cmprobe_qp *q, struct ib_device *dev,
				   const struct cmprobe_req *req,
				   const struct sa_path_rec *path, int *err)
{
	struct ib_qp_init_attr init = {
		.qp_type = req->qp_type,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	u16 pkey_index;

	q->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(q->pd)) {
		*err = PTR_ERR(q->pd);
		return "pd";
	}
	/* Nothing is ever posted; the CQ is there because a QP needs one. */
	q->cq = ib_alloc_cq(dev, NULL, 2, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(q->cq)) {
		*err = PTR_ERR(q->cq);
		return "cq";
	}
	init.send_cq = q->cq;
	init.recv_cq = q->cq;
	q->qp = ib_create_qp(q->pd, &init);
	if (IS_ERR(q->qp)) {
		*err = PTR_ERR(q->qp);
		return "qp";
	}
	*err = ib_find_pkey(dev, req->port, be16_to_cpu(path->pkey), &pkey_index);
	if (*err)
		return "pkey";
	*err = cmprobe_qp_init(q->qp, req->port, pkey_index);
	return *err ? "qp-init" : NULL;
}

/* Under cmprobe_devs_lock: the registered device of that name, or NULL. */
static struct ib_device *find_locked(const char *name)
{
	struct cmprobe_dev *d;

	lockdep_assert_held(&cmprobe_devs_lock);
	list_for_each_entry(d, &cmprobe_devs, list)
		if (!strcmp(dev_name(&d->dev->dev), name))
			return d->dev;
	return NULL;
}

/* The device named, marked as the one a probe runs on; NULL if none. */
static struct ib_device *cmprobe_claim(const char *name)
{
	struct ib_device *dev;

	spin_lock(&cmprobe_devs_lock);
	dev = find_locked(name);
	if (dev) {
		cmprobe_busy = dev;
		cmprobe_cut = false;
	}
	spin_unlock(&cmprobe_devs_lock);
	return dev;
}

/*
 * The device named, without claiming it: the caller holds what device
 * removal must take before it frees the device (the listen mutex).
 */
struct ib_device *cmprobe_find_dev(const char *name)
{
	struct ib_device *dev;

	spin_lock(&cmprobe_devs_lock);
	dev = find_locked(name);
	spin_unlock(&cmprobe_devs_lock);
	return dev;
}

static void cmprobe_release(void)
{
	spin_lock(&cmprobe_devs_lock);
	cmprobe_busy = NULL;
	spin_unlock(&cmprobe_devs_lock);
	wake_up(&cmprobe_wait);
}

static int cmprobe_run_locked(const struct cmprobe_req *req,
			      struct cmprobe_result *res)
{
	struct cmprobe_ctx ctx = { .res = res };
	struct cmprobe_qp q = {};
	struct sa_path_rec path;
	struct ib_device *dev;
	struct ib_cm_id *id;
	int err = 0;

	memset(res, 0, sizeof(*res));
	dev = cmprobe_claim(req->dev);
	if (!dev) {
		pr_info("no IB device %s\n", req->dev);
		return -ENODEV;
	}
	if (!rdma_is_port_valid(dev, req->port) || !rdma_cap_ib_cm(dev, req->port)) {
		pr_info("%s has no IB CM port %u\n", req->dev, req->port);
		cmprobe_release();
		return -EINVAL;
	}

	res->outcome = CMPROBE_ERROR;
	if (req->dlid)
		err = cmprobe_path_by_hand(dev, req->port, &req->dgid, req->dlid,
					   req->pkey, &path);
	else
		err = cmprobe_resolve(dev, req->port, &req->dgid, req->pkey,
				      &path);
	if (err) {
		res->stage = "path";
		goto out;
	}
	res->stage = cmprobe_qp_make(&q, dev, req, &path, &err);
	if (res->stage)
		goto out;

	spin_lock_init(&ctx.lock);
	id = ib_create_cm_id(dev, cmprobe_handler, &ctx);
	if (IS_ERR(id)) {
		res->stage = "cm-id";
		err = PTR_ERR(id);
		goto out;
	}
	cmprobe_exchange(&ctx, id, q.qp, req, &path);
	err = res->err;
	/* Waits for a running handler; ctx may go out of scope after this. */
	ib_destroy_cm_id(id);
out:
	res->err = err;
	cmprobe_qp_free(&q);
	cmprobe_release();
	return 0;
}

int cmprobe_run(const struct cmprobe_req *req, struct cmprobe_result *res)
{
	int ret;

	ret = mutex_lock_interruptible(&cmprobe_run_mutex);
	if (ret)
		return ret;
	ret = cmprobe_run_locked(req, res);
	mutex_unlock(&cmprobe_run_mutex);
	return ret;
}

static int cmprobe_add_one(struct ib_device *dev)
{
	struct cmprobe_dev *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	d->dev = dev;
	ib_set_client_data(dev, &cmprobe_client, d);
	spin_lock(&cmprobe_devs_lock);
	list_add_tail(&d->list, &cmprobe_devs);
	spin_unlock(&cmprobe_devs_lock);
	return 0;
}

static bool cmprobe_idle_on(struct ib_device *dev)
{
	bool idle;

	spin_lock(&cmprobe_devs_lock);
	idle = cmprobe_busy != dev;
	spin_unlock(&cmprobe_devs_lock);
	return idle;
}

static void cmprobe_remove_one(struct ib_device *dev, void *client_data)
{
	struct cmprobe_dev *d = client_data;

	spin_lock(&cmprobe_devs_lock);
	list_del(&d->list);
	if (cmprobe_busy == dev)
		cmprobe_cut = true;
	spin_unlock(&cmprobe_devs_lock);
	wake_up(&cmprobe_wait);
	wait_event(cmprobe_wait, cmprobe_idle_on(dev));
	cmprobe_unlisten_dev(dev);
	kfree(d);
}

static struct ib_client cmprobe_client = {
	.name = "cmprobe",
	.add = cmprobe_add_one,
	.remove = cmprobe_remove_one,
};

int cmprobe_cm_init(void)
{
	int ret;

	ib_sa_register_client(&cmprobe_sa_client);
	ret = ib_register_client(&cmprobe_client);
	if (ret)
		ib_sa_unregister_client(&cmprobe_sa_client);
	return ret;
}

void cmprobe_cm_exit(void)
{
	ib_unregister_client(&cmprobe_client);
	ib_sa_unregister_client(&cmprobe_sa_client);
}
