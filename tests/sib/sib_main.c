// SPDX-License-Identifier: GPL-2.0
/*
 * sib module: parameters, and the life of the devices on the fabric.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>
#include "sib.h"

static unsigned int devices = 2;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of HCAs on the fabric (1-8, default 2)");

static unsigned int ports = 1;
module_param(ports, uint, 0444);
MODULE_PARM_DESC(ports, "Ports per HCA (1-2, default 1)");

unsigned int sib_port_mtu = 2048;
module_param_named(mtu, sib_port_mtu, uint, 0444);
MODULE_PARM_DESC(mtu, "Port link MTU in bytes: 256, 512, 1024, 2048 (default) or 4096");

unsigned int sib_group_mtu;
module_param_named(group_mtu, sib_group_mtu, uint, 0444);
MODULE_PARM_DESC(group_mtu, "Largest MTU of new multicast groups, bytes (256-4096); 0: the port MTU (default)");

static unsigned int switches = 1;
module_param(switches, uint, 0444);
MODULE_PARM_DESC(switches, "Switches, in a line, each linked to the next by its top ports; the HCA ports spread along it in order, the first on the first switch and the last on the last (1-4, default 1)");

static char *sm = "builtin";
module_param(sm, charp, 0444);
MODULE_PARM_DESC(sm, "Who manages the subnet: builtin (the default: LIDs, ports and the SA at once) or external (an SM such as OpenSM on a port)");

bool sib_sm_external;

static char *pkeys = "0xffff";
module_param(pkeys, charp, 0444);
MODULE_PARM_DESC(pkeys, "Initial P_Key table of every port, comma separated (default 0xffff)");

bool sib_srq_enabled = true;
module_param_named(srq, sib_srq_enabled, bool, 0444);
MODULE_PARM_DESC(srq, "Offer shared receive queues (default Y)");

bool sib_csum_enabled = true;
module_param_named(csum, sib_csum_enabled, bool, 0444);
MODULE_PARM_DESC(csum, "Offer UD IP checksum offload (default Y)");

bool sib_lso_enabled = true;
module_param_named(lso, sib_lso_enabled, bool, 0444);
MODULE_PARM_DESC(lso, "Offer UD large send offload; needs csum (default Y)");

bool sib_source_qpn_enabled = true;
module_param_named(source_qpn, sib_source_qpn_enabled, bool, 0444);
MODULE_PARM_DESC(source_qpn, "Take IB_QP_CREATE_SOURCE_QPN: UD QPs that send as another UD QP's number (default Y)");

bool sib_dma = true;
module_param_named(dma, sib_dma, bool, 0444);
MODULE_PARM_DESC(dma, "Register each HCA with a DMA device, so that consumers' mappings are real DMA addresses (bounce buffers under swiotlb=force) and sib reaches memory through them (default Y; N: virtual DMA, kernel addresses)");

bool sib_cq_irq;
module_param_named(cq_irq, sib_cq_irq, bool, 0644);
MODULE_PARM_DESC(cq_irq, "Raise completion events as an interrupt on the CPU of the CQ's vector, as an HCA does, not in the poster's context (default N)");

static int check_limit(const char *name, unsigned int val, unsigned int lo,
		       unsigned int hi)
{
	if (val >= lo && val <= hi)
		return 0;
	pr_err("sib: %s=%u out of range %u-%u\n", name, val, lo, hi);
	return -EINVAL;
}

static int send_delay_set(const char *val, const struct kernel_param *kp)
{
	unsigned int us;
	int ret = kstrtouint(val, 0, &us);

	if (!ret)
		ret = check_limit("send_delay_us", us, 0, SIB_MAX_SEND_DELAY_US);
	if (!ret)
		WRITE_ONCE(*(unsigned int *)kp->arg, us);
	return ret;
}

static const struct kernel_param_ops send_delay_ops = {
	.set = send_delay_set,
	.get = param_get_uint,
};

unsigned int sib_send_delay_us;
module_param_cb(send_delay_us, &send_delay_ops, &sib_send_delay_us, 0644);
MODULE_PARM_DESC(send_delay_us, "Microseconds each send, RDMA or atomic request takes to execute, in the poster's context: posts, drains and flushes then overlap it (default 0)");

bool sib_async = true;
module_param_named(async, sib_async, bool, 0644);
MODULE_PARM_DESC(async, "Execute sends after the post returns, in the fabric's worker, reading the gather list then, as an HCA's DMA does; completions come later, in batches (default Y; N: in the poster's context, the payload read before the post returns)");

static int async_us_set(const char *val, const struct kernel_param *kp)
{
	unsigned int us;
	int ret = kstrtouint(val, 0, &us);

	if (!ret)
		ret = check_limit(kp->name, us, 0, SIB_MAX_ASYNC_DELAY_US);
	if (!ret)
		WRITE_ONCE(*(unsigned int *)kp->arg, us);
	return ret;
}

static const struct kernel_param_ops async_us_ops = {
	.set = async_us_set,
	.get = param_get_uint,
};

unsigned int sib_async_delay_us;
module_param_cb(async_delay_us, &async_us_ops, &sib_async_delay_us, 0644);
MODULE_PARM_DESC(async_delay_us, "async: microseconds from a post to its batch's execution (0-1000000, default 0: the worker is queued at once)");

unsigned int sib_async_jitter_us;
module_param_cb(async_jitter_us, &async_us_ops, &sib_async_jitter_us, 0644);
MODULE_PARM_DESC(async_jitter_us, "async: up to this many microseconds more, at random, for each batch (0-1000000, default 0)");

static int ack_timeout_max_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (!ret)
		ret = check_limit("ack_timeout_max_ms", ms, 0,
				  SIB_MAX_ACK_TIMEOUT_MS);
	if (!ret)
		WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return ret;
}

static const struct kernel_param_ops ack_timeout_max_ops = {
	.set = ack_timeout_max_set,
	.get = param_get_uint,
};

unsigned int sib_ack_timeout_max_ms;
module_param_cb(ack_timeout_max_ms, &ack_timeout_max_ops,
		&sib_ack_timeout_max_ms, 0644);
MODULE_PARM_DESC(ack_timeout_max_ms, "Longest local ACK timeout an RC QP waits before it sends again, ms; its timeout field's 4.096 us * 2^timeout when shorter, none when 0 (0-3600000, default 0: as the field says)");

/* The device's limits, as an HCA advertises them and refuses past them. */
unsigned int sib_max_sge = SIB_MAX_SGE;
module_param_named(max_sge, sib_max_sge, uint, 0444);
MODULE_PARM_DESC(max_sge, "SGEs a send, receive or SRQ work request may have (1-32, default 32)");

unsigned int sib_max_qp_wr = 16384;
module_param_named(max_qp_wr, sib_max_qp_wr, uint, 0444);
MODULE_PARM_DESC(max_qp_wr, "Work requests a QP's send or receive queue may hold (1-1048576, default 16384)");

unsigned int sib_max_cqe = 65535;
module_param_named(max_cqe, sib_max_cqe, uint, 0444);
MODULE_PARM_DESC(max_cqe, "Entries a CQ may hold (1-1048576, default 65535)");

unsigned int sib_max_srq_wr = 16384;
module_param_named(max_srq_wr, sib_max_srq_wr, uint, 0444);
MODULE_PARM_DESC(max_srq_wr, "Work requests an SRQ may hold (1-1048576, default 16384)");

unsigned int sib_max_inline;
module_param_named(max_inline, sib_max_inline, uint, 0444);
MODULE_PARM_DESC(max_inline, "Bytes a send may carry inline, copied at post time (0-1024, default 0: no inline sends)");

struct sib_fabric sib_fabric = { .loss_burst_us = SIB_LOSS_BURST_US };

unsigned int sib_lmc;
module_param_named(lmc, sib_lmc, uint, 0444);
MODULE_PARM_DESC(lmc, "The built-in SM's LMC: every port answers to 2^lmc LIDs, its base LID aligned to that (0-3, default 0)");

unsigned int sib_gids = 1;
module_param_named(gids, sib_gids, uint, 0444);
MODULE_PARM_DESC(gids, "GID table entries per port: 0 the port GUID's, the others alias GUIDs (the built-in SM's: the port GUID with the index in bits 39:32; under sm=external the SM sets them) (1-8, default 1)");

/* The path bits of the built-in SA's Get; debugfs sa_path_bits changes them. */
module_param_named(sa_path_bits, sib_fabric.sa_path_bits, uint, 0444);
MODULE_PARM_DESC(sa_path_bits, "lmc>0: the path bits of the one path the built-in SA gives a Get that names no LID (default 0: the base LIDs, as OpenSM)");

/* The SA's pace from load on (the harsh profile); debugfs changes it later. */
module_param_named(sa_delay_ms, sib_fabric.sa_delay_ms, uint, 0444);
MODULE_PARM_DESC(sa_delay_ms, "Milliseconds the built-in SA takes to answer each request, queued, not slept on (default 0; debugfs sa_delay_ms changes it)");

static struct platform_device *sib_pdev[SIB_MAX_DEVICES];
static u16 initial_pkeys[SIB_PKEY_TABLE_LEN];
static u32 initial_npkeys;

static int parse_pkeys(void)
{
	char *list, *cursor, *tok;
	int ret = 0;

	list = kstrdup(pkeys, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cursor = list;
	while ((tok = strsep(&cursor, ",")) != NULL) {
		u16 pkey;

		if (!*tok)
			continue;
		if (kstrtou16(tok, 0, &pkey) || !sib_pkey_valid(pkey) ||
		    initial_npkeys == SIB_PKEY_TABLE_LEN) {
			pr_err("sib: bad P_Key list \"%s\" (up to %d valid P_Keys)\n",
			       pkeys, SIB_PKEY_TABLE_LEN);
			ret = -EINVAL;
			break;
		}
		initial_pkeys[initial_npkeys++] = pkey;
	}
	kfree(list);
	if (!ret && !initial_npkeys) {
		pr_err("sib: the P_Key list is empty\n");
		ret = -EINVAL;
	}
	return ret;
}

static int check_params(void)
{
	int ret;

	if (!strcmp(sm, "external")) {
		sib_sm_external = true;
	} else if (strcmp(sm, "builtin")) {
		pr_err("sib: sm=%s: builtin or external\n", sm);
		return -EINVAL;
	}
	if (devices < 1 || devices > SIB_MAX_DEVICES) {
		pr_err("sib: devices=%u out of range 1-%d\n", devices,
		       SIB_MAX_DEVICES);
		return -EINVAL;
	}
	if (ports < 1 || ports > SIB_MAX_PORTS) {
		pr_err("sib: ports=%u out of range 1-%d\n", ports,
		       SIB_MAX_PORTS);
		return -EINVAL;
	}
	if (ib_mtu_int_to_enum(sib_port_mtu) == -1 ||
	    ib_mtu_enum_to_int(ib_mtu_int_to_enum(sib_port_mtu)) !=
	    sib_port_mtu) {
		pr_err("sib: mtu=%u is not an IB MTU (256-4096, power of two)\n",
		       sib_port_mtu);
		return -EINVAL;
	}
	if (sib_group_mtu_check(sib_group_mtu)) {
		pr_err("sib: group_mtu=%u is neither 0 nor an IB MTU (256-4096, power of two)\n",
		       sib_group_mtu);
		return -EINVAL;
	}
	if (sib_sm_external && sib_lmc) {
		pr_err("sib: lmc=%u is the built-in SM's; under sm=external the SM sets it (OpenSM: lmc)\n",
		       sib_lmc);
		return -EINVAL;
	}
	ret = check_limit("lmc", sib_lmc, 0, SIB_MAX_LMC);
	if (!ret)
		ret = check_limit("switches", switches, 1, SIB_MAX_SWITCHES);
	if (!ret)
		ret = check_limit("gids", sib_gids, 1, SIB_MAX_GIDS);
	if (!ret)
		ret = check_limit("max_sge", sib_max_sge, 1, SIB_MAX_SGE);
	if (!ret)
		ret = check_limit("max_qp_wr", sib_max_qp_wr, 1, SIB_MAX_QUEUE);
	if (!ret)
		ret = check_limit("max_cqe", sib_max_cqe, 1, SIB_MAX_QUEUE);
	if (!ret)
		ret = check_limit("max_srq_wr", sib_max_srq_wr, 1, SIB_MAX_QUEUE);
	if (!ret)
		ret = check_limit("max_inline", sib_max_inline, 0,
				  SIB_MAX_INLINE);
	if (ret)
		return ret;
	if (sib_lso_enabled && !sib_csum_enabled) {
		pr_err("sib: lso=1 needs csum=1, as on real HCAs\n");
		return -EINVAL;
	}
	return parse_pkeys();
}

static void init_port(struct sib_dev *sdev, u32 port_num)
{
	struct sib_port *port = sib_port(sdev, port_num);

	port->sdev = sdev;
	port->port_num = port_num;
	port->fabric_index = sib_fabric.nports++;
	sib_switch_place(port);
	port->guid = cpu_to_be64(be64_to_cpu(sdev->ibdev.node_guid) +
				 port_num);
	port->state = IB_PORT_DOWN;
	port->active_mtu = ib_mtu_int_to_enum(sib_port_mtu);
	port->cap_flags = IB_PORT_CLIENT_REG_SUP | IB_PORT_SYS_IMAGE_GUID_SUP |
			  IB_PORT_EXTENDED_SPEEDS_SUP;
	memcpy(port->pkeys, initial_pkeys, initial_npkeys * sizeof(u16));
	sib_sma_init_port(port);
}

static struct sib_dev *create_device(u32 index)
{
	struct platform_device *pdev;
	struct sib_dev *sdev;
	u32 p;
	int ret;

	/* A parent device, like a PCI function, for sysfs and bus-info. */
	pdev = platform_device_register_simple("sib", index, NULL, 0);
	if (IS_ERR(pdev))
		return ERR_CAST(pdev);

	sdev = ib_alloc_device(sib_dev, ibdev);
	if (!sdev) {
		ret = -ENOMEM;
		goto err_pdev;
	}
	sdev->index = index;
	sdev->nports = ports;
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->mrs, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->cqs, XA_FLAGS_ALLOC1);
	sdev->next_qpn = 0x48 + index * 0x100;
	sdev->cq_events = alloc_percpu(struct sib_cq_event_stats);
	/* Counted per packet: per CPU, so no cache line bounces. */
	sdev->dma_sges = alloc_percpu(u64);
	if (!sdev->cq_events || !sdev->dma_sges) {
		ret = -ENOMEM;
		goto err_stats;
	}
	for (p = 0; p < ports; p++) {
		sdev->port[p].stats = alloc_percpu(struct sib_port_stats);
		if (!sdev->port[p].stats) {
			ret = -ENOMEM;
			goto err_stats;
		}
	}

	/* Our own OUI-like prefix; the low bytes tell device and port. */
	sdev->ibdev.node_guid = cpu_to_be64(0x5eb1b0000000000ULL |
					    ((u64)(index + 1) << 8));
	for (p = 1; p <= ports; p++)
		init_port(sdev, p);

	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = ports;
	sdev->ibdev.num_comp_vectors = num_online_cpus();
	sdev->ibdev.local_dma_lkey = SIB_LOCAL_DMA_LKEY;
	sdev->ibdev.dev.parent = &pdev->dev;
	snprintf(sdev->ibdev.node_desc, sizeof(sdev->ibdev.node_desc),
		 "sib software HCA %u", index);
	ib_set_device_ops(&sdev->ibdev, &sib_dev_ops);
	sib_vf_init(sdev);
	ret = sib_dma_setup(sdev, &pdev->dev);
	if (ret)
		goto err_stats;

	ret = ib_register_device(&sdev->ibdev, "sib%d", sdev->dma_dev);
	if (ret) {
		pr_err("sib: registering device %u failed: %d\n", index, ret);
		goto err_stats;
	}
	sib_pdev[index] = pdev;
	return sdev;

err_stats:
	for (p = 0; p < ports; p++)
		free_percpu(sdev->port[p].stats);
	free_percpu(sdev->cq_events);
	free_percpu(sdev->dma_sges);
	ib_dealloc_device(&sdev->ibdev);
err_pdev:
	platform_device_unregister(pdev);
	return ERR_PTR(ret);
}

static void destroy_device(struct sib_dev *sdev)
{
	u32 index = sdev->index;
	u32 p;

	sib_debugfs_remove_device(sdev);
	sib_sm_remove_device(sdev);
	ib_unregister_device(&sdev->ibdev);
	/* SA work may still hold one of this device's ports. */
	flush_workqueue(sib_fabric.wq);
	for (p = 0; p < sdev->nports; p++)
		free_percpu(sdev->port[p].stats);
	free_percpu(sdev->cq_events);
	free_percpu(sdev->dma_sges);
	xa_destroy(&sdev->qps);
	xa_destroy(&sdev->mrs);
	xa_destroy(&sdev->cqs);
	ib_dealloc_device(&sdev->ibdev);
	platform_device_unregister(sib_pdev[index]);
	sib_pdev[index] = NULL;
}

static void destroy_all(void)
{
	while (sib_fabric.ndevs) {
		u32 i = --sib_fabric.ndevs;

		destroy_device(sib_fabric.devs[i]);
		sib_fabric.devs[i] = NULL;
	}
}

static int __init sib_init(void)
{
	u32 i;
	int ret;

	ret = check_params();
	if (ret)
		return ret;

	spin_lock_init(&sib_fabric.lock);
	mutex_init(&sib_fabric.ctl_mutex);
	/* Ordered: the SM and SA see MADs one at a time, in arrival order. */
	sib_fabric.wq = alloc_ordered_workqueue("sib_sm", 0);
	if (!sib_fabric.wq)
		return -ENOMEM;

	ret = sib_exec_init();
	if (ret)
		goto err_wq;
	ret = sib_switch_init(devices * ports, switches);
	if (ret)
		goto err_exec;
	ret = sib_sa_init();
	if (ret)
		goto err_switch;
	ret = sib_debugfs_init();
	if (ret)
		goto err_sa;

	for (i = 0; i < devices; i++) {
		struct sib_dev *sdev = create_device(i);

		if (IS_ERR(sdev)) {
			ret = PTR_ERR(sdev);
			goto err_devs;
		}
		sib_fabric.devs[sib_fabric.ndevs++] = sdev;
		sib_debugfs_add_device(sdev);
		ret = sib_sm_add_device(sdev);
		if (ret)
			goto err_devs;
	}
	pr_info("sib: %u HCA(s) x %u port(s), MTU %u, group MTU %u, P_Keys %s, srq=%d csum=%d lso=%d, %s SM, lmc=%u gids=%u, %u switch(es)\n",
		devices, ports, sib_port_mtu, sib_group_mtu, pkeys,
		sib_srq_enabled, sib_csum_enabled, sib_lso_enabled, sm,
		sib_lmc, sib_gids, switches);
	pr_info("sib: async=%d async_delay_us=%u async_jitter_us=%u dma=%d source_qpn=%d\n",
		sib_async, sib_async_delay_us, sib_async_jitter_us, sib_dma,
		sib_source_qpn_enabled);
	pr_info("sib: limits: max_sge=%u max_qp_wr=%u max_cqe=%u max_srq_wr=%u max_inline=%u\n",
		sib_max_sge, sib_max_qp_wr, sib_max_cqe, sib_max_srq_wr,
		sib_max_inline);
	return 0;

err_devs:
	destroy_all();
	sib_fabric_drop_held();	/* they name switches */
	sib_debugfs_exit();
err_sa:
	sib_sa_exit();
err_switch:
	sib_switch_exit();
err_exec:
	sib_exec_exit();
err_wq:
	destroy_workqueue(sib_fabric.wq);
	return ret;
}

static void __exit sib_exit(void)
{
	/* A connection's set-up still held would stall the unregister. */
	sib_qp_rtr_hold(false);
	destroy_all();
	/* Regions freed after a grace period: their callbacks are ours. */
	rcu_barrier();
	sib_fabric_drop_held();
	sib_switch_exit();
	sib_debugfs_exit();
	sib_sa_exit();
	sib_exec_exit();
	destroy_workqueue(sib_fabric.wq);
	sib_fabric_free_groups();
}

module_init(sib_init);
module_exit(sib_exit);

MODULE_DESCRIPTION("Software InfiniBand HCA, fabric and subnet manager for tests");
MODULE_LICENSE("GPL");
