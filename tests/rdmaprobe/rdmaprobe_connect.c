// SPDX-License-Identifier: GPL-2.0
/*
 * The active side, run by the command that asks for it: resolve the
 * address and the route, make the QP, connect, send DATA and check the
 * REPLY, RDMA WRITE and READ if asked, then disconnect, or leave the
 * connection up ("hold") for later send and close commands.  Each step
 * waits at most the command's timeout; a terminal rdma_cm event ends the
 * wait at once with an errno that says which:
 *
 *   REJECTED -ECONNREFUSED, UNREACHABLE -EHOSTUNREACH, ADDR_ERROR,
 *   ROUTE_ERROR and CONNECT_ERROR their status (or -EHOSTUNREACH),
 *   DISCONNECTED -ECONNRESET, DEVICE_REMOVAL -ENODEV
 */
#include <linux/slab.h>
#include "rdmaprobe.h"

#define RP_RETRIES	7	/* transport and RNR retries, as NVMe-oF */

static int rp_event_errno(struct rp_conn *conn)
{
	unsigned long ev = conn->events;
	int status = conn->event_status;

	if (ev & BIT(RDMA_CM_EVENT_DEVICE_REMOVAL))
		return -ENODEV;
	if (ev & BIT(RDMA_CM_EVENT_REJECTED))
		return -ECONNREFUSED;
	if (ev & BIT(RDMA_CM_EVENT_DISCONNECTED))
		return -ECONNRESET;
	if (ev & BIT(RDMA_CM_EVENT_UNREACHABLE))
		return -EHOSTUNREACH;
	return status < 0 ? status : -EHOSTUNREACH;
}

static bool rp_event_came(struct rp_conn *conn, unsigned long want, int *err)
{
	bool came;

	spin_lock_irq(&conn->lock);
	came = conn->events & want;
	if (!came && rp_conn_over(conn)) {
		*err = rp_event_errno(conn);
		came = true;
	}
	spin_unlock_irq(&conn->lock);
	return came;
}

/* Wait for event, or a terminal one, or the timeout. */
static int rp_wait_event(struct rp_conn *conn, enum rdma_cm_event_type event,
			 unsigned int timeout_ms)
{
	int err = 0;
	long left;

	left = wait_event_interruptible_timeout(conn->wait,
						rp_event_came(conn, BIT(event),
							      &err),
						msecs_to_jiffies(timeout_ms));
	if (left < 0)
		return -EINTR;
	if (!left) {
		rp_log("%s no %s within %u ms", conn->name,
		       rp_event_name(event), timeout_ms);
		return -ETIMEDOUT;
	}
	return err;
}

/* One DATA of len bytes out, its REPLY in, both compared. */
static int rp_roundtrip(struct rp_conn *conn, u32 len, u8 flags,
			unsigned int timeout_ms, struct rp_msg *reply)
{
	struct rp_msg *msg = conn->send.va, *in = conn->recv.va;
	u32 seq = ++conn->seq, crc;
	bool ok;
	int ret;

	memset(msg, 0, sizeof(*msg));
	ret = rp_post_msg(conn, NULL, RP_MSG_DATA, seq, len, 0, flags);
	if (!ret)
		ret = rp_wait_done(conn, &conn->received, timeout_ms);
	if (!ret)
		ret = rp_recv_msg(conn, RP_MSG_REPLY, seq);
	if (ret) {
		rp_log("%s: no REPLY to seq %u: %d", conn->name, seq, ret);
		return ret;
	}
	len = be32_to_cpu(in->len);
	crc = rp_crc(in + 1, len);
	ok = crc == be32_to_cpu(in->crc) &&
	     rp_check(in + 1, len, seq, RP_MSG_REPLY);
	rp_log("%s received seq %u: %u bytes crc32 0x%08x, %s", conn->name,
	       seq, len, crc, ok ? "matches" : "DIFFERS");
	*reply = *in;
	ret = rp_post_recv(conn);
	if (ret)
		return ret;
	if (!ok)
		return -EBADMSG;
	/* The peer's verdict on our bytes; a region it could not offer is
	 * for the RDMA step to report.
	 */
	if (be16_to_cpu(reply->status) == EBADMSG) {
		rp_log("%s: the peer says our bytes differ", conn->name);
		return -EBADMSG;
	}
	return 0;
}

static int rp_connect_steps(struct rp_conn *conn,
			    const struct rp_connect_args *a)
{
	struct rdma_cm_id *id = conn->id;
	struct rdma_conn_param param = {};
	const struct ib_device_attr *attrs;
	struct rp_msg reply;
	int ret;

	ret = rdma_resolve_addr(id, a->has_src ? (struct sockaddr *)&a->src :
				NULL, (struct sockaddr *)&a->dst,
				a->timeout_ms);
	if (ret) {
		rp_log("%s rdma_resolve_addr: %d", conn->name, ret);
		return ret;
	}
	ret = rp_wait_event(conn, RDMA_CM_EVENT_ADDR_RESOLVED,
			    a->timeout_ms + 1000);
	if (ret)
		return ret;
	ret = rdma_resolve_route(id, a->timeout_ms);
	if (ret) {
		rp_log("%s rdma_resolve_route: %d", conn->name, ret);
		return ret;
	}
	ret = rp_wait_event(conn, RDMA_CM_EVENT_ROUTE_RESOLVED,
			    a->timeout_ms + 1000);
	if (ret)
		return ret;
	ret = rp_conn_setup(conn, id);
	if (ret)
		return ret;

	attrs = &id->device->attrs;
	param.responder_resources = min_t(u32, 1, attrs->max_qp_rd_atom);
	param.initiator_depth = min_t(u32, 1, attrs->max_qp_init_rd_atom);
	param.retry_count = RP_RETRIES;
	param.rnr_retry_count = RP_RETRIES;
	ret = rdma_connect(id, &param);
	if (ret) {
		rp_log("%s rdma_connect: %d", conn->name, ret);
		return ret;
	}
	ret = rp_wait_event(conn, RDMA_CM_EVENT_ESTABLISHED, a->timeout_ms);
	if (ret)
		return ret;
	ret = rp_roundtrip(conn, a->len, a->rdma ? RP_F_RDMA : 0,
			   a->timeout_ms, &reply);
	if (ret || !a->rdma)
		return ret;
	return rp_rdma_run(conn, &reply, conn->seq, a->rkey, a->timeout_ms);
}

/* Disconnect and wait for it, then tear down. */
static void rp_disconnect(struct rp_conn *conn, unsigned int timeout_ms)
{
	int ret;

	mutex_lock(&conn->mutex);
	ret = conn->id ? rdma_disconnect(conn->id) : -ENOTCONN;
	mutex_unlock(&conn->mutex);
	if (!ret)
		rp_wait_event(conn, RDMA_CM_EVENT_DISCONNECTED, timeout_ms);
	rp_conn_teardown(conn);
}

int rp_connect(struct net *net, const struct rp_connect_args *a)
{
	struct rdma_cm_id *id;
	struct rp_conn *conn;
	int ret;

	conn = rp_conn_new(RP_ACTIVE);
	if (!conn)
		return -ENOMEM;
	id = rdma_create_id(net, rp_conn_event, conn, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		rp_conn_put(conn);
		return PTR_ERR(id);
	}
	conn->id = id;
	if (a->has_src)
		rp_log("%s connect to %pISpc from %pISc (netns %u)", conn->name,
		       &a->dst, &a->src, net->ns.inum);
	else
		rp_log("%s connect to %pISpc (netns %u)", conn->name, &a->dst,
		       net->ns.inum);

	ret = rp_connect_steps(conn, a);
	if (!ret && a->hold) {
		ret = rp_conn_publish(conn);
		if (!ret) {
			rp_log("%s held", conn->name);
			rp_conn_put(conn);
			return 0;
		}
	}
	if (ret)
		rp_log("%s failed: %d", conn->name, ret);
	if (conn->events & BIT(RDMA_CM_EVENT_ESTABLISHED))
		rp_disconnect(conn, a->timeout_ms);
	else
		rp_conn_teardown(conn);
	rp_conn_put(conn);
	return ret;
}

/* A held connection of ours, by number; NULL if none. */
static struct rp_conn *rp_held(unsigned int nr)
{
	struct rp_conn *conn = rp_conn_get_nr(nr);

	if (conn && conn->side != RP_ACTIVE) {
		rp_conn_put(conn);
		conn = NULL;
	}
	if (!conn)
		pr_info("no held connection cli#%u\n", nr);
	return conn;
}

int rp_exchange(unsigned int nr, u32 len, unsigned int timeout_ms)
{
	struct rp_conn *conn = rp_held(nr);
	struct rp_msg reply;
	int ret;

	if (!conn)
		return -ENOENT;
	mutex_lock(&conn->mutex);
	ret = conn->id ? rp_roundtrip(conn, len, 0, timeout_ms, &reply) :
			 -ENOTCONN;
	mutex_unlock(&conn->mutex);
	if (ret)
		rp_log("%s send failed: %d", conn->name, ret);
	rp_conn_put(conn);
	return ret;
}

int rp_close(unsigned int nr, unsigned int timeout_ms)
{
	struct rp_conn *conn = rp_held(nr);

	if (!conn)
		return -ENOENT;
	rp_disconnect(conn, timeout_ms);
	rp_log("%s closed", conn->name);
	rp_conn_put(conn);
	return 0;
}
