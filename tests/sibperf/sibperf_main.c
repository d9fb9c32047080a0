// SPDX-License-Identifier: GPL-2.0
/*
 * sibperf's control files.  A write runs one job in the writer's context
 * and a read shows its result:
 *
 *   echo "ud 2048 2000" >/sys/kernel/debug/sibperf/run   # type bytes msecs
 *   cat /sys/kernel/debug/sibperf/run
 *   ud size=2048 msecs=2000 msgs=... bytes=... msgs_per_s=... bytes_per_s=...
 *
 *   echo "ud 256" >/sys/kernel/debug/sibperf/scribble    # type bytes
 *   cat /sys/kernel/debug/sibperf/scribble
 *   ud size=256 done_at_post=0 ah_gone=1 received=overwritten original=0
 *   overwritten=256 send=success recv=success              (one line)
 *
 *   echo "rc 256" >/sys/kernel/debug/sibperf/flush       # type bytes
 *   cat /sys/kernel/debug/sibperf/flush
 *   rc size=256 posted=8 succeeded=0 flushed=8 failed=0 delivered=0
 *   done_before_destroy=0                                  (one line)
 *
 *   echo "ud 256" >/sys/kernel/debug/sibperf/dmasync     # type bytes
 *   cat /sys/kernel/debug/sibperf/dmasync
 *   ud size=256 mapping=remapped unsynced=old synced=sent send=success
 *   recv=success                                           (one line)
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/math64.h>
#include "sibperf.h"

static char *send_dev = "sib0";
module_param(send_dev, charp, 0444);
MODULE_PARM_DESC(send_dev, "IB device that sends, port 1 (default sib0)");

static char *recv_dev = "sib1";
module_param(recv_dev, charp, 0444);
MODULE_PARM_DESC(recv_dev, "IB device that receives, port 1 (default sib1)");

#define SIBPERF_MAX_SIZE	65536
#define SIBPERF_MAX_MSECS	60000
#define SIBPERF_RESULT_LEN	200

/* A control file: its job, and the result of the last one. */
struct sibperf_cmd {
	const char *name;
	bool msecs;			/* the line has MSECS after BYTES */
	int (*run)(const struct sibperf_job *job, char *out, size_t len);
	char result[SIBPERF_RESULT_LEN];
};

static DEFINE_MUTEX(sibperf_lock);	/* one job at a time; the results */
static struct dentry *sibperf_dir;

/* "ud|rc BYTES MSECS", or "ud|rc BYTES" when !msecs. */
static int parse(const char *line, struct sibperf_job *job, bool msecs)
{
	char type[4];

	memset(job, 0, sizeof(*job));
	job->msecs = 1;
	if (sscanf(line, "%3s %u %u", type, &job->size, &job->msecs) !=
	    (msecs ? 3 : 2))
		return -EINVAL;
	if (!strcmp(type, "ud"))
		job->type = IB_QPT_UD;
	else if (!strcmp(type, "rc"))
		job->type = IB_QPT_RC;
	else
		return -EINVAL;
	if (!job->size || job->size > SIBPERF_MAX_SIZE ||
	    !job->msecs || job->msecs > SIBPERF_MAX_MSECS)
		return -EINVAL;
	job->src = send_dev;
	job->dst = recv_dev;
	return 0;
}

static const char *type_name(const struct sibperf_job *job)
{
	return job->type == IB_QPT_UD ? "ud" : "rc";
}

static int rate_run(const struct sibperf_job *job, char *out, size_t len)
{
	struct sibperf_result res;
	u64 ns;
	int ret;

	ret = sibperf_run(job, &res);
	if (ret)
		return ret;
	ns = max_t(u64, res.nsecs, 1);
	snprintf(out, len,
		 "%s size=%u msecs=%u msgs=%llu bytes=%llu msgs_per_s=%llu bytes_per_s=%llu\n",
		 type_name(job), job->size, job->msecs, res.msgs, res.bytes,
		 mul_u64_u64_div_u64(res.msgs, NSEC_PER_SEC, ns),
		 mul_u64_u64_div_u64(res.bytes, NSEC_PER_SEC, ns));
	return 0;
}

/* What the receiver got: the bytes as posted, as overwritten, or neither. */
static const char *scribble_verdict(const struct sibperf_scribble *res,
				    u32 size)
{
	if (res->original == size)
		return "original";
	if (res->overwritten == size)
		return "overwritten";
	return res->original || res->overwritten ? "mixed" : "neither";
}

static int scribble_run(const struct sibperf_job *job, char *out, size_t len)
{
	struct sibperf_scribble res;
	int ret;

	ret = sibperf_scribble(job, &res);
	if (ret)
		return ret;
	snprintf(out, len,
		 "%s size=%u done_at_post=%d ah_gone=%d received=%s original=%u overwritten=%u send=%s recv=%s\n",
		 type_name(job), job->size, res.done_at_post, res.ah_gone,
		 scribble_verdict(&res, job->size), res.original,
		 res.overwritten, ib_wc_status_msg(res.send_status),
		 ib_wc_status_msg(res.recv_status));
	return 0;
}

static int flush_run(const struct sibperf_job *job, char *out, size_t len)
{
	struct sibperf_flush res;
	int ret;

	ret = sibperf_flush(job, &res);
	if (ret)
		return ret;
	snprintf(out, len,
		 "%s size=%u posted=%u succeeded=%u flushed=%u failed=%u delivered=%u done_before_destroy=%u\n",
		 type_name(job), job->size, SIBPERF_FLUSH_SENDS, res.succeeded,
		 res.flushed, res.failed, res.delivered,
		 res.done_before_destroy);
	return 0;
}

static int dmasync_run(const struct sibperf_job *job, char *out, size_t len)
{
	static const char * const maps[] = {
		[SIBPERF_MAP_VIRTUAL] = "virtual",
		[SIBPERF_MAP_PHYSICAL] = "physical",
		[SIBPERF_MAP_REMAPPED] = "remapped",
	};
	static const char * const seen[] = {
		[SIBPERF_SEEN_OLD] = "old",
		[SIBPERF_SEEN_SENT] = "sent",
		[SIBPERF_SEEN_MIXED] = "mixed",
	};
	struct sibperf_dmasync res;
	int ret;

	ret = sibperf_dmasync(job, &res);
	if (ret)
		return ret;
	snprintf(out, len,
		 "%s size=%u mapping=%s unsynced=%s synced=%s send=%s recv=%s\n",
		 type_name(job), job->size, maps[res.mapping],
		 seen[res.unsynced], seen[res.synced],
		 ib_wc_status_msg(res.send_status),
		 ib_wc_status_msg(res.recv_status));
	return 0;
}

static struct sibperf_cmd sibperf_cmds[] = {
	{ .name = "run", .msecs = true, .run = rate_run },
	{ .name = "scribble", .run = scribble_run },
	{ .name = "flush", .run = flush_run },
	{ .name = "dmasync", .run = dmasync_run },
};

static ssize_t cmd_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct sibperf_cmd *cmd = file_inode(file)->i_private;
	struct sibperf_job job;
	char line[32];
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	ret = parse(line, &job, cmd->msecs);
	if (ret) {
		pr_warn("sibperf: %s: expected \"ud|rc BYTES%s\" (1-%u bytes, 1-%u ms)\n",
			cmd->name, cmd->msecs ? " MSECS" : "",
			SIBPERF_MAX_SIZE, SIBPERF_MAX_MSECS);
		return ret;
	}

	mutex_lock(&sibperf_lock);
	ret = cmd->run(&job, cmd->result, sizeof(cmd->result));
	if (ret) {
		pr_warn("sibperf: %s: %s %u bytes from %s to %s failed: %d\n",
			cmd->name, type_name(&job), job.size, job.src,
			job.dst, ret);
		cmd->result[0] = '\0';
	}
	mutex_unlock(&sibperf_lock);
	return ret ? ret : count;
}

static int cmd_show(struct seq_file *m, void *unused)
{
	struct sibperf_cmd *cmd = m->private;

	mutex_lock(&sibperf_lock);
	seq_puts(m, cmd->result);
	mutex_unlock(&sibperf_lock);
	return 0;
}

static int cmd_open(struct inode *inode, struct file *file)
{
	return single_open(file, cmd_show, inode->i_private);
}

static const struct file_operations cmd_fops = {
	.owner = THIS_MODULE,
	.open = cmd_open,
	.read = seq_read,
	.write = cmd_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init sibperf_init(void)
{
	unsigned int i;

	sibperf_dir = debugfs_create_dir("sibperf", NULL);
	for (i = 0; i < ARRAY_SIZE(sibperf_cmds); i++)
		debugfs_create_file(sibperf_cmds[i].name, 0600, sibperf_dir,
				    &sibperf_cmds[i], &cmd_fops);
	return 0;
}

static void __exit sibperf_exit(void)
{
	debugfs_remove_recursive(sibperf_dir);
}

module_init(sibperf_init);
module_exit(sibperf_exit);
MODULE_DESCRIPTION("Raw message rate of the sib software InfiniBand fabric");
MODULE_LICENSE("GPL");
