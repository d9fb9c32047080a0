/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connected mode (RFC 4755), shared by ipoib_cm.c (connections and the CM
 * protocol), ipoib_cm_tx.c (send) and ipoib_cm_rx.c (receive).
 *
 * A connection is one RC or UC QP with its ib_cm_id.  A "shared" one is
 * the only connection a pair of interfaces has and either end sends on it
 * (RFC 4755 3.3); otherwise each end sends only on the one it opened, as
 * the in-tree driver does.  The policy decides which: "compatible" never
 * shares, "rfc" always does, "auto" shares with peers that use the RFC's
 * service ID and learns per peer.
 *
 * What connected mode knows of a peer (the interface at a link address,
 * flags aside) is in one struct ipoib_cm_peer per peer: what it showed
 * of itself, its backoff, the connection we send to it on and every
 * connection to or from it.  Peers are found by address in cm->peers and
 * by GID in cm->peers_by_gid (a GID is not one peer: a host's P_Key
 * children share it, and a reloaded peer comes back with another QPN),
 * so no event walks every connection or neighbour (ipoib_cm_peer.c).  A
 * peer holds a reference for each neighbour that points at it and each
 * connection linked to it; the last one unhashes it, under priv->lock,
 * and frees it after an RCU grace period: the transmit path reads
 * neigh->cm_peer, then peer->tx, under RCU.
 *
 * Connections share a few CQs per interface (ipoib_cm_cq.c), which one
 * NAPI instance polls: a QP's sends and receives complete on the same CQ,
 * and its handlers find the connection as the QP's context.  A connection
 * is freed only once a marker posted after its last work request has come
 * back through that CQ: nothing of it is left there (ipoib_cm.c,
 * conn_quiesce()).
 *
 * Receive buffers sit on one SRQ per HCA port, shared by the interface
 * and its P_Key children in connected mode (ipoib_cm_pool.c has the
 * rules), or without an SRQ on a ring per QP.
 *
 * Lifetime (ipoib_cm.c has the code): a connection holds a reference for
 * itself from conn_new() until its work item has torn it down; whoever
 * finds one under priv->lock and uses it after dropping the lock takes a
 * reference first.  The last reference frees it after an RCU grace
 * period, because the transmit path reads neigh->cm under RCU and a TX
 * queue's lock without one.  Ending it (ipoib_cm_conn_kill()) may be
 * asked any number of times, from any context: the first unlinks it, and
 * only its work item destroys its cm_id and QP, once.
 */
#ifndef IPOIB_CM_H
#define IPOIB_CM_H

#include <rdma/ib_cm.h>
#include "ipoib.h"

#define IPOIB_CM_BUF_SIZE	(IPOIB_CM_MAX_MTU + IPOIB_ENCAP_LEN)
#define IPOIB_CM_HEAD_SIZE	512	/* linear part of a receive buffer */
#define IPOIB_CM_RX_PAGES	DIV_ROUND_UP(IPOIB_CM_BUF_SIZE - \
					     IPOIB_CM_HEAD_SIZE, PAGE_SIZE)
#define IPOIB_CM_RX_SGE		(IPOIB_CM_RX_PAGES + 1)
#define IPOIB_CM_NOSRQ_RING	64	/* receives per QP without an SRQ */
/*
 * Sends a connection has posted, at most: each holds a WQE of up to 18
 * SGEs in the HCA and a slot here, for as long as the connection lives.
 * 16 packets of up to 64 KiB keep an RC connection busy; more wait in the
 * backlog, which costs nothing while empty.
 */
#define IPOIB_CM_TX_RING	16
/* CQ entries a shared CQ offers connections beyond the SRQ's receives. */
#define IPOIB_CM_CQ_SEATS	512
/*
 * A connection not up by then is given up: what waited for it goes over
 * UD, and the peer gets datagrams until its backoff ends.  Long enough
 * for the CM to resend a lost REQ or REP once or twice.
 */
#define IPOIB_CM_CONNECT_TIMEOUT (10 * HZ)
/* Auto policy: how long a peer's in-tree form is trusted (see ipoib.rst). */
#define IPOIB_CM_FORM_TTL	(10 * 60 * HZ)
/* A crossing settles within this: the REQ that won, or the one that lost. */
#define IPOIB_CM_PEER_WAIT	(3 * HZ)
#define IPOIB_CM_RETRY_MIN	HZ
#define IPOIB_CM_RETRY_MAX	(64 * HZ)
#define IPOIB_CM_DRAIN_TIMEOUT	(5 * HZ)
/*
 * RFC 4755 7.1: RC retries short next to TCP's timers.  A peer that takes
 * nothing for a few RNR timers fails the connection (datagrams for it,
 * then a new try) instead of holding its packets without end.
 */
#define IPOIB_CM_RETRY_COUNT	3
#define IPOIB_CM_RNR_RETRY_COUNT 3

enum ipoib_cm_policy {
	IPOIB_CM_POLICY_COMPATIBLE,
	IPOIB_CM_POLICY_RFC,
	IPOIB_CM_POLICY_AUTO,
};

/*
 * What a peer has shown of itself (auto policy), kept with its
 * struct ipoib_cm_peer with the time it was learned.
 */
enum ipoib_cm_peer_form {
	IPOIB_CM_PEER_UNKNOWN,		/* REQ to the RFC service ID first */
	IPOIB_CM_PEER_LINUX,		/* in-tree service ID, one-way pairs */
	IPOIB_CM_PEER_RFC,		/* RFC service ID, one shared connection */
};

/* Module parameters (ipoib_cm.c). */
extern int ipoib_cm_policy;

enum ipoib_cm_state {
	IPOIB_CM_CONNECTING,	/* REQ sent, or REQ taken and REP sent */
	IPOIB_CM_LIVE,		/* established: RTU sent or received */
	IPOIB_CM_WAIT_PEER,	/* our REQ lost a crossing; theirs comes */
	IPOIB_CM_DEAD,		/* unlinked, being torn down */
};

/* A receive buffer: a small linear head, then pages for the rest. */
struct ipoib_cm_rx_buf {
	struct ib_cqe cqe;
	struct sk_buff *skb;
	struct page *pages[IPOIB_CM_RX_PAGES];
	/* The head's mapping, then the pages': posted just as they are. */
	struct ib_sge sge[IPOIB_CM_RX_SGE];
	bool posted;
};

/*
 * What receive buffers are made of and posted with: an interface's own
 * (per-QP rings) or its port's pool's.
 */
struct ipoib_cm_bufs {
	struct ib_device *ca;
	struct ipoib_rx_pages *pages;
	u32 lkey;
	unsigned int nsge;		/* the head, then pages */
};

/*
 * One SRQ and its buffers for every interface of an HCA port in
 * connected mode (ipoib_cm_pool.c).  Refcounted by those interfaces.
 */
struct ipoib_cm_pool {
	struct list_head link;		/* the pools, under their mutex */
	struct list_head users;		/* ipoib_cm_dev.pool_link, same */
	unsigned int nr_users;
	struct ib_device *ca;
	u32 port;
	struct ib_pd *pd;		/* the SRQ's and its QPs' */
	struct ib_srq *srq;
	/* Receive completions: ipoib_cm_rx.c's handler, set at creation. */
	void (*done)(struct ib_cq *cq, struct ib_wc *wc);
	unsigned int max_wr;		/* the SRQ's WQEs: CQs hold as many */
	struct ipoib_rx_pages pages;
	struct ipoib_cm_bufs bufs;
	struct ipoib_cm_rx_buf *ring;	/* max_wr buffers, filled or not */
	spinlock_t lock;		/* free, nr_free; nr_bufs's changes */
	unsigned int *free;		/* indexes of empty buffers */
	unsigned int nr_free;
	/* Filled: posted or being handled; read anywhere, no lock. */
	unsigned int nr_bufs;
	/* Changed under mutex, read anywhere. */
	unsigned int target;		/* nr_bufs follows it */
	unsigned int ceiling;		/* target's most: the users' rings */
	bool low;			/* the limit fired, not re-armed yet */
	bool no_limit;			/* the HCA refused the SRQ limit */
	bool dying;			/* the work must not touch the SRQ */
	struct mutex mutex;		/* target, arming the limit */
	unsigned long low_at;		/* last limit event */
	struct delayed_work work;	/* grow, re-arm, shrink */
	atomic_long_t grows, shrinks;
};

/* A CQ connections share; each takes seats for what it can have posted. */
struct ipoib_cm_cq {
	struct list_head link;		/* cm->cqs: RCU, changed under cq_lock */
	struct ib_cq *cq;
	unsigned int seats;		/* entries no connection has taken */
	unsigned int nr_conns;
};

/* A peer and what we know of it; see the top of this file. */
struct ipoib_cm_peer {
	u8 addr[IPOIB_ALEN];		/* flags zeroed; the key from addr[1] */
	struct rhash_head node;		/* cm->peers, by QPN and GID */
	struct rhlist_head gid_node;	/* cm->peers_by_gid */
	struct list_head all_link;	/* cm->peer_list */
	struct ipoib_dev *priv;
	struct kref ref;		/* taken and dropped under priv->lock */
	/* The rest under priv->lock; tx read under RCU too. */
	struct ipoib_cm_conn __rcu *tx;	/* the one we send on, if any */
	struct list_head conns;		/* every linked one, to or from it */
	unsigned long retry_at;		/* after a failure: UD until then */
	unsigned long backoff;
	u8 form;			/* enum ipoib_cm_peer_form */
	unsigned long form_at;		/* ... learned then */
	struct rcu_head rcu;
};

struct ipoib_cm_conn {
	struct ipoib_dev *priv;
	struct kref ref;		/* see the top of this file */
	struct list_head link;		/* cm->conns, under priv->lock */
	/* Its peer, holding a reference while linked (not DEAD). */
	struct ipoib_cm_peer *cp;
	struct list_head peer_link;	/* cp->conns, under priv->lock */
	struct ib_cm_id *id;
	struct ib_qp *qp;
	struct ipoib_cm_cq *cq;		/* sends and receives complete here */
	unsigned int cq_seats;		/* taken on cq */
	unsigned int sq_size;		/* the QP's send queue */
	enum ib_qp_type type;
	u8 peer[IPOIB_ALEN];		/* the peer's link address */
	struct sa_path_rec path;	/* initiator: where the REQ goes */
	unsigned int mtu;		/* IPoIB MTU over this connection */
	u32 remote_qpn;			/* the peer's RC/UC QP */
	/* Written under priv->lock, read without it by the transmit path. */
	enum ipoib_cm_state state;
	u8 rej_reason;			/* for a REJ when torn down unfinished */
	bool initiator;
	bool shared;			/* the pair's only one: both ends send */
	bool sid_rfc;			/* REQ to (or taken on) RFC service ID */
	bool can_send;			/* ours to send on: initiator or shared */
	bool failed;			/* died of an error: back off */
	u64 seq;			/* made after every lower one */
	unsigned long created;
	unsigned long deadline;		/* connecting or wait-peer ends by then */
	struct timer_list timer;	/* the deadline, or idle when live */
	unsigned long live_since;
	unsigned long last_used;	/* last send or receive */
	struct ipoib_waitq queue;	/* sends waiting for LIVE */
	struct work_struct work;	/* start, then tear down */
	struct work_struct qp_failed;	/* the HCA failed the QP: end it */
	enum ib_event_type qp_error;	/* ... with this event */
	struct completion last_wqe;	/* SRQ: the QP let go of it */
	bool qp_rtr;			/* reached RTR: may take SRQ buffers */
	struct ib_cqe drain_cqe;	/* the marker after the last request */
	struct completion drained;	/* ... came back */

	/*
	 * Send ring, made at the first send (sq_size entries), and when it
	 * is full, the backlog: ipoib_tx.c's rules.  Both are guarded by
	 * the lock of TX queue tx.txq, given once before the first send
	 * (ipoib_cm_tx.c).
	 */
	struct ipoib_tx_ring tx;
	struct ipoib_waitq backlog;
	struct ib_sge tx_sge[MAX_SKB_FRAGS + 1];

	/*
	 * Without an SRQ: this QP's own receive ring, of rx_size buffers;
	 * none when the peer never sends on the connection.
	 */
	struct ipoib_cm_rx_buf *rx_ring;
	unsigned int rx_size;
	atomic_t rx_posted;

	struct rcu_head rcu;
};

struct ipoib_cm_dev {
	struct ipoib_dev *priv;
	struct ib_cm_id *listen[2];	/* in-tree and RFC service IDs */
	struct list_head conns;		/* under priv->lock: interface-wide */
	unsigned int nr_conns;
	/* Peers (ipoib_cm_peer.c), changed under priv->lock. */
	struct rhashtable peers;	/* by address, flags aside */
	struct rhltable peers_by_gid;
	struct list_head peer_list;	/* debugfs and teardown walk this */
	u64 last_seq;			/* the newest connection's seq */
	struct ipoib_rx_pages pages;	/* per-QP rings' buffers' pages */
	struct ipoib_cm_bufs own_bufs;	/* per-QP rings' buffers */
	struct ipoib_cm_pool *pool;	/* the port's SRQ; NULL: per-QP rings */
	struct list_head pool_link;	/* pool->users */
	unsigned int pool_want;		/* our ring size: the pool's ceiling */
	unsigned int rx_sge;		/* per buffer: the head, then pages */
	bool behind;			/* the last poll used all its budget */
	struct list_head cqs;		/* struct ipoib_cm_cq, the first stays */
	struct mutex cq_lock;		/* changes to cqs; the poll reads it */
	struct napi_struct napi;	/* polls every CQ in cqs */
	/* The poll's alone: on the stack it would be zeroed on every poll. */
	struct ib_wc wcs[IPOIB_POLL_BATCH];
	/*
	 * A receive failed: the connection ends (ipoib_cm_conn_kill()).
	 * Handed down by ipoib_cm.c to the receive side below it.
	 */
	void (*conn_kill)(struct ipoib_cm_conn *conn, bool failed);
};

/* ipoib_cm_cq.c */
int ipoib_cm_poll(struct napi_struct *napi, int budget);
void ipoib_cm_poll_kick(struct ipoib_dev *priv);
int ipoib_cm_cq_init(struct ipoib_dev *priv);
void ipoib_cm_cq_cleanup(struct ipoib_dev *priv);
int ipoib_cm_cq_take(struct ipoib_cm_conn *conn, unsigned int seats);
void ipoib_cm_cq_give_back(struct ipoib_cm_conn *conn);

/* ipoib_cm_pool.c */
int ipoib_cm_buf_get(const struct ipoib_cm_bufs *b, unsigned int npages,
		     struct napi_struct *napi, struct sk_buff **skbp,
		     struct page **pages, u64 *mapping);
int ipoib_cm_buf_fill(const struct ipoib_cm_bufs *b,
		      struct ipoib_cm_rx_buf *buf);
void ipoib_cm_buf_free(const struct ipoib_cm_bufs *b,
		       struct ipoib_cm_rx_buf *buf);
void ipoib_cm_buf_head_unmap(const struct ipoib_cm_bufs *b,
			     struct ipoib_cm_rx_buf *buf);
struct ipoib_cm_pool *ipoib_cm_pool_get(struct ipoib_dev *priv,
					unsigned int nsge,
					void (*done)(struct ib_cq *cq,
						     struct ib_wc *wc));
void ipoib_cm_pool_put(struct ipoib_dev *priv);
int ipoib_cm_pool_check_params(void);
void ipoib_cm_pool_recycle(struct ipoib_cm_pool *pool,
			   struct ipoib_cm_rx_buf *buf);
void ipoib_cm_pool_stats(struct ipoib_dev *priv, u64 *v);

/* ipoib_cm_rx.c */
int ipoib_cm_rx_init(struct ipoib_dev *priv);
void ipoib_cm_rx_cleanup(struct ipoib_dev *priv);
int ipoib_cm_rx_ring_init(struct ipoib_cm_conn *conn);
void ipoib_cm_rx_ring_drain(struct ipoib_cm_conn *conn);
void ipoib_cm_rx_ring_free(struct ipoib_cm_conn *conn);
u64 ipoib_cm_rx_pages_new(struct ipoib_dev *priv);
unsigned int ipoib_cm_rx_mtu(const struct ipoib_dev *priv);

/* ipoib_cm_peer.c */
int ipoib_cm_peer_table_init(struct ipoib_cm_dev *cm);
void ipoib_cm_peer_table_destroy(struct ipoib_cm_dev *cm);
struct ipoib_cm_peer *ipoib_cm_peer_find(struct ipoib_dev *priv,
					 const u8 *addr);
struct rhlist_head *ipoib_cm_peers_at(struct ipoib_dev *priv,
				      const union ib_gid *gid);
struct ipoib_cm_peer *ipoib_cm_peer_get(struct ipoib_dev *priv,
					const u8 *addr);
void ipoib_cm_peer_put(struct ipoib_cm_peer *peer);

/* ipoib_cm.c */
extern struct workqueue_struct *ipoib_cm_wq;
void ipoib_cm_conn_kill(struct ipoib_cm_conn *conn, bool failed);
void ipoib_cm_req_form(int policy, enum ipoib_cm_peer_form form,
		       bool sid_param_rfc, bool *sid_rfc, bool *shared);
enum ipoib_cm_peer_form ipoib_cm_form_now(enum ipoib_cm_peer_form form,
					  unsigned long learned,
					  unsigned long now);
struct ipoib_cm_conn *ipoib_cm_conn_start(struct ipoib_dev *priv,
					  struct ipoib_neigh *neigh,
					  struct ipoib_cm_peer *peer);
struct ipoib_cm_conn *ipoib_cm_find_sendable(struct ipoib_cm_peer *peer);
int ipoib_cm_check_params(void);
int ipoib_cm_module_init(void);
void ipoib_cm_module_exit(void);
int ipoib_cm_dev_init(struct ipoib_dev *priv);
void ipoib_cm_dev_cleanup(struct ipoib_dev *priv);
bool ipoib_cm_supported(const struct ipoib_dev *priv);
u8 ipoib_cm_addr_flags(void);
int ipoib_cm_up(struct ipoib_dev *priv);
void ipoib_cm_down(struct ipoib_dev *priv);
void ipoib_cm_port_back(struct ipoib_dev *priv);
void ipoib_cm_peer_moved(struct ipoib_dev *priv, const union ib_gid *gid);
struct seq_file;
void ipoib_cm_debugfs_show(struct seq_file *m, struct ipoib_dev *priv);
void ipoib_cm_peers_show(struct seq_file *m, struct ipoib_dev *priv);

/* ipoib_cm_tx.c */
bool ipoib_cm_xmit(struct ipoib_dev *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb);
bool ipoib_cm_xmit_new(struct ipoib_dev *priv, struct sk_buff *skb,
		       const u8 *daddr);
u16 ipoib_cm_select_queue(struct ipoib_neigh *neigh, const struct sk_buff *skb);
bool ipoib_cm_xmit_txq(struct ipoib_dev *priv, unsigned int txq,
		       struct ipoib_neigh *neigh, struct sk_buff *skb);

/*
 * Does the peer send on this connection?  On a one-way one we opened it
 * never does (the in-tree form): its QP needs no receive buffers.
 */
static inline bool ipoib_cm_conn_receives(const struct ipoib_cm_conn *conn)
{
	return conn->shared || !conn->initiator;
}

/*
 * The pool is at its ceiling and its SRQ ran low: an interface whose
 * poll cannot keep up gives its buffers back without taking the packets
 * up (ipoib_cm_pool.c says why).
 */
static inline bool ipoib_cm_pool_pressed(const struct ipoib_cm_pool *pool)
{
	return READ_ONCE(pool->low) &&
	       READ_ONCE(pool->target) >= READ_ONCE(pool->ceiling);
}

/* What connections receive into: the port's pool, or their own rings. */
static inline const struct ipoib_cm_bufs *
ipoib_cm_bufs(const struct ipoib_cm_dev *cm)
{
	return cm->pool ? &cm->pool->bufs : &cm->own_bufs;
}

/* Connections' QPs are made on the SRQ's PD when there is one. */
static inline struct ib_pd *ipoib_cm_pd(const struct ipoib_dev *priv)
{
	return priv->cm->pool ? priv->cm->pool->pd : priv->pd;
}

/* ethtool -S, after the rings': the pool's figures (ipoib_cm_pool.c). */
#define IPOIB_CM_POOL_NR_STATS	6

/* Traffic keeps a connection from being reaped. */
static inline void ipoib_cm_touch(struct ipoib_cm_conn *conn)
{
	ipoib_stamp_used(&conn->last_used);
}

#endif /* IPOIB_CM_H */
