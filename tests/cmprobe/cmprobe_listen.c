// SPDX-License-Identifier: GPL-2.0
/*
 * Listens held for tests.  Each is an ib_cm listen on one service ID of one
 * device; while it is held the CM turns away anyone else who wants that ID
 * (-EBUSY), which is how a case makes an IPoIB driver's own listen fail.
 * What it answers a REQ with is its answer=:
 *
 *   rej           REJ, reason Consumer Reject (28)
 *   rej-random    REJ with a random reason and random private data
 *   rep-short     REP whose private data holds the QPN word only
 *   rep-zero-qpn  REP naming UD QPN 0
 *   rep-bad-qpn   REP naming a UD QPN other than the REQ's service ID's
 *   rep-mtu0      REP with receive MTU 0
 *   rep-mtu-max   REP with receive MTU 2^32 - 1
 *
 * A REP names a QP that does not exist, so nothing can flow on a connection
 * that a peer accepts anyway.  A connection a REP started lives until the
 * peer refuses it (REJ), takes it (RTU, or a DREQ: its first send fails
 * and it ends what it took; we then end it), or the CM gives up; and at the
 * latest until unlisten of its device or unload.
 * A listen lasts until unlisten, its device's removal or module unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "cmprobe.h"

/* A QPN no sib device hands out (they count up from 0x48). */
#define CMPROBE_FAKE_QPN	0xfffff0

static const char *const answer_names[CMPROBE_ANSWERS] = {
	[CMPROBE_ANSWER_REJ] = "rej",
	[CMPROBE_ANSWER_REJ_RANDOM] = "rej-random",
	[CMPROBE_ANSWER_REP_SHORT] = "rep-short",
	[CMPROBE_ANSWER_REP_ZERO_QPN] = "rep-zero-qpn",
	[CMPROBE_ANSWER_REP_BAD_QPN] = "rep-bad-qpn",
	[CMPROBE_ANSWER_REP_MTU0] = "rep-mtu0",
	[CMPROBE_ANSWER_REP_MTU_MAX] = "rep-mtu-max",
};

struct cmprobe_listen {
	struct list_head list;
	struct ib_device *dev;
	struct ib_cm_id *id;
	u64 sid;
	enum cmprobe_answer answer;
};

/* A connection one of our REPs started, until it ends. */
struct cmprobe_child {
	struct list_head list;
	struct ib_device *dev;
	struct ib_cm_id *id;
	struct work_struct end_work;
	bool ending;
	bool taken;
};

/* Held across device lookup and use: device removal takes it too. */
static DEFINE_MUTEX(cmprobe_listen_mutex);
static LIST_HEAD(cmprobe_listens);
static LIST_HEAD(cmprobe_children);

/* What the listens saw, for the read of the control file. */
static atomic_t n_reqs, n_reps, n_rejs, n_peer_rejs, n_taken, n_unanswered;
/* The start of the private data of the last RTU that came. */
static DEFINE_SPINLOCK(rtu_lock);
static u8 rtu_pdata[8];
static bool rtu_seen;
static DEFINE_SPINLOCK(rnd_lock);
static struct rnd_state rnd;

int cmprobe_answer_parse(const char *s)
{
	return match_string(answer_names, ARRAY_SIZE(answer_names), s);
}

void cmprobe_listen_seed(u64 seed)
{
	spin_lock(&rnd_lock);
	prandom_seed_state(&rnd, seed);
	spin_unlock(&rnd_lock);
}

static void random_bytes(void *buf, size_t len)
{
	spin_lock(&rnd_lock);
	prandom_bytes_state(&rnd, buf, len);
	spin_unlock(&rnd_lock);
}

/* The CM's work queue must not wait for the id it is running a handler of. */
static void child_end_work(struct work_struct *work)
{
	struct cmprobe_child *c = container_of(work, struct cmprobe_child,
					       end_work);

	mutex_lock(&cmprobe_listen_mutex);
	if (list_empty(&c->list)) {
		/* Unlisten or unload took it and ends it. */
		mutex_unlock(&cmprobe_listen_mutex);
		return;
	}
	list_del_init(&c->list);
	mutex_unlock(&cmprobe_listen_mutex);
	ib_destroy_cm_id(c->id);
	kfree(c);
}

/* Under cmprobe_listen_mutex: off the list, ended, freed. */
static void child_end_now(struct cmprobe_child *c)
{
	list_del_init(&c->list);
	mutex_unlock(&cmprobe_listen_mutex);
	cancel_work_sync(&c->end_work);
	ib_destroy_cm_id(c->id);
	kfree(c);
	mutex_lock(&cmprobe_listen_mutex);
}

static int child_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct cmprobe_child *c = id->context;

	switch (ev->event) {
	case IB_CM_REJ_RECEIVED:
		atomic_inc(&n_peer_rejs);
		break;
	case IB_CM_RTU_RECEIVED:
		spin_lock(&rtu_lock);
		memset(rtu_pdata, 0, sizeof(rtu_pdata));
		if (ev->private_data)
			memcpy(rtu_pdata, ev->private_data, sizeof(rtu_pdata));
		rtu_seen = true;
		spin_unlock(&rtu_lock);
		fallthrough;
	case IB_CM_USER_ESTABLISHED:
	case IB_CM_DREQ_RECEIVED:
		/*
		 * A DREQ ends a connection the peer took: the CM may hand
		 * it over before the RTU it followed, and then never the RTU.
		 */
		if (!c->taken)
			atomic_inc(&n_taken);
		c->taken = true;
		break;
	case IB_CM_REP_ERROR:
		atomic_inc(&n_unanswered);
		break;
	default:
		break;
	}
	if (!READ_ONCE(c->ending)) {
		WRITE_ONCE(c->ending, true);
		schedule_work(&c->end_work);
	}
	return 0;
}

static int send_rep(struct ib_cm_id *id, const struct ib_cm_event *ev,
		    enum cmprobe_answer answer)
{
	const struct ib_cm_req_event_param *req = &ev->param.req_rcvd;
	struct ib_cm_rep_param rep = {
		.qp_num = CMPROBE_FAKE_QPN,
		.responder_resources = req->qp_type == IB_QPT_RC ? 1 : 0,
		.initiator_depth = req->qp_type == IB_QPT_RC ? 1 : 0,
		.rnr_retry_count = 3,
		.private_data_len = 8,
	};
	struct cmprobe_child *c;
	__be32 pdata[2];
	/* The UD QPN a listen on the Linux form of the ID stands for. */
	u32 qpn = be64_to_cpu(id->service_id) & 0xffffff;
	u32 mtu = 65524;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	switch (answer) {
	case CMPROBE_ANSWER_REP_SHORT:
		rep.private_data_len = 4;
		break;
	case CMPROBE_ANSWER_REP_ZERO_QPN:
		qpn = 0;
		break;
	case CMPROBE_ANSWER_REP_BAD_QPN:
		qpn ^= 0x5a5a5a;
		break;
	case CMPROBE_ANSWER_REP_MTU0:
		mtu = 0;
		break;
	default:
		mtu = U32_MAX;
		break;
	}
	pdata[0] = cpu_to_be32(qpn);
	pdata[1] = cpu_to_be32(mtu);
	rep.private_data = pdata;
	random_bytes(&rep.starting_psn, sizeof(rep.starting_psn));
	rep.starting_psn &= 0xffffff;

	c->dev = id->device;
	c->id = id;
	INIT_WORK(&c->end_work, child_end_work);
	id->cm_handler = child_handler;
	id->context = c;
	mutex_lock(&cmprobe_listen_mutex);
	list_add_tail(&c->list, &cmprobe_children);
	mutex_unlock(&cmprobe_listen_mutex);
	if (ib_send_cm_rep(id, &rep)) {
		/* Nothing went out: let the CM take the id back. */
		mutex_lock(&cmprobe_listen_mutex);
		list_del(&c->list);
		mutex_unlock(&cmprobe_listen_mutex);
		kfree(c);
		return -EIO;
	}
	atomic_inc(&n_reps);
	return 0;
}

static void send_random_rej(struct ib_cm_id *id)
{
	u8 pdata[IB_CM_REJ_PRIVATE_DATA_SIZE];
	u8 len, reason;

	random_bytes(&reason, sizeof(reason));
	random_bytes(&len, sizeof(len));
	len %= sizeof(pdata) + 1;
	random_bytes(pdata, len);
	/* The reasons IBA defines run from 1 to 33. */
	ib_send_cm_rej(id, 1 + reason % 33, NULL, 0, pdata, len);
}

/*
 * Only REQs reach a listen.  Returning nonzero has the CM free the id it
 * made for the REQ, once our REJ is sent.
 */
static int cmprobe_listen_handler(struct ib_cm_id *id,
				  const struct ib_cm_event *ev)
{
	enum cmprobe_answer answer = (uintptr_t)id->context;

	if (ev->event != IB_CM_REQ_RECEIVED)
		return 0;
	atomic_inc(&n_reqs);
	switch (answer) {
	case CMPROBE_ANSWER_REJ:
		ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		break;
	case CMPROBE_ANSWER_REJ_RANDOM:
		send_random_rej(id);
		break;
	default:
		if (!send_rep(id, ev, answer))
			return 0;
		ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		break;
	}
	atomic_inc(&n_rejs);
	return -ECONNREFUSED;
}

int cmprobe_listen(const char *name, u64 sid, enum cmprobe_answer answer)
{
	struct cmprobe_listen *l;
	struct ib_device *dev;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	mutex_lock(&cmprobe_listen_mutex);
	dev = cmprobe_find_dev(name);
	if (!dev) {
		ret = -ENODEV;
		goto fail;
	}
	l->id = ib_create_cm_id(dev, cmprobe_listen_handler,
				(void *)(uintptr_t)answer);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		goto fail;
	}
	ret = ib_cm_listen(l->id, cpu_to_be64(sid));
	if (ret) {
		ib_destroy_cm_id(l->id);
		goto fail;
	}
	l->dev = dev;
	l->sid = sid;
	l->answer = answer;
	list_add_tail(&l->list, &cmprobe_listens);
	mutex_unlock(&cmprobe_listen_mutex);
	return 0;

fail:
	mutex_unlock(&cmprobe_listen_mutex);
	kfree(l);
	pr_info("listen dev=%s sid=0x%016llx: error %d\n", name, sid, ret);
	return ret;
}

static void cmprobe_listen_free(struct cmprobe_listen *l)
{
	list_del(&l->list);
	ib_destroy_cm_id(l->id);
	kfree(l);
}

/* Every listen on sid, on whichever device; -ENOENT when there is none. */
int cmprobe_unlisten(u64 sid)
{
	struct cmprobe_listen *l, *next;
	int ret = -ENOENT;

	mutex_lock(&cmprobe_listen_mutex);
	list_for_each_entry_safe(l, next, &cmprobe_listens, list) {
		if (l->sid != sid)
			continue;
		cmprobe_listen_free(l);
		ret = 0;
	}
	mutex_unlock(&cmprobe_listen_mutex);
	return ret;
}

/* The device is leaving (or we are): its CM goes after us. */
void cmprobe_unlisten_dev(struct ib_device *dev)
{
	struct cmprobe_listen *l, *next;

	struct cmprobe_child *c;

	mutex_lock(&cmprobe_listen_mutex);
	list_for_each_entry_safe(l, next, &cmprobe_listens, list)
		if (l->dev == dev)
			cmprobe_listen_free(l);
	/* child_end_now() drops the mutex: start over after each. */
restart:
	list_for_each_entry(c, &cmprobe_children, list) {
		if (!dev || c->dev == dev) {
			child_end_now(c);
			goto restart;
		}
	}
	mutex_unlock(&cmprobe_listen_mutex);
}

void cmprobe_show_listens(struct seq_file *s)
{
	const struct cmprobe_listen *l;
	u8 pd[sizeof(rtu_pdata)];
	bool held;

	mutex_lock(&cmprobe_listen_mutex);
	list_for_each_entry(l, &cmprobe_listens, list)
		seq_printf(s, "listen dev=%s sid=0x%016llx answer=%s\n",
			   dev_name(&l->dev->dev), l->sid,
			   answer_names[l->answer]);
	held = !list_empty(&cmprobe_listens);
	mutex_unlock(&cmprobe_listen_mutex);
	if (!held && !atomic_read(&n_reqs))
		return;
	seq_printf(s, "listens reqs=%d reps=%d rejs=%d peer_rejs=%d taken=%d unanswered=%d\n",
		   atomic_read(&n_reqs), atomic_read(&n_reps),
		   atomic_read(&n_rejs), atomic_read(&n_peer_rejs),
		   atomic_read(&n_taken), atomic_read(&n_unanswered));
	spin_lock(&rtu_lock);
	held = rtu_seen;
	memcpy(pd, rtu_pdata, sizeof(pd));
	spin_unlock(&rtu_lock);
	if (held)
		seq_printf(s, "rtu_pdata %*phN\n", (int)sizeof(pd), pd);
}
