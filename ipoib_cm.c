// SPDX-License-Identifier: GPL-2.0
/*
 * Connected mode (RFC 4755): connections and the CM protocol.
 *
 * We listen on the service IDs our UD QPN makes (in-tree and RFC forms),
 * send REQ/REP/REJ with {UD QPN, receive MTU} as private data, and keep
 * each connection with its peer (ipoib_cm_peer.c) and on the interface's
 * list, which only what concerns every connection walks (the port
 * coming back, down, debugfs).  A connection is made by
 * the first unicast to a peer that advertises RC (or UC) in its address,
 * torn down when idle, on DREQ, on errors (the peer then gets datagrams
 * for a while, with backoff), and when the interface goes down.
 *
 * Setting up and tearing down a connection sleeps, so both run from the
 * connection's work item; CM handlers and completion handlers only
 * change its state.  ipoib_cm.h says how long a connection lives.
 *
 * Refusals carry the IBA reason that fits; Consumer Reject only settles
 * crossed REQs, the meaning RFC 4755 3.3 gives it, so that a peer holds
 * its packets for the winner only when there is one.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <rdma/ib_cache.h>
#include "ipoib_cm.h"
#include "ipoib_link.h"
#include "ipoib_tx.h"
#include "ipoib_waitq.h"

static char *cm_policy = "auto";
module_param(cm_policy, charp, 0444);
MODULE_PARM_DESC(cm_policy,
		 "Connected mode: \"auto\" (default) does as rfc with peers that take the RFC service ID and as compatible with the others, learned per peer; \"compatible\" sends only on connections this end opened, as the in-tree driver; \"rfc\" keeps one connection per pair and settles crossed REQs (RFC 4755 3.3)");

static char *cm_service_id = "policy";
module_param(cm_service_id, charp, 0444);
MODULE_PARM_DESC(cm_service_id,
		 "Service ID form we connect to under the compatible and rfc policies: \"linux\" (0x1000000000000000|QPN, what in-tree peers listen on), \"rfc\" (0x01... of RFC 4755 3.5) or \"policy\" (default: rfc under cm_policy=rfc, linux under compatible); we listen on both, and auto tries rfc first");

static bool ipoib_cm_uc;
module_param_named(cm_uc, ipoib_cm_uc, bool, 0444);
MODULE_PARM_DESC(cm_uc,
		 "Advertise and use UC connections when the peer does too (default N: RC)");

static unsigned int ipoib_cm_idle_timeout = 60;
module_param_named(cm_idle_timeout, ipoib_cm_idle_timeout, uint, 0444);
MODULE_PARM_DESC(cm_idle_timeout,
		 "Seconds without traffic before a connection is torn down, 0 never, at most 86400 (default 60)");

static unsigned int ipoib_cm_max_conn_nosrq = 64;
module_param_named(cm_max_conn_nosrq, ipoib_cm_max_conn_nosrq, uint, 0444);
MODULE_PARM_DESC(cm_max_conn_nosrq,
		 "Connections per interface when the HCA has no SRQ (each has its own receive ring), 0-1024 (default 64)");

int ipoib_cm_policy;
static bool ipoib_cm_sid_rfc;
struct workqueue_struct *ipoib_cm_wq;

static const char *const policy_names[] = {
	[IPOIB_CM_POLICY_COMPATIBLE] = "compatible",
	[IPOIB_CM_POLICY_RFC] = "rfc",
	[IPOIB_CM_POLICY_AUTO] = "auto",
};

enum { SID_LINUX, SID_RFC, SID_POLICY };
static const char *const sid_names[] = {
	[SID_LINUX] = "linux",
	[SID_RFC] = "rfc",
	[SID_POLICY] = "policy",
};

static int parse_choice(const char *name, const char *val,
			const char *const *choices, int n, int *out)
{
	int i = __sysfs_match_string(choices, n, val);

	if (i < 0) {
		pr_err(DRV_NAME ": %s=%s: must be one of %s, %s%s%s\n", name,
		       val, choices[0], choices[1], n > 2 ? ", " : "",
		       n > 2 ? choices[2] : "");
		return -EINVAL;
	}
	*out = i;
	return 0;
}

int ipoib_cm_check_params(void)
{
	int v, ret;

	ret = parse_choice("cm_policy", cm_policy, policy_names,
			   ARRAY_SIZE(policy_names), &ipoib_cm_policy);
	if (ret)
		return ret;
	ret = parse_choice("cm_service_id", cm_service_id, sid_names,
			   ARRAY_SIZE(sid_names), &v);
	if (ret)
		return ret;
	/* cm_policy=rfc follows the RFC's service ID unless told otherwise. */
	ipoib_cm_sid_rfc = v == SID_RFC ||
			   (v == SID_POLICY &&
			    ipoib_cm_policy == IPOIB_CM_POLICY_RFC);
	if (ipoib_cm_idle_timeout > 86400) {
		pr_err(DRV_NAME ": cm_idle_timeout=%u out of range 0-86400\n",
		       ipoib_cm_idle_timeout);
		return -EINVAL;
	}
	if (ipoib_cm_max_conn_nosrq > 1024) {
		pr_err(DRV_NAME ": cm_max_conn_nosrq=%u out of range 0-1024\n",
		       ipoib_cm_max_conn_nosrq);
		return -EINVAL;
	}
	return ipoib_cm_pool_check_params();
}

static struct notifier_block cm_neigh_nb;

int ipoib_cm_module_init(void)
{
	int ret;

	ipoib_cm_wq = alloc_workqueue("%s_cm", WQ_MEM_RECLAIM, 0, DRV_NAME);
	if (!ipoib_cm_wq)
		return -ENOMEM;
	ret = register_netevent_notifier(&cm_neigh_nb);
	if (ret)
		destroy_workqueue(ipoib_cm_wq);
	return ret;
}

void ipoib_cm_module_exit(void)
{
	unregister_netevent_notifier(&cm_neigh_nb);
	destroy_workqueue(ipoib_cm_wq);
}

u8 ipoib_cm_addr_flags(void)
{
	return IPOIB_FLAG_RC | (ipoib_cm_uc ? IPOIB_FLAG_UC : 0);
}

bool ipoib_cm_supported(const struct ipoib_dev *priv)
{
	return priv->cm;
}

static const char *conn_state_name(enum ipoib_cm_state s)
{
	switch (s) {
	case IPOIB_CM_CONNECTING:
		return "connecting";
	case IPOIB_CM_LIVE:
		return "live";
	case IPOIB_CM_WAIT_PEER:
		return "wait-peer";
	default:
		return "dead";
	}
}

static void conn_work(struct work_struct *work);
static void conn_timer(struct timer_list *t);
static void conn_qp_failed(struct work_struct *work);

/*
 * A new connection to the peer cp (at address peer), linked, holding its
 * own reference and one on cp.  -ENOSPC at the no-SRQ limit, -ENOMEM.
 */
static struct ipoib_cm_conn *conn_new(struct ipoib_dev *priv,
				      struct ipoib_cm_peer *cp, const u8 *peer,
				      bool initiator, bool shared)
{
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_conn *conn;

	lockdep_assert_held(&priv->lock);
	if (!cm->pool && cm->nr_conns >= ipoib_cm_max_conn_nosrq) {
		net_info_ratelimited("%s: %u connections, the most without an SRQ (cm_max_conn_nosrq)\n",
				     priv->dev->name, cm->nr_conns);
		return ERR_PTR(-ENOSPC);
	}
	conn = kzalloc(sizeof(*conn), GFP_ATOMIC);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	kref_init(&conn->ref);
	conn->priv = priv;
	memcpy(conn->peer, peer, IPOIB_ALEN);
	conn->initiator = initiator;
	conn->shared = shared;
	conn->can_send = initiator || shared;
	conn->type = initiator && ipoib_cm_uc &&
		     (ipoib_addr_flags(peer) & IPOIB_FLAG_UC) ?
		     IB_QPT_UC : IB_QPT_RC;
	conn->state = IPOIB_CM_CONNECTING;
	conn->rej_reason = IB_CM_REJ_NO_RESOURCES;
	conn->created = jiffies;
	conn->deadline = jiffies + IPOIB_CM_CONNECT_TIMEOUT;
	conn->last_used = jiffies;
	ipoib_waitq_init(&conn->queue, IPOIB_WAITQ_CONNECT);
	ipoib_waitq_init(&conn->backlog, IPOIB_WAITQ_RING);
	INIT_WORK(&conn->work, conn_work);
	INIT_WORK(&conn->qp_failed, conn_qp_failed);
	init_completion(&conn->last_wqe);
	init_completion(&conn->drained);
	conn->seq = ++cm->last_seq;
	list_add_tail(&conn->link, &cm->conns);
	cm->nr_conns++;
	kref_get(&cp->ref);	/* dropped by conn_end() */
	conn->cp = cp;
	list_add_tail(&conn->peer_link, &cp->conns);
	timer_setup(&conn->timer, conn_timer, 0);
	mod_timer(&conn->timer, conn->deadline);
	return conn;
}

/*
 * A reference for use after priv->lock is dropped.  Only a linked
 * connection is found under the lock, and a linked one holds its own.
 */
static struct ipoib_cm_conn *conn_get(struct ipoib_cm_conn *conn)
{
	lockdep_assert_held(&conn->priv->lock);
	WARN_ON_ONCE(conn->state == IPOIB_CM_DEAD);
	kref_get(&conn->ref);
	return conn;
}

static void conn_release(struct kref *ref)
{
	struct ipoib_cm_conn *conn = container_of(ref, struct ipoib_cm_conn,
						  ref);

	kfree_rcu(conn, rcu);
}

static void conn_put(struct ipoib_cm_conn *conn)
{
	kref_put(&conn->ref, conn_release);
}

/* The state is read without the lock on the transmit path. */
static void conn_set_state(struct ipoib_cm_conn *conn,
			   enum ipoib_cm_state state)
{
	lockdep_assert_held(&conn->priv->lock);
	WRITE_ONCE(conn->state, state);
}

/* The connection to this peer to send on, a live one first. */
struct ipoib_cm_conn *ipoib_cm_find_sendable(struct ipoib_cm_peer *peer)
{
	struct ipoib_cm_conn *conn, *found = NULL;

	lockdep_assert_held(&peer->priv->lock);
	list_for_each_entry(conn, &peer->conns, peer_link) {
		if (!conn->can_send)
			continue;
		if (conn->state == IPOIB_CM_LIVE)
			return conn;
		if (!found)
			found = conn;
	}
	return found;
}

/*
 * The form of our REQ under a policy, to a peer of a form: to the RFC
 * service ID or the in-tree one (sid_param_rfc: cm_service_id), and for a
 * shared connection or a one-way one.  Pure, for the self-tests.
 */
void ipoib_cm_req_form(int policy, enum ipoib_cm_peer_form form,
		       bool sid_param_rfc, bool *sid_rfc, bool *shared)
{
	switch (policy) {
	case IPOIB_CM_POLICY_AUTO:
		*sid_rfc = form != IPOIB_CM_PEER_LINUX;
		*shared = *sid_rfc;
		break;
	case IPOIB_CM_POLICY_RFC:
		*sid_rfc = sid_param_rfc;
		*shared = true;
		break;
	default:
		*sid_rfc = sid_param_rfc;
		*shared = false;
	}
}

/*
 * What is still believed of a peer learned to be of form at learned: the
 * in-tree form only for IPOIB_CM_FORM_TTL, after which the RFC service ID
 * is asked again (a peer may have been caught restarting, or replaced).
 * Pure, for the self-tests.
 */
enum ipoib_cm_peer_form ipoib_cm_form_now(enum ipoib_cm_peer_form form,
					  unsigned long learned,
					  unsigned long now)
{
	if (form == IPOIB_CM_PEER_LINUX &&
	    time_after(now, learned + IPOIB_CM_FORM_TTL))
		return IPOIB_CM_PEER_UNKNOWN;
	return form;
}

/*
 * Our REQ to this neighbour, whose peer is cp: to the RFC service ID and
 * shared, or to the in-tree one and one-way, as the policy and what the
 * peer showed say.  NULL when no connection can be made now.
 */
struct ipoib_cm_conn *ipoib_cm_conn_start(struct ipoib_dev *priv,
					  struct ipoib_neigh *neigh,
					  struct ipoib_cm_peer *cp)
{
	struct ipoib_cm_conn *conn;
	bool sid_rfc, shared;

	lockdep_assert_held(&priv->lock);
	cp->form = ipoib_cm_form_now(cp->form, cp->form_at, jiffies);
	ipoib_cm_req_form(ipoib_cm_policy, cp->form, ipoib_cm_sid_rfc,
			  &sid_rfc, &shared);
	conn = conn_new(priv, cp, neigh->daddr, true, shared);
	if (IS_ERR(conn))
		return NULL;
	conn->sid_rfc = sid_rfc;
	return conn;
}

/*
 * Auto policy: the peer (if we still know it) remembers what it showed,
 * and when; IPOIB_CM_PEER_UNKNOWN forgets it.
 */
static void learn_peer_form(struct ipoib_dev *priv, struct ipoib_cm_peer *cp,
			    enum ipoib_cm_peer_form form)
{
	lockdep_assert_held(&priv->lock);
	if (!cp)
		return;
	cp->form_at = jiffies;
	if (cp->form == form)
		return;
	cp->form = form;
	if (form != IPOIB_CM_PEER_UNKNOWN)
		ipoib_count(priv, form == IPOIB_CM_PEER_RFC ?
			    IPOIB_CNT_CM_PEERS_RFC : IPOIB_CNT_CM_PEERS_LINUX);
}

/*
 * Any context, no lock held, the caller holding a reference (or being a
 * handler of the connection's QP, cm_id or timer): unlink the connection,
 * send what waited for it another way (its peer backs off first if it
 * failed), and have its work item tear it down.  A connection still
 * being set up is refused with rej_reason.  Only the first call counts.
 */
static void conn_end(struct ipoib_cm_conn *conn, bool failed, u8 rej_reason)
{
	struct ipoib_dev *priv = conn->priv;
	struct ipoib_cm_peer *cp;
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->lock);
	if (conn->state == IPOIB_CM_DEAD) {
		spin_unlock_bh(&priv->lock);
		return;
	}
	if (conn->state == IPOIB_CM_LIVE)
		atomic_long_dec(&priv->counters[IPOIB_CNT_CM_CONNECTIONS]);
	conn_set_state(conn, IPOIB_CM_DEAD);
	conn->failed = failed;
	conn->rej_reason = rej_reason;
	del_timer(&conn->timer);
	list_del(&conn->link);
	priv->cm->nr_conns--;
	cp = conn->cp;
	conn->cp = NULL;
	list_del(&conn->peer_link);
	if (rcu_access_pointer(cp->tx) == conn) {
		RCU_INIT_POINTER(cp->tx, NULL);
		if (failed) {
			cp->backoff = ipoib_backoff_next(cp->backoff,
							 IPOIB_CM_RETRY_MIN,
							 IPOIB_CM_RETRY_MAX);
			cp->retry_at = jiffies + cp->backoff;
		}
	}
	ipoib_cm_peer_put(cp);
	ipoib_waitq_splice(priv, &conn->queue, &q);
	spin_unlock_bh(&priv->lock);

	if (failed)
		ipoib_count(priv, IPOIB_CNT_CM_FALLBACKS);
	queue_work(ipoib_cm_wq, &conn->work);
	ipoib_send_staged(priv, &q);
}

void ipoib_cm_conn_kill(struct ipoib_cm_conn *conn, bool failed)
{
	conn_end(conn, failed, IB_CM_REJ_NO_RESOURCES);
}

/* What one found under priv->lock (with a reference) is ended, and let go. */
static void conn_end_put(struct ipoib_cm_conn *conn, bool failed,
			 u8 rej_reason)
{
	conn_end(conn, failed, rej_reason);
	conn_put(conn);
}

/* Which connections end_older() ends: all, those to a GID, to an address. */
enum conn_match { MATCH_ALL, MATCH_GID, MATCH_ADDR };

/* The oldest connection of the peer made by upto; a reference taken. */
static struct ipoib_cm_conn *peer_older(struct ipoib_cm_peer *cp, u64 upto)
{
	struct ipoib_cm_conn *conn;

	list_for_each_entry(conn, &cp->conns, peer_link)
		if (conn->seq <= upto)
			return conn_get(conn);
	return NULL;
}

/*
 * A connection that matches, made by upto; a reference taken.  Found
 * through the peer table; only the interface-wide match walks them all.
 */
static struct ipoib_cm_conn *older_match(struct ipoib_dev *priv,
					 enum conn_match how, const void *key,
					 u64 upto)
{
	struct ipoib_cm_conn *conn = NULL;
	struct ipoib_cm_peer *cp;
	struct rhlist_head *pos;

	lockdep_assert_held(&priv->lock);
	switch (how) {
	case MATCH_ADDR:
		cp = ipoib_cm_peer_find(priv, key);
		return cp ? peer_older(cp, upto) : NULL;
	case MATCH_GID:
		rcu_read_lock();
		rhl_for_each_entry_rcu(cp, pos, ipoib_cm_peers_at(priv, key),
				       gid_node) {
			conn = peer_older(cp, upto);
			if (conn)
				break;
		}
		rcu_read_unlock();
		return conn;
	default:
		list_for_each_entry(conn, &priv->cm->conns, link)
			if (conn->seq <= upto)
				return conn_get(conn);
		return NULL;
	}
}

/*
 * End each connection that matches, not as a failure; how many.  Only
 * those made before the call: ending one sends its waiting packets on,
 * which may make a new connection to the same peer, and ending that too
 * would go round for as long as the packets last.
 */
static unsigned int end_older(struct ipoib_dev *priv, enum conn_match how,
			      const void *key, u8 rej_reason)
{
	struct ipoib_cm_conn *found;
	unsigned int n = 0;
	u64 upto;

	spin_lock_bh(&priv->lock);
	upto = priv->cm->last_seq;
	spin_unlock_bh(&priv->lock);
	for (;;) {
		spin_lock_bh(&priv->lock);
		found = older_match(priv, how, key, upto);
		spin_unlock_bh(&priv->lock);
		if (!found)
			return n;
		conn_end_put(found, false, rej_reason);
		n++;
	}
}

/*
 * The peer at gid answers from another LID.  Connections made to it hold
 * the old LID in their QP and could only run out of retries: they go now,
 * not as failures, and the next packet asks for a path and a new one.
 */
void ipoib_cm_peer_moved(struct ipoib_dev *priv, const union ib_gid *gid)
{
	if (priv->cm)
		end_older(priv, MATCH_GID, gid, IB_CM_REJ_INVALID_LID);
}

/*
 * The kernel gave up on a neighbour whose link address is addr: its ARP
 * or ND probes, sent over UD, went unanswered.  A connection to that
 * peer is no use, and on UC nothing else would ever say so (a send into
 * the void completes as well as any other): it goes, not as a failure.
 * Should the peer answer again, its next packet makes a new one.  Runs in
 * the netevent chain's RCU read section: priv->cm is freed only after
 * the interface's unregister has waited for a grace period.
 */
static void peer_lost(struct ipoib_dev *priv, const u8 *addr)
{
	if (!priv->cm || !end_older(priv, MATCH_ADDR, addr, IB_CM_REJ_TIMEOUT))
		return;
	ipoib_count(priv, IPOIB_CNT_CM_PEERS_LOST);
	net_info_ratelimited("%s: %pI6 no longer answers at its address; its connections end\n",
			     priv->dev->name, ipoib_addr_gid(addr));
}

/* Neighbour updates, of every device: ours whose neighbour failed. */
static int cm_neigh_event(struct notifier_block *nb, unsigned long event,
			  void *ptr)
{
	struct neighbour *n = ptr;
	u8 ha[MAX_ADDR_LEN];

	if (event != NETEVENT_NEIGH_UPDATE || !ipoib_is_our_netdev(n->dev) ||
	    !(READ_ONCE(n->nud_state) & NUD_FAILED) ||
	    n->dev->addr_len != IPOIB_ALEN)
		return NOTIFY_DONE;
	neigh_ha_snapshot(ha, n, n->dev);
	peer_lost(ipoib_priv(n->dev), ha);
	return NOTIFY_DONE;
}

static struct notifier_block cm_neigh_nb = {
	.notifier_call = cm_neigh_event,
};

/*
 * The peer has shown it takes connections again (one of ours came up, or
 * it sent a REQ), so it stops backing off.
 */
static void peer_back(struct ipoib_dev *priv, struct ipoib_cm_peer *cp)
{
	lockdep_assert_held(&priv->lock);
	cp->backoff = 0;
	cp->retry_at = jiffies;
}

/* The connection carries traffic: send what waited for it. */
static void conn_set_live(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->lock);
	if (conn->state == IPOIB_CM_DEAD || conn->state == IPOIB_CM_LIVE) {
		spin_unlock_bh(&priv->lock);
		return;
	}
	conn_set_state(conn, IPOIB_CM_LIVE);
	conn->live_since = jiffies;
	/* From now on the timer looks for idleness. */
	if (ipoib_cm_idle_timeout)
		mod_timer(&conn->timer,
			  jiffies + ipoib_cm_idle_timeout * HZ + 1);
	else
		del_timer(&conn->timer);
	ipoib_count(priv, IPOIB_CNT_CM_CONNECTIONS);
	ipoib_count(priv, IPOIB_CNT_CM_ESTABLISHED);
	peer_back(priv, conn->cp);
	ipoib_waitq_splice(priv, &conn->queue, &q);
	spin_unlock_bh(&priv->lock);
	ipoib_cm_touch(conn);
	ipoib_dbg(priv, "%s connection to %pI6 up, MTU %u\n",
		  conn->type == IB_QPT_UC ? "UC" : "RC",
		  ipoib_addr_gid(conn->peer), conn->mtu);
	ipoib_send_staged(priv, &q);
}

/* After a QP event that put the QP in error; holds a reference. */
static void conn_qp_failed(struct work_struct *work)
{
	struct ipoib_cm_conn *conn = container_of(work, struct ipoib_cm_conn,
						  qp_failed);

	ipoib_count(conn->priv, IPOIB_CNT_CM_QP_FATAL);
	netdev_warn(conn->priv->dev, "connection to %pI6: %s; ending it\n",
		    ipoib_addr_gid(conn->peer), ib_event_msg(conn->qp_error));
	/* A new connection, without backing off. */
	conn_end(conn, false, IB_CM_REJ_NO_RESOURCES);
	conn_put(conn);
}

/*
 * Any context: an HCA raises these from its event queue's interrupt.  The
 * connection's own reference lasts until its QP is destroyed, after which
 * no event comes, so taking one here is safe.
 */
static void qp_event(struct ib_event *ev, void *ctx)
{
	struct ipoib_cm_conn *conn = ctx;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		/* Data before the RTU: the CM learns it is established. */
		if (conn->id)
			ib_cm_notify(conn->id, IB_EVENT_COMM_EST);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		complete(&conn->last_wqe);
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		conn->qp_error = ev->event;
		kref_get(&conn->ref);
		if (!queue_work(ipoib_cm_wq, &conn->qp_failed))
			conn_put(conn);
		break;
	default:
		break;
	}
}

/*
 * The send queue a connection's QP needs: a ring's worth if it may send,
 * else one entry for the drain marker.
 */
static unsigned int conn_sq_size(const struct ipoib_cm_conn *conn)
{
	if (!conn->can_send)
		return 1;
	return min_t(unsigned int, conn->priv->tx_size, IPOIB_CM_TX_RING);
}

/* The QP is in error: wait for its sends to come back flushed. */
static void conn_tx_drain(struct ipoib_cm_conn *conn)
{
	unsigned long deadline = jiffies + IPOIB_CM_DRAIN_TIMEOUT;

	while (ipoib_tx_outstanding(&conn->tx) &&
	       time_before(jiffies, deadline))
		usleep_range(5000, 10000);
}

/* QP gone, its completions reaped: free what never left the backlog. */
static void conn_tx_free(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;

	ipoib_tx_ring_discard(priv, &conn->tx);
	ipoib_tx_ring_free(&conn->tx);
	ipoib_waitq_purge(priv, &conn->backlog);
}

static int conn_create_qp(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;
	struct ipoib_cm_dev *cm = priv->cm;
	struct ib_qp_init_attr attr = {
		.event_handler = qp_event,
		.qp_context = conn,
		.srq = cm->pool ? cm->pool->srq : NULL,
		.cap = {
			.max_send_sge = priv->max_send_sge,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = conn->type,
	};
	unsigned int i, rq = 0;
	int ret;

	/* Without an SRQ, a ring of its own: if the peer sends on it. */
	if (!cm->pool && ipoib_cm_conn_receives(conn)) {
		rq = IPOIB_CM_NOSRQ_RING;
		attr.cap.max_recv_wr = rq;
		attr.cap.max_recv_sge = cm->rx_sge;
	}
	conn->rx_size = rq;
	/* The drain marker goes on the send queue once it is empty. */
	conn->sq_size = conn_sq_size(conn);
	if (!conn->can_send)
		attr.cap.max_send_sge = 1;
	ret = ipoib_cm_cq_take(conn, conn->sq_size + rq);
	if (ret)
		return ret;
	attr.cap.max_send_wr = conn->sq_size;
	attr.send_cq = conn->cq->cq;
	attr.recv_cq = conn->cq->cq;
	/* The SRQ's PD when there is one: its buffers' keys are of it. */
	conn->qp = ib_create_qp(ipoib_cm_pd(priv), &attr);
	if (IS_ERR(conn->qp)) {
		ret = PTR_ERR(conn->qp);
		conn->qp = NULL;
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(conn->tx_sge); i++)
		conn->tx_sge[i].lkey = ipoib_cm_pd(priv)->local_dma_lkey;
	return 0;
}

/* Move the QP to state as the CM says; sq_psn overrides when non-zero. */
static int conn_modify(struct ipoib_cm_conn *conn, enum ib_qp_state state,
		       u32 sq_psn)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(conn->id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_RTS && sq_psn)
		attr.sq_psn = sq_psn;
	ret = ib_modify_qp(conn->qp, &attr, mask);
	if (!ret && state == IB_QPS_RTR)
		conn->qp_rtr = true;
	return ret;
}

static void make_priv_data(struct ipoib_dev *priv, u8 *pd)
{
	ipoib_cm_priv_make(pd, priv->qpn, ipoib_cm_rx_mtu(priv));
}

static int cm_handler(struct ib_cm_id *id, const struct ib_cm_event *ev);

/* Initiator, from the work item: QP to INIT, then the REQ. */
static int conn_connect(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;
	u8 pd[IPOIB_CM_PRIV_LEN];
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = priv->pkey_index,
		.port_num = priv->port,
	};
	struct ib_cm_req_param req = {
		.primary_path = &conn->path,
		.qp_type = conn->type,
		.starting_psn = get_random_u32() & 0xffffff,
		.private_data = pd,
		.private_data_len = sizeof(pd),
		.remote_cm_response_timeout = 20,
		.local_cm_response_timeout = 20,
		.retry_count = IPOIB_CM_RETRY_COUNT,
		.rnr_retry_count = IPOIB_CM_RNR_RETRY_COUNT,
		.max_cm_retries = 15,
		.srq = !!priv->cm->pool,
	};
	struct ib_cm_id *id;
	int ret;

	id = ib_create_cm_id(priv->ca, cm_handler, conn);
	if (IS_ERR(id))
		return PTR_ERR(id);
	conn->id = id;
	ret = conn_create_qp(conn);
	if (ret)
		return ret;
	ret = ib_modify_qp(conn->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	ret = ipoib_cm_rx_ring_init(conn);
	if (ret)
		return ret;
	make_priv_data(priv, pd);
	req.qp_num = conn->qp->qp_num;
	req.service_id = cpu_to_be64(ipoib_cm_service_id(ipoib_addr_qpn(conn->peer),
							 conn->sid_rfc));
	ret = ib_send_cm_req(id, &req);
	if (ret)
		return ret;
	ipoib_count(priv, IPOIB_CNT_CM_REQS_SENT);
	return 0;
}

static void drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ipoib_cm_conn *conn = container_of(wc->wr_cqe,
						  struct ipoib_cm_conn,
						  drain_cqe);

	complete(&conn->drained);
}

static bool conn_outstanding(struct ipoib_cm_conn *conn)
{
	return ipoib_tx_outstanding(&conn->tx) ||
	       atomic_read(&conn->rx_posted);
}

/*
 * The QP is in error.  Once its sends and receives have come back, a
 * marker posted behind them returns through the same CQ, which one
 * context polls in order: after it, no completion is left that could
 * find the connection.
 */
static void conn_quiesce(struct ipoib_cm_conn *conn)
{
	struct ib_send_wr wr = {
		.wr_cqe = &conn->drain_cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	/* The flushes may have scheduled the poll from this task. */
	ipoib_cm_poll_kick(conn->priv);
	conn_tx_drain(conn);
	ipoib_cm_rx_ring_drain(conn);
	conn->drain_cqe.done = drain_done;
	local_bh_disable();
	ret = ib_post_send(conn->qp, &wr, NULL);
	local_bh_enable();
	if (!ret && wait_for_completion_timeout(&conn->drained,
						IPOIB_CM_DRAIN_TIMEOUT)) {
		WARN_ON_ONCE(conn_outstanding(conn));
		return;
	}
	netdev_warn(conn->priv->dev, "connection to %pI6: completions still due after %d s (%d); freeing it anyway\n",
		    ipoib_addr_gid(conn->peer), IPOIB_CM_DRAIN_TIMEOUT / HZ,
		    ret);
	WARN_ON_ONCE(1);
}

/*
 * A cm_id destroyed while it is still being set up makes the CM send a
 * REJ of its own: Consumer Reject without private data, which an RFC
 * 4755 peer takes for a lost crossing.  Ours goes first, with the reason
 * the connection was ended for and our UD QPN (RFC 4755 3.2); where the
 * state allows none (established: the destroy sends a DREQ) the CM says
 * so and nothing is sent.  Not while our own REQ or REP is out: only the
 * CM's destroy takes it back.  After a REJ of ours the CM would resend
 * the REP until its retries ran out, and the destroy would wait for
 * them (with rtnl held, on a down).
 */
static void conn_withdraw(struct ipoib_cm_conn *conn)
{
	u8 pd[IPOIB_CM_PRIV_LEN];

	switch (READ_ONCE(conn->id->state)) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		return;
	default:
		break;
	}
	make_priv_data(conn->priv, pd);
	if (!ib_send_cm_rej(conn->id, conn->rej_reason, NULL, 0, pd,
			    sizeof(pd)))
		ipoib_count(conn->priv, IPOIB_CNT_CM_REJECTS_SENT);
}

/*
 * From the work item, after the kill: unlinked, so only handlers of its
 * cm_id (which the destroy waits for) and of its QP (which the quiesce
 * waits for) can still be using it.  Then its own reference goes.
 */
static void conn_destroy(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	WARN_ON_ONCE(READ_ONCE(conn->state) != IPOIB_CM_DEAD);
	/* Dead, so nothing arms it again. */
	del_timer_sync(&conn->timer);
	/* No transmit still holds the pointer it read before the kill. */
	netif_tx_lock_bh(priv->dev);
	netif_tx_unlock_bh(priv->dev);
	/* Sends the DREQ (or REJ) the connection's state calls for. */
	if (conn->id) {
		conn_withdraw(conn);
		ib_destroy_cm_id(conn->id);
		conn->id = NULL;
	}
	if (conn->qp) {
		if (!ib_modify_qp(conn->qp, &attr, IB_QP_STATE))
			conn_quiesce(conn);
		else
			WARN_ON_ONCE(conn_outstanding(conn));
		ib_destroy_qp(conn->qp);
	}
	ipoib_cm_cq_give_back(conn);
	conn_tx_free(conn);
	ipoib_cm_rx_ring_free(conn);
	ipoib_waitq_purge(priv, &conn->queue);
	conn_put(conn);
}

static void conn_work(struct work_struct *work)
{
	struct ipoib_cm_conn *conn = container_of(work, struct ipoib_cm_conn,
						  work);
	int ret;

	/*
	 * The kill queues this once, and a work item runs one instance at
	 * a time: the connection is destroyed exactly once, here.
	 */
	if (READ_ONCE(conn->state) == IPOIB_CM_DEAD) {
		conn_destroy(conn);
		return;
	}
	if (!conn->initiator || conn->id)
		return;
	ret = conn_connect(conn);
	if (ret) {
		net_info_ratelimited("%s: cannot connect to %pI6: %d; datagrams for it\n",
				     conn->priv->dev->name,
				     ipoib_addr_gid(conn->peer), ret);
		ipoib_cm_conn_kill(conn, true);
	}
}

/*
 * Reject a REQ (or REP) with our private data and an IBA reason; a line
 * says why.  IB_CM_REJ_CONSUMER_DEFINED only for a crossing we win.
 */
static void send_rej(struct ipoib_dev *priv, struct ib_cm_id *id,
		     const union ib_gid *gid, u8 reason, const char *why)
{
	u8 pd[IPOIB_CM_PRIV_LEN];

	make_priv_data(priv, pd);
	if (!ib_send_cm_rej(id, reason, NULL, 0, pd, sizeof(pd)))
		ipoib_count(priv, IPOIB_CNT_CM_REJECTS_SENT);
	if (why)
		net_info_ratelimited("%s: refused a connection with %pI6 (REJ reason %u): %s\n",
				     priv->dev->name, gid ? gid->raw : NULL,
				     reason, why);
}

/* Our side could not set the connection up: the reason for the REJ. */
static u8 rej_reason_of(int err)
{
	return err == -ENOMEM ? IB_CM_REJ_NO_RESOURCES : IB_CM_REJ_NO_QP;
}

/* Passive side: QP through INIT, RTR and RTS, then the REP. */
static int conn_accept(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;
	u32 psn = (get_random_u32() & 0xffffff) | 1;
	u8 pd[IPOIB_CM_PRIV_LEN];
	struct ib_cm_rep_param rep = {
		.private_data = pd,
		.private_data_len = sizeof(pd),
		.rnr_retry_count = IPOIB_CM_RNR_RETRY_COUNT,
		.srq = !!priv->cm->pool,
		.starting_psn = psn,
	};
	int ret;

	ret = conn_create_qp(conn);
	if (!ret)
		ret = conn_modify(conn, IB_QPS_INIT, 0);
	if (!ret)
		ret = ipoib_cm_rx_ring_init(conn);
	if (!ret)
		ret = conn_modify(conn, IB_QPS_RTR, 0);
	if (!ret)
		ret = conn_modify(conn, IB_QPS_RTS, psn);
	if (ret)
		return ret;
	make_priv_data(priv, pd);
	rep.qp_num = conn->qp->qp_num;
	return ib_send_cm_rep(conn->id, &rep);
}

/*
 * Our own REQ for a shared connection to this peer, still unanswered; a
 * reference taken.
 */
static struct ipoib_cm_conn *pending_req(struct ipoib_dev *priv,
					 struct ipoib_cm_peer *cp)
{
	struct ipoib_cm_conn *conn;

	lockdep_assert_held(&priv->lock);
	list_for_each_entry(conn, &cp->conns, peer_link)
		if (conn->initiator && conn->shared &&
		    (conn->state == IPOIB_CM_CONNECTING ||
		     conn->state == IPOIB_CM_WAIT_PEER))
			return conn_get(conn);
	return NULL;
}

/*
 * Our REQ to this peer, accepted a moment ago.  The peer's REQ that
 * crossed it was sent before the peer's REP, but the CM may hand it to us
 * after: it lost the crossing, and the peer has let it go already.
 */
static bool req_just_won(struct ipoib_dev *priv, struct ipoib_cm_peer *cp)
{
	struct ipoib_cm_conn *conn;

	lockdep_assert_held(&priv->lock);
	list_for_each_entry(conn, &cp->conns, peer_link)
		if (conn->initiator && conn->shared &&
		    conn->state == IPOIB_CM_LIVE &&
		    time_before(jiffies,
				conn->live_since + IPOIB_CM_PEER_WAIT))
			return true;
	return false;
}

/* The shared connection we have with it already; a reference taken. */
static struct ipoib_cm_conn *live_conn(struct ipoib_dev *priv,
				       struct ipoib_cm_peer *cp)
{
	struct ipoib_cm_conn *conn;

	lockdep_assert_held(&priv->lock);
	list_for_each_entry(conn, &cp->conns, peer_link)
		if (conn->shared && conn->state == IPOIB_CM_LIVE)
			return conn_get(conn);
	return NULL;
}

/*
 * A REQ on this service ID shows the sender's form: learned under auto,
 * and whether the connection is shared follows as for our own REQs.
 */
static bool req_shared(struct ipoib_dev *priv, struct ipoib_cm_peer *cp,
		       bool sid_rfc)
{
	enum ipoib_cm_peer_form form = sid_rfc ? IPOIB_CM_PEER_RFC :
					IPOIB_CM_PEER_LINUX;
	bool unused, shared;

	if (ipoib_cm_policy == IPOIB_CM_POLICY_AUTO)
		learn_peer_form(priv, cp, form);
	ipoib_cm_req_form(ipoib_cm_policy, form, sid_rfc, &unused, &shared);
	return shared;
}

/*
 * A REQ.  Until a connection takes the id, a refusal returns an error and
 * the CM destroys the id; from then on the id is the connection's, whose
 * work item alone destroys it (ipoib_cm.h), and this returns 0 whatever
 * becomes of the accept.
 */
static int handle_req(struct ipoib_dev *priv, struct ib_cm_id *id,
		      const struct ib_cm_event *ev)
{
	const struct ib_cm_req_event_param *req = &ev->param.req_rcvd;
	const union ib_gid *gid = &req->primary_path->dgid;
	bool sid_rfc = req->listen_id == priv->cm->listen[1];
	struct ipoib_cm_conn *conn, *old = NULL;
	struct ipoib_cm_peer *cp;
	unsigned int qpn, rx_mtu;
	u8 peer[IPOIB_ALEN];
	bool shared;
	int ret;

	ipoib_count(priv, IPOIB_CNT_CM_REQS_RECEIVED);
	if (ipoib_cm_priv_parse(ev->private_data, IB_CM_REQ_PRIVATE_DATA_SIZE,
				&qpn, &rx_mtu)) {
		send_rej(priv, id, gid, IB_CM_REJ_UNSUPPORTED,
			 "private data malformed (UD QPN or receive MTU)");
		return -EINVAL;
	}
	if (!ipoib_cm_rx_mtu_usable(rx_mtu)) {
		ipoib_count(priv, IPOIB_CNT_CM_REJ_SMALL_MTU);
		send_rej(priv, id, gid, IB_CM_REJ_INVALID_MTU,
			 "receive MTU below 1284, too small for IPv6");
		return -EINVAL;
	}
	if (!req->remote_qpn) {
		send_rej(priv, id, gid, IB_CM_REJ_UNSUPPORTED, "QPN 0");
		return -EINVAL;
	}
	if (req->qp_type != IB_QPT_RC &&
	    !(req->qp_type == IB_QPT_UC && ipoib_cm_uc)) {
		send_rej(priv, id, gid, IB_CM_REJ_INVALID_TRANSPORT_TYPE,
			 "unsupported QP type");
		return -EINVAL;
	}
	ipoib_addr_make(peer, req->qp_type == IB_QPT_UC ? IPOIB_FLAG_UC :
			IPOIB_FLAG_RC, qpn, gid->raw);

	spin_lock_bh(&priv->lock);
	if (!ipoib_cm_active(priv)) {
		spin_unlock_bh(&priv->lock);
		/* Starting or stopping: not "invalid service ID", try later. */
		send_rej(priv, id, gid, IB_CM_REJ_NO_RESOURCES,
			 "not in connected mode");
		return -EINVAL;
	}
	/* Our reference, until the connection holds its own. */
	cp = ipoib_cm_peer_get(priv, peer);
	if (!cp) {
		spin_unlock_bh(&priv->lock);
		send_rej(priv, id, gid, IB_CM_REJ_NO_RESOURCES,
			 "no memory for the peer");
		return -ENOMEM;
	}
	shared = req_shared(priv, cp, sid_rfc);
	if (shared) {
		/* RFC 4755 3.3: the smaller address accepts. */
		bool larger = ipoib_addr_cmp_noflags(priv->dev->dev_addr,
						     peer) > 0;

		old = pending_req(priv, cp);
		if (old || (larger && req_just_won(priv, cp))) {
			ipoib_count(priv, IPOIB_CNT_CM_CROSSINGS);
			if (larger) {
				ipoib_cm_peer_put(cp);
				spin_unlock_bh(&priv->lock);
				if (old)
					conn_put(old);
				ipoib_dbg(priv, "REQs crossed with %pI6: ours stands\n",
					  gid->raw);
				send_rej(priv, id, gid,
					 IB_CM_REJ_CONSUMER_DEFINED, NULL);
				return -ECONNREFUSED;
			}
		} else {
			/* The peer starts afresh: the old one is stale. */
			old = live_conn(priv, cp);
		}
	}
	conn = conn_new(priv, cp, peer, false, shared);
	ipoib_cm_peer_put(cp);
	if (IS_ERR(conn)) {
		spin_unlock_bh(&priv->lock);
		if (old)
			conn_put(old);
		ret = PTR_ERR(conn);
		send_rej(priv, id, gid, ret == -ENOSPC ? IB_CM_REJ_NO_QP :
			 IB_CM_REJ_NO_RESOURCES,
			 "no room for another connection");
		return ret;
	}
	conn->sid_rfc = sid_rfc;
	conn->type = req->qp_type;
	conn->mtu = ipoib_cm_mtu(ipoib_cm_rx_mtu(priv), rx_mtu);
	conn->remote_qpn = req->remote_qpn;
	conn->id = id;
	id->context = conn;
	peer_back(priv, conn->cp);
	spin_unlock_bh(&priv->lock);

	if (old)
		conn_end_put(old, false, IB_CM_REJ_STALE_CONN);
	/*
	 * The connection may be ended meanwhile (by the set-up deadline; a
	 * down waits for us, the CM holding its listen until we return): its
	 * destroy sends its REJ and waits for us, and the accept fails.
	 */
	ret = conn_accept(conn);
	if (ret) {
		send_rej(priv, id, gid, rej_reason_of(ret),
			 "could not set up a QP");
		ipoib_cm_conn_kill(conn, false);
	}
	return 0;
}

static void handle_rep(struct ipoib_cm_conn *conn, struct ib_cm_id *id,
		       const struct ib_cm_event *ev)
{
	const union ib_gid *gid =
		(const union ib_gid *)ipoib_addr_gid(conn->peer);
	struct ipoib_dev *priv = conn->priv;
	u8 pd[IPOIB_CM_PRIV_LEN];
	unsigned int qpn, rx_mtu;
	const char *why;
	u8 reason;
	int ret;

	reason = IB_CM_REJ_UNSUPPORTED;
	why = "bad private data in the REP";
	if (ipoib_cm_priv_parse(ev->private_data, IB_CM_REP_PRIVATE_DATA_SIZE,
				&qpn, &rx_mtu) ||
	    qpn != ipoib_addr_qpn(conn->peer))
		goto bad_rep;
	if (!ipoib_cm_rx_mtu_usable(rx_mtu)) {
		ipoib_count(priv, IPOIB_CNT_CM_REJ_SMALL_MTU);
		reason = IB_CM_REJ_INVALID_MTU;
		why = "receive MTU below 1284 in the REP";
		goto bad_rep;
	}
	conn->mtu = ipoib_cm_mtu(ipoib_cm_rx_mtu(priv), rx_mtu);
	conn->remote_qpn = ev->param.rep_rcvd.remote_qpn;
	ret = conn_modify(conn, IB_QPS_RTR, 0);
	if (!ret)
		ret = conn_modify(conn, IB_QPS_RTS, 0);
	if (ret)
		goto fail;
	/* RFC 4755 3.2: every message of the set-up names our UD QPN. */
	make_priv_data(priv, pd);
	ret = ib_send_cm_rtu(id, pd, sizeof(pd));
	if (ret)
		goto fail;
	conn_set_live(conn);
	return;

bad_rep:
	send_rej(priv, id, gid, reason, why);
	ipoib_cm_conn_kill(conn, true);
	return;
fail:
	send_rej(priv, id, gid, rej_reason_of(ret), "could not bring the QP up");
	ipoib_cm_conn_kill(conn, true);
}

static void handle_rej(struct ipoib_cm_conn *conn,
		       const struct ib_cm_event *ev)
{
	struct ipoib_dev *priv = conn->priv;
	int reason = ev->param.rej_rcvd.reason;

	ipoib_count(priv, IPOIB_CNT_CM_REJECTS_RECEIVED);
	/*
	 * Auto policy: a peer without the RFC service ID is an in-tree one.
	 * Asking again at once in its form: the packets that waited go
	 * back through the send path, which finds the neighbour now knows.
	 * Should the in-tree service ID be refused the same way, the peer
	 * listens on neither (it is starting, or stopping): what was
	 * learned goes, and the RFC form is asked first next time.
	 */
	if (conn->initiator && reason == IB_CM_REJ_INVALID_SERVICE_ID) {
		if (conn->sid_rfc)
			ipoib_count(priv, IPOIB_CNT_CM_REJ_SERVICE_ID);
		if (ipoib_cm_policy == IPOIB_CM_POLICY_AUTO) {
			spin_lock_bh(&priv->lock);
			learn_peer_form(priv,
					ipoib_cm_peer_find(priv, conn->peer),
					conn->sid_rfc ? IPOIB_CM_PEER_LINUX :
					IPOIB_CM_PEER_UNKNOWN);
			spin_unlock_bh(&priv->lock);
			if (conn->sid_rfc) {
				ipoib_cm_conn_kill(conn, false);
				return;
			}
		}
	}
	/*
	 * Crossed REQs and the peer is the larger: its REQ comes to us, so
	 * hold the packets for the connection that will win.
	 */
	if (conn->initiator && conn->shared &&
	    reason == IB_CM_REJ_CONSUMER_DEFINED &&
	    ipoib_addr_cmp_noflags(priv->dev->dev_addr, conn->peer) < 0) {
		spin_lock_bh(&priv->lock);
		if (conn->state == IPOIB_CM_CONNECTING) {
			conn_set_state(conn, IPOIB_CM_WAIT_PEER);
			conn->deadline = jiffies + IPOIB_CM_PEER_WAIT;
			mod_timer(&conn->timer, conn->deadline + 1);
		}
		spin_unlock_bh(&priv->lock);
		return;
	}
	net_info_ratelimited("%s: %pI6 refused a connection (reason %d); datagrams for it\n",
			     priv->dev->name, ipoib_addr_gid(conn->peer),
			     reason);
	ipoib_cm_conn_kill(conn, true);
}

static int cm_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct ipoib_cm_conn *conn = id->context;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		return handle_req(id->context, id, ev);
	case IB_CM_REP_RECEIVED:
		handle_rep(conn, id, ev);
		break;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		conn_set_live(conn);
		break;
	case IB_CM_REJ_RECEIVED:
		handle_rej(conn, ev);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		ipoib_count(conn->priv, IPOIB_CNT_CM_DISCONNECTS);
		ipoib_cm_conn_kill(conn, false);
		break;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		net_info_ratelimited("%s: no answer from %pI6 to connection set-up; datagrams for it\n",
				     conn->priv->dev->name,
				     ipoib_addr_gid(conn->peer));
		ipoib_cm_conn_kill(conn, true);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * A connection's time is up: idle, or still not up by its deadline
 * (connecting: counted; a lost crossing whose winner never came), when
 * the peer gets datagrams for a while.  Each connection has its own
 * timer, so no walk finds them.  The destroy waits for it, and no one
 * arms it once the connection is dead: the connection's own reference
 * covers it.
 */
static void conn_timer(struct timer_list *t)
{
	struct ipoib_cm_conn *conn = from_timer(conn, t, timer);
	unsigned long idle = ipoib_cm_idle_timeout * HZ;
	struct ipoib_dev *priv = conn->priv;
	unsigned long due;
	bool failed;

	spin_lock_bh(&priv->lock);
	switch (conn->state) {
	case IPOIB_CM_DEAD:
		goto out;
	case IPOIB_CM_LIVE:
		if (!idle)
			goto out;
		due = READ_ONCE(conn->last_used) + idle;
		if (time_before_eq(jiffies, due)) {
			mod_timer(t, due + 1);
			goto out;
		}
		ipoib_count(priv, IPOIB_CNT_CM_REAPED);
		failed = false;
		break;
	default:
		if (time_before_eq(jiffies, conn->deadline)) {
			mod_timer(t, conn->deadline + 1);
			goto out;
		}
		if (conn->state == IPOIB_CM_CONNECTING) {
			ipoib_count(priv, IPOIB_CNT_CM_CONNECT_TIMEOUTS);
			net_info_ratelimited("%s: connection to %pI6 not up after %u s; datagrams for it\n",
					     priv->dev->name,
					     ipoib_addr_gid(conn->peer),
					     IPOIB_CM_CONNECT_TIMEOUT / HZ);
		}
		failed = true;
	}
	spin_unlock_bh(&priv->lock);
	conn_end(conn, failed, IB_CM_REJ_TIMEOUT);
	return;
out:
	spin_unlock_bh(&priv->lock);
}

int ipoib_cm_dev_init(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm;
	int ret;

	if (!rdma_cap_ib_cm(priv->ca, priv->port))
		return 0;
	cm = kzalloc(sizeof(*cm), GFP_KERNEL);
	if (!cm)
		return -ENOMEM;
	ret = ipoib_cm_peer_table_init(cm);
	if (ret) {
		kfree(cm);
		return ret;
	}
	cm->priv = priv;
	cm->conn_kill = ipoib_cm_conn_kill;
	INIT_LIST_HEAD(&cm->conns);
	INIT_LIST_HEAD(&cm->cqs);
	mutex_init(&cm->cq_lock);
	netif_napi_add(priv->dev, &cm->napi, ipoib_cm_poll);
	priv->cm = cm;
	return 0;
}

void ipoib_cm_dev_cleanup(struct ipoib_dev *priv)
{
	if (priv->cm) {
		netif_napi_del(&priv->cm->napi);
		mutex_destroy(&priv->cm->cq_lock);
		ipoib_cm_peer_table_destroy(priv->cm);
	}
	kfree(priv->cm);
	priv->cm = NULL;
}

static void stop_listening(struct ipoib_cm_dev *cm)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cm->listen); i++) {
		if (cm->listen[i])
			ib_destroy_cm_id(cm->listen[i]);
		cm->listen[i] = NULL;
	}
}

/* UD QP up, connected mode chosen: start listening. */
int ipoib_cm_up(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	unsigned int i;
	int ret;

	lockdep_assert_held(&priv->state_lock);
	if (!cm || !ipoib_mode_connected(priv) ||
	    test_bit(IPOIB_CM_RUNNING, &priv->flags))
		return 0;
	ret = ipoib_cm_rx_init(priv);
	if (ret)
		return ret;
	ret = ipoib_cm_cq_init(priv);
	if (ret) {
		ipoib_cm_rx_cleanup(priv);
		return ret;
	}
	/*
	 * The RFC service ID first: a peer that finds the in-tree one
	 * without it would take us for an in-tree peer.
	 */
	for (i = ARRAY_SIZE(cm->listen); i-- > 0;) {
		struct ib_cm_id *id = ib_create_cm_id(priv->ca, cm_handler,
						      priv);

		if (IS_ERR(id)) {
			ret = PTR_ERR(id);
			goto fail;
		}
		cm->listen[i] = id;
		ret = ib_cm_listen(id, cpu_to_be64(ipoib_cm_service_id(priv->qpn,
								       i)));
		if (ret)
			goto fail;
	}
	set_bit(IPOIB_CM_RUNNING, &priv->flags);
	return 0;

fail:
	netdev_warn(priv->dev, "cannot listen for connections: %d; datagrams only\n",
		    ret);
	stop_listening(cm);
	ipoib_cm_cq_cleanup(priv);
	ipoib_cm_rx_cleanup(priv);
	return ret;
}

/*
 * The port is active again after it went down.  While it was down the
 * peers may have ended their halves of our connections with a DREQ we
 * never saw; a send on such a half would only find out after the QP's
 * retries.  Every connection ends now, when our DREQs reach the peers,
 * and the next packets make new ones.
 */
void ipoib_cm_port_back(struct ipoib_dev *priv)
{
	unsigned int n;

	lockdep_assert_held(&priv->state_lock);
	if (!ipoib_cm_active(priv))
		return;
	n = end_older(priv, MATCH_ALL, NULL, IB_CM_REJ_TIMEOUT);
	if (!n)
		return;
	atomic_long_add(n, &priv->counters[IPOIB_CNT_CM_PORT_FLAP_ENDS]);
	netdev_info(priv->dev, "port %u came back: %u connection%s ended, new ones on demand\n",
		    priv->port, n, n == 1 ? "" : "s");
}

/* Every connection torn down, nothing listens. */
void ipoib_cm_down(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;

	lockdep_assert_held(&priv->state_lock);
	if (!cm || !test_and_clear_bit(IPOIB_CM_RUNNING, &priv->flags))
		return;
	stop_listening(cm);
	/* Not running: a send that raced with the bit makes the last one. */
	while (end_older(priv, MATCH_ALL, NULL, IB_CM_REJ_NO_RESOURCES))
		;
	flush_workqueue(ipoib_cm_wq);
	ipoib_cm_cq_cleanup(priv);
	ipoib_cm_rx_cleanup(priv);
}

void ipoib_cm_debugfs_show(struct seq_file *m, struct ipoib_dev *priv)
{
	struct ipoib_cm_conn *conn;

	if (!priv->cm) {
		seq_puts(m, "# connected mode unsupported on this port\n");
		return;
	}
	seq_printf(m, "# mode %s, policy %s, %s, receive %s\n",
		   ipoib_mode_connected(priv) ? "connected" : "datagram",
		   policy_names[ipoib_cm_policy],
		   ipoib_cm_uc ? "RC+UC" : "RC",
		   priv->cm->pool ? "SRQ" : "per-QP rings");
	seq_puts(m, "peer qpn remote_qpn type mtu age_s idle_s state role txq form\n");
	spin_lock_bh(&priv->lock);
	list_for_each_entry(conn, &priv->cm->conns, link)
		seq_printf(m, "%*phC 0x%06x 0x%06x %s %u %u %u %s %s %u %s-%s\n",
			   IPOIB_ALEN, conn->peer,
			   conn->qp ? conn->qp->qp_num : 0,
			   conn->remote_qpn,
			   conn->type == IB_QPT_UC ? "UC" : "RC", conn->mtu,
			   jiffies_to_msecs(jiffies - conn->created) / 1000,
			   jiffies_to_msecs(jiffies - READ_ONCE(conn->last_used)) / 1000,
			   conn_state_name(conn->state),
			   conn->initiator ? "initiator" : "passive",
			   conn->tx.txq,
			   conn->shared ? "shared" : "oneway",
			   conn->sid_rfc ? "rfc" : "linux");
	spin_unlock_bh(&priv->lock);
}

static const char *const form_names[] = {
	[IPOIB_CM_PEER_UNKNOWN] = "unknown",
	[IPOIB_CM_PEER_LINUX] = "linux",
	[IPOIB_CM_PEER_RFC] = "rfc",
};

/* Do both lookups find the peer?  debugfs's check of the table. */
static const char *peer_lookup_check(struct ipoib_dev *priv,
				     struct ipoib_cm_peer *cp)
{
	const union ib_gid *gid =
		(const union ib_gid *)ipoib_addr_gid(cp->addr);
	struct ipoib_cm_peer *at;
	struct rhlist_head *pos;
	bool by_gid = false;

	if (ipoib_cm_peer_find(priv, cp->addr) != cp)
		return "addr-miss";
	rcu_read_lock();
	rhl_for_each_entry_rcu(at, pos, ipoib_cm_peers_at(priv, gid), gid_node)
		by_gid |= at == cp;
	rcu_read_unlock();
	return by_gid ? "ok" : "gid-miss";
}

/* The peer table: one line per peer, and whether the lookups find it. */
void ipoib_cm_peers_show(struct seq_file *m, struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_peer *cp;
	struct ipoib_cm_conn *tx;
	unsigned int n = 0;

	if (!cm) {
		seq_puts(m, "# connected mode unsupported on this port\n");
		return;
	}
	spin_lock_bh(&priv->lock);
	list_for_each_entry(cp, &cm->peer_list, all_link)
		n++;
	/* A GID that several peers share is one key of its index. */
	seq_printf(m, "# %u peers, %u by address, at %u GIDs\n", n,
		   atomic_read(&cm->peers.nelems),
		   atomic_read(&cm->peers_by_gid.ht.nelems));
	seq_puts(m, "peer lookup form form_age_s backoff_ms retry_in_ms conns sending\n");
	list_for_each_entry(cp, &cm->peer_list, all_link) {
		struct ipoib_cm_conn *conn;
		unsigned int conns = 0;

		list_for_each_entry(conn, &cp->conns, peer_link)
			conns++;
		tx = rcu_dereference_protected(cp->tx,
					       lockdep_is_held(&priv->lock));
		seq_printf(m, "%*phC %s %s %u %u %u %u %s\n",
			   IPOIB_ALEN, cp->addr,
			   peer_lookup_check(priv, cp),
			   form_names[cp->form],
			   cp->form_at ?
			   jiffies_to_msecs(jiffies - cp->form_at) / 1000 : 0,
			   jiffies_to_msecs(cp->backoff),
			   time_after(cp->retry_at, jiffies) ?
			   jiffies_to_msecs(cp->retry_at - jiffies) : 0,
			   conns,
			   tx ? conn_state_name(tx->state) : "none");
	}
	spin_unlock_bh(&priv->lock);
}
