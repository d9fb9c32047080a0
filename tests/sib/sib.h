/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sib: a software InfiniBand HCA with its own fabric and subnet manager.
 *
 * Every sib device is an ordinary ib_device with IB link layer and a DMA
 * device of its own, so ib_core, ib_mad, ib_sa, ib_cm, IPoIB and the
 * kernel's RDMA storage protocols run on it unmodified.  All ports of all
 * devices hang off one fabric: a packet is "sent" by copying the sender's
 * gather list straight into the receiver's scatter list, by the fabric's
 * worker after the post returns (sib_exec.c); an RDMA WRITE or READ
 * copies between a list and a region an R_Key names.
 *
 * The switches (switches=, 1-4, default 1) stand in a line, each linked
 * to the next by one link between their two top ports; the HCA ports are
 * spread along it in fabric index order, the first on switch 0 and the
 * last on the last switch (sib_switch.c says how).  Each port has a
 * subnet management agent and a PMA (process_mad), and so has each
 * switch, its PMA counting the links between switches too; SMPs travel
 * between them by directed route or by LID, and data hop by hop by each
 * switch's LFT and MFT.
 *
 * Two ways to run the subnet (module parameter sm=): the built-in SM
 * (builtin, the default) assigns LIDs, routes min-hop (the LFTs follow
 * from its LIDs, the MFTs from its SA's groups) and brings ports up at
 * once, and its SA answers at switch 0's port 0, LID 1; or an external
 * SM (external: OpenSM on one of the ports) does all of it through the
 * agents, and each switch forwards by the LFT and MFT it programs.
 *
 * A port's GID table (gids=, 1-8) is its GUIDInfo: entry 0 the port
 * GUID's GID, the others alias GUIDs, as an SM assigns them for SR-IOV
 * functions.  The built-in SM's are the port GUID with the index in bits
 * 39:32; an external SM sets them with GUIDInfo (OpenSM: from its SA
 * database).  Any of them names the port in a PathRecord query and in a
 * GRH's DGID (a packet to a GID the port lacks is dropped), and an AH's
 * sgid_index picks the SGID a GRH carries.
 */
#ifndef SIB_H
#define SIB_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <linux/hrtimer.h>
#include <linux/smp.h>
#include <linux/percpu.h>
#include <rdma/ib_verbs.h>
#include "tests_compat.h"

struct seq_file;

#define SIB_MAX_DEVICES		8
#define SIB_MAX_PORTS		2	/* per device */
#define SIB_FABRIC_PORTS	(SIB_MAX_DEVICES * SIB_MAX_PORTS)
#define SIB_PKEY_TABLE_LEN	16
#define SIB_MAX_GIDS		8	/* gids=: one GUIDInfo block */
#define SIB_ALIAS_GUID_SHIFT	32	/* the built-in SM's alias GUIDs */
#define SIB_SM_LID		1	/* switch 0's, under the built-in SM */
#define SIB_MAX_SWITCHES	4	/* switches= */
#define SIB_FIRST_LID		2
#define SIB_MAX_LID		1023	/* unicast LIDs the built-in SM routes */
/* The built-in SM's LIDs of switches 1, 2, ...: 1023, 1022, ... */
#define SIB_SWITCH_TOP_LID	SIB_MAX_LID
#define SIB_MAX_LMC		3	/* lmc= of the built-in SM */
#define SIB_PI_LMC_MAX		7	/* PortInfo's LMC: three bits */
#define SIB_LID_UCAST_TOP	0xbfff	/* unicast LIDs of a subnet */
#define SIB_SW_LFT_CAP		0xc000	/* LinearFDBCap under sm=external */
#define SIB_MLID_BASE		0xc000
#define SIB_MAX_MLIDS		1024	/* multicast LIDs we route */
#define SIB_GRH_BYTES		40	/* UD receive buffers start with GRH room */
#define SIB_MAX_SGE		32	/* max_sge's ceiling: sib_offload.c's stack */
#define SIB_MAX_QUEUE		1048576	/* max_qp_wr, max_cqe, max_srq_wr ceiling */
#define SIB_MAX_INLINE		1024	/* max_inline's ceiling, bytes */
#define SIB_MAX_RD_ATOMIC	16	/* RDMA READs in flight, either end */
#define SIB_MAX_FR_PAGES	512	/* a fast-registration page list */
#define SIB_MAX_MRS		65536
#define SIB_MAX_PDS		65536
#define SIB_MAX_LSO_HDR		256
#define SIB_MAX_SEND_DELAY_US	1000	/* udelay(), with bottom halves off */
#define SIB_MAX_ASYNC_DELAY_US	1000000	/* async_delay_us, async_jitter_us */
#define SIB_MAX_ACK_TIMEOUT_MS	3600000	/* ack_timeout_max_ms */
#define SIB_SUBNET_PREFIX	0xfe80000000000000ULL
#define SIB_QKEY_CONTROLLED	0x80000000
#define SIB_SM_GUID		0x5eb1b0ff00000001ULL
#define SIB_VENDOR_ID		0x5eb1
#define SIB_SWITCH_DESC		"sib switch"
#define SIB_VLARB_CAP		8	/* VLArbitrationTable entries per priority */

/* Counters per port: what crossed it, and what it refused. */
enum sib_counter {
	SIB_CNT_TX_PKTS,
	SIB_CNT_TX_BYTES,
	SIB_CNT_RX_PKTS,
	SIB_CNT_RX_BYTES,
	SIB_CNT_RX_MCAST_PKTS,
	SIB_CNT_RX_PATH_BITS,		/* to a LID of its block but the base */
	SIB_CNT_DROP_PORT_DOWN,		/* either end not ACTIVE */
	SIB_CNT_DROP_NO_QP,		/* no such QPN, wrong type or state */
	SIB_CNT_DROP_NO_BUFFER,		/* UD/UC with no receive posted */
	SIB_CNT_DROP_INJECTED,		/* dropped on purpose via debugfs */
	SIB_CNT_PKEY_VIOLATIONS,
	SIB_CNT_QKEY_VIOLATIONS,
	SIB_CNT_RNR_NAKS,
	/* RC requests that got no ACK: timers run out, sends again, failures */
	SIB_CNT_LOCAL_ACK_TIMEOUTS,
	SIB_CNT_RETRANSMITS,
	SIB_CNT_RETRIES_EXCEEDED,
	SIB_CNT_LEN_ERRORS,		/* message too long for MTU or buffer */
	SIB_CNT_CSUM_OFFLOADS,
	SIB_CNT_LSO_SEGMENTS,
	/*
	 * The link, as a port's PMA reports it: packets on the wire (a
	 * message over the path MTU is several), octets with their headers.
	 */
	SIB_CNT_LINK_TX_PKTS,
	SIB_CNT_LINK_TX_OCTETS,
	SIB_CNT_LINK_TX_MCAST_PKTS,
	SIB_CNT_LINK_RX_PKTS,
	SIB_CNT_LINK_RX_OCTETS,
	SIB_CNT_LINK_RX_MCAST_PKTS,
	SIB_CNT_LINK_DOWNED,		/* times the link went down */
	SIB_CNT_VL15_DROPPED,		/* SMPs with no way on or no QP0 */
	SIB_CNT_DROP_UNROUTED,		/* sm=external: the LFT has no way on */
	/* RDMA this port served as the responder, and what it refused. */
	SIB_CNT_RDMA_WRITES,
	SIB_CNT_RDMA_WRITE_BYTES,
	SIB_CNT_RDMA_READS,
	SIB_CNT_RDMA_READ_BYTES,
	SIB_CNT_RKEY_VIOLATIONS,	/* bad R_Key, range or access */
	SIB_CNT_REMOTE_INVALIDATES,	/* SEND_WITH_INV that freed a region */
	/* async: the fabric's worker drained a send queue of this port's */
	SIB_CNT_ASYNC_BATCHES,
	SIB_CNT_ASYNC_WQES,		/* WQEs it executed or flushed */
	/* SA requests this port sent, and the faults debugfs had on them. */
	SIB_CNT_SA_REQUESTS,
	SIB_CNT_SA_DELAYED,		/* held sa_delay_ms before the SA */
	SIB_CNT_SA_BUSY,		/* answered BUSY (sa_busy_every) */
	SIB_CNT_SA_SILENT,		/* not answered (sa_silent_every) */
	/* Random loss (*_loss_ppm): messages lost, bursts started */
	SIB_CNT_DROP_RANDOM,		/* part of drop_injected too */
	SIB_CNT_LOSS_BURSTS,
	SIB_CNT_WR_FLUSHED,		/* WQEs of its QPs completed flushed */
	SIB_CNT_DROP_BAD_DGID,		/* a GRH's DGID not in its GID table */
	SIB_NR_COUNTERS
};

/* What IPoIB sent, by transport and by the class of its payload. */
enum sib_ipoib_transport {
	SIB_IPOIB_UD,
	SIB_IPOIB_RC,
	SIB_IPOIB_UC,
	SIB_IPOIB_TRANSPORTS
};

enum sib_ipoib_class {
	SIB_IPOIB_ARP,
	SIB_IPOIB_IPV4,
	SIB_IPOIB_IPV6,
	SIB_IPOIB_ND,			/* ICMPv6 RS, RA, NS, NA, redirect */
	SIB_IPOIB_OTHER,
	SIB_IPOIB_CLASSES
};

/*
 * How CQ events were raised: in the poster's context, or (cq_irq) as an
 * interrupt on the poster's CPU or another.
 */
enum sib_cq_event_kind {
	SIB_CQ_EVENT_INLINE,
	SIB_CQ_EVENT_IRQ_LOCAL,
	SIB_CQ_EVENT_IRQ_REMOTE,
	SIB_CQ_EVENT_KINDS
};

struct sib_cq_event_stats {
	u64 n[SIB_CQ_EVENT_KINDS];
};

/* Random loss by class of message, each with its own bursts. */
enum sib_loss_kind {
	SIB_LOSS_UD,
	SIB_LOSS_RC,			/* RC and UC */
	SIB_LOSS_MAD,
	SIB_LOSS_KINDS
};

/*
 * A burst of random losses: the messages of one kind a port sends next,
 * up to a count and within a time, as a noisy link loses what crosses it
 * while the noise lasts (not a retransmission a timeout later).
 */
struct sib_loss_burst {
	atomic_t left;
	u64 until_ns;			/* ktime_get_ns() */
};

#define SIB_LOSS_BURST_US	1000	/* loss_burst_us's default */

/* Affiliated and unaffiliated errors a test raises (sibN/async_events). */
enum sib_async_kind {
	SIB_ASYNC_QP_FATAL,
	SIB_ASYNC_CQ_ERR,
	SIB_ASYNC_DEVICE_FATAL,
	SIB_ASYNC_KINDS
};

struct sib_port_stats {
	u64 cnt[SIB_NR_COUNTERS];
	u64 ipoib[SIB_IPOIB_TRANSPORTS][SIB_IPOIB_CLASSES];
};

/* What the PMA shows (sib_pma.c): each field less its value at the last reset. */
enum sib_pma_field {
	SIB_PMA_XMIT_OCTETS,
	SIB_PMA_RCV_OCTETS,
	SIB_PMA_XMIT_PKTS,
	SIB_PMA_RCV_PKTS,
	SIB_PMA_XMIT_UCAST,
	SIB_PMA_RCV_UCAST,
	SIB_PMA_XMIT_MCAST,
	SIB_PMA_RCV_MCAST,
	SIB_PMA_LINK_DOWNED,
	SIB_PMA_XMIT_DISCARDS,
	SIB_PMA_VL15_DROPPED,
	SIB_PMA_RCV_SW_RELAY_ERRORS,	/* a switch's: no way on (LFT) */
	SIB_PMA_NR_FIELDS
};

/*
 * What a subnet manager sets through a port's SMA (sib_sma.c), beyond the
 * LID, state, MTU and P_Keys; written under sib_fabric.lock.
 */
struct sib_port_mgmt {
	u64 mkey;			/* kept and shown, never enforced */
	u16 mkey_lease;
	u8 mkey_protect;
	u16 sm_lid;
	u8 sm_sl;
	u8 subnet_timeout;
	u8 down_default;
	u8 width_enabled;
	u8 speed_enabled;
	u8 speed_ext_enabled;
	u8 vl_high_limit;
	u8 error_thresholds;
	bool disabled;			/* PortPhysicalState Disabled */
	u8 sl2vl[8];			/* 16 SLs, a nibble each */
	u8 vlarb[2][SIB_VLARB_CAP * 2];	/* low, high: VL and weight */
	u64 pma_base[SIB_PMA_NR_FIELDS];	/* values at the last reset */
};

struct sib_dev;
struct sib_qp;

struct sib_port {
	struct sib_dev *sdev;
	u32 port_num;			/* 1-based, as ib_core counts */
	u32 fabric_index;		/* bit in multicast forwarding masks */
	u8 sw_index;			/* the switch its link goes to, */
	u8 sw_port;			/* and that switch's port */
	__be64 guid;

	/* Written by the SM under sib_fabric.lock; read locklessly. */
	__be64 guids[SIB_MAX_GIDS];	/* GUIDInfo: [0] guid, 0 unassigned */
	u16 lid;			/* the base LID of its block */
	u8 lmc;				/* it answers to lid .. lid + 2^lmc - 1 */
	enum ib_port_state state;
	enum ib_mtu active_mtu;
	u32 cap_flags;
	u16 pkeys[SIB_PKEY_TABLE_LEN];
	struct sib_port_mgmt mgmt;
	bool plugged;			/* sm=external: the link's cable is in */
	bool rx_stall;			/* no receive buffers but QP0/QP1's */
	atomic_t rc_drop_next;		/* RC messages it sends still to lose */
	struct sib_loss_burst loss_burst[SIB_LOSS_KINDS]; /* of a random loss */

	/* SA bookkeeping a port change needs, done where it may sleep. */
	struct work_struct sa_sync_work;
	unsigned long sa_sync;		/* SIB_SA_SYNC_* bits */

	struct sib_qp __rcu *special_qp[2];	/* QP0 and QP1 */
	struct sib_port_stats __percpu *stats;
	struct dentry *debugfs;
};

struct sib_dev {
	struct ib_device ibdev;
	u32 index;
	u32 nports;
	struct sib_port port[SIB_MAX_PORTS];
	struct xarray qps;		/* QPN -> sib_qp, RCU readable */
	u32 next_qpn;
	struct xarray mrs;		/* key index -> sib_mr, RCU readable */
	u32 next_mr;
	struct xarray cqs;		/* CQN -> sib_cq, under its xa_lock */
	u32 next_cqn;
	bool fatal;			/* catastrophic error: only teardown */
	/* raised, and raised to a handler: by enum sib_async_kind */
	atomic_t async_raised[SIB_ASYNC_KINDS];
	atomic_t async_handled[SIB_ASYNC_KINDS];
	atomic_t nr_qps, nr_cqs, nr_srqs, nr_ahs, nr_pds, nr_mcast_attach;
	atomic_t nr_mrs;
	struct sib_cq_event_stats __percpu *cq_events;
	struct dentry *debugfs;
	struct device *dma_dev;		/* dma=1: addresses are its DMA ones */
	u64 __percpu *dma_sges;		/* list entries walked by DMA address */
	atomic64_t dma_refused;		/* DMA addresses with no memory there */
};

struct sib_pd {
	struct ib_pd ibpd;
};

/*
 * A memory region (sib_mr.c).  Its key is its index in the device's table
 * (bits 31-8) and a variant byte (7-0) each fast registration may change;
 * lkey and rkey are the same key.  Keys of index 0 name no region:
 * SIB_LOCAL_DMA_LKEY is the reserved L_Key consumers get (DMA addresses),
 * SIB_LKEY_KERNEL sib's own lists over its buffers (kernel addresses: the
 * inline copies, LSO headers); no consumer is given the latter.
 */
#define SIB_LKEY_KERNEL		0
#define SIB_LOCAL_DMA_LKEY	0x5e

enum sib_mr_state {
	SIB_MR_FREE,			/* allocated, no translation in force */
	SIB_MR_VALID,
};

struct sib_mr {
	struct ib_mr ibmr;
	struct ib_pd *pd;
	bool dma;			/* get_dma_mr: all memory, by address */
	spinlock_t lock;		/* what a check reads: the fields below */
	u32 key;
	enum sib_mr_state state;
	int access;			/* IB_ACCESS_* in force */
	u64 iova, length;		/* fast: the registered range */
	u32 page_shift;
	u32 npages;			/* in force: pages[0 .. npages - 1] */
	u32 max_pages;
	u64 *pages;			/* kernel addresses, copied at REG_MR */
	u32 map_npages;			/* map_mr_sg's list, for the next REG_MR */
	u64 *map_pages;
	struct rcu_head rcu;
};

/* An address handle is copied into each send, so it can die any time. */
struct sib_av {
	u16 dlid;
	u8 src_path_bits;		/* the SLID's low LMC bits */
	u8 sl;
	u8 port_num;
	bool has_grh;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	union ib_gid dgid;
};

struct sib_ah {
	struct ib_ah ibah;
	struct sib_av av;
};

struct sib_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* ring, arming, moderation */
	u32 mask;			/* ring entries - 1, a power of two */
	u32 head, tail;			/* consumer, producer */
	struct ib_wc *ring;
	u8 armed;			/* IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool error;			/* overrun or cq_err: takes no more */
	u32 cqn;
	struct work_struct err_work;	/* CQ_ERR, its QPs to error */
	/* Interrupt moderation (modify_cq): fire after N entries or T us. */
	u16 moderation_count;
	u16 moderation_usec;
	u16 unreported;
	struct hrtimer moderation_timer;
	/* cq_irq: the event as an interrupt (IPI) on the vector's CPU */
	call_single_data_t event;
	int event_cpu;
	unsigned long event_pending;	/* bit 0: raised, not yet taken */
	atomic_t events_in_flight;	/* raised, handler not yet returned */
};

/* A ring of fixed-size work queue entries; stride holds the sge array. */
struct sib_wq {
	spinlock_t lock;		/* ring indices and entries; see sib_qp.c */
	u32 mask;
	u32 head, tail;
	u32 max_sge;
	size_t stride;
	void *buf;
};

struct sib_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;			/* sum of sge lengths */
	struct ib_sge sg[];
};

struct sib_srq {
	struct ib_srq ibsrq;
	struct sib_wq rq;
	u32 limit;			/* armed limit, 0 when disarmed */
};

struct sib_send_wqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	int send_flags;
	__be32 imm;
	u32 length;
	/* UD and GSI */
	struct sib_av av;
	u32 remote_qpn;
	u32 remote_qkey;
	u16 pkey_index;
	/* LSO: header copied at post time, as hardware does */
	u16 mss;
	u16 hlen;
	u8 *lso_hdr;
	bool resent;			/* sent once already: now a retry */
	/* RDMA READ and WRITE: the responder's memory */
	u64 remote_addr;
	u32 rkey;
	/* SEND_WITH_INV, LOCAL_INV: the key to invalidate */
	u32 inv_key;
	/* REG_MR */
	struct sib_mr *reg_mr;
	u32 reg_key;
	int reg_access;
	u32 num_sge;
	struct ib_sge sg[];
};

/* Why an RC send queue stands still (sib_post.c). */
enum sib_sq_wait {
	SIB_SQ_GOING,
	SIB_SQ_WAIT_RNR,		/* the responder's RNR NAK timer */
	SIB_SQ_WAIT_ACK,		/* the local ACK timer: no answer came */
};

struct sib_qp {
	struct ib_qp ibqp;
	struct sib_dev *sdev;
	enum ib_qp_type type;
	enum ib_qp_state state;		/* changes under sq.lock and rq.lock */
	u32 port_num;
	u16 pkey_index;
	u32 qkey;
	bool sq_sig_all;
	bool block_mcast_loopback;

	/* Connected QPs (RC, UC): the other end, from RTR. */
	struct sib_av dest;
	u32 dest_qpn;
	enum ib_mtu path_mtu;
	u8 min_rnr_timer;
	u8 rnr_retry;
	u8 retry_cnt;
	u8 timeout;
	u32 sq_psn, rq_psn;
	int access_flags;		/* IB_ACCESS_REMOTE_*: what peers may do */
	u8 max_rd_atomic;		/* RDMA READs it may have in flight */
	u8 max_dest_rd_atomic;		/* and may answer */

	struct sib_wq sq;
	struct sib_wq rq;		/* unused when attached to an SRQ */
	bool lso;			/* created with IB_QP_CREATE_IPOIB_UD_LSO */
	u32 send_qpn;			/* DETH source QPN: its own, or source_qpn */
	u32 max_inline;			/* inline bytes a send may carry */
	bool sq_running;		/* one context drains the SQ at a time */
	/* RC: the head WQE's retries; all under sq.lock, reset as it completes */
	enum sib_sq_wait sq_wait;	/* what the head WQE waits for */
	bool ack_expired;		/* its local ACK timer ran out */
	u8 rnr_tries;			/* resends after RNR NAKs */
	u8 ack_tries;			/* resends after local ACK timeouts */
	struct delayed_work retry_work;	/* the RNR or local ACK timer */
	/* async: the doorbell's delay, then the fabric's worker (sib_exec.c) */
	bool exec_armed;		/* under sq.lock: timer or work pending */
	struct hrtimer exec_timer;
	struct work_struct exec_work;
	struct work_struct event_work;	/* affiliated events, as from an EQ */
	unsigned long events;		/* pending: bits by enum ib_event_type */

	struct list_head mcast_list;	/* this QP's multicast attachments */
	struct ib_qp_cap cap;
};

/* What a message asks of the responder. */
enum sib_op {
	SIB_OP_SEND,
	SIB_OP_WRITE,
	SIB_OP_READ,
};

/*
 * A message on the wire: what the receiving HCA sees.  The payload is the
 * sender's gather list, its lkeys those of sg_dev (NULL: plain kernel
 * addresses, as the SM's and held copies are).  An RDMA READ's sg is the
 * requester's scatter list, where the response goes.
 */
struct sib_pkt {
	struct sib_port *src_port;	/* NULL when the SM sends */
	struct sib_qp *src_qp;		/* NULL when the SM sends */
	u16 slid, dlid;
	u8 sl;
	u32 src_qpn, dst_qpn;
	u16 pkey;
	u32 qkey;
	bool has_grh;
	struct ib_grh grh;
	bool with_imm;
	__be32 imm;
	bool solicited;
	u32 length;
	u32 num_sge;
	const struct ib_sge *sg;
	struct sib_dev *sg_dev;
	enum sib_op op;
	u64 remote_addr;		/* WRITE and READ */
	u32 rkey;
	bool with_inv;			/* SEND_WITH_INV */
	u32 inv_rkey;
	bool csum_ok;			/* fill checksums at the receiver */
	bool held;			/* already delayed once */
	bool resent;			/* a retry: counted already */
	u8 rnr_timer;			/* out: responder's RNR NAK timer */
	u8 sw;				/* the switch it came in to, */
	u8 sw_port;			/* by that port; 0: the switch's own */
};

/* How a delivery went, as the sender's transport sees it. */
enum sib_delivery {
	SIB_DELIVERED,
	SIB_DROPPED,			/* silently lost (UD, UC, bad keys) */
	SIB_RNR,			/* RC: no receive buffer posted */
	SIB_REMOTE_ERROR,		/* RC: receiver refused (length, state) */
	SIB_REMOTE_ACCESS,		/* RC: R_Key, range or access refused */
	SIB_REMOTE_OP_ERROR,		/* RC: responder's own WQE was bad */
	SIB_NO_RESPONDER,		/* RC: no ACK comes: lost, no QP, link down */
};

/* A QP's membership in a multicast group, as attach_mcast made it. */
struct sib_mcast_attach {
	struct list_head group_link;	/* sib_mcast_group.attached, RCU */
	struct list_head qp_link;	/* sib_qp.mcast_list */
	struct sib_qp *qp;
	union ib_gid mgid;
	u16 mlid;
	struct rcu_head rcu;
};

/*
 * One multicast LID: the built-in SA's members, from which the switches'
 * MFTs follow (set on joins), and the QPs the HCAs attached.  Created on
 * first use, freed at unload.
 */
struct sib_mcast_group {
	u16 mlid;
	unsigned long forward;		/* bits by sib_port.fabric_index */
	struct list_head attached;
};

/*
 * A switch port's own state, as an external SM sets it; under the
 * built-in SM an external port shows its HCA port's.  Written under
 * sib_fabric.lock.
 */
struct sib_sw_port {
	enum ib_port_state state;	/* DOWN while the link is */
	bool disabled;			/* PortPhysicalState Disabled */
	u8 neighbor_mtu;
	u8 oper_vls;
	u8 vl_high_limit;
	u8 hoq_life;
	u8 vl_stall;
	u8 down_default;
	u8 width_enabled;
	u8 speed_enabled;
	u8 speed_ext_enabled;
	u8 vlarb[2][SIB_VLARB_CAP * 2];	/* low, high: VL and weight */
	u8 sl2vl[SIB_FABRIC_PORTS + 1][8];	/* by input port, a nibble an SL */
};

/*
 * What a switch counts itself, by port and PMA field: the links between
 * switches, and the packets it could not forward.  An HCA-facing port's
 * link counters are its HCA port's, seen from the other end.
 */
struct sib_sw_stats {
	u64 cnt[SIB_FABRIC_PORTS + 1][SIB_PMA_NR_FIELDS];
};

/*
 * A switch of the line (sib_switch.c, sib_switch_sma.c): external ports
 * 1 .. nhca link HCA ports of fabric index first_hca on; isl_port[0] and
 * [1], its top ports, the switches before and after it (0: none); port 0
 * is the management port (LID 1 and the built-in SM on switch 0 under
 * sm=builtin).  What an external SM sets is written under sib_fabric.lock
 * and read locklessly.
 */
struct sib_switch {
	u32 index;
	u32 nports;
	u32 nhca;
	u32 first_hca;
	u8 isl_port[2];
	atomic_t sm_act_count;		/* SMInfo ActCount */
	u64 pma_base[SIB_FABRIC_PORTS + 1][SIB_PMA_NR_FIELDS];

	/* Port 0's PortInfo and P_KeyTable. */
	u16 lid;
	u16 sm_lid;
	u8 sm_sl;
	u64 mkey;
	u16 mkey_lease;
	u8 mkey_protect;
	u8 subnet_timeout;
	u16 pkeys[SIB_PKEY_TABLE_LEN];

	/* SwitchInfo. */
	u16 lft_top;
	u8 default_port;
	u8 default_mcast_primary;
	u8 default_mcast_other;
	u8 life_time;
	bool state_change;		/* PortStateChange */

	struct sib_sw_port port[SIB_FABRIC_PORTS + 1];
	struct sib_sw_stats __percpu *stats;
	u8 lft[SIB_SW_LFT_CAP];		/* unicast: the port out, per LID */
	u32 mft[SIB_MAX_MLIDS];		/* multicast: a bit per port out */
	struct work_struct trap_work;	/* Trap 128 to the SM */
};

/* The one fabric. */
/* Which CM MADs the fabric holds back (debugfs cm_hold). */
enum sib_cm_hold {
	SIB_CM_HOLD_NONE,
	SIB_CM_HOLD_ALL,
	SIB_CM_HOLD_REQ,		/* REQs only: the answers go on */
};

struct sib_fabric {
	spinlock_t lock;		/* topology, LIDs, P_Keys, MFT */
	struct mutex ctl_mutex;		/* serialises control operations */
	struct sib_port __rcu *by_lid[SIB_MAX_LID + 1];
	struct sib_mcast_group __rcu *by_mlid[SIB_MAX_MLIDS];
	struct sib_port __rcu *by_index[SIB_FABRIC_PORTS];
	struct sib_dev *devs[SIB_MAX_DEVICES];
	u32 ndevs;
	u32 nports;
	struct sib_switch *sw;		/* the line, switches= of them */
	u32 nswitches;
	struct workqueue_struct *wq;	/* SM, SA and delayed packets */
	struct workqueue_struct *exec_wq;	/* async: send queues' workers */
	struct dentry *debugfs;

	/* Fault injection, set through debugfs. */
	u32 mad_delay_ms;		/* hold every MAD this long */
	enum sib_cm_hold cm_hold;	/* which CM MADs wait for release */
	u32 mad_drop_every;		/* drop every Nth MAD, 0 = none */
	u32 ud_drop_every;		/* drop every Nth UD data packet */
	u32 rc_drop_every;		/* lose every Nth RC/UC message */
	u32 sa_delay_ms;		/* the SA takes requests this late */
	u32 sa_busy_every;		/* answer every Nth SA request BUSY */
	u32 sa_silent_every;		/* answer every Nth SA request never */
	u32 sa_path_bits;		/* LMC: a Get's path bits, see sib_sa.c */
	u32 loss_ppm[SIB_LOSS_KINDS];	/* lose at random, per million */
	u32 loss_burst;			/* a random loss takes this many */
	u32 loss_burst_us;		/* ... sent within this long */
	struct sib_loss_burst sm_burst[SIB_LOSS_KINDS];	/* the SM's own sends */
	atomic_t mad_seq, ud_seq, rc_seq, sa_seq;
	atomic_t fail_qkey_set;		/* Q_Key changes left to refuse */
};

extern struct sib_fabric sib_fabric;

/* Module parameters other files read. */
extern bool sib_sm_external;		/* sm=external: an SM such as OpenSM */
extern unsigned int sib_lmc;		/* the built-in SM's LMC */
extern unsigned int sib_gids;		/* GID table entries per port */
extern unsigned int sib_port_mtu;
extern unsigned int sib_group_mtu;
extern bool sib_srq_enabled;
extern bool sib_csum_enabled;
extern bool sib_lso_enabled;
extern bool sib_source_qpn_enabled;
extern bool sib_cq_irq;
extern unsigned int sib_send_delay_us;
extern bool sib_async;
extern unsigned int sib_async_delay_us;
extern unsigned int sib_async_jitter_us;
extern unsigned int sib_ack_timeout_max_ms;
extern unsigned int sib_max_sge;
extern unsigned int sib_max_qp_wr;
extern unsigned int sib_max_cqe;
extern unsigned int sib_max_srq_wr;
extern unsigned int sib_max_inline;

static inline struct sib_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sib_dev, ibdev);
}

static inline struct sib_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sib_qp, ibqp);
}

static inline struct sib_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sib_cq, ibcq);
}

static inline struct sib_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sib_srq, ibsrq);
}

static inline struct sib_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sib_ah, ibah);
}

static inline struct sib_port *sib_port(struct sib_dev *sdev, u32 port_num)
{
	return &sdev->port[port_num - 1];
}

static inline void sib_count(struct sib_port *port, enum sib_counter c, u64 n)
{
	this_cpu_add(port->stats->cnt[c], n);
}

u64 sib_counter_sum(struct sib_port *port, enum sib_counter c);
void sib_counters_clear(struct sib_port *port);
extern const char *const sib_counter_names[SIB_NR_COUNTERS];

/* IPoIB traffic by transport and class (sib_ipoib.c). */
void sib_ipoib_count(const struct sib_pkt *pkt);
u64 sib_ipoib_sum(struct sib_port *port, enum sib_ipoib_transport t,
		  enum sib_ipoib_class c);
extern const char *const sib_ipoib_transport_names[SIB_IPOIB_TRANSPORTS];
extern const char *const sib_ipoib_class_names[SIB_IPOIB_CLASSES];

/* P_Key rules (sib_keys.c). */
bool sib_pkey_valid(u16 pkey);
bool sib_pkey_match(u16 a, u16 b);
int sib_pkey_table_find(const u16 *pkeys, u16 pkey);
int sib_pkey_find(const struct sib_port *port, u16 pkey);
u16 sib_pkey_at(const struct sib_port *port, u16 index);

/*
 * Whether a port sends and takes packets: SMPs (VL15) once its link is up
 * (INIT, ARMED), everything else only when ACTIVE (IBA 7.2).
 */
static inline bool sib_port_passes(const struct sib_port *port, bool smp)
{
	enum ib_port_state state = READ_ONCE(port->state);

	return state == IB_PORT_ACTIVE || (smp && state != IB_PORT_DOWN);
}

/*
 * LMC (IBA 7.11.1): a port answers to the 2^lmc LIDs from its base LID,
 * which is aligned to 2^lmc; the low lmc bits of a LID are its path bits.
 * The LID math of the fabric is here and nowhere else.
 */
static inline u16 sib_lmc_span(u8 lmc)
{
	return 1U << lmc;
}

/* A unicast LID's path bits under that LMC (multicast LIDs have none). */
static inline u16 sib_lid_path_bits(u16 lid, u8 lmc)
{
	return lid < SIB_MLID_BASE ? lid & (sib_lmc_span(lmc) - 1) : 0;
}

static inline bool sib_lid_in_block(u16 base, u8 lmc, u16 lid)
{
	return base && lid < SIB_MLID_BASE &&
	       lid - sib_lid_path_bits(lid, lmc) == base;
}

/* The LID of the block with those path bits (masked to the LMC). */
static inline u16 sib_lid_with_bits(u16 base, u8 lmc, u32 path_bits)
{
	return base | (path_bits & (sib_lmc_span(lmc) - 1));
}

static inline bool sib_port_has_lid(const struct sib_port *port, u16 lid)
{
	return sib_lid_in_block(READ_ONCE(port->lid), READ_ONCE(port->lmc),
				lid);
}

/* The SLID of what the port sends by a path with those source path bits. */
static inline u16 sib_port_slid(const struct sib_port *port, u8 path_bits)
{
	return sib_lid_with_bits(READ_ONCE(port->lid), READ_ONCE(port->lmc),
				 path_bits);
}

/* A DLID's path bits, as the port that owns it sees them. */
static inline u8 sib_port_path_bits(const struct sib_port *port, u16 dlid)
{
	return sib_lid_path_bits(dlid, READ_ONCE(port->lmc));
}

/*
 * The port's GID table (gids=): entry K is the subnet prefix and the
 * GUIDInfo table's GUID K, entry 0 the port GUID's; an entry whose GUID
 * is 0 (unassigned) is the zero GID, no port's.
 */
static inline union ib_gid sib_port_gid_at(const struct sib_port *port,
					   u32 index)
{
	union ib_gid gid = {};
	__be64 guid = READ_ONCE(port->guids[index]);

	if (guid) {
		gid.global.subnet_prefix = cpu_to_be64(SIB_SUBNET_PREFIX);
		gid.global.interface_id = guid;
	}
	return gid;
}

static inline union ib_gid sib_port_gid(const struct sib_port *port)
{
	return sib_port_gid_at(port, 0);
}

int sib_port_gid_index(const struct sib_port *port, const union ib_gid *gid);

static inline u32 sib_mtu_bytes(enum ib_mtu mtu)
{
	return ib_mtu_enum_to_int(mtu);
}

/* Verbs (sib_verbs.c, sib_cq.c, sib_qp.c, sib_srq.c, sib_post.c). */
extern const struct ib_device_ops sib_dev_ops;
int sib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct sib_create_cq_udata *udata);
int sib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sib_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int sib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sib_modify_cq(struct ib_cq *ibcq, u16 count, u16 usec);
bool sib_cq_push(struct sib_cq *cq, const struct ib_wc *wc, bool solicited);
void sib_cq_fire(struct sib_cq *cq);
void sib_cq_purge_qp(struct sib_cq *cq, struct sib_qp *qp);
void sib_cq_set_error(struct sib_cq *cq);
void sib_cq_err_work(struct work_struct *work);
int sib_cq_err_store(struct sib_dev *sdev, const char *buf);
int sib_cqs_show(struct seq_file *m, void *unused);

int sib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int sib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int sib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int sib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void sib_qp_set_error(struct sib_qp *qp);
void sib_qp_flush(struct sib_qp *qp);
void sib_dev_qps_set_error(struct sib_dev *sdev, const struct sib_cq *cq);
void sib_qp_event(struct sib_qp *qp, enum ib_event_type type);
void sib_qp_event_work(struct work_struct *work);
int sib_qp_fatal(struct sib_dev *sdev, u32 qpn);
void sib_dev_fatal(struct sib_dev *sdev);
struct sib_qp *sib_qp_lookup(struct sib_port *port, u32 qpn);
void sib_qp_rtr_hold(bool hold);
unsigned int sib_qp_rtr_held(void);

int sib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int sib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

int sib_wq_init(struct sib_wq *wq, u32 entries, u32 max_sge, size_t hdr,
		struct lock_class_key *key);
void sib_wq_free(struct sib_wq *wq);
int sib_wq_add_recv(struct sib_wq *wq, const struct ib_recv_wr *wr);

static inline bool sib_wq_empty(const struct sib_wq *wq)
{
	return wq->head == wq->tail;
}

static inline u32 sib_wq_count(const struct sib_wq *wq)
{
	return wq->tail - wq->head;
}

static inline void *sib_wq_entry(const struct sib_wq *wq, u32 pos)
{
	return wq->buf + (size_t)(pos & wq->mask) * wq->stride;
}

int sib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int sib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
u32 sib_sq_run(struct sib_qp *qp);
void sib_retry_work(struct work_struct *work);
void sib_flush_rq(struct sib_qp *qp);
void sib_av_from_attr(struct sib_av *av, const struct rdma_ah_attr *attr);
void sib_av_to_attr(const struct sib_av *av, struct rdma_ah_attr *attr);
bool sib_sgid_index_ok(const struct rdma_ah_attr *attr);

int sib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sib_mcast_detach_all(struct sib_qp *qp);

/* Execution by the fabric's workers, after the post returns (sib_exec.c). */
int sib_exec_init(void);
void sib_exec_exit(void);
void sib_exec_init_qp(struct sib_qp *qp);
void sib_exec_start(struct sib_qp *qp);
void sib_exec_stop(struct sib_qp *qp);

/* Memory regions and their keys (sib_mr.c). */
struct ib_mr *sib_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int sib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int sib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct sib_mr *sib_mr_find(struct sib_dev *sdev, u32 key);
int sib_mr_check(struct sib_dev *sdev, struct ib_pd *pd, u32 key, u64 addr,
		 u64 len, int access);
int sib_sgl_check(struct sib_dev *sdev, struct ib_pd *pd,
		  const struct ib_sge *sg, u32 num_sge, u64 len, int access);
int sib_mr_fast_reg(struct sib_qp *qp, const struct sib_send_wqe *wqe);
int sib_mr_invalidate(struct sib_qp *qp, u32 key);
void *sib_mr_addr(struct sib_dev *sdev, const struct sib_mr *mr, u64 addr,
		  u32 *contig);

/* DMA addresses to kernel ones (sib_dma.c). */
extern bool sib_dma;
int sib_dma_setup(struct sib_dev *sdev, struct device *dev);
void sib_dma_count_sge(struct sib_dev *sdev);
void *sib_dma_to_virt(struct sib_dev *sdev, u64 addr, u32 *contig);

/*
 * Walking memory that keys name (sib_copy.c): a cursor over a scatter or
 * gather list, giving the kernel address of each contiguous piece.
 */
struct sib_cursor {
	struct sib_dev *sdev;		/* whose keys; NULL: addresses as they are */
	const struct ib_sge *sg;
	u32 num_sge;
	u32 i;				/* the entry we are in */
	u32 off;			/* bytes of it passed */
	struct sib_mr *mr;		/* its region, if a key names one */
	bool dma;			/* it names DMA addresses */
	bool mr_found;
};

void sib_cursor_init(struct sib_cursor *c, struct sib_dev *sdev,
		     const struct ib_sge *sg, u32 num_sge);
void *sib_cursor_map(struct sib_cursor *c, u32 *contig);
void sib_cursor_skip(struct sib_cursor *c, u32 len);
u32 sib_copy(struct sib_cursor *dst, struct sib_cursor *src, u32 len);
u32 sib_copy_out(void *buf, const struct sib_pkt *pkt, u32 len);

/* RDMA READ and WRITE at the responder (sib_rdma.c). */
enum sib_delivery sib_rdma_respond(struct sib_port *dport, struct sib_qp *qp,
				   struct sib_pkt *pkt);
enum sib_delivery sib_rdma_write(struct sib_port *dport, struct sib_qp *qp,
				 const struct sib_pkt *pkt);
enum sib_delivery sib_rdma_refuse(struct sib_port *dport, struct sib_qp *qp,
				  enum sib_delivery why);

/* The wire (sib_fabric.c). */
enum sib_delivery sib_deliver(struct sib_pkt *pkt);
void sib_deliver_later(const struct sib_pkt *pkt, unsigned int delay_ms);
struct sib_port *sib_port_by_lid(u16 lid);
struct sib_port *sib_port_by_index(u32 index);
enum sib_delivery sib_deliver_at(struct sib_pkt *pkt, struct sib_port *dport);
bool sib_qp_can_receive(const struct sib_qp *qp, enum ib_qp_state state);
int sib_check_keys(struct sib_port *dport, struct sib_qp *qp,
		   const struct sib_pkt *pkt);
u32 sib_wire_pkts(const struct sib_pkt *pkt, u32 len, u64 *octets);
void sib_link_count(struct sib_port *port, const struct sib_pkt *pkt,
		    u32 len, bool tx, bool mcast);
struct sib_port *sib_port_by_gid(const union ib_gid *gid);
int sib_mft_set(u16 mlid, const struct sib_port *port, bool member);
unsigned long sib_mft_members(u16 mlid);
void sib_fabric_drop_held(void);
unsigned int sib_fabric_cm_held(void);
void sib_fabric_cm_release(void);
void sib_fabric_cm_release_to(u16 dlid);
void sib_fabric_free_groups(void);

/* Stateless offloads done in software (sib_offload.c). */
bool sib_csum_fill(struct sib_dev *sdev, const struct sib_pkt *pkt,
		   struct sib_recv_wqe *wqe, u32 offset);
int sib_lso_send(struct sib_pkt *pkt, const struct sib_send_wqe *wqe, u32 mtu);

/* Subnet manager (sib_sm.c). */
int sib_sm_add_device(struct sib_dev *sdev);
void sib_sm_remove_device(struct sib_dev *sdev);
void sib_sm_port_up(struct sib_port *port);
void sib_sm_port_down(struct sib_port *port);
void sib_sm_port_dead(struct sib_port *port);
int sib_sm_set_pkeys(struct sib_port *port, const u16 *pkeys, u32 n);
int sib_sm_set_lid(struct sib_port *port, u16 lid);
int sib_sm_set_mtu(struct sib_port *port, enum ib_mtu mtu);
void sib_port_event(struct sib_port *port, enum ib_event_type type);
void sib_sm_reregister_port(struct sib_port *port);
void sib_sm_restart(void);
int sib_sm_move_lid(struct sib_port *port, u16 lid);
int sib_sm_lid_check(const struct sib_port *port, u16 lid);

/* What sib_sm_sa_sync() leaves to the SA's work. */
enum {
	SIB_SA_SYNC_GONE,		/* forget the port's memberships */
	SIB_SA_SYNC_PARTITIONS,		/* create its partitions' groups */
};

void sib_sm_sa_sync(struct sib_port *port, unsigned int what);
void sib_sm_sa_sync_work(struct work_struct *work);

/* Subnet management and performance agents (sib_sma.c, sib_pma.c). */
struct ib_mad;
struct ib_smp;
struct sib_portinfo;
struct ib_node_info;

void sib_sma_init_port(struct sib_port *port);
void sib_sma_node_info(struct sib_port *port, struct ib_node_info *ni);
void sib_sma_portinfo(struct sib_port *port, struct sib_portinfo *pi);
bool sib_portinfo_link_valid(const struct sib_portinfo *req,
			     enum ib_port_state cur, u8 mtu_cap);
int sib_process_mad(struct ib_device *ibdev, int flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index);
bool sib_mad_for_agents(u8 method);
void sib_smp_begin(const struct ib_smp *in, struct ib_smp *out);
void sib_smp_end(struct ib_smp *out, u16 status);
int sib_pma_mad(struct sib_dev *sdev, const struct ib_mad *in,
		struct ib_mad *out);
void sib_pma_clear(struct sib_port *port);

/* Where a PMA's counters come from: an HCA's ports, or the switch's. */
struct sib_pma_node {
	u32 first, last;		/* the ports PortSelect may name */
	u64 (*value)(void *ctx, u32 port, enum sib_pma_field f);
	void (*reset)(void *ctx, u32 port, enum sib_pma_field f);
	void *ctx;
};

int sib_pma_answer(const struct sib_pma_node *node, const struct ib_mad *in,
		   struct ib_mad *out);
u64 sib_pma_raw(struct sib_port *port, enum sib_pma_field f);
u64 sib_pma_since(u64 raw, u64 base);

/* The switches (sib_switch.c, sib_switch_sma.c), from the fabric's work queue. */
int sib_switch_init(u32 nhca, u32 nswitches);
void sib_switch_exit(void);
void sib_switch_place(struct sib_port *port);
void sib_switch_portinfo(struct sib_switch *sw, u32 port_num,
			 struct sib_portinfo *pi);
void sib_switch_node_info(struct sib_switch *sw, u8 local_port,
			  struct ib_node_info *ni);
const char *sib_switch_desc(const struct sib_switch *sw);
void sib_switch_smp(struct sib_switch *sw, struct ib_smp *smp, u32 len,
		    u32 in_port, u16 slid);
u16 sib_switch_lid(const struct sib_switch *sw);
__be64 sib_switch_guid(const struct sib_switch *sw);
struct sib_switch *sib_switch_by_lid(u16 lid);
u32 sib_switch_port_toward(const struct sib_switch *sw, u32 from_sw,
			   u32 from_port);

/* Their tables, links and port states, for the data path (any context). */
int sib_switch_route(const struct sib_switch *sw, u16 dlid);
void sib_switch_link_cross(struct sib_switch *sw, u32 out_port,
			   struct sib_switch *peer, u32 in_port,
			   const struct sib_pkt *pkt, u32 len, bool mcast);
unsigned long sib_switch_mcast_reach(struct sib_switch *sw, u32 in_port,
				     const struct sib_pkt *pkt);
struct sib_switch *sib_switch_peer(const struct sib_switch *sw, u32 port_num,
				   u32 *peer_port);
struct sib_port *sib_switch_hca(const struct sib_switch *sw, u32 port_num);
bool sib_switch_port_passes(struct sib_switch *sw, u32 port_num, bool smp,
			    bool ingress);
void sib_switch_port_state_locked(struct sib_switch *sw, u32 port_num,
				  enum ib_port_state state);
struct sib_port *sib_switch_lid_owner(u16 lid);

static inline void sib_switch_count(struct sib_switch *sw, u32 port_num,
				    enum sib_pma_field f, u64 n)
{
	this_cpu_add(sw->stats->cnt[port_num][f], n);
}

static inline struct sib_switch *sib_port_switch(const struct sib_port *port)
{
	return &sib_fabric.sw[port->sw_index];
}

/* Links under sm=external (sib_link.c). */
bool sib_link_update_locked(struct sib_port *port, bool retrain);
void sib_link_lost(struct sib_port *port);
void sib_link_plug(struct sib_port *port, bool plugged);

/* Subnet administrator (sib_sa.c): a MAD reached the SM's QP1. */
struct sib_mad_src {
	struct sib_port *port;		/* requester's port, by SLID */
	u16 slid;
	u32 sqpn;
	u16 pkey;
	u8 sl;
	bool has_grh;
	union ib_gid sgid;
};

int sib_sa_init(void);
void sib_sa_exit(void);
void sib_sa_recv(const struct sib_mad_src *src, const void *mad, u32 len);
void sib_switch_pma(struct sib_switch *sw, const struct sib_mad_src *src,
		    const void *mad, u32 len);
void sib_sm_send_mad(const struct sib_mad_src *to, const void *mad, u32 len);
void sib_switch_send_mad(struct sib_switch *sw, const struct sib_mad_src *to,
			 const void *mad, u32 len);
void sib_fabric_smp_to_switch(const struct sib_pkt *pkt, u32 sw_index,
			      u32 in_port);
void sib_sa_port_gone(struct sib_port *port);
void sib_sa_reregister(void);
int sib_sa_show_groups(struct seq_file *m, void *unused);
int sib_sa_add_partition(u16 pkey);
int sib_group_mtu_check(unsigned int bytes);
enum ib_mtu sib_group_mtu_cap(enum ib_mtu mtu);

/* Control interface (sib_debugfs.c). */
int sib_debugfs_init(void);
void sib_debugfs_exit(void);
void sib_debugfs_add_device(struct sib_dev *sdev);
void sib_debugfs_remove_device(struct sib_dev *sdev);

/* SR-IOV VFs' GUIDs and link state, as a PF manages them (sib_vf.c). */
void sib_vf_init(struct sib_dev *sdev);
void sib_vf_debugfs(struct sib_dev *sdev, struct dentry *dir);

#endif /* SIB_H */
