/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IP over InfiniBand: the interface's state and the types every file of
 * the driver shares.  Each file's functions are declared in a header of
 * its own, ipoib_tx.h for ipoib_tx.c and so on, and connected mode's in
 * ipoib_cm.h with its types; a file includes the headers of what it uses.
 * The files, in their layers from the bottom up (Documentation/layers.rst;
 * a file uses only its own layer and those below, tests/lint/layers):
 *
 *   ipoib_params.c     module parameters and the SA client
 *   ipoib_fault.c      allocation failures on demand (fault-injection
 *                      kernels only; ipoib_fault.h)
 *   ipoib_pmtu.c       packets too big: dropped, their senders told (ICMP)
 *
 *   ipoib_verbs.c      QP and CQ set-up and state changes
 *   ipoib_ah.c         address handle lifetime
 *   ipoib_rx_pages.c   receive pages recycled through a page_pool
 *   ipoib_tx.c         send rings of every QP: room, mapping, queue
 *                      control; the staged queue
 *   ipoib_waitq.c      packets waiting for a path, a join, a connection
 *                      or ring room: one limit policy, drops counted
 *   ipoib_cm_cq.c      connected mode: the CQs connections share
 *   ipoib_cm_pool.c    connected mode: receive buffers, and the SRQ pool
 *                      an HCA port's interfaces share
 *
 *   ipoib_rx.c         what both modes do with a received buffer
 *                      (its per-packet steps inline in ipoib_rx.h)
 *   ipoib_ib.c         UD data path: rings, NAPI, send, receive
 *   ipoib_cm_rx.c      connected mode: receive, from the port's pool or
 *                      per-connection rings
 *
 *   ipoib_link.c       header ops, link address, MTU rules, statistics
 *
 *   ipoib_neigh.c      neighbours (20-byte address -> AH, QPN, connection)
 *   ipoib_path.c       SA path records and unicast address handles
 *   ipoib_multicast.c  groups, joins, leaves, send-only groups
 *   ipoib_cm.c         connected mode (RFC 4755): connections, CM protocol
 *
 *   ipoib_cm_tx.c      connected mode: choosing RC/UC or UD, send, PMTU
 *   ipoib_xmit.c       where a packet goes; packets that waited, sent again
 *   ipoib_netpoll.c    netpoll's (netconsole's) Ethernet frames, sent on UD
 *
 *   ipoib_state.c      data path up and down, mode, ring resize, link task
 *   ipoib_events.c     port events and the flushes they call for
 *
 *   ipoib_ethtool.c, ipoib_debugfs.c
 *                      what users touch
 *   ipoib_vf.c         SR-IOV VFs' GUIDs and link state, through the HCA
 *   ipoib_rdma_cm.c    which interface owns an address, for rdma_cm
 *   ipoib_selftest.c   pure rules checked at load (selftest=1)
 *
 *   ipoib_netdev.c     the net_device: ops table, set-up, init, making one
 *
 *   ipoib_child.c      P_Key child interfaces
 *   ipoib_sysfs.c, ipoib_netlink.c
 *                      their configuration: mode, umcast, children
 *
 *   ipoib_main.c       module, ib_client, creating a port's interfaces
 */
#ifndef IPOIB_H
#define IPOIB_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/rhashtable.h>
#include <linux/workqueue.h>
#include <linux/u64_stats_sync.h>
#include <linux/ipv6.h>
#include <net/ndisc.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_sa.h>
#include "compat.h"
#include "ipoib_wire.h"
/* Last: it rewrites the allocator calls of the files that include us. */
#include "ipoib_fault.h"

#define DRV_NAME		KBUILD_MODNAME
#define DRV_VERSION		"1.0"

#define IPOIB_HARD_LEN		(IPOIB_PSEUDO_LEN + IPOIB_ENCAP_LEN)
#define IPOIB_PSEUDO_LEN	IPOIB_ALEN	/* destination, ahead of the header */
#define IPOIB_NEIGH_IDLE	(60 * HZ)	/* unused neighbours age out */
#define IPOIB_GC_INTERVAL	(10 * HZ)
#define IPOIB_SENDONLY_IDLE_S	60	/* unused send-only groups are left */
#define IPOIB_RETRY_MIN		(HZ / 10)	/* backoff for SA retries */
#define IPOIB_RETRY_MAX		(16 * HZ)
#define IPOIB_PATH_TIMEOUT_MS	1000
#define IPOIB_DEFAULT_QKEY	0x0000000b	/* broadcast group we create */
#define IPOIB_POLL_BATCH	16	/* completions a poll reads at once */
#define IPOIB_RX_COPYBREAK	256	/* packets up to this are copied */
#define IPOIB_MIN_QUEUE		64	/* ring sizes, entries */
#define IPOIB_MAX_QUEUE		8192
#define IPOIB_MAX_SEND_QUEUES	8	/* netdev TX queues, UD send QPs */

/* Module parameters and the SA client (ipoib_params.c). */
extern unsigned int ipoib_sendq_size;
extern unsigned int ipoib_recvq_size;
extern unsigned int ipoib_send_queues;
extern int ipoib_debug_level;
extern int ipoib_mcast_debug_level;
extern struct ib_sa_client ipoib_sa_client;

struct ipoib_dev;
struct ipoib_cm_peer;

/* The link-layer header that follows the GRH on the wire. */
struct ipoib_header {
	__be16 proto;
	__be16 reserved;
};

/* Ahead of the IPoIB header in a TX skb: where the packet goes. */
struct ipoib_pseudo_header {
	u8 hwaddr[IPOIB_ALEN];
};

static inline void ipoib_push_pseudo_header(struct sk_buff *skb,
					    const u8 *daddr)
{
	struct ipoib_pseudo_header *ph = skb_push(skb, sizeof(*ph));

	memcpy(ph->hwaddr, daddr, IPOIB_ALEN);
}

/*
 * What a waiting queue waits for (ipoib_waitq.c has the rules of each).
 * The first three are guarded by priv->lock, the last by the transmit
 * lock.
 */
enum ipoib_waitq_kind {
	IPOIB_WAITQ_PATH,		/* a unicast neighbour's path */
	IPOIB_WAITQ_JOIN,		/* a group's join */
	IPOIB_WAITQ_CONNECT,		/* a connection to come up */
	IPOIB_WAITQ_RING,		/* room in a live connection's ring */
	IPOIB_WAITQ_KINDS
};

/* Packets waiting before they can be sent: ipoib_waitq.c's only. */
struct ipoib_waitq {
	struct sk_buff_head skbs;	/* its lock unused: the owner's guards it */
	enum ipoib_waitq_kind kind;
	unsigned int txq;		/* a backlog's: the TX queue guarding it */
};

/*
 * An address handle shared by paths, groups and neighbours.  It dies when
 * the last user lets go, but is only destroyed once no xmit can still be
 * using it: an RCU grace period, then every send posted by then completed.
 */
struct ipoib_ah {
	struct ib_ah *ah;
	struct ipoib_dev *priv;
	struct kref ref;
	struct list_head dead_link;
	unsigned long rcu_cookie;
	/* Each UD send ring's head when the grace period ended */
	unsigned int drain_to[IPOIB_MAX_SEND_QUEUES];
	bool draining;
};

struct ipoib_path {
	struct ipoib_dev *priv;
	union ib_gid dgid;
	struct hlist_node hash_link;	/* priv->paths, under priv->lock */
	struct list_head neighs;	/* neighbours using this path */
	struct sa_path_rec rec;
	struct ipoib_ah *ah;		/* NULL until resolved */
	bool valid;			/* rec and ah are current */
	struct ib_sa_query *query;
	int query_id;
	struct completion query_done;
	unsigned long retry_at;		/* no new query before this */
	unsigned long backoff;
};

struct ipoib_mcast {
	struct ipoib_dev *priv;
	union ib_gid mgid;
	struct hlist_node hash_link;	/* priv->mcasts */
	struct list_head list;		/* priv->mcast_list */
	struct ib_sa_mcmember_rec rec;
	struct ib_sa_multicast *sa;	/* join in progress or done */
	struct ipoib_ah *ah;
	struct list_head neighs;	/* neighbours sending to this group */
	struct ipoib_waitq queue;	/* sends waiting for the join */
	unsigned long retry_at;
	unsigned long backoff;
	unsigned long last_used;	/* send-only groups age out */
	bool sendonly;
	bool create;			/* next join may create the group */
	bool ready;			/* joined, AH made */
	bool qp_attached;
	bool busy;			/* SA join outstanding */
	bool wanted;			/* still in the netdev mc list */
	bool dead;			/* leaving: ignore the join callback */
};

/* Who answers a 20-byte link address, and how to reach it. */
struct ipoib_neigh {
	u8 daddr[IPOIB_ALEN];
	struct rhash_head hash_node;
	struct ipoib_dev *priv;
	struct ipoib_ah __rcu *ah;	/* set when resolved */
	u32 qpn;
	struct ipoib_path *path;	/* unicast; under priv->lock */
	struct ipoib_mcast *mcast;	/* multicast; under priv->lock */
	struct list_head owner_link;	/* path->neighs or mcast->neighs */
	struct list_head all_link;	/* priv->neigh_list */
	struct ipoib_waitq queue;	/* sends waiting for the path */
	/* Connected mode's entry for the peer, a reference held (ipoib_cm.h) */
	struct ipoib_cm_peer __rcu *cm_peer;
	unsigned long last_used;
	struct rcu_head rcu;
	bool dead;
};

/* A UD receive buffer: a page (or two) of the interface's page pool. */
struct ipoib_rx_slot {
	struct page *page;
	u64 mapping;			/* of the page, not of the buffer in it */
};

/*
 * Sends are counted under their TX queue's lock, once.  Receives come from
 * two NAPI polls, UD's and connected mode's, on any CPU: each CPU counts
 * its own.
 */
struct ipoib_ring_stats {
	struct u64_stats_sync syncp;
	u64 packets;
	u64 bytes;
	u64 multicast;			/* receive side only */
};

/* An skb mapped for the HCA: the linear part, if any, then each fragment. */
struct ipoib_tx_map {
	unsigned int head_len;		/* mapped linear part, 0 if none */
	u64 mapping[MAX_SKB_FRAGS + 1];
};

/* One posted send; connections find theirs through the cqe. */
struct ipoib_tx_slot {
	struct ib_cqe cqe;
	struct sk_buff *skb;
	struct ipoib_tx_map map;
};

/*
 * A send ring: a UD send queue's, or a connection's (ipoib_tx.c has the
 * rules).  head moves under its netdev TX queue's lock, tail in the
 * completion handler; both run on, so head - tail is what the HCA holds.
 */
struct ipoib_tx_ring {
	struct ipoib_tx_slot *slots;
	unsigned int size;		/* power of two */
	unsigned int head;
	unsigned int tail;
	unsigned int txq;		/* the netdev TX queue that posts on it */
	struct ipoib_ring_stats *stats;	/* NULL: the interface's tx_stats */
};

/*
 * Address resolution: ARP, or an ND solicitation or advertisement.  proto
 * is the ethertype, off where its header starts in skb.  RFC 4755 7 keeps
 * these on UD; received, they tell us where their sender is now.
 */
static inline bool ipoib_is_addr_resolution(const struct sk_buff *skb,
					    __be16 proto, unsigned int off)
{
	const struct ipv6hdr *ip6;
	struct ipv6hdr ip6_buf;
	const u8 *type;
	u8 type_buf;

	if (proto == htons(ETH_P_ARP))
		return true;
	if (proto != htons(ETH_P_IPV6))
		return false;
	ip6 = skb_header_pointer(skb, off, sizeof(ip6_buf), &ip6_buf);
	if (!ip6 || ip6->nexthdr != IPPROTO_ICMPV6)
		return false;
	type = skb_header_pointer(skb, off + sizeof(*ip6), sizeof(type_buf),
				  &type_buf);
	return type && (*type == NDISC_NEIGHBOUR_SOLICITATION ||
			*type == NDISC_NEIGHBOUR_ADVERTISEMENT);
}

/* Exponential backoff: min first, then doubling, never above max. */
static inline unsigned long ipoib_backoff_next(unsigned long cur,
					       unsigned long min,
					       unsigned long max)
{
	return clamp(cur * 2, min, max);
}

static inline unsigned int ipoib_tx_outstanding(const struct ipoib_tx_ring *r)
{
	return READ_ONCE(r->head) - READ_ONCE(r->tail);
}

static inline bool ipoib_tx_room(const struct ipoib_tx_ring *r)
{
	return ipoib_tx_outstanding(r) < r->size;
}

/*
 * A further UD send queue, for netdev TX queue txq >= 1 (send-side
 * scaling): a QP of its own that sends with the interface's QPN
 * (IB_QP_CREATE_SOURCE_QPN), its CQ, ring and NAPI.  It carries datagram
 * mode's unicast to resolved neighbours; everything else goes through TX
 * queue 0, the UD QP's own (ipoib_xmit.c).  The UD QP alone receives.
 */
struct ipoib_sendq {
	struct ipoib_dev *priv;
	struct ib_qp *qp;		/* NULL while the data path is down */
	struct ib_cq *cq;
	struct ipoib_tx_ring tx;
	struct ipoib_ring_stats stats;
	struct ib_ud_wr wr;
	struct ib_sge sge[MAX_SKB_FRAGS + 1];
	struct napi_struct napi;
	struct ib_wc wcs[IPOIB_POLL_BATCH];	/* napi's owner's */
};

/*
 * The UD data path's CQ handlers and NAPI polls (ipoib_ib.c), handed to
 * the verbs objects that call them (ipoib_verbs.c).
 */
struct ipoib_ud_handlers {
	ib_comp_handler rx_completion;
	ib_comp_handler tx_completion;
	ib_comp_handler sendq_completion;	/* ctx: the ipoib_sendq */
	int (*poll)(struct napi_struct *napi, int budget);
	int (*sendq_poll)(struct napi_struct *napi, int budget);
};

/* Counters beyond rtnl_link_stats64, reported by ethtool -S. */
enum ipoib_counter {
	IPOIB_CNT_TX_DROP_NO_PATH,
	IPOIB_CNT_TX_DROP_QUEUE_FULL,
	IPOIB_CNT_TX_DROP_NO_MCAST,
	IPOIB_CNT_TX_DROP_TOO_BIG,
	IPOIB_CNT_TX_DROP_MAP,
	IPOIB_CNT_TX_DROP_POST,
	IPOIB_CNT_TX_DROP_BAD_ADDR,
	IPOIB_CNT_TX_DROP_RING_FULL,	/* a bug: posted with no room */
	IPOIB_CNT_TX_LSO,
	IPOIB_CNT_TX_CSUM,
	IPOIB_CNT_TX_LINEARIZED,	/* more fragments than the HCA's SGEs */
	IPOIB_CNT_TX_ERRORS_WC,
	IPOIB_CNT_TX_TIMEOUTS,
	IPOIB_CNT_RX_DROP_NO_MEM,
	IPOIB_CNT_RX_DROP_OWN_MCAST,
	IPOIB_CNT_RX_DROP_BAD_LEN,
	IPOIB_CNT_RX_DROP_BAD_ARP,
	IPOIB_CNT_RX_ERRORS_WC,
	IPOIB_CNT_RX_CSUM_OK,
	IPOIB_CNT_PATH_QUERIES,
	IPOIB_CNT_PATH_FAILURES,
	IPOIB_CNT_PATH_LID_MOVED,	/* a peer answered from a new LID */
	IPOIB_CNT_MCAST_JOINS,
	IPOIB_CNT_MCAST_JOIN_FAILURES,
	IPOIB_CNT_MCAST_LEAVES,
	IPOIB_CNT_NEIGH_CREATED,
	IPOIB_CNT_NEIGH_GC,
	IPOIB_CNT_FLUSHES,
	IPOIB_CNT_CM_CONNECTIONS,	/* a gauge: connections up now */
	IPOIB_CNT_CM_ESTABLISHED,
	IPOIB_CNT_CM_REQS_SENT,
	IPOIB_CNT_CM_REQS_RECEIVED,
	IPOIB_CNT_CM_REJECTS_SENT,
	IPOIB_CNT_CM_REJECTS_RECEIVED,
	IPOIB_CNT_CM_CROSSINGS,
	IPOIB_CNT_CM_REJ_SERVICE_ID,	/* peer has no RFC 4755 listener */
	IPOIB_CNT_CM_PEERS_LINUX,	/* neighbours found in-tree form */
	IPOIB_CNT_CM_PEERS_RFC,		/* neighbours found RFC form */
	IPOIB_CNT_CM_FALLBACKS,
	IPOIB_CNT_CM_PMTU_SIGNALS,
	IPOIB_CNT_CM_REAPED,
	IPOIB_CNT_CM_DISCONNECTS,
	IPOIB_CNT_CM_TX_PACKETS,
	IPOIB_CNT_CM_RX_PACKETS,
	IPOIB_CNT_CM_TX_DROP_QUEUE,
	IPOIB_CNT_CM_TX_BACKLOGGED,
	IPOIB_CNT_CM_TX_DROP_BACKLOG,
	IPOIB_CNT_CM_REJ_SMALL_MTU,
	IPOIB_CNT_CM_RX_DROP_NO_MEM,
	IPOIB_CNT_CM_RX_DROP_OVER_SHARE,	/* behind on a dry shared SRQ */
	IPOIB_CNT_CM_ERRORS_WC,
	IPOIB_CNT_CM_TX_DROP_NO_MEM,	/* no memory for a send ring */
	IPOIB_CNT_CM_CONNECT_TIMEOUTS,	/* not up within the bound: UD */
	IPOIB_CNT_CM_PEERS_LOST,	/* the kernel gave up on the address */
	IPOIB_CNT_CM_PORT_FLAP_ENDS,	/* ended: the port went down */
	IPOIB_CNT_CM_TX_VIA_QUEUE0,	/* to a connection of another queue */
	/*
	 * Drops from a waiting queue, by queue and reason (ipoib_waitq.c):
	 * full (its oldest packet made room), or purged (what it waited for
	 * failed or went away).  Each is counted under its cause above too.
	 */
	IPOIB_CNT_WAIT_PATH_FULL,
	IPOIB_CNT_WAIT_PATH_PURGED,
	IPOIB_CNT_WAIT_JOIN_FULL,
	IPOIB_CNT_WAIT_JOIN_PURGED,
	IPOIB_CNT_WAIT_CONNECT_FULL,
	IPOIB_CNT_WAIT_CONNECT_PURGED,
	IPOIB_CNT_WAIT_RING_FULL,
	IPOIB_CNT_WAIT_RING_PURGED,
	/* What the HCA reported about the UD queues, and the device */
	IPOIB_CNT_UD_QP_FATAL,
	IPOIB_CNT_UD_CQ_ERRORS,
	IPOIB_CNT_HW_RECOVERIES,	/* data paths brought back after them */
	IPOIB_CNT_DEVICE_FATAL,
	IPOIB_CNT_CM_QP_FATAL,		/* connections whose QP the HCA failed */
	IPOIB_NR_COUNTERS
};

/* Receive pages recycled through a page_pool (ipoib_rx_pages.c). */
struct ipoib_rx_pages {
#ifdef IPOIB_RX_PAGE_POOL
	struct page_pool *pool;
	spinlock_t lock;		/* taking pages: one context at a time */
	u64 new_before;			/* pages earlier pools allocated */
#else
	struct ib_device *ca;
	atomic_long_t allocated;	/* every page taken */
#endif
	unsigned int order;		/* pages of 2^order */
	bool virt_dma;			/* the HCA takes kernel addresses */
};

/* CQ moderation as ethtool -C set it; put back on every new CQ. */
struct ipoib_coalesce {
	u16 rx_usecs;
	u16 rx_frames;
	u16 tx_usecs;
	u16 tx_frames;
};

/* Interface flags (priv->flags bits). */
enum {
	IPOIB_OPEN,			/* ndo_open done, rings live */
	IPOIB_QP_READY,			/* QP in RTS */
	IPOIB_UMCAST,			/* groups other clients joined: theirs */
	IPOIB_MCAST_RUN,		/* the join task may run */
	IPOIB_CM_MODE,			/* connected mode chosen */
	IPOIB_CM_RUNNING,		/* ... and listening, SRQ up */
	IPOIB_ANNOUNCE,			/* carrier came on: tell the peers */
	IPOIB_PORT_WENT_DOWN,		/* connections end once it is back */
	IPOIB_CQ_DEAD,			/* a UD CQ errored: no flush will come */
	IPOIB_DEV_FATAL,		/* the HCA died: no carrier from now on */
};

/* What the UD queues' event handlers ask of the recovery (hw_errors bits). */
enum {
	IPOIB_HW_QP_FATAL,		/* the QP in error: restart it */
	IPOIB_HW_CQ_ERR,		/* a CQ in error: new CQs and QP */
};

enum ipoib_flush_level {
	IPOIB_FLUSH_LIGHT,		/* paths and AHs stale */
	IPOIB_FLUSH_NORMAL,		/* ... and groups must be rejoined */
	IPOIB_FLUSH_HEAVY,		/* ... and the P_Key index may move */
};

/*
 * Lock order, outermost first (functions that need one assert it):
 *
 *   rtnl -> parent's children_lock
 *   rtnl -> state_lock -> netdev tx lock -> lock -> ah_lock
 *   netdev tx lock -> staged.lock, too_big.lock
 *   state_lock -> cm->cq_lock	(a mutex; connection set-up and teardown,
 *				 from their work items, take it alone)
 *   state_lock -> the receive pools' mutex -> a pool's mutex
 *				(ipoib_cm_pool.c; its work item takes the
 *				 pool's alone)
 *   rx_pages.lock, cm->pages.lock, pool->lock
 *				(innermost: nothing is taken under them)
 *
 * Work items on priv->wq take rtnl with rtnl_trylock() and requeue
 * themselves: an rtnl holder may be flushing that queue.  ah_lock is
 * taken with IRQs off: the last AH reference may go in any context.  No
 * lock of ours is held when an ICMP is sent: it may leave through this
 * interface (ipoib_pmtu.c).
 */
struct ipoib_dev {
	struct net_device *dev;
	struct ib_device *ca;
	u32 port;
	u16 pkey;			/* with the full-member bit as configured */
	u16 pkey_index;
	unsigned long flags;
	struct ipoib_dev *parent;	/* NULL for the port's main interface */
	struct list_head children;	/* on the parent, under children_lock */
	struct list_head child_link;
	struct mutex children_lock;	/* parent only */
	bool sysfs_child;		/* made by create_child */

	/* Verbs objects. */
	struct ib_pd *pd;
	struct ib_cq *recv_cq;
	struct ib_cq *send_cq;
	struct ib_qp *qp;
	u32 qpn;
	u32 qkey;
	union ib_gid local_gid;
	u16 local_lid;			/* base LID of the port */
	u8 lmc;				/* the port answers to 2^lmc LIDs */
	unsigned int max_ib_mtu;	/* port's active IB MTU, bytes */
	unsigned int mcast_mtu;		/* broadcast group's IB MTU - 4 */
	unsigned int admin_mtu;		/* what the user asked for */
	unsigned int rx_buf_size;	/* bytes of a UD receive buffer */
	bool hca_csum;
	bool hca_lso;
	bool hca_source_qpn;		/* takes IB_QP_CREATE_SOURCE_QPN */
	unsigned int max_send_sge;

	/* Data path. */
	struct napi_struct napi;
	struct ib_wc poll_wcs[IPOIB_POLL_BATCH];	/* napi's owner's */
	struct ipoib_rx_slot *rx_ring;
	struct ipoib_rx_pages rx_pages;	/* what rx_ring's buffers are made of */
	struct ipoib_tx_ring tx;	/* the UD QP's: TX queue 0 */
	/* TX queues 1 and up, [txq - 1]: num_tx_queues - 1 of them */
	struct ipoib_sendq *sendqs;
	unsigned int rx_size;		/* power of two */
	unsigned int tx_size;		/* power of two, as configured */
	struct ib_sge tx_sge[MAX_SKB_FRAGS + 1];
	struct ib_ud_wr tx_wr;
	struct ib_sge rx_sge;
	struct ib_recv_wr rx_wr;
	struct ipoib_ring_stats __percpu *rx_stats;
	struct ipoib_ring_stats tx_stats;
	atomic_long_t rx_dropped;
	atomic_long_t tx_dropped;
	atomic_long_t rx_errors;
	atomic_long_t tx_errors;
	atomic_long_t counters[IPOIB_NR_COUNTERS];
	struct ipoib_coalesce coal;	/* under rtnl */

	/*
	 * Slow path, under lock.  A BH lock, never taken with IRQs off:
	 * the neighbour table's bucket locks re-enable BH on release.
	 */
	spinlock_t lock;		/* paths, groups, neighbour ownership */
	struct rhashtable neighs;
	struct list_head neigh_list;
	DECLARE_HASHTABLE(paths, 6);
	DECLARE_HASHTABLE(mcasts, 6);
	struct list_head mcast_list;
	struct ipoib_mcast *broadcast;
	u32 sendonly_idle_s;		/* debugfs may shorten it, for tests */
	spinlock_t ah_lock;		/* dead_ahs: taken under lock, too */
	struct list_head dead_ahs;

	struct mutex state_lock;	/* open, stop, flushes, recovery */
	struct workqueue_struct *wq;	/* ordered: joins, flushes, GC */
	struct delayed_work link_task;	/* MTU follows the broadcast group */
	struct delayed_work mcast_task;
	struct work_struct mcast_restart_task;
	struct delayed_work gc_task;
	struct delayed_work ah_reap_task;
	struct work_struct flush_light;
	struct work_struct flush_normal;
	struct work_struct flush_heavy;
	struct work_struct tx_recover_task;
	struct work_struct staged_task;	/* sends staged by TX queues >= 1 */
	struct delayed_work hw_recover_task;	/* after a QP or CQ error */
	unsigned long hw_errors;		/* IPOIB_HW_* to recover from */
	struct delayed_work cm_fallback_task;	/* connected mode failed */
	struct delayed_work up_retry_task;	/* a bring-up failed while up */
	unsigned long up_retry_backoff;		/* under state_lock */
	struct sk_buff_head staged;	/* waited, ready to go: ipoib_tx.c */
	/*
	 * Drains staged under the transmit lock: the transmit decision's
	 * (ipoib_xmit.c), handed down by ipoib_setup() to the layers below.
	 */
	void (*xmit_staged)(struct ipoib_dev *priv);
	/*
	 * A received packet named its sender's GID and LID: the path layer's
	 * (ipoib_path.c), handed down by ipoib_setup() to UD receive.
	 */
	void (*check_sender_lid)(struct ipoib_dev *priv,
				 const union ib_gid *gid, u32 slid);
	struct sk_buff_head too_big;	/* owed an ICMP: ipoib_pmtu.c */
	struct work_struct too_big_task;
	struct ib_event_handler event_handler;

	struct ipoib_cm_dev *cm;	/* connected mode, NULL when unsupported */
	struct dentry *debugfs;
};

static inline struct ipoib_dev *ipoib_priv(const struct net_device *dev)
{
	return netdev_priv(dev);
}

static inline void ipoib_count(struct ipoib_dev *priv, enum ipoib_counter c)
{
	atomic_long_inc(&priv->counters[c]);
}

/*
 * A last-used stamp that traffic keeps fresh: written at most once a
 * tick, so packets on other CPUs do not keep dirtying its cache line.
 */
static inline void ipoib_stamp_used(unsigned long *last_used)
{
	if (time_after(jiffies, READ_ONCE(*last_used)))
		WRITE_ONCE(*last_used, jiffies);
}

/* What the port says of its LIDs now: base LID and LID Mask Control. */
static inline void ipoib_set_local_lid(struct ipoib_dev *priv,
				       const struct ib_port_attr *attr)
{
	WRITE_ONCE(priv->local_lid, attr->lid);
	WRITE_ONCE(priv->lmc, attr->lmc);
}

/* Traffic keeps a neighbour alive. */
static inline void ipoib_neigh_touch(struct ipoib_neigh *neigh)
{
	ipoib_stamp_used(&neigh->last_used);
}

/* Inline: the send path asserts it twice a packet. */
static inline void ipoib_assert_txq_locked(struct ipoib_dev *priv,
					   unsigned int txq)
{
	lockdep_assert_held(&netdev_get_tx_queue(priv->dev, txq)->_xmit_lock);
}

/* TX queue 0's: the UD QP, the slow paths, connections given queue 0. */
static inline void ipoib_assert_tx_locked(struct ipoib_dev *priv)
{
	ipoib_assert_txq_locked(priv, 0);
}

/* The UD send ring of TX queue txq. */
static inline struct ipoib_tx_ring *ipoib_ud_ring(struct ipoib_dev *priv,
						  unsigned int txq)
{
	return txq ? &priv->sendqs[txq - 1].tx : &priv->tx;
}

static inline bool ipoib_is_child(const struct ipoib_dev *priv)
{
	return priv->parent;
}

/* Connected mode chosen (it may not be running: ipoib_cm_active()). */
static inline bool ipoib_mode_connected(const struct ipoib_dev *priv)
{
	return test_bit(IPOIB_CM_MODE, &priv->flags);
}

/* Connected mode running: listening, receive rings up (ipoib_cm.c). */
static inline bool ipoib_cm_active(const struct ipoib_dev *priv)
{
	return test_bit(IPOIB_CM_RUNNING, &priv->flags);
}

/* What one UD message carries on this port. */
static inline unsigned int ipoib_ud_payload_mtu(const struct ipoib_dev *priv)
{
	return ipoib_ud_mtu(priv->max_ib_mtu);
}

/*
 * What a UD message may carry to any member of the partition, and to any
 * multicast group: the broadcast group's MTU bounds every member's (RFC
 * 4391 5), our port's may be larger.
 */
static inline unsigned int ipoib_ud_group_mtu(const struct ipoib_dev *priv)
{
	return min(priv->mcast_mtu, ipoib_ud_payload_mtu(priv));
}

#define ipoib_dbg(priv, fmt, ...)					\
	do {								\
		if (ipoib_debug_level > 0)				\
			netdev_dbg((priv)->dev, fmt, ##__VA_ARGS__);	\
	} while (0)
#define ipoib_dbg_mcast(priv, fmt, ...)					\
	do {								\
		if (ipoib_mcast_debug_level > 0)			\
			netdev_dbg((priv)->dev, fmt, ##__VA_ARGS__);	\
	} while (0)

#endif /* IPOIB_H */
