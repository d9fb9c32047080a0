// SPDX-License-Identifier: GPL-2.0
/*
 * The control file, /sys/kernel/debug/cmprobe/probe.  A write runs one
 * probe, or takes or drops a listen, and returns when it is over (a few
 * seconds at most):
 *
 *   echo "dev=sib0 port=1 dgid=fe80::2 qpn=0x48 pdata=short" >probe
 *
 *   dev=NAME     IB device to send from (sib0)
 *   port=N       its port (1)
 *   dgid=GID     the target port's GID (required)
 *   dlid=N       its LID: the path is then made here, not asked of the SA
 *   qpn=N        the target's UD QPN: sid defaults to 0x1000000000000000 | N
 *   sid=HEX      the service ID, instead of the one qpn gives
 *   pdata=KIND   good | short | zero-qpn | none | random | cma (good)
 *   len=N        pdata=random: that many bytes, 0 to 92 (92)
 *   seed=N       pdata=random: the generator's seed, so a run repeats (0)
 *   src=IP       pdata=cma: the source address rdma_cm's header names
 *   dst=IP       pdata=cma: the destination address (the same family)
 *   pkey=HEX     the path's P_Key, which our port must hold (ffff)
 *   lqpn=N       the UD QPN our private data names (our QP's number)
 *   mtu=N        the receive MTU it names (65524)
 *   qp=rc|uc     the connection's transport (rc)
 *   rtu=no       after a REP, send no RTU: wait (10 s at most) for how the
 *                peer ends the half-made connection
 *   cm_timeout=N the REQ's response timeout, 4.096 us << N, up to 21
 *                (18: about 1 s; the CM tries three times)
 *
 * A read shows the last probe's request and outcome, one "key value" a
 * line: outcome rep|rej|timeout|error, then reason (REJ), remote_qpn
 * (REP), pdata (the answer's private data in hex, trailing zero words
 * left out, "-" when all zero), ari, teardown (how a REP'd connection
 * ended: drep, peer-dreq, dreq-timeout, rej, rej-sent, none; after a REJ
 * of the peer's, teardown_reason and teardown_pdata), stage and errno
 * (what went wrong locally).
 *
 *   echo "listen dev=sib1 sid=1000000000000048 [answer=KIND] [seed=N]" >probe
 *   echo "unlisten sid=1000000000000048" >probe
 *
 * listen holds an ib_cm listen on that service ID (hex) of that device
 * (sib0 by default) until unlisten or unload, and answers each REQ as
 * answer= says (cmprobe_listen.c): a REJ, reason Consumer Reject (28), by
 * default; seed= seeds the random answers.  The write fails with the CM's errno,
 * -EBUSY when the ID is taken, so that a driver's own listen there fails
 * in turn.  unlisten drops every listen on the ID, -ENOENT if none.  A read
 * ends with one "listen dev=NAME sid=0xHEX answer=KIND" line per listen
 * held and, once a listen was held, a "listens reqs=N reps=N rejs=N
 * peer_rejs=N taken=N unanswered=N" line: REQs answered, REPs and REJs
 * sent, and how the REP'd ones ended (taken: an RTU, first data or a DREQ
 * came back); once an RTU came, "rtu_pdata HEX": the private data of the
 * last one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include "cmprobe.h"

#define CMPROBE_CMD_MAX		256
#define CMPROBE_LINUX_SID	0x1000000000000000ULL
#define CMPROBE_DEFAULT_MTU	65524	/* 65520 plus the 4-byte header */

static const char *const pdata_names[CMPROBE_PDATA_KINDS] = {
	[CMPROBE_PDATA_GOOD] = "good",
	[CMPROBE_PDATA_SHORT] = "short",
	[CMPROBE_PDATA_ZERO_QPN] = "zero-qpn",
	[CMPROBE_PDATA_NONE] = "none",
	[CMPROBE_PDATA_RANDOM] = "random",
	[CMPROBE_PDATA_CMA] = "cma",
};

static const char *const outcome_names[] = {
	[CMPROBE_NONE] = "none",
	[CMPROBE_REP] = "rep",
	[CMPROBE_REJ] = "rej",
	[CMPROBE_TIMEOUT] = "timeout",
	[CMPROBE_ERROR] = "error",
};

static struct dentry *cmprobe_dir;
/* The last request and result, kept for reading. */
static DEFINE_MUTEX(cmprobe_mutex);
static struct cmprobe_req last_req;
static struct cmprobe_result last_res;

static int parse_u32(const char *key, const char *val, u32 max, u32 *out)
{
	if (kstrtou32(val, 0, out) || *out > max) {
		pr_info("%s=%s: not a number up to %u\n", key, val, max);
		return -EINVAL;
	}
	return 0;
}

static int parse_pair(struct cmprobe_req *req, char *key, char *val,
		      bool *have_dgid, bool *have_sid, u32 *qpn)
{
	int i;

	if (!strcmp(key, "dev")) {
		if (strscpy(req->dev, val, sizeof(req->dev)) < 0)
			goto bad;
		return 0;
	}
	if (!strcmp(key, "port"))
		return parse_u32(key, val, U8_MAX, &req->port);
	if (!strcmp(key, "dgid")) {
		if (!in6_pton(val, -1, req->dgid.raw, -1, NULL))
			goto bad;
		*have_dgid = true;
		return 0;
	}
	if (!strcmp(key, "dlid"))
		return parse_u32(key, val, U16_MAX, &req->dlid);
	if (!strcmp(key, "qpn"))
		return parse_u32(key, val, 0xffffff, qpn);
	if (!strcmp(key, "sid")) {
		if (kstrtou64(val, 16, &req->sid))
			goto bad;
		*have_sid = true;
		return 0;
	}
	if (!strcmp(key, "pdata")) {
		i = match_string(pdata_names, ARRAY_SIZE(pdata_names), val);
		if (i < 0)
			goto bad;
		req->pdata = i;
		return 0;
	}
	if (!strcmp(key, "lqpn"))
		return parse_u32(key, val, 0xffffff, &req->lqpn);
	if (!strcmp(key, "mtu"))
		return parse_u32(key, val, U32_MAX, &req->mtu);
	if (!strcmp(key, "len"))
		return parse_u32(key, val, IB_CM_REQ_PRIVATE_DATA_SIZE,
				 &req->len);
	if (!strcmp(key, "seed")) {
		if (kstrtou64(val, 0, &req->seed))
			goto bad;
		return 0;
	}
	if (!strcmp(key, "src") || !strcmp(key, "dst")) {
		if (inet_pton_with_scope(&init_net, AF_UNSPEC, val, NULL,
					 key[0] == 's' ? &req->src : &req->dst))
			goto bad;
		return 0;
	}
	if (!strcmp(key, "pkey")) {
		if (kstrtou16(val, 16, &req->pkey))
			goto bad;
		return 0;
	}
	if (!strcmp(key, "rtu")) {
		if (strcmp(val, "no"))
			goto bad;
		req->no_rtu = true;
		return 0;
	}
	if (!strcmp(key, "cm_timeout"))
		return parse_u32(key, val, CMPROBE_CM_TIMEOUT_MAX,
				 &req->cm_timeout);
	if (!strcmp(key, "qp")) {
		if (!strcmp(val, "rc"))
			req->qp_type = IB_QPT_RC;
		else if (!strcmp(val, "uc"))
			req->qp_type = IB_QPT_UC;
		else
			goto bad;
		return 0;
	}
	pr_info("unknown key '%s'\n", key);
	return -EINVAL;
bad:
	pr_info("bad value for %s: '%s'\n", key, val);
	return -EINVAL;
}

static int parse_request(char *cmd, struct cmprobe_req *req)
{
	bool have_dgid = false, have_sid = false;
	u32 qpn = 0;
	char *tok, *val;
	int ret;

	memset(req, 0, sizeof(*req));
	strscpy(req->dev, "sib0", sizeof(req->dev));
	req->port = 1;
	req->qp_type = IB_QPT_RC;
	req->mtu = CMPROBE_DEFAULT_MTU;
	req->len = IB_CM_REQ_PRIVATE_DATA_SIZE;
	req->pkey = 0xffff;
	req->cm_timeout = CMPROBE_CM_TIMEOUT;

	while ((tok = strsep(&cmd, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val) {
			pr_info("'%s' is not key=value\n", tok);
			return -EINVAL;
		}
		*val++ = '\0';
		ret = parse_pair(req, tok, val, &have_dgid, &have_sid, &qpn);
		if (ret)
			return ret;
	}
	if (!have_dgid || (!have_sid && !qpn)) {
		pr_info("a probe needs dgid= and qpn= or sid=\n");
		return -EINVAL;
	}
	if (!have_sid)
		req->sid = CMPROBE_LINUX_SID | qpn;
	if (req->pdata == CMPROBE_PDATA_CMA &&
	    (!req->src.ss_family || req->src.ss_family != req->dst.ss_family)) {
		pr_info("pdata=cma needs src= and dst= of one family\n");
		return -EINVAL;
	}
	return 0;
}

/* "listen [dev=NAME] sid=HEX" or "unlisten sid=HEX", past the verb. */
static int listen_command(char *cmd, bool listen)
{
	char dev[IB_DEVICE_NAME_MAX] = "sib0";
	int answer = CMPROBE_ANSWER_REJ;
	bool have_sid = false;
	char *tok, *val;
	u64 sid, seed;

	while ((tok = strsep(&cmd, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			goto bad;
		*val++ = '\0';
		if (listen && !strcmp(tok, "dev")) {
			if (strscpy(dev, val, sizeof(dev)) < 0)
				goto bad;
		} else if (!strcmp(tok, "sid")) {
			if (kstrtou64(val, 16, &sid))
				goto bad;
			have_sid = true;
		} else if (listen && !strcmp(tok, "answer")) {
			answer = cmprobe_answer_parse(val);
			if (answer < 0)
				goto bad;
		} else if (listen && !strcmp(tok, "seed")) {
			if (kstrtou64(val, 0, &seed))
				goto bad;
			cmprobe_listen_seed(seed);
		} else {
			goto bad;
		}
	}
	if (!have_sid) {
		pr_info("%s needs sid=\n", listen ? "listen" : "unlisten");
		return -EINVAL;
	}
	return listen ? cmprobe_listen(dev, sid, answer) : cmprobe_unlisten(sid);
bad:
	pr_info("%s: bad argument '%s'\n", listen ? "listen" : "unlisten", tok);
	return -EINVAL;
}

/* Does cmd start with the word verb? */
static bool is_verb(const char *cmd, const char *verb)
{
	size_t n = strlen(verb);

	return !strncmp(cmd, verb, n) && (!cmd[n] || isspace(cmd[n]));
}

static ssize_t probe_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct cmprobe_req req;
	char *cmd, *verb;
	int ret;

	if (len >= CMPROBE_CMD_MAX)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, len);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	verb = skip_spaces(cmd);
	if (is_verb(verb, "listen") || is_verb(verb, "unlisten")) {
		ret = listen_command(verb + strcspn(verb, " \t\n"),
				     verb[0] == 'l');
		kfree(cmd);
		return ret ? ret : len;
	}
	ret = parse_request(cmd, &req);
	kfree(cmd);
	if (ret)
		return ret;

	ret = mutex_lock_interruptible(&cmprobe_mutex);
	if (ret)
		return ret;
	last_req = req;
	ret = cmprobe_run(&req, &last_res);
	if (ret)
		last_res.outcome = CMPROBE_NONE;
	mutex_unlock(&cmprobe_mutex);
	return ret ? ret : len;
}

static void show_hex(struct seq_file *s, const char *key, const u8 *p,
		     unsigned int len)
{
	unsigned int i;

	/* Whole 4-byte words, up to the last that is not zero. */
	while (len && !p[len - 1])
		len--;
	len = min_t(unsigned int, round_up(len, 4), CMPROBE_PDATA_MAX);
	seq_printf(s, "%s ", key);
	if (!len)
		seq_puts(s, "-");
	for (i = 0; i < len; i++)
		seq_printf(s, "%02x", p[i]);
	seq_puts(s, "\n");
}

static int probe_show(struct seq_file *s, void *unused)
{
	const struct cmprobe_req *req = &last_req;
	const struct cmprobe_result *res = &last_res;

	mutex_lock(&cmprobe_mutex);
	if (res->outcome == CMPROBE_NONE) {
		seq_puts(s, "outcome none\n");
		goto out;
	}
	seq_printf(s, "request dev=%s port=%u dgid=%pI6 dlid=%u sid=0x%016llx pkey=0x%04x qp=%s pdata=%s lqpn=0x%x mtu=%u%s\n",
		   req->dev, req->port, req->dgid.raw, req->dlid, req->sid,
		   req->pkey, req->qp_type == IB_QPT_UC ? "uc" : "rc",
		   pdata_names[req->pdata], res->lqpn, req->mtu,
		   req->no_rtu ? " rtu=no" : "");
	if (req->pdata == CMPROBE_PDATA_CMA)
		seq_printf(s, "cma src=%pISc dst=%pISc\n", &req->src, &req->dst);
	if (req->pdata == CMPROBE_PDATA_RANDOM)
		seq_printf(s, "random len=%u seed=%llu\n", req->len, req->seed);
	seq_printf(s, "outcome %s\n", outcome_names[res->outcome]);
	if (res->outcome == CMPROBE_REJ) {
		seq_printf(s, "reason %d (%s)\n", res->reason,
			   ibcm_reject_msg(res->reason));
		if (res->ari_len)
			show_hex(s, "ari", res->ari, res->ari_len);
	}
	if (res->outcome == CMPROBE_REP)
		seq_printf(s, "remote_qpn 0x%x\n", res->remote_qpn);
	if (res->outcome == CMPROBE_REP || res->outcome == CMPROBE_REJ)
		show_hex(s, "pdata", res->pdata, res->pdata_len);
	if (res->teardown)
		seq_printf(s, "teardown %s\n", res->teardown);
	if (res->teardown_reason) {
		seq_printf(s, "teardown_reason %d (%s)\n", res->teardown_reason,
			   ibcm_reject_msg(res->teardown_reason));
		show_hex(s, "teardown_pdata", res->teardown_pdata,
			 res->teardown_pdata_len);
	}
	if (res->stage)
		seq_printf(s, "stage %s\nerrno %d\n", res->stage, res->err);
out:
	mutex_unlock(&cmprobe_mutex);
	cmprobe_show_listens(s);
	return 0;
}

static int probe_open(struct inode *inode, struct file *file)
{
	return single_open(file, probe_show, NULL);
}

static const struct file_operations probe_fops = {
	.owner = THIS_MODULE,
	.open = probe_open,
	.read = seq_read,
	.write = probe_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init cmprobe_init(void)
{
	int ret;

	ret = cmprobe_cm_init();
	if (ret)
		return ret;
	cmprobe_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("probe", 0600, cmprobe_dir, NULL, &probe_fops);
	return 0;
}

static void __exit cmprobe_exit(void)
{
	/* Waits for a probe in progress: it ends within its own timeouts. */
	debugfs_remove_recursive(cmprobe_dir);
	cmprobe_cm_exit();
}

module_init(cmprobe_init);
module_exit(cmprobe_exit);
MODULE_DESCRIPTION("Sends good and malformed CM REQs to an IPoIB listener; holds refusing listens (test)");
MODULE_LICENSE("GPL");
