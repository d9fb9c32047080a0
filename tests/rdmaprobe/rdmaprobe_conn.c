// SPDX-License-Identifier: GPL-2.0
/*
 * What both sides of a connection share: the verbs objects on the id's
 * device (PD, CQ, RC QP, two message buffers), the message format and its
 * payload pattern, posting, and teardown.
 *
 * Lifetime: a connection is on rp_conns from setup until its teardown and
 * is freed with its last reference.  Teardown runs in process context
 * under conn->mutex, exactly once: from its command, from destroy_work
 * (queued by rdma_cm's handler on a terminal event: a handler may not
 * destroy its own id), or from module unload.
 */
#include <linux/crc32.h>
#include <linux/prandom.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "rdmaprobe.h"

#define RP_CQ_SIZE	32
#define RP_SEND_WRS	8
#define RP_RECV_WRS	2

static LIST_HEAD(rp_conns);
static DEFINE_SPINLOCK(rp_lists_lock);
static unsigned int rp_next_nr;
static struct workqueue_struct *rp_wq;

static const char *const rp_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

const char *rp_event_name(enum rdma_cm_event_type ev)
{
	if (ev < ARRAY_SIZE(rp_event_names) && rp_event_names[ev])
		return rp_event_names[ev];
	return "UNKNOWN";
}

/* The net_device rdma_cm bound id to, by name, or "none". */
void rp_dev_name(struct rdma_cm_id *id, char *name, size_t size)
{
	const struct rdma_dev_addr *da = &id->route.addr.dev_addr;
	struct net_device *dev;

	strscpy(name, "none", size);
	if (!da->bound_dev_if || !da->net)
		return;
	rcu_read_lock();
	dev = dev_get_by_index_rcu(da->net, da->bound_dev_if);
	if (dev)
		strscpy(name, dev->name, size);
	else
		scnprintf(name, size, "ifindex-%d-gone", da->bound_dev_if);
	rcu_read_unlock();
}

u32 rp_crc(const void *buf, size_t len)
{
	return ~crc32_le(~0U, buf, len);
}

/* The bytes a message of this kind and sequence number carries. */
void rp_fill(void *buf, size_t len, u32 seq, enum rp_msg_kind kind)
{
	struct rnd_state rnd;

	prandom_seed_state(&rnd, ((u64)seq << 8) | kind);
	prandom_bytes_state(&rnd, buf, len);
}

bool rp_check(const void *buf, size_t len, u32 seq, enum rp_msg_kind kind)
{
	u8 expect[64];
	struct rnd_state rnd;
	size_t off, n;

	prandom_seed_state(&rnd, ((u64)seq << 8) | kind);
	for (off = 0; off < len; off += n) {
		n = min(len - off, sizeof(expect));
		prandom_bytes_state(&rnd, expect, n);
		if (memcmp(buf + off, expect, n))
			return false;
	}
	return true;
}

bool rp_has_fast_reg(struct rp_conn *conn)
{
	const struct ib_device_attr *attrs = &conn->id->device->attrs;

	return (attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
	       attrs->max_fast_reg_page_list_len >= RP_REGION_PAGES;
}

static void rp_conn_release(struct kref *ref)
{
	kfree(container_of(ref, struct rp_conn, ref));
}

void rp_conn_put(struct rp_conn *conn)
{
	kref_put(&conn->ref, rp_conn_release);
}

bool rp_queue(struct work_struct *work)
{
	return queue_work(rp_wq, work);
}

static void rp_destroy_work(struct work_struct *work)
{
	struct rp_conn *conn = container_of(work, struct rp_conn, destroy_work);

	rp_conn_teardown(conn);
	rp_conn_put(conn);
}

/* Events after which a connection carries nothing more. */
#define RP_TERMINAL	(BIT(RDMA_CM_EVENT_DISCONNECTED) |		\
			 BIT(RDMA_CM_EVENT_DEVICE_REMOVAL) |		\
			 BIT(RDMA_CM_EVENT_ADDR_ERROR) |		\
			 BIT(RDMA_CM_EVENT_ROUTE_ERROR) |		\
			 BIT(RDMA_CM_EVENT_CONNECT_ERROR) |		\
			 BIT(RDMA_CM_EVENT_UNREACHABLE) |		\
			 BIT(RDMA_CM_EVENT_REJECTED))

/*
 * rdma_cm's handler for a connection's id, either side: log the event,
 * record it for a waiting command, and on a terminal one have the
 * connection torn down from the work queue, unless a command is still
 * running it (it then tears it down itself).
 */
int rp_conn_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rp_conn *conn = id->context;
	char dev[IFNAMSIZ + 16];
	unsigned long flags;
	bool kill;

	if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED) {
		rp_dev_name(id, dev, sizeof(dev));
		rp_log("%s %s status %d dev %s (%s port %u)", conn->name,
		       rp_event_name(ev->event), ev->status, dev,
		       dev_name(&id->device->dev), id->port_num);
	} else {
		rp_log("%s %s status %d", conn->name,
		       rp_event_name(ev->event), ev->status);
	}
	spin_lock_irqsave(&conn->lock, flags);
	conn->events |= BIT(ev->event);
	conn->event_status = ev->status;
	kill = (BIT(ev->event) & RP_TERMINAL) && conn->listed;
	spin_unlock_irqrestore(&conn->lock, flags);
	wake_up(&conn->wait);
	if (kill) {
		kref_get(&conn->ref);
		if (!rp_queue(&conn->destroy_work))
			rp_conn_put(conn);
	}
	return 0;
}

/* Has a terminal event come?  Under conn->lock. */
bool rp_conn_over(struct rp_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	return conn->events & RP_TERMINAL;
}

/*
 * Hand the connection over to the list: from now on a terminal event or
 * unload tears it down, and teardown destroys the id.  Fails when a
 * terminal event came first.
 */
int rp_conn_publish(struct rp_conn *conn)
{
	int ret = 0;

	spin_lock_irq(&conn->lock);
	if (rp_conn_over(conn))
		ret = -ENOTCONN;
	else
		conn->listed = true;
	spin_unlock_irq(&conn->lock);
	if (ret)
		return ret;
	kref_get(&conn->ref);
	spin_lock(&rp_lists_lock);
	list_add_tail(&conn->link, &rp_conns);
	spin_unlock(&rp_lists_lock);
	return 0;
}

struct rp_conn *rp_conn_new(enum rp_side side)
{
	struct rp_conn *conn;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	kref_init(&conn->ref);
	INIT_LIST_HEAD(&conn->link);
	conn->side = side;
	mutex_init(&conn->mutex);
	spin_lock_init(&conn->lock);
	init_waitqueue_head(&conn->wait);
	INIT_WORK(&conn->destroy_work, rp_destroy_work);
	spin_lock(&rp_lists_lock);
	conn->nr = ++rp_next_nr;
	spin_unlock(&rp_lists_lock);
	scnprintf(conn->name, sizeof(conn->name), "%s#%u",
		  side == RP_ACTIVE ? "cli" : "srv", conn->nr);
	return conn;
}

int rp_buf_alloc(struct ib_device *dev, struct rp_buf *b, size_t size,
		 enum dma_data_direction dir)
{
	b->va = kzalloc(size, GFP_KERNEL);
	if (!b->va)
		return -ENOMEM;
	b->dma = ib_dma_map_single(dev, b->va, size, dir);
	if (ib_dma_mapping_error(dev, b->dma)) {
		kfree(b->va);
		b->va = NULL;
		return -ENOMEM;
	}
	b->size = size;
	b->dir = dir;
	return 0;
}

void rp_buf_free(struct ib_device *dev, struct rp_buf *b)
{
	if (!b->va)
		return;
	ib_dma_unmap_single(dev, b->dma, b->size, b->dir);
	kfree(b->va);
	b->va = NULL;
}

static void rp_record(struct rp_conn *conn, struct rp_done *d,
		      const struct ib_wc *wc)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	d->done = true;
	d->status = wc->status;
	d->byte_len = wc->byte_len;
	spin_unlock_irqrestore(&conn->lock, flags);
	wake_up(&conn->wait);
}

static void rp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *conn = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		rp_log("%s send: %s", conn->name, ib_wc_status_msg(wc->status));
	rp_record(conn, &conn->sent, wc);
}

static void rp_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *conn = cq->cq_context;

	rp_record(conn, &conn->rdma, wc);
}

static void rp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *conn = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		rp_log("%s recv: %s", conn->name, ib_wc_status_msg(wc->status));
	if (conn->side == RP_PASSIVE && wc->status == IB_WC_SUCCESS)
		rp_passive_recv(conn, wc);
	else
		rp_record(conn, &conn->received, wc);
}

/* Posts under conn->lock: teardown sets dead before the QP goes. */
int rp_post_recv(struct rp_conn *conn)
{
	struct ib_sge sge = {
		.addr = conn->recv.dma,
		.length = conn->recv.size,
		.lkey = conn->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &conn->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	unsigned long flags;
	int ret = -ENOTCONN;

	ib_dma_sync_single_for_device(conn->id->device, conn->recv.dma,
				      conn->recv.size, DMA_FROM_DEVICE);
	spin_lock_irqsave(&conn->lock, flags);
	if (!conn->dead) {
		conn->received.done = false;
		ret = ib_post_recv(conn->id->qp, &wr, NULL);
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	return ret;
}

/*
 * Send one message of kind with a payload of len pattern bytes, after
 * first (a registration or invalidation, may be NULL).  The header's
 * region fields are the caller's, already in conn->send.
 */
int rp_post_msg(struct rp_conn *conn, struct ib_send_wr *first,
		enum rp_msg_kind kind, u32 seq, u32 len, u16 status,
		u8 flags)
{
	struct rp_msg *msg = conn->send.va;
	void *payload = msg + 1;
	struct ib_sge sge = {
		.addr = conn->send.dma,
		.length = sizeof(*msg) + len,
		.lkey = conn->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &conn->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long irqflags;
	int ret = -ENOTCONN;

	if (WARN_ON_ONCE(len > RP_MSG_MAX))
		return -EINVAL;
	rp_fill(payload, len, seq, kind);
	msg->magic = cpu_to_be32(RP_MAGIC);
	msg->kind = kind;
	msg->flags = flags;
	msg->status = cpu_to_be16(status);
	msg->seq = cpu_to_be32(seq);
	msg->len = cpu_to_be32(len);
	if (kind == RP_MSG_DATA || kind == RP_MSG_REPLY)
		msg->crc = cpu_to_be32(rp_crc(payload, len));
	ib_dma_sync_single_for_device(conn->id->device, conn->send.dma,
				      sge.length, DMA_TO_DEVICE);
	if (first)
		first->next = &wr;
	spin_lock_irqsave(&conn->lock, irqflags);
	if (!conn->dead) {
		conn->sent.done = false;
		ret = ib_post_send(conn->id->qp, first ?: &wr, NULL);
	}
	spin_unlock_irqrestore(&conn->lock, irqflags);
	if (!ret && (kind == RP_MSG_DATA || kind == RP_MSG_REPLY))
		rp_log("%s sent seq %u: %u bytes crc32 0x%08x", conn->name,
		       seq, len, be32_to_cpu(msg->crc));
	return ret;
}

static bool rp_done_or_over(struct rp_conn *conn, struct rp_done *d)
{
	bool ret;

	spin_lock_irq(&conn->lock);
	ret = d->done || conn->dead || rp_conn_over(conn);
	spin_unlock_irq(&conn->lock);
	return ret;
}

/* The active side waits for a completion (d) of its own posting. */
int rp_wait_done(struct rp_conn *conn, struct rp_done *d,
		 unsigned int timeout_ms)
{
	long left;

	left = wait_event_interruptible_timeout(conn->wait,
						rp_done_or_over(conn, d),
						msecs_to_jiffies(timeout_ms));
	if (left < 0)
		return -EINTR;
	if (!left)
		return -ETIMEDOUT;
	return d->done ? 0 : -ENOTCONN;
}

/* Is what the active side received a message of this kind and seq? */
int rp_recv_msg(struct rp_conn *conn, enum rp_msg_kind kind, u32 seq)
{
	struct rp_msg *msg = conn->recv.va;
	u32 n = conn->received.byte_len;

	if (conn->received.status != IB_WC_SUCCESS) {
		rp_log("%s recv: %s", conn->name,
		       ib_wc_status_msg(conn->received.status));
		return -EIO;
	}
	ib_dma_sync_single_for_cpu(conn->id->device, conn->recv.dma,
				   conn->recv.size, DMA_FROM_DEVICE);
	if (n < sizeof(*msg) || be32_to_cpu(msg->magic) != RP_MAGIC ||
	    msg->kind != kind || be32_to_cpu(msg->seq) != seq ||
	    be32_to_cpu(msg->len) > RP_MSG_MAX ||
	    n != sizeof(*msg) + be32_to_cpu(msg->len)) {
		rp_log("%s received %u bytes, not the answer (kind %u seq %u) to seq %u",
		       conn->name, n, n >= sizeof(*msg) ? msg->kind : 0,
		       n >= sizeof(*msg) ? be32_to_cpu(msg->seq) : 0, seq);
		return -EPROTO;
	}
	return 0;
}

/*
 * The PD, CQ, QP and buffers on id's device, for a connection about to
 * connect or accept.  On error they are freed again; conn->id stays.
 */
int rp_conn_setup(struct rp_conn *conn, struct rdma_cm_id *id)
{
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr qp_attr = {};
	size_t msg_size = sizeof(struct rp_msg) + RP_MSG_MAX;
	int ret;

	conn->id = id;
	conn->send_cqe.done = rp_send_done;
	conn->recv_cqe.done = rp_recv_done;
	conn->rdma_cqe.done = rp_rdma_done;

	conn->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(conn->pd)) {
		ret = PTR_ERR(conn->pd);
		conn->pd = NULL;
		goto err;
	}
	conn->cq = ib_alloc_cq(dev, conn, RP_CQ_SIZE, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		goto err;
	}
	ret = rp_buf_alloc(dev, &conn->send, msg_size, DMA_TO_DEVICE);
	if (ret)
		goto err;
	ret = rp_buf_alloc(dev, &conn->recv, msg_size, DMA_FROM_DEVICE);
	if (ret)
		goto err;

	qp_attr.qp_context = conn;
	qp_attr.send_cq = conn->cq;
	qp_attr.recv_cq = conn->cq;
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	qp_attr.cap.max_send_wr = RP_SEND_WRS;
	qp_attr.cap.max_recv_wr = RP_RECV_WRS;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(id, conn->pd, &qp_attr);
	if (ret)
		goto err;
	ret = rp_post_recv(conn);
	if (ret)
		goto err;
	return 0;

err:
	rp_log("%s: setting up the QP on %s failed: %d", conn->name,
	       dev_name(&dev->dev), ret);
	rp_conn_free_verbs(conn);
	return ret;
}

/* Everything but the id.  Safe on a half-made connection, and twice. */
void rp_conn_free_verbs(struct rp_conn *conn)
{
	struct rdma_cm_id *id = conn->id;
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->dead = true;
	spin_unlock_irqrestore(&conn->lock, flags);
	wake_up(&conn->wait);

	if (id->qp)
		rdma_destroy_qp(id);
	/* No completion handler runs after this. */
	if (conn->cq)
		ib_free_cq(conn->cq);
	conn->cq = NULL;
	rp_region_free(conn);
	rp_buf_free(id->device, &conn->wsrc);
	rp_buf_free(id->device, &conn->rdst);
	rp_buf_free(id->device, &conn->send);
	rp_buf_free(id->device, &conn->recv);
	if (conn->pd)
		ib_dealloc_pd(conn->pd);
	conn->pd = NULL;
}

/*
 * Tear down, once, in process context and never from a handler of the
 * connection's own id: the verbs objects, then the id, which is ours
 * once rp_conn_publish() listed the connection or when we made it (the
 * active side).  A passive connection that failed in its CONNECT_REQUEST
 * handler only frees its verbs objects there: rdma_cm destroys that id.
 */
void rp_conn_teardown(struct rp_conn *conn)
{
	struct rdma_cm_id *id;
	bool listed;

	mutex_lock(&conn->mutex);
	id = conn->id;
	if (!id) {
		mutex_unlock(&conn->mutex);
		return;
	}
	spin_lock(&rp_lists_lock);
	listed = !list_empty(&conn->link);
	list_del_init(&conn->link);
	spin_unlock(&rp_lists_lock);

	rp_conn_free_verbs(conn);
	conn->id = NULL;
	rdma_destroy_id(id);
	mutex_unlock(&conn->mutex);
	if (listed)
		rp_conn_put(conn);	/* the list's reference */
}

struct rp_conn *rp_conn_get_nr(unsigned int nr)
{
	struct rp_conn *conn, *found = NULL;

	spin_lock(&rp_lists_lock);
	list_for_each_entry(conn, &rp_conns, link) {
		if (conn->nr == nr) {
			kref_get(&conn->ref);
			found = conn;
			break;
		}
	}
	spin_unlock(&rp_lists_lock);
	return found;
}

/* Unload: no command runs and no listen is left. */
void rp_conns_destroy_all(void)
{
	struct rp_conn *conn;

	for (;;) {
		spin_lock(&rp_lists_lock);
		conn = list_first_entry_or_null(&rp_conns, struct rp_conn,
						link);
		if (conn)
			kref_get(&conn->ref);
		spin_unlock(&rp_lists_lock);
		if (!conn)
			break;
		rp_log("%s destroyed at unload", conn->name);
		rp_conn_teardown(conn);
		rp_conn_put(conn);
	}
}

void rp_conns_show(struct seq_file *s)
{
	struct rp_conn *conn;

	spin_lock(&rp_lists_lock);
	list_for_each_entry(conn, &rp_conns, link)
		seq_printf(s, "conn %s\n", conn->name);
	spin_unlock(&rp_lists_lock);
}

int rp_init_wq(void)
{
	rp_wq = alloc_workqueue(KBUILD_MODNAME, WQ_UNBOUND, 0);
	return rp_wq ? 0 : -ENOMEM;
}

void rp_exit_wq(void)
{
	destroy_workqueue(rp_wq);
}
