/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmprobe: a test module that sends one CM REQ at a time, well formed or
 * not, to an IPoIB connected-mode listener and records what came back; and
 * holds CM listens that refuse every REQ, to take service IDs away.
 */
#ifndef CMPROBE_H
#define CMPROBE_H

#include <linux/socket.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include "tests_compat.h"

/*
 * What the REQ carries.  A REQ's private data field is always 92 bytes on
 * the wire, zero padded, so "short" reaches the peer as a zero MTU.
 */
enum cmprobe_pdata {
	CMPROBE_PDATA_GOOD,	/* {reserved:8, UD QPN:24}{receive MTU:32} */
	CMPROBE_PDATA_SHORT,	/* the QPN word only */
	CMPROBE_PDATA_ZERO_QPN,	/* a receive MTU, QPN zero */
	CMPROBE_PDATA_NONE,	/* nothing at all */
	CMPROBE_PDATA_RANDOM,	/* len= bytes from a generator seeded by seed= */
	CMPROBE_PDATA_CMA,	/* rdma_cm's header: version 0, src= and dst= */
	CMPROBE_PDATA_KINDS
};

enum cmprobe_outcome {
	CMPROBE_NONE,		/* no probe ran yet */
	CMPROBE_REP,
	CMPROBE_REJ,
	CMPROBE_TIMEOUT,	/* the CM gave up resending the REQ */
	CMPROBE_ERROR,		/* a local step failed: see stage and err */
};

struct cmprobe_req {
	char dev[IB_DEVICE_NAME_MAX];
	u32 port;
	union ib_gid dgid;
	u32 dlid;		/* nonzero: build the path here, ask no SA */
	u64 sid;
	enum ib_qp_type qp_type;
	enum cmprobe_pdata pdata;
	u32 lqpn;		/* the UD QPN we claim; 0: our own QP's number */
	u32 mtu;		/* the receive MTU we claim */
	u32 len;		/* pdata=random: how many bytes */
	u64 seed;		/* pdata=random: what they are */
	u16 pkey;		/* the path's P_Key */
	bool no_rtu;		/* after a REP: no RTU, wait for the peer */
	struct sockaddr_storage src, dst;	/* pdata=cma: IPv4 or IPv6 */
	u32 cm_timeout;		/* the REQ's response timeout: 4.096 us << N */
};

/*
 * The REQ's response timeout, 4.096 us << N: 18 (about 1 s) unless told;
 * at most 21, so that its three tries (25 s) fit the wait for an answer.
 */
#define CMPROBE_CM_TIMEOUT	18
#define CMPROBE_CM_TIMEOUT_MAX	21

/* The larger of the REP and REJ private data fields. */
#define CMPROBE_PDATA_MAX	IB_CM_REP_PRIVATE_DATA_SIZE

struct cmprobe_result {
	enum cmprobe_outcome outcome;
	const char *stage;	/* the step that failed (CMPROBE_ERROR) */
	int err;
	u32 lqpn;		/* the QPN our private data named */
	int reason;		/* REJ */
	u32 remote_qpn;		/* REP */
	u8 pdata[CMPROBE_PDATA_MAX];
	unsigned int pdata_len;
	u8 ari[IB_CM_REJ_ARI_LENGTH];
	unsigned int ari_len;
	const char *teardown;	/* after a REP: how the connection ended */
	int teardown_reason;	/* ... by the peer's REJ: its reason */
	u8 teardown_pdata[CMPROBE_PDATA_MAX];	/* and private data */
	unsigned int teardown_pdata_len;
};

struct seq_file;

int cmprobe_cm_init(void);
void cmprobe_cm_exit(void);
int cmprobe_run(const struct cmprobe_req *req, struct cmprobe_result *res);
struct ib_device *cmprobe_find_dev(const char *name);

/* How a listen answers a REQ (cmprobe_listen.c says what each sends). */
enum cmprobe_answer {
	CMPROBE_ANSWER_REJ,
	CMPROBE_ANSWER_REJ_RANDOM,
	CMPROBE_ANSWER_REP_SHORT,
	CMPROBE_ANSWER_REP_ZERO_QPN,
	CMPROBE_ANSWER_REP_BAD_QPN,
	CMPROBE_ANSWER_REP_MTU0,
	CMPROBE_ANSWER_REP_MTU_MAX,
	CMPROBE_ANSWERS
};

/* Listens that answer every REQ the same way (cmprobe_listen.c). */
int cmprobe_answer_parse(const char *s);
void cmprobe_listen_seed(u64 seed);
int cmprobe_listen(const char *name, u64 sid, enum cmprobe_answer answer);
int cmprobe_unlisten(u64 sid);
void cmprobe_unlisten_dev(struct ib_device *dev);
void cmprobe_show_listens(struct seq_file *s);

#endif /* CMPROBE_H */
