// SPDX-License-Identifier: GPL-2.0
/*
 * sibperf's control file.  A write runs one measurement in the writer's
 * context and a read shows its result:
 *
 *   echo "ud 2048 2000" >/sys/kernel/debug/sibperf/run   # type bytes msecs
 *   cat /sys/kernel/debug/sibperf/run
 *   ud size=2048 msecs=2000 msgs=... bytes=... msgs_per_s=... bytes_per_s=...
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

static DEFINE_MUTEX(sibperf_lock);	/* one run at a time; the result */
static char sibperf_result[160];
static struct dentry *sibperf_dir;

static int parse(const char *line, struct sibperf_job *job)
{
	char type[4];

	if (sscanf(line, "%3s %u %u", type, &job->size, &job->msecs) != 3)
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

static void format(const struct sibperf_job *job,
		   const struct sibperf_result *res)
{
	u64 ns = max_t(u64, res->nsecs, 1);

	snprintf(sibperf_result, sizeof(sibperf_result),
		 "%s size=%u msecs=%u msgs=%llu bytes=%llu msgs_per_s=%llu bytes_per_s=%llu\n",
		 job->type == IB_QPT_UD ? "ud" : "rc", job->size, job->msecs,
		 res->msgs, res->bytes,
		 mul_u64_u64_div_u64(res->msgs, NSEC_PER_SEC, ns),
		 mul_u64_u64_div_u64(res->bytes, NSEC_PER_SEC, ns));
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct sibperf_result res;
	struct sibperf_job job;
	char line[32];
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	ret = parse(line, &job);
	if (ret) {
		pr_warn("sibperf: expected \"ud|rc BYTES MSECS\" (1-%u bytes, 1-%u ms)\n",
			SIBPERF_MAX_SIZE, SIBPERF_MAX_MSECS);
		return ret;
	}

	mutex_lock(&sibperf_lock);
	ret = sibperf_run(&job, &res);
	if (ret) {
		pr_warn("sibperf: %s %u-byte run from %s to %s failed: %d\n",
			line[0] == 'u' ? "UD" : "RC", job.size, job.src,
			job.dst, ret);
		sibperf_result[0] = '\0';
	} else {
		format(&job, &res);
	}
	mutex_unlock(&sibperf_lock);
	return ret ? ret : count;
}

static int run_show(struct seq_file *m, void *unused)
{
	mutex_lock(&sibperf_lock);
	seq_puts(m, sibperf_result);
	mutex_unlock(&sibperf_lock);
	return 0;
}

static int run_open(struct inode *inode, struct file *file)
{
	return single_open(file, run_show, NULL);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = run_open,
	.read = seq_read,
	.write = run_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init sibperf_init(void)
{
	sibperf_dir = debugfs_create_dir("sibperf", NULL);
	debugfs_create_file("run", 0600, sibperf_dir, NULL, &run_fops);
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
