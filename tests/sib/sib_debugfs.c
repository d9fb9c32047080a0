// SPDX-License-Identifier: GPL-2.0
/*
 * The control interface tests drive, under /sys/kernel/debug/sib/:
 *
 *   mad_delay_ms, mad_drop_every,      fault injection for the whole fabric
 *   ud_drop_every, rc_drop_every
 *   ud_loss_ppm, rc_loss_ppm,          N: each UD, RC/UC or MAD message is
 *   mad_loss_ppm                       lost with a chance of N in a million
 *   loss_burst                         N: such a loss takes the next N - 1
 *                                      of its kind from its port too
 *   loss_burst_us                      ... sent within N us of it (1000)
 *                                      (counted: drop_random, loss_bursts)
 *   sa_delay_ms                        the built-in SA takes each request
 *                                      this late (queued, not slept on)
 *   sa_busy_every                      N: every Nth SA request is answered
 *                                      BUSY (MAD status 0x0001), not done
 *   sa_silent_every                    N: every Nth SA request is not
 *                                      answered (silence wins over BUSY)
 *   sa_path_bits                       LMC > 0: the path bits of the paths
 *                                      a Get naming no LID is given (0, as
 *                                      OpenSM: the base LIDs)
 *   fail_qkey_set                      write N: the next N modify_qp calls
 *                                      that change a QP's Q_Key alone (as
 *                                      IPoIB does for the broadcast group)
 *                                      fail with -EIO; read: how many left
 *   rtr_hold                           write 1: an RC or UC QP's move to
 *                                      RTR waits (a connection's set-up
 *                                      caught half way); 0: they go on (so
 *                                      does unloading); read: how many wait
 *   cm_hold                            write 1: CM MADs wait; req: REQs
 *                                      only; 0: they go on; read: how many
 *                                      wait
 *   cm_release                         write a LID: what waits for it goes on
 *   group_mtu                          bytes: cap on new groups' MTU, 0 none
 *   sm_restart                         write: every port must rejoin
 *                                      (sm=builtin)
 *   sa_groups                          the SA's multicast groups and members
 *   ports                              one line per port
 *   sibN/vfs                           each port's SR-IOV VFs (sib_vf.c)
 *   sibN/portP/state                   ACTIVE, ARMED, INIT or DOWN; write up
 *                                      or down (sm=external: the link, the
 *                                      SM brings the port up from INIT;
 *                                      after sibN/fatal, up is refused)
 *   sibN/portP/lid, mtu, pkeys         read, and change under sm=builtin
 *   sibN/portP/event                   write an event name to raise it
 *   sibN/portP/counters                traffic, drops and the link as the PMA
 *                                      counts it, RDMA the port answered
 *                                      (rdma_*, rkey_violations,
 *                                      remote_invalidates), its RC requests
 *                                      no ACK answered (local_ack_timeouts,
 *                                      retransmits, retries_exceeded), the
 *                                      batches async's worker ran for its
 *                                      QPs (async_batches, async_wqes), the
 *                                      port's SA requests and their faults
 *                                      (sa_*), random losses (drop_random,
 *                                      loss_bursts), WQEs its QPs completed
 *                                      flushed (wr_flushed), unicast it
 *                                      took at a LID of its LMC block
 *                                      but the base (rx_path_bits_packets);
 *                                      write 0 to clear (ipoib's counts too)
 *   sibN/portP/rx_stall                1: no receive buffers but QP0/QP1's
 *   sibN/portP/rc_drop_next            write N: the next N RC or UC messages
 *                                      the port sends are lost (a burst);
 *                                      read: how many are still to go
 *   sibN/portP/ipoib                   what it sent: TRANSPORT CLASS PACKETS
 *   sibN/resources                     verbs objects in use (mrs: memory
 *                                      regions)
 *   sibN/qps                           one line per QP but QP0 and QP1: its
 *                                      type, state and CQs (scq, rcq: their
 *                                      CQNs); an RC QP's timer as
 *                                      its consumer set it (timeout,
 *                                      retry_cnt, rnr_retry) and the fabric
 *                                      runs it (ack_timeout_us, give_up_ms:
 *                                      after ack_timeout_max_ms; 0 never);
 *                                      an RC or UC QP's dlid and
 *                                      src_path_bits (LMC)
 *   sibN/cqs                           one line per CQ: its CQN, entries,
 *                                      completions queued, error state
 *   sibN/qp_fatal                      write a QPN: the QP goes to error
 *                                      (its work and later posts flushed)
 *                                      and its handler gets QP_FATAL
 *   sibN/cq_err                        write a CQN or "all": the CQ takes
 *                                      no more completions, its handler
 *                                      gets CQ_ERR and its QPs go to error,
 *                                      as on an overrun
 *   sibN/fatal                         write 1: the HCA dies (firmware
 *                                      gone): every QP to error, the ports
 *                                      down with no event, DEVICE_FATAL to
 *                                      the registered handlers; only
 *                                      teardown works then, until sib is
 *                                      reloaded (a real driver unregisters
 *                                      and registers the device anew)
 *   sibN/async_events                  QP_FATAL, CQ_ERR and DEVICE_FATAL
 *                                      raised, and how many of the first
 *                                      two reached a handler (a QP
 *                                      destroyed first takes none)
 *   sibN/cq_events                     CQ events raised: inline (in the
 *                                      poster's context), irq_local and
 *                                      irq_remote (cq_irq: on the poster's
 *                                      CPU or another)
 *   sibN/dma                           dma=1: the HCA's DMA device (dma_dev,
 *                                      none under dma=0), list entries it
 *                                      walked by DMA address (sges) and
 *                                      DMA addresses with no memory there
 *                                      (refused)
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "sib.h"
#include "sib_timers.h"

#define SIB_CTL_MAX	256

static const char *state_name(enum ib_port_state state)
{
	switch (state) {
	case IB_PORT_ACTIVE:
		return "ACTIVE";
	case IB_PORT_ARMED:
		return "ARMED";
	case IB_PORT_INIT:
		return "INIT";
	default:
		return "DOWN";
	}
}

/* Under sm=external, LIDs, MTUs, P_Keys and restarts are the SM's. */
static int sm_owns(const char *what)
{
	pr_info("sib: sm=external: %s are the subnet manager's to change\n",
		what);
	return -EPERM;
}

static char *read_user(const char __user *ubuf, size_t len)
{
	if (len >= SIB_CTL_MAX)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, len);
}

/*
 * A control file's write: store() on the text, trimmed, serialised with
 * the other controls.
 */
static ssize_t ctl_write(const char __user *ubuf, size_t len,
			 int (*store)(void *ctx, char *buf), void *ctx)
{
	char *buf = read_user(ubuf, len);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&sib_fabric.ctl_mutex);
	ret = store(ctx, strim(buf));
	mutex_unlock(&sib_fabric.ctl_mutex);
	kfree(buf);
	return ret ? ret : len;
}

/* name_store() for ctl_write(), on the file's object (port or device). */
#define SIB_CTL_WRITE(name)						\
static int name##_store_ctx(void *ctx, char *buf)			\
{									\
	return name##_store(ctx, buf);					\
}									\
static ssize_t name##_write(struct file *file, const char __user *ubuf,	\
			    size_t len, loff_t *ppos)			\
{									\
	return ctl_write(ubuf, len, name##_store_ctx,			\
			 file_inode(file)->i_private);			\
}

/* A port attribute file: show() and an optional store(). */
#define SIB_PORT_FILE(name)						\
static int name##_open(struct inode *inode, struct file *file)		\
{									\
	return single_open(file, name##_show, inode->i_private);	\
}									\
SIB_CTL_WRITE(name)							\
static const struct file_operations name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = name##_open,						\
	.read = seq_read,						\
	.write = name##_write,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}

static int state_show(struct seq_file *m, void *unused)
{
	struct sib_port *port = m->private;

	seq_printf(m, "%s\n", state_name(READ_ONCE(port->state)));
	return 0;
}

static int state_store(struct sib_port *port, char *buf)
{
	if (READ_ONCE(port->sdev->fatal) && !strcmp(buf, "up"))
		return -EIO;
	if (!strcmp(buf, "up"))
		sib_sm_port_up(port);
	else if (!strcmp(buf, "down"))
		sib_sm_port_down(port);
	else
		return -EINVAL;
	return 0;
}

SIB_PORT_FILE(state);

static int lid_show(struct seq_file *m, void *unused)
{
	struct sib_port *port = m->private;

	seq_printf(m, "%u\n", READ_ONCE(port->lid));
	return 0;
}

static int lid_store(struct sib_port *port, char *buf)
{
	u16 lid;

	if (kstrtou16(buf, 0, &lid))
		return -EINVAL;
	if (sib_sm_external)
		return sm_owns("LIDs");
	return sib_sm_set_lid(port, lid);
}

SIB_PORT_FILE(lid);

static int mtu_show(struct seq_file *m, void *unused)
{
	struct sib_port *port = m->private;

	seq_printf(m, "%u\n", sib_mtu_bytes(READ_ONCE(port->active_mtu)));
	return 0;
}

static int mtu_store(struct sib_port *port, char *buf)
{
	unsigned int bytes;
	int mtu;

	if (kstrtouint(buf, 0, &bytes))
		return -EINVAL;
	mtu = ib_mtu_int_to_enum(bytes);
	if (mtu < 0 || sib_mtu_bytes(mtu) != bytes)
		return -EINVAL;
	if (sib_sm_external)
		return sm_owns("link MTUs");
	return sib_sm_set_mtu(port, mtu);
}

SIB_PORT_FILE(mtu);

static int pkeys_show(struct seq_file *m, void *unused)
{
	struct sib_port *port = m->private;
	int i;

	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++)
		seq_printf(m, "%s0x%04x", i ? " " : "",
			   sib_pkey_at(port, i));
	seq_puts(m, "\n");
	return 0;
}

/* "0xffff 0x8001 ..." or comma separated: the new table, in order. */
static int pkeys_store(struct sib_port *port, char *buf)
{
	u16 table[SIB_PKEY_TABLE_LEN];
	u32 n = 0;
	char *tok;

	while ((tok = strsep(&buf, " ,\t\n")) != NULL) {
		if (!*tok)
			continue;
		if (n == SIB_PKEY_TABLE_LEN || kstrtou16(tok, 0, &table[n]))
			return -EINVAL;
		n++;
	}
	if (sib_sm_external)
		return sm_owns("P_Key tables");
	return sib_sm_set_pkeys(port, table, n);
}

SIB_PORT_FILE(pkeys);

static const struct {
	const char *name;
	enum ib_event_type type;
} port_events[] = {
	{ "sm_change", IB_EVENT_SM_CHANGE },
	{ "lid_change", IB_EVENT_LID_CHANGE },
	{ "pkey_change", IB_EVENT_PKEY_CHANGE },
	{ "gid_change", IB_EVENT_GID_CHANGE },
	{ "port_err", IB_EVENT_PORT_ERR },
	{ "port_active", IB_EVENT_PORT_ACTIVE },
};

static int event_show(struct seq_file *m, void *unused)
{
	int i;

	seq_puts(m, "client_reregister");
	for (i = 0; i < ARRAY_SIZE(port_events); i++)
		seq_printf(m, " %s", port_events[i].name);
	seq_puts(m, "\n");
	return 0;
}

static int event_store(struct sib_port *port, char *buf)
{
	int i;

	if (!strcmp(buf, "client_reregister")) {
		sib_sm_reregister_port(port);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(port_events); i++) {
		if (!strcmp(buf, port_events[i].name)) {
			sib_port_event(port, port_events[i].type);
			return 0;
		}
	}
	return -EINVAL;
}

SIB_PORT_FILE(event);

static int counters_show(struct seq_file *m, void *unused)
{
	struct sib_port *port = m->private;
	int c;

	for (c = 0; c < SIB_NR_COUNTERS; c++)
		seq_printf(m, "%s %llu\n", sib_counter_names[c],
			   sib_counter_sum(port, c));
	return 0;
}

static int counters_store(struct sib_port *port, char *buf)
{
	if (strcmp(buf, "0"))
		return -EINVAL;
	sib_counters_clear(port);
	sib_pma_clear(port);
	return 0;
}

SIB_PORT_FILE(counters);

static int rx_stall_show(struct seq_file *m, void *unused)
{
	struct sib_port *port = m->private;

	seq_printf(m, "%d\n", READ_ONCE(port->rx_stall));
	return 0;
}

/* RC senders held by RNR NAKs go on at their next retry after a 0. */
static int rx_stall_store(struct sib_port *port, char *buf)
{
	bool stall;

	if (strcmp(buf, "0") && strcmp(buf, "1"))
		return -EINVAL;
	stall = buf[0] == '1';
	WRITE_ONCE(port->rx_stall, stall);
	return 0;
}

SIB_PORT_FILE(rx_stall);

/* Every transport and class, zero or not, so scripts always find a line. */
static int ipoib_show(struct seq_file *m, void *unused)
{
	struct sib_port *port = m->private;
	int t, c;

	for (t = 0; t < SIB_IPOIB_TRANSPORTS; t++)
		for (c = 0; c < SIB_IPOIB_CLASSES; c++)
			seq_printf(m, "%s %s %llu\n",
				   sib_ipoib_transport_names[t],
				   sib_ipoib_class_names[c],
				   sib_ipoib_sum(port, t, c));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(ipoib);

static int resources_show(struct seq_file *m, void *unused)
{
	struct sib_dev *sdev = m->private;

	seq_printf(m, "qps %d\ncqs %d\nsrqs %d\nahs %d\npds %d\nmrs %d\nmcast_attach %d\n",
		   atomic_read(&sdev->nr_qps), atomic_read(&sdev->nr_cqs),
		   atomic_read(&sdev->nr_srqs), atomic_read(&sdev->nr_ahs),
		   atomic_read(&sdev->nr_pds), atomic_read(&sdev->nr_mrs),
		   atomic_read(&sdev->nr_mcast_attach));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(resources);

static const char *qp_type_name(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return "RC";
	case IB_QPT_UC:
		return "UC";
	default:
		return "UD";
	}
}

static const char *const qp_state_names[] = {
	[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT", [IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS", [IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

static void qp_show(struct seq_file *m, struct sib_qp *qp, u32 max_ms)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	u8 timeout = READ_ONCE(qp->timeout);
	u8 retry_cnt = READ_ONCE(qp->retry_cnt);

	seq_printf(m, "qpn 0x%x type %s state %s scq %u rcq %u",
		   qp->ibqp.qp_num, qp_type_name(qp->type),
		   state < ARRAY_SIZE(qp_state_names) ? qp_state_names[state] :
							"?",
		   to_scq(qp->ibqp.send_cq)->cqn, to_scq(qp->ibqp.recv_cq)->cqn);
	if (qp->type == IB_QPT_RC)
		seq_printf(m, " timeout %u retry_cnt %u rnr_retry %u ack_timeout_us %llu give_up_ms %llu",
			   timeout, retry_cnt, READ_ONCE(qp->rnr_retry),
			   div_u64(sib_ack_timeout_ns(timeout, max_ms),
				   NSEC_PER_USEC),
			   div_u64(sib_give_up_ns(timeout, retry_cnt, max_ms),
				   NSEC_PER_MSEC));
	/* Where it sends: the peer's LID, our SLID's path bits (LMC). */
	if (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC)
		seq_printf(m, " dlid 0x%x src_path_bits %u",
			   READ_ONCE(qp->dest.dlid),
			   READ_ONCE(qp->dest.src_path_bits));
	seq_putc(m, '\n');
}

static int qps_show(struct seq_file *m, void *unused)
{
	u32 max_ms = READ_ONCE(sib_ack_timeout_max_ms);
	struct sib_dev *sdev = m->private;
	unsigned long qpn;
	struct sib_qp *qp;

	/* A QP is freed a grace period after it leaves the table. */
	rcu_read_lock();
	xa_for_each(&sdev->qps, qpn, qp)
		qp_show(m, qp, max_ms);
	rcu_read_unlock();
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(qps);

static int cqs_show(struct seq_file *m, void *unused)
{
	return sib_cqs_show(m, unused);
}

DEFINE_SHOW_ATTRIBUTE(cqs);

/* A device control file: write only. */
#define SIB_DEV_CTL(name)						\
SIB_CTL_WRITE(name)							\
static const struct file_operations name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.write = name##_write,						\
	.llseek = noop_llseek,						\
}

static int qp_fatal_store(struct sib_dev *sdev, char *buf)
{
	u32 qpn;

	if (kstrtou32(buf, 0, &qpn))
		return -EINVAL;
	return sib_qp_fatal(sdev, qpn);
}

SIB_DEV_CTL(qp_fatal);

static int cq_err_store(struct sib_dev *sdev, char *buf)
{
	return sib_cq_err_store(sdev, buf);
}

SIB_DEV_CTL(cq_err);

static int fatal_store(struct sib_dev *sdev, char *buf)
{
	if (strcmp(buf, "1"))
		return -EINVAL;
	sib_dev_fatal(sdev);
	return 0;
}

SIB_DEV_CTL(fatal);

static int async_events_show(struct seq_file *m, void *unused)
{
	static const char * const names[SIB_ASYNC_KINDS] = {
		[SIB_ASYNC_QP_FATAL] = "qp_fatal",
		[SIB_ASYNC_CQ_ERR] = "cq_err",
		[SIB_ASYNC_DEVICE_FATAL] = "device_fatal",
	};
	struct sib_dev *sdev = m->private;
	unsigned int k;

	/* DEVICE_FATAL goes to ib_core's list: whose handler, unknown. */
	for (k = 0; k < SIB_ASYNC_KINDS; k++) {
		seq_printf(m, "%s raised %d", names[k],
			   atomic_read(&sdev->async_raised[k]));
		if (k != SIB_ASYNC_DEVICE_FATAL)
			seq_printf(m, " handled %d",
				   atomic_read(&sdev->async_handled[k]));
		seq_putc(m, '\n');
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(async_events);

static int cq_events_show(struct seq_file *m, void *unused)
{
	static const char * const names[SIB_CQ_EVENT_KINDS] = {
		[SIB_CQ_EVENT_INLINE] = "inline",
		[SIB_CQ_EVENT_IRQ_LOCAL] = "irq_local",
		[SIB_CQ_EVENT_IRQ_REMOTE] = "irq_remote",
	};
	struct sib_dev *sdev = m->private;
	unsigned int k, cpu;

	for (k = 0; k < SIB_CQ_EVENT_KINDS; k++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu_ptr(sdev->cq_events, cpu)->n[k];
		seq_printf(m, "%s %llu\n", names[k], sum);
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(cq_events);

static int dma_show(struct seq_file *m, void *unused)
{
	struct sib_dev *sdev = m->private;
	u64 sges = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sges += *per_cpu_ptr(sdev->dma_sges, cpu);
	seq_printf(m, "dma_dev %s\nsges %llu\nrefused %lld\n",
		   sdev->dma_dev ? dev_name(sdev->dma_dev) : "none", sges,
		   atomic64_read(&sdev->dma_refused));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(dma);

static int ports_show(struct seq_file *m, void *unused)
{
	u32 d, p;

	for (d = 0; d < sib_fabric.ndevs; d++) {
		struct sib_dev *sdev = sib_fabric.devs[d];

		for (p = 1; p <= sdev->nports; p++) {
			struct sib_port *port = sib_port(sdev, p);

			seq_printf(m, "%s port %u lid %u state %s mtu %u guid %016llx pkey0 0x%04x lmc %u\n",
				   dev_name(&sdev->ibdev.dev), p,
				   READ_ONCE(port->lid),
				   state_name(READ_ONCE(port->state)),
				   sib_mtu_bytes(READ_ONCE(port->active_mtu)),
				   be64_to_cpu(port->guid),
				   sib_pkey_at(port, 0), READ_ONCE(port->lmc));
		}
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(ports);

static int sa_groups_open(struct inode *inode, struct file *file)
{
	return single_open(file, sib_sa_show_groups, NULL);
}

static const struct file_operations sa_groups_fops = {
	.owner = THIS_MODULE,
	.open = sa_groups_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int group_mtu_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%u\n", READ_ONCE(sib_group_mtu));
	return 0;
}

static int group_mtu_open(struct inode *inode, struct file *file)
{
	return single_open(file, group_mtu_show, NULL);
}

/* Takes effect for groups created from now on; existing ones stay. */
static ssize_t group_mtu_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	unsigned int bytes;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &bytes);
	if (ret)
		return ret;
	if (sib_group_mtu_check(bytes))
		return -EINVAL;
	WRITE_ONCE(sib_group_mtu, bytes);
	return len;
}

static const struct file_operations group_mtu_fops = {
	.owner = THIS_MODULE,
	.open = group_mtu_open,
	.read = seq_read,
	.write = group_mtu_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t sm_restart_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	if (sib_sm_external)
		return sm_owns("SM restarts");
	mutex_lock(&sib_fabric.ctl_mutex);
	sib_sm_restart();
	mutex_unlock(&sib_fabric.ctl_mutex);
	return len;
}

static int cm_hold_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%u\n", sib_fabric_cm_held());
	return 0;
}

static ssize_t cm_hold_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[8];
	bool hold;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (!strcmp(strim(buf), "req"))
		WRITE_ONCE(sib_fabric.cm_hold, SIB_CM_HOLD_REQ);
	else if (kstrtobool(buf, &hold))
		return -EINVAL;
	else if (hold)
		WRITE_ONCE(sib_fabric.cm_hold, SIB_CM_HOLD_ALL);
	else
		sib_fabric_cm_release();
	return len;
}

static int cm_hold_open(struct inode *inode, struct file *file)
{
	return single_open(file, cm_hold_show, NULL);
}

static const struct file_operations cm_hold_fops = {
	.owner = THIS_MODULE,
	.open = cm_hold_open,
	.read = seq_read,
	.write = cm_hold_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int rtr_hold_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%u\n", sib_qp_rtr_held());
	return 0;
}

static ssize_t rtr_hold_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	bool hold;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &hold);
	if (ret)
		return ret;
	sib_qp_rtr_hold(hold);
	return len;
}

static int rtr_hold_open(struct inode *inode, struct file *file)
{
	return single_open(file, rtr_hold_show, NULL);
}

static const struct file_operations rtr_hold_fops = {
	.owner = THIS_MODULE,
	.open = rtr_hold_open,
	.read = seq_read,
	.write = rtr_hold_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t cm_release_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	u16 lid;
	int ret;

	ret = kstrtou16_from_user(ubuf, len, 0, &lid);
	if (ret)
		return ret;
	if (!lid)
		return -EINVAL;
	sib_fabric_cm_release_to(lid);
	return len;
}

static const struct file_operations cm_release_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cm_release_write,
	.llseek = noop_llseek,
};

static const struct file_operations sm_restart_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sm_restart_write,
	.llseek = noop_llseek,
};

int sib_debugfs_init(void)
{
	struct dentry *root = debugfs_create_dir("sib", NULL);

	sib_fabric.debugfs = root;
	debugfs_create_u32("mad_delay_ms", 0644, root, &sib_fabric.mad_delay_ms);
	debugfs_create_u32("mad_drop_every", 0644, root,
			   &sib_fabric.mad_drop_every);
	debugfs_create_u32("ud_drop_every", 0644, root,
			   &sib_fabric.ud_drop_every);
	debugfs_create_u32("rc_drop_every", 0644, root,
			   &sib_fabric.rc_drop_every);
	debugfs_create_u32("ud_loss_ppm", 0644, root,
			   &sib_fabric.loss_ppm[SIB_LOSS_UD]);
	debugfs_create_u32("rc_loss_ppm", 0644, root,
			   &sib_fabric.loss_ppm[SIB_LOSS_RC]);
	debugfs_create_u32("mad_loss_ppm", 0644, root,
			   &sib_fabric.loss_ppm[SIB_LOSS_MAD]);
	debugfs_create_u32("loss_burst", 0644, root, &sib_fabric.loss_burst);
	debugfs_create_u32("loss_burst_us", 0644, root,
			   &sib_fabric.loss_burst_us);
	debugfs_create_u32("sa_delay_ms", 0644, root, &sib_fabric.sa_delay_ms);
	debugfs_create_u32("sa_path_bits", 0644, root,
			   &sib_fabric.sa_path_bits);
	debugfs_create_u32("sa_busy_every", 0644, root,
			   &sib_fabric.sa_busy_every);
	debugfs_create_u32("sa_silent_every", 0644, root,
			   &sib_fabric.sa_silent_every);
	debugfs_create_atomic_t("fail_qkey_set", 0644, root,
				&sib_fabric.fail_qkey_set);
	debugfs_create_file("rtr_hold", 0644, root, NULL, &rtr_hold_fops);
	debugfs_create_file("cm_hold", 0644, root, NULL, &cm_hold_fops);
	debugfs_create_file("cm_release", 0200, root, NULL, &cm_release_fops);
	debugfs_create_file("group_mtu", 0644, root, NULL, &group_mtu_fops);
	debugfs_create_file("sm_restart", 0200, root, NULL, &sm_restart_fops);
	debugfs_create_file("sa_groups", 0444, root, NULL, &sa_groups_fops);
	debugfs_create_file("ports", 0444, root, NULL, &ports_fops);
	return 0;
}

void sib_debugfs_exit(void)
{
	debugfs_remove_recursive(sib_fabric.debugfs);
}

void sib_debugfs_add_device(struct sib_dev *sdev)
{
	struct dentry *dir;
	char name[16];
	u32 p;

	dir = debugfs_create_dir(dev_name(&sdev->ibdev.dev), sib_fabric.debugfs);
	sdev->debugfs = dir;
	debugfs_create_file("resources", 0444, dir, sdev, &resources_fops);
	debugfs_create_file("cq_events", 0444, dir, sdev, &cq_events_fops);
	debugfs_create_file("dma", 0444, dir, sdev, &dma_fops);
	debugfs_create_file("qps", 0444, dir, sdev, &qps_fops);
	debugfs_create_file("cqs", 0444, dir, sdev, &cqs_fops);
	debugfs_create_file("qp_fatal", 0200, dir, sdev, &qp_fatal_fops);
	debugfs_create_file("cq_err", 0200, dir, sdev, &cq_err_fops);
	debugfs_create_file("fatal", 0200, dir, sdev, &fatal_fops);
	debugfs_create_file("async_events", 0444, dir, sdev,
			    &async_events_fops);
	sib_vf_debugfs(sdev, dir);
	for (p = 1; p <= sdev->nports; p++) {
		struct sib_port *port = sib_port(sdev, p);
		struct dentry *pd;

		snprintf(name, sizeof(name), "port%u", p);
		pd = debugfs_create_dir(name, dir);
		port->debugfs = pd;
		debugfs_create_file("state", 0644, pd, port, &state_fops);
		debugfs_create_file("lid", 0644, pd, port, &lid_fops);
		debugfs_create_file("mtu", 0644, pd, port, &mtu_fops);
		debugfs_create_file("pkeys", 0644, pd, port, &pkeys_fops);
		debugfs_create_file("event", 0644, pd, port, &event_fops);
		debugfs_create_file("counters", 0644, pd, port, &counters_fops);
		debugfs_create_file("rx_stall", 0644, pd, port, &rx_stall_fops);
		debugfs_create_atomic_t("rc_drop_next", 0644, pd,
					&port->rc_drop_next);
		debugfs_create_file("ipoib", 0444, pd, port, &ipoib_fops);
	}
}

void sib_debugfs_remove_device(struct sib_dev *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
}
