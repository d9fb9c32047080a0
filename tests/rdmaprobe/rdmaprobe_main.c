// SPDX-License-Identifier: GPL-2.0
/*
 * The control file, /sys/kernel/debug/rdmaprobe/ctl.  Each write is one
 * command, run in the network namespace of the process that writes it,
 * and returns when the command is over (0 or the errno that ended it):
 *
 *   listen ADDR:PORT        hold an rdma_cm listen there ([ADDR]:PORT for
 *                           IPv6; 0.0.0.0 or [::] for any address)
 *   unlisten ADDR:PORT      drop it (-ENOENT if none)
 *   connect ADDR:PORT [from=ADDR] [len=N] [rdma] [rkey=bad|stale] [hold]
 *           [timeout=MS]
 *                           resolve, connect, send len bytes (4096, at most
 *                           16384) and get as many back, both compared;
 *                           rdma: then RDMA WRITE a region the peer
 *                           registered and READ it back, compared (rkey=bad:
 *                           with a wrong key; stale: write again after the
 *                           peer invalidated it); hold: leave it connected,
 *                           else disconnect.  timeout= bounds each step
 *                           (10000 ms).
 *   send N [len=N]          one more message each way over held cli#N
 *   close N                 disconnect held cli#N
 *   udopen DEV PORT         a UD endpoint there: a QP with receives posted
 *                           (one per port; its QPN goes to the log)
 *   udsend DEV PORT qpn=N lid=N dgid=GID [sgid=K] [len=N] [timeout=MS]
 *                           one datagram from that endpoint to the one
 *                           with QPN N at LID N, with a GRH from our GID
 *                           entry K (0) to GID; len bytes (256, 4 to
 *                           1024), compared at the receiver
 *   udclose DEV PORT        drop the endpoint
 *   clear                   empty the log
 *
 * A read returns the log, one line per thing seen: each rdma_cm event of
 * each id ("cli#1 ESTABLISHED status 0"), which net_device rdma_cm bound a
 * request to, each message sent and received with its CRC-32 and whether
 * its bytes were the expected ones, each RDMA operation; then one line per
 * listen held and per connection alive; then one per UD endpoint, with
 * what it received and the last datagram's GRH (SGID and DGID).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include "rdmaprobe.h"

#define RP_CMD_MAX	256
#define RP_LOG_SIZE	(64 * 1024)
#define RP_LINE_MAX	256
#define RP_DEFAULT_LEN	4096
#define RP_DEFAULT_WAIT	10000

static struct dentry *rp_dir;
static DEFINE_MUTEX(rp_cmd_mutex);	/* one command at a time */

static DEFINE_SPINLOCK(rp_log_lock);
static char *rp_logbuf;
static size_t rp_loglen;
static bool rp_log_full;

/* Any context: rdma_cm, CQ and command paths all log. */
void rp_log(const char *fmt, ...)
{
	char line[RP_LINE_MAX];
	unsigned long flags;
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(line, sizeof(line) - 1, fmt, args);
	va_end(args);
	line[n++] = '\n';

	spin_lock_irqsave(&rp_log_lock, flags);
	if (rp_loglen + n <= RP_LOG_SIZE) {
		memcpy(rp_logbuf + rp_loglen, line, n);
		rp_loglen += n;
	} else {
		rp_log_full = true;
	}
	spin_unlock_irqrestore(&rp_log_lock, flags);
}

static void rp_log_clear(void)
{
	spin_lock_irq(&rp_log_lock);
	rp_loglen = 0;
	rp_log_full = false;
	spin_unlock_irq(&rp_log_lock);
}

/*
 * "ADDR:PORT" or "[ADDR]:PORT" into ss, in net (an IPv6 scope "%ifname"
 * is looked up there).
 */
static int parse_addr_port(struct net *net, char *s,
			   struct sockaddr_storage *ss)
{
	char *port, *addr = s;

	if (*s == '[') {
		addr = s + 1;
		port = strchr(addr, ']');
		if (!port || port[1] != ':')
			return -EINVAL;
		*port = '\0';
		port += 2;
	} else {
		port = strrchr(s, ':');
		if (!port || strchr(s, ':') != port)
			return -EINVAL;	/* IPv6 needs [ADDR]:PORT */
		*port++ = '\0';
	}
	return inet_pton_with_scope(net, AF_UNSPEC, addr, port, ss);
}

static int parse_uint(const char *key, const char *val, unsigned int max,
		      unsigned int *out)
{
	if (kstrtouint(val, 0, out) || *out > max) {
		pr_info("%s=%s: not a number up to %u\n", key, val, max);
		return -EINVAL;
	}
	return 0;
}

/* The words after "connect ADDR:PORT". */
static int parse_connect(struct net *net, char *cmd, struct rp_connect_args *a)
{
	char *tok, *val;
	int ret;

	while ((tok = strsep(&cmd, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (val)
			*val++ = '\0';
		if (!strcmp(tok, "rdma") && !val) {
			a->rdma = true;
		} else if (!strcmp(tok, "hold") && !val) {
			a->hold = true;
		} else if (!strcmp(tok, "from") && val) {
			ret = inet_pton_with_scope(net, AF_UNSPEC, val, NULL,
						   &a->src);
			if (ret) {
				pr_info("from=%s: not an IP address\n", val);
				return ret;
			}
			a->has_src = true;
		} else if (!strcmp(tok, "len") && val) {
			ret = parse_uint(tok, val, RP_MSG_MAX, &a->len);
			if (ret)
				return ret;
			if (!a->len) {
				pr_info("len=0: a message needs a byte\n");
				return -EINVAL;
			}
		} else if (!strcmp(tok, "timeout") && val) {
			ret = parse_uint(tok, val, 600000, &a->timeout_ms);
			if (ret)
				return ret;
		} else if (!strcmp(tok, "rkey") && val && !strcmp(val, "bad")) {
			a->rkey = RP_RKEY_BAD;
		} else if (!strcmp(tok, "rkey") && val && !strcmp(val, "stale")) {
			a->rkey = RP_RKEY_STALE;
		} else {
			pr_info("connect: bad argument '%s%s%s'\n", tok,
				val ? "=" : "", val ?: "");
			return -EINVAL;
		}
	}
	if (a->rkey != RP_RKEY_GOOD && !a->rdma) {
		pr_info("connect: rkey= needs rdma\n");
		return -EINVAL;
	}
	return 0;
}

/* "N [len=N]" or "N": a held connection's number. */
static int parse_nr(char *cmd, unsigned int *nr, unsigned int *len,
		    unsigned int *timeout_ms)
{
	char *tok, *val;
	bool have_nr = false;

	while ((tok = strsep(&cmd, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val) {
			if (have_nr || kstrtouint(tok, 10, nr))
				goto bad;
			have_nr = true;
			continue;
		}
		*val++ = '\0';
		if (len && !strcmp(tok, "len")) {
			if (parse_uint(tok, val, RP_MSG_MAX, len) || !*len)
				goto bad;
		} else if (!strcmp(tok, "timeout")) {
			if (parse_uint(tok, val, 600000, timeout_ms))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (have_nr)
		return 0;
bad:
	pr_info("expected a connection number, [len=N] and [timeout=MS]\n");
	return -EINVAL;
}

/* The first word of *cmd, cut off; *cmd moves past it. */
static char *next_word(char **cmd)
{
	char *w;

	*cmd = skip_spaces(*cmd);
	w = strsep(cmd, " \t\n");
	if (!*cmd)
		*cmd = w + strlen(w);
	return w;
}

/* The words after "udsend DEV PORT". */
static int parse_udsend(char *cmd, struct rp_ud_args *a)
{
	bool qpn = false, lid = false, dgid = false;
	char *tok, *val;
	int ret = 0;

	while (!ret && (tok = strsep(&cmd, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			goto bad;
		*val++ = '\0';
		if (!strcmp(tok, "qpn")) {
			ret = parse_uint(tok, val, 0xffffff, &a->qpn);
			qpn = true;
		} else if (!strcmp(tok, "lid")) {
			ret = parse_uint(tok, val, 0xbfff, &a->lid);
			lid = true;
		} else if (!strcmp(tok, "sgid")) {
			ret = parse_uint(tok, val, 255, &a->sgid_index);
		} else if (!strcmp(tok, "len")) {
			ret = parse_uint(tok, val, RP_UD_MAX, &a->len);
			if (!ret && a->len < sizeof(__be32))
				ret = -EINVAL;
		} else if (!strcmp(tok, "timeout")) {
			ret = parse_uint(tok, val, 600000, &a->timeout_ms);
		} else if (!strcmp(tok, "dgid")) {
			if (!in6_pton(val, -1, a->dgid.raw, -1, NULL)) {
				pr_info("dgid=%s: not a GID\n", val);
				return -EINVAL;
			}
			dgid = true;
		} else {
			goto bad;
		}
	}
	if (ret || (qpn && lid && dgid))
		return ret;
bad:
	pr_info("udsend: expected DEV PORT qpn=N lid=N dgid=GID [sgid=K] [len=4-%u] [timeout=MS]\n",
		RP_UD_MAX);
	return -EINVAL;
}

/* "udopen|udsend|udclose DEV PORT ...". */
static int run_ud(const char *verb, char *cmd)
{
	struct rp_ud_args a = {
		.len = 256,
		.timeout_ms = RP_DEFAULT_WAIT,
	};
	enum rp_ud_op op;
	char *dev, *port;
	int ret;

	op = !strcmp(verb, "udopen") ? RP_UD_OPEN :
	     !strcmp(verb, "udsend") ? RP_UD_SEND : RP_UD_CLOSE;
	dev = next_word(&cmd);
	port = next_word(&cmd);
	if (!*dev || strscpy(a.dev, dev, sizeof(a.dev)) < 0 ||
	    kstrtou32(port, 10, &a.port)) {
		pr_info("%s: expected DEV PORT\n", verb);
		return -EINVAL;
	}
	if (op == RP_UD_SEND) {
		ret = parse_udsend(cmd, &a);
		if (ret)
			return ret;
	} else if (*skip_spaces(cmd)) {
		pr_info("%s: unexpected '%s'\n", verb, skip_spaces(cmd));
		return -EINVAL;
	}
	return rp_ud_command(op, &a);
}

static int run_command(struct net *net, char *cmd)
{
	struct rp_connect_args args = {
		.len = RP_DEFAULT_LEN,
		.timeout_ms = RP_DEFAULT_WAIT,
	};
	unsigned int nr, len = RP_DEFAULT_LEN, timeout = RP_DEFAULT_WAIT;
	struct sockaddr_storage ss;
	char *verb, *where;
	int ret;

	verb = next_word(&cmd);
	if (!strcmp(verb, "clear")) {
		rp_log_clear();
		return 0;
	}
	if (!strcmp(verb, "send") || !strcmp(verb, "close")) {
		ret = parse_nr(cmd, &nr, verb[0] == 's' ? &len : NULL,
			       &timeout);
		if (ret)
			return ret;
		return verb[0] == 's' ? rp_exchange(nr, len, timeout) :
					rp_close(nr, timeout);
	}
	if (!strcmp(verb, "udopen") || !strcmp(verb, "udsend") ||
	    !strcmp(verb, "udclose"))
		return run_ud(verb, cmd);
	if (strcmp(verb, "listen") && strcmp(verb, "unlisten") &&
	    strcmp(verb, "connect")) {
		pr_info("unknown command '%s'\n", verb);
		return -EINVAL;
	}
	where = next_word(&cmd);
	ret = parse_addr_port(net, where, verb[0] == 'c' ? &args.dst : &ss);
	if (ret) {
		pr_info("%s: '%s' is not ADDR:PORT or [ADDR]:PORT\n", verb,
			where);
		return ret;
	}
	if (verb[0] == 'c') {
		ret = parse_connect(net, cmd, &args);
		return ret ?: rp_connect(net, &args);
	}
	if (*skip_spaces(cmd)) {
		pr_info("%s: unexpected '%s'\n", verb, skip_spaces(cmd));
		return -EINVAL;
	}
	return verb[0] == 'l' ? rp_listen(net, (struct sockaddr *)&ss) :
				rp_unlisten(net, (struct sockaddr *)&ss);
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct net *net;
	char *cmd;
	int ret;

	if (len >= RP_CMD_MAX)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, len);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	net = get_net(current->nsproxy->net_ns);
	ret = mutex_lock_interruptible(&rp_cmd_mutex);
	if (!ret) {
		ret = run_command(net, cmd);
		mutex_unlock(&rp_cmd_mutex);
	}
	put_net(net);
	kfree(cmd);
	return ret ? ret : len;
}

static int ctl_show(struct seq_file *s, void *unused)
{
	spin_lock_irq(&rp_log_lock);
	seq_write(s, rp_logbuf, rp_loglen);
	if (rp_log_full)
		seq_puts(s, "log full: later lines were dropped\n");
	spin_unlock_irq(&rp_log_lock);
	rp_listens_show(s);
	rp_conns_show(s);
	rp_uds_show(s);
	return 0;
}

static int ctl_open(struct inode *inode, struct file *file)
{
	/* Room for the whole log and the state lines after it. */
	return single_open_size(file, ctl_show, NULL, RP_LOG_SIZE + PAGE_SIZE);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.open = ctl_open,
	.read = seq_read,
	.write = ctl_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init rp_init(void)
{
	int ret;

	rp_logbuf = kvmalloc(RP_LOG_SIZE, GFP_KERNEL);
	if (!rp_logbuf)
		return -ENOMEM;
	ret = rp_init_wq();
	if (ret) {
		kvfree(rp_logbuf);
		return ret;
	}
	ret = rp_ud_init();
	if (ret) {
		rp_exit_wq();
		kvfree(rp_logbuf);
		return ret;
	}
	rp_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ctl", 0600, rp_dir, NULL, &ctl_fops);
	return 0;
}

static void __exit rp_exit(void)
{
	/* Waits for a command in progress: each step has a timeout. */
	debugfs_remove_recursive(rp_dir);
	rp_listens_destroy_all();
	rp_conns_destroy_all();
	rp_ud_exit();
	rp_exit_wq();
	kvfree(rp_logbuf);
}

module_init(rp_init);
module_exit(rp_exit);
MODULE_DESCRIPTION("Drives rdma_cm: listens, connects, SEND/RECV and RDMA WRITE/READ; UD datagrams by GID; each step logged (test)");
MODULE_LICENSE("GPL");
