/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmaprobe: a test module that drives rdma_cm as a kernel storage protocol
 * would: listens on IP addresses, connects to them, sends a message each
 * way over the connection's RC QP and, on request, writes and reads a
 * peer's memory through a fast-registered region.  Everything it sees goes
 * to a log that a read of its control file returns.
 */
#ifndef RDMAPROBE_H
#define RDMAPROBE_H

#include <linux/kref.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>
#include "tests_compat.h"

#define RP_MSG_MAX	16384		/* payload bytes of one message */
#define RP_REGION_PAGES	4		/* what RDMA WRITE and READ work on */
#define RP_REGION_LEN	(RP_REGION_PAGES * PAGE_SIZE)

/* On the wire, before each message's payload; big endian. */
struct rp_msg {
	__be32 magic;
	u8 kind;		/* enum rp_msg_kind */
	u8 flags;		/* RP_F_* */
	__be16 status;		/* a reply's verdict: 0 or a positive errno */
	__be32 seq;
	__be32 len;		/* payload bytes */
	__be32 crc;		/* CRC-32 of the payload, or of the region */
	__be32 rkey;		/* the region, when rlen is not 0 */
	__be64 addr;
	__be32 rlen;
	__be32 reserved;
};

#define RP_MAGIC	0x52505231	/* "RPR1" */
#define RP_F_RDMA	0x01		/* DATA: register a region for me */

enum rp_msg_kind {
	RP_MSG_DATA = 1,	/* active -> passive: a payload */
	RP_MSG_REPLY,		/* passive -> active: its verdict and a payload */
	RP_MSG_WRITTEN,		/* active -> passive: the region was written */
	RP_MSG_CHECKED,		/* passive -> active: its verdict, key invalidated */
};

/* A DMA-mapped buffer. */
struct rp_buf {
	void *va;
	u64 dma;
	size_t size;
	enum dma_data_direction dir;
};

/* The last completion of one kind of work request (active side). */
struct rp_done {
	bool done;
	enum ib_wc_status status;
	u32 byte_len;
};

enum rp_side { RP_ACTIVE, RP_PASSIVE, RP_LISTEN };

/* How the active side keys its RDMA WRITE (rkey=). */
enum rp_rkey {
	RP_RKEY_GOOD,		/* the key the peer sent */
	RP_RKEY_BAD,		/* the next one, which the region lacks */
	RP_RKEY_STALE,		/* good, and once more after LOCAL_INV */
};

/*
 * One connection, either side.  The verbs objects and the id are made and
 * torn down in process context, under mutex for whoever is not the
 * command that made them; the rdma_cm and CQ handlers take only lock, and
 * rdma_cm's handler never tears down: terminal events queue destroy_work.
 */
struct rp_conn {
	enum rp_side side;		/* first, as in struct rp_listen */
	struct kref ref;
	struct list_head link;		/* rp_conns, under rp_lists_lock */
	unsigned int nr;
	char name[16];			/* "cli#N", "srv#N" */
	struct mutex mutex;		/* id, pd, cq and their teardown */
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct rp_buf send, recv;
	struct ib_cqe send_cqe, recv_cqe, rdma_cqe, reg_cqe, inv_cqe;
	u32 seq;			/* of the last DATA */

	/* The passive side's region, fast-registered on request. */
	struct page *region;
	struct scatterlist region_sg;
	bool region_mapped;
	bool region_live;		/* registered, not yet invalidated */
	struct ib_mr *mr;
	u32 region_seq;			/* the DATA it was offered for */
	u16 region_status;		/* the verdict CHECKED will carry */

	/* The active side's RDMA WRITE source and READ sink. */
	struct rp_buf wsrc, rdst;

	spinlock_t lock;		/* the fields below; posting */
	bool dead;			/* no more posting: the QP is going */
	bool listed;			/* on rp_conns: not a command's */
	unsigned long events;		/* BIT(rdma_cm_event_type) seen */
	int event_status;		/* of the last event */
	struct rp_done sent, received, rdma;
	wait_queue_head_t wait;
	struct work_struct destroy_work;
};

/* rdmaprobe_conn.c: what both sides share */
const char *rp_event_name(enum rdma_cm_event_type ev);
void rp_dev_name(struct rdma_cm_id *id, char *name, size_t size);
u32 rp_crc(const void *buf, size_t len);
void rp_fill(void *buf, size_t len, u32 seq, enum rp_msg_kind kind);
bool rp_check(const void *buf, size_t len, u32 seq, enum rp_msg_kind kind);
bool rp_has_fast_reg(struct rp_conn *conn);
bool rp_queue(struct work_struct *work);
struct rp_conn *rp_conn_new(enum rp_side side);
void rp_conn_put(struct rp_conn *conn);
int rp_conn_event(struct rdma_cm_id *id, struct rdma_cm_event *ev);
bool rp_conn_over(struct rp_conn *conn);
int rp_conn_publish(struct rp_conn *conn);
int rp_buf_alloc(struct ib_device *dev, struct rp_buf *b, size_t size,
		 enum dma_data_direction dir);
void rp_buf_free(struct ib_device *dev, struct rp_buf *b);
int rp_post_recv(struct rp_conn *conn);
int rp_post_msg(struct rp_conn *conn, struct ib_send_wr *first,
		enum rp_msg_kind kind, u32 seq, u32 len, u16 status,
		u8 flags);
int rp_wait_done(struct rp_conn *conn, struct rp_done *d,
		 unsigned int timeout_ms);
int rp_recv_msg(struct rp_conn *conn, enum rp_msg_kind kind, u32 seq);
int rp_conn_setup(struct rp_conn *conn, struct rdma_cm_id *id);
void rp_conn_free_verbs(struct rp_conn *conn);
void rp_conn_teardown(struct rp_conn *conn);
struct rp_conn *rp_conn_get_nr(unsigned int nr);
void rp_conns_destroy_all(void);
void rp_conns_show(struct seq_file *s);
int rp_init_wq(void);
void rp_exit_wq(void);

/* rdmaprobe_listen.c: the passive side */
int rp_listen(struct net *net, const struct sockaddr *addr);
int rp_unlisten(struct net *net, const struct sockaddr *addr);
void rp_listens_destroy_all(void);
void rp_listens_show(struct seq_file *s);
void rp_passive_recv(struct rp_conn *conn, const struct ib_wc *wc);

/* rdmaprobe_connect.c: the active side */
struct rp_connect_args {
	struct sockaddr_storage dst, src;
	bool has_src;
	u32 len;		/* payload bytes of the message each way */
	bool rdma;		/* also RDMA WRITE and READ a region */
	enum rp_rkey rkey;
	bool hold;		/* leave the connection up */
	unsigned int timeout_ms;	/* for each step */
};

int rp_connect(struct net *net, const struct rp_connect_args *args);
int rp_exchange(unsigned int nr, u32 len, unsigned int timeout_ms);
int rp_close(unsigned int nr, unsigned int timeout_ms);

/* rdmaprobe_rdma.c: fast registration, RDMA WRITE and READ */
int rp_region_alloc(struct rp_conn *conn);
void rp_region_free(struct rp_conn *conn);
int rp_region_offer(struct rp_conn *conn, u32 seq, struct ib_reg_wr *reg,
		    struct rp_msg *reply);
int rp_region_check(struct rp_conn *conn, const struct rp_msg *msg);
int rp_rdma_run(struct rp_conn *conn, const struct rp_msg *offer, u32 seq,
		enum rp_rkey rkey_mode, unsigned int timeout_ms);

/* rdmaprobe_ud.c: UD datagrams addressed by GID */
#define RP_UD_MAX	1024		/* payload bytes of one datagram */

enum rp_ud_op { RP_UD_OPEN, RP_UD_SEND, RP_UD_CLOSE };

struct rp_ud_args {
	char dev[IB_DEVICE_NAME_MAX];
	u32 port;
	u32 qpn, lid;			/* send: the peer endpoint's */
	union ib_gid dgid;
	u32 sgid_index;			/* the GRH's source: our GID entry */
	u32 len;
	unsigned int timeout_ms;
};

int rp_ud_command(enum rp_ud_op op, const struct rp_ud_args *a);
void rp_uds_show(struct seq_file *s);
int rp_ud_init(void);
void rp_ud_exit(void);

/* rdmaprobe_main.c: the log */
__printf(1, 2) void rp_log(const char *fmt, ...);

#endif /* RDMAPROBE_H */
