// SPDX-License-Identifier: GPL-2.0
/*
 * The passive side: listens on IP addresses and the connections they
 * accept.  A listen logs each CONNECT_REQUEST that reaches it with the
 * net_device rdma_cm matched the request to, accepts it on a new RC QP,
 * and from then on answers what arrives:
 *
 *   DATA     its bytes checked, a REPLY with our verdict and as many bytes
 *            back; with RP_F_RDMA, a region registered first (REG_MR) and
 *            its address, length and rkey in the REPLY
 *   WRITTEN  the region checked against what the peer says it wrote, its
 *            key invalidated (LOCAL_INV), then a CHECKED with our verdict
 *
 * The protocol is lockstep (the active side waits for each answer before
 * it sends again), so one send buffer serves: when a message arrives, the
 * peer already has our previous one.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "rdmaprobe.h"

#define RP_BACKLOG	16

struct rp_listen {
	enum rp_side side;		/* RP_LISTEN: first, as in rp_conn */
	struct kref ref;
	struct list_head link;		/* rp_listens, under rp_listens_lock */
	unsigned int nr;
	char name[16];			/* "lis#N" */
	struct mutex mutex;		/* id's teardown */
	struct rdma_cm_id *id;
	struct net *net;		/* compared only: id holds it */
	struct sockaddr_storage addr;
	struct work_struct destroy_work;
};

static LIST_HEAD(rp_listens);
static DEFINE_SPINLOCK(rp_listens_lock);
static unsigned int rp_next_listen;

static void rp_listen_release(struct kref *ref)
{
	kfree(container_of(ref, struct rp_listen, ref));
}

/* Once, in process context, never from a handler of the listen's id. */
static void rp_listen_teardown(struct rp_listen *lis)
{
	struct rdma_cm_id *id;

	mutex_lock(&lis->mutex);
	id = lis->id;
	lis->id = NULL;
	mutex_unlock(&lis->mutex);
	if (!id)
		return;
	spin_lock(&rp_listens_lock);
	list_del_init(&lis->link);
	spin_unlock(&rp_listens_lock);
	rdma_destroy_id(id);
	kref_put(&lis->ref, rp_listen_release);	/* the list's */
}

static void rp_listen_destroy_work(struct work_struct *work)
{
	struct rp_listen *lis = container_of(work, struct rp_listen,
					     destroy_work);

	rp_listen_teardown(lis);
	kref_put(&lis->ref, rp_listen_release);
}

static void rp_log_request(struct rp_listen *lis, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev, const char *to)
{
	const struct rdma_addr *a = &id->route.addr;
	char dev[IFNAMSIZ + 16];

	rp_dev_name(id, dev, sizeof(dev));
	rp_log("%s CONNECT_REQUEST status %d: %pISpc -> %pISpc",
	       lis->name, ev->status, &a->dst_addr, &a->src_addr);
	rp_log("%s   on %s port %u net_device %s (netns %u): %s", lis->name,
	       dev_name(&id->device->dev), id->port_num, dev,
	       a->dev_addr.net ? a->dev_addr.net->ns.inum : 0, to);
}

/* CONNECT_REQUEST on id, a new id; non-zero has rdma_cm refuse it. */
static int rp_accept(struct rp_listen *lis, struct rdma_cm_id *id,
		     struct rdma_cm_event *ev)
{
	const struct ib_device_attr *attrs = &id->device->attrs;
	struct rdma_conn_param param = {};
	struct rp_conn *conn;
	int ret;

	conn = rp_conn_new(RP_PASSIVE);
	if (!conn) {
		rp_log_request(lis, id, ev, "refused: no memory");
		return -ENOMEM;
	}
	rp_log_request(lis, id, ev, conn->name);
	id->context = conn;
	ret = rp_conn_setup(conn, id);
	if (ret)
		goto refuse;
	if (rp_has_fast_reg(conn)) {
		ret = rp_region_alloc(conn);
		if (ret)
			goto refuse;
	}
	param.responder_resources = min_t(u32, ev->param.conn.initiator_depth,
					  attrs->max_qp_rd_atom);
	param.initiator_depth = min_t(u32, ev->param.conn.responder_resources,
				      attrs->max_qp_init_rd_atom);
	param.rnr_retry_count = 7;
	ret = rdma_accept(id, &param);
	if (ret)
		goto refuse;
	/* No other event of this id can have come: we are its handler. */
	ret = rp_conn_publish(conn);
	if (WARN_ON_ONCE(ret))
		goto refuse;
	rp_conn_put(conn);
	return 0;

refuse:
	rp_log("%s refused: %d", conn->name, ret);
	rp_conn_free_verbs(conn);
	conn->id = NULL;	/* rdma_cm destroys it */
	rp_conn_put(conn);
	return ret;
}

static int rp_listen_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rp_listen *lis = id->context;

	/* Connections we accepted have their own context. */
	if (lis->side != RP_LISTEN)
		return rp_conn_event(id, ev);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return rp_accept(lis, id, ev);
	rp_log("%s %s status %d", lis->name, rp_event_name(ev->event),
	       ev->status);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		/* rdma_cm waits for the id to go: from the work queue. */
		kref_get(&lis->ref);
		if (!rp_queue(&lis->destroy_work))
			kref_put(&lis->ref, rp_listen_release);
	}
	return 0;
}

static bool rp_same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
		       a4->sin_port == b4->sin_port;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
	       a6->sin6_port == b6->sin6_port &&
	       a6->sin6_scope_id == b6->sin6_scope_id;
}

int rp_listen(struct net *net, const struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	struct rp_listen *lis;
	int ret;

	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return -ENOMEM;
	lis->side = RP_LISTEN;
	kref_init(&lis->ref);
	INIT_LIST_HEAD(&lis->link);
	mutex_init(&lis->mutex);
	INIT_WORK(&lis->destroy_work, rp_listen_destroy_work);
	memcpy(&lis->addr, addr, rdma_addr_size(addr));
	spin_lock(&rp_listens_lock);
	lis->nr = ++rp_next_listen;
	spin_unlock(&rp_listens_lock);
	scnprintf(lis->name, sizeof(lis->name), "lis#%u", lis->nr);

	id = rdma_create_id(net, rp_listen_event, lis, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err_free;
	}
	/* [::] takes IPv6 only: IPv4 has listens of its own. */
	if (addr->sa_family == AF_INET6) {
		ret = rdma_set_afonly(id, 1);
		if (ret)
			goto err_id;
	}
	ret = rdma_bind_addr(id, (struct sockaddr *)&lis->addr);
	if (ret)
		goto err_id;
	ret = rdma_listen(id, RP_BACKLOG);
	if (ret)
		goto err_id;
	lis->id = id;
	lis->net = net;
	spin_lock(&rp_listens_lock);
	list_add_tail(&lis->link, &rp_listens);
	spin_unlock(&rp_listens_lock);
	rp_log("%s listening on %pISpc (netns %u, %s)", lis->name, addr,
	       net->ns.inum, id->device ? dev_name(&id->device->dev) :
	       "every device");
	return 0;

err_id:
	rdma_destroy_id(id);
err_free:
	rp_log("%s listen on %pISpc (netns %u) failed: %d", lis->name, addr,
	       net->ns.inum, ret);
	pr_info("listen on %pISpc failed: %d\n", addr, ret);
	kfree(lis);
	return ret;
}

int rp_unlisten(struct net *net, const struct sockaddr *addr)
{
	struct rp_listen *lis, *found = NULL;

	spin_lock(&rp_listens_lock);
	list_for_each_entry(lis, &rp_listens, link) {
		if (net_eq(lis->net, net) &&
		    rp_same_addr((struct sockaddr *)&lis->addr, addr)) {
			kref_get(&lis->ref);
			found = lis;
			break;
		}
	}
	spin_unlock(&rp_listens_lock);
	if (!found) {
		pr_info("unlisten: no listen on %pISpc here\n", addr);
		return -ENOENT;
	}
	rp_listen_teardown(found);
	rp_log("%s stopped", found->name);
	kref_put(&found->ref, rp_listen_release);
	return 0;
}

void rp_listens_destroy_all(void)
{
	struct rp_listen *lis;

	for (;;) {
		spin_lock(&rp_listens_lock);
		lis = list_first_entry_or_null(&rp_listens, struct rp_listen,
					       link);
		if (lis)
			kref_get(&lis->ref);
		spin_unlock(&rp_listens_lock);
		if (!lis)
			break;
		rp_listen_teardown(lis);
		kref_put(&lis->ref, rp_listen_release);
	}
}

void rp_listens_show(struct seq_file *s)
{
	struct rp_listen *lis;

	spin_lock(&rp_listens_lock);
	list_for_each_entry(lis, &rp_listens, link)
		seq_printf(s, "listen %s %pISpc\n", lis->name, &lis->addr);
	spin_unlock(&rp_listens_lock);
}

/* What arrived on a passive connection: answer it (CQ context). */
void rp_passive_recv(struct rp_conn *conn, const struct ib_wc *wc)
{
	struct rp_msg *msg = conn->recv.va, *reply = conn->send.va;
	struct ib_device *dev = conn->id->device;
	struct ib_send_wr *first = NULL;
	struct ib_reg_wr reg;
	u32 len, seq, crc;
	u16 status = 0;
	bool ok;
	int ret;

	ib_dma_sync_single_for_cpu(dev, conn->recv.dma, conn->recv.size,
				   DMA_FROM_DEVICE);
	len = be32_to_cpu(msg->len);
	seq = be32_to_cpu(msg->seq);
	if (wc->byte_len < sizeof(*msg) || be32_to_cpu(msg->magic) != RP_MAGIC ||
	    len > RP_MSG_MAX || wc->byte_len != sizeof(*msg) + len) {
		rp_log("%s received %u bytes that are no message of ours",
		       conn->name, wc->byte_len);
		rp_post_recv(conn);
		return;
	}
	memset(reply, 0, sizeof(*reply));
	switch (msg->kind) {
	case RP_MSG_DATA:
		crc = rp_crc(msg + 1, len);
		ok = crc == be32_to_cpu(msg->crc) &&
		     rp_check(msg + 1, len, seq, RP_MSG_DATA);
		rp_log("%s received seq %u: %u bytes crc32 0x%08x, %s",
		       conn->name, seq, len, crc, ok ? "matches" : "DIFFERS");
		status = ok ? 0 : EBADMSG;
		if (msg->flags & RP_F_RDMA) {
			ret = rp_region_offer(conn, seq, &reg, reply);
			if (ret)
				status = -ret;
			else
				first = &reg.wr;
		}
		rp_post_recv(conn);
		ret = rp_post_msg(conn, first, RP_MSG_REPLY, seq, len, status,
				  0);
		break;
	case RP_MSG_WRITTEN:
		rp_post_recv(conn);
		/* CHECKED goes once the key is invalidated. */
		ret = rp_region_check(conn, msg);
		break;
	default:
		rp_log("%s received a message of unknown kind %u", conn->name,
		       msg->kind);
		rp_post_recv(conn);
		return;
	}
	if (ret)
		rp_log("%s could not answer seq %u: %d", conn->name, seq, ret);
}
