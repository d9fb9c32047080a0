// SPDX-License-Identifier: GPL-2.0
/*
 * Device and port queries, protection domains and address handles: the
 * verbs that hold no traffic (memory regions are sib_mr.c's).
 */
#include <linux/module.h>
#include <rdma/ib_mad.h>
#include "sib.h"

static int sib_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 1;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = U64_MAX;
	/* Fast registration takes pages of 4 KiB to 1 GiB. */
	attr->page_size_cap = GENMASK_ULL(30, 12);
	attr->vendor_id = SIB_VENDOR_ID;
	attr->vendor_part_id = 1;
	attr->hw_ver = 1;
	attr->max_qp = 16384;
	attr->max_qp_wr = sib_max_qp_wr;
	attr->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				 IB_DEVICE_BAD_QKEY_CNTR |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY |
				 IBK_BLOCK_MULTICAST_LOOPBACK;
	if (sib_csum_enabled)
		attr->device_cap_flags |= IB_DEVICE_UD_IP_CSUM;
	if (sib_lso_enabled)
		attr->kernel_cap_flags |= IBK_UD_TSO;
	attr->max_send_sge = sib_max_sge;
	attr->max_recv_sge = sib_max_sge;
	attr->max_sge_rd = sib_max_sge;
	attr->max_cq = 16384;
	attr->max_cqe = sib_max_cqe;
	attr->max_mr = SIB_MAX_MRS;
	attr->max_pd = SIB_MAX_PDS;
	attr->max_fast_reg_page_list_len = SIB_MAX_FR_PAGES;
	/* RDMA READ depths the CM negotiates, each end. */
	attr->max_qp_rd_atom = SIB_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SIB_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SIB_MAX_RD_ATOMIC * attr->max_qp;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->max_mcast_grp = SIB_MAX_MLIDS;
	attr->max_mcast_qp_attach = 256;
	attr->max_total_mcast_qp_attach = 65536;
	attr->max_ah = 65536;
	if (sib_srq_enabled) {
		attr->max_srq = 1024;
		attr->max_srq_wr = sib_max_srq_wr;
		attr->max_srq_sge = sib_max_sge;
	}
	attr->max_pkeys = SIB_PKEY_TABLE_LEN;
	attr->local_ca_ack_delay = 15;
	attr->cq_caps.max_cq_moderation_count = U16_MAX;
	attr->cq_caps.max_cq_moderation_period = U16_MAX;
	return 0;
}

static int sib_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct sib_port *port = sib_port(to_sdev(ibdev), port_num);
	enum ib_port_state state = READ_ONCE(port->state);
	const struct sib_port_mgmt *m = &port->mgmt;

	attr->subnet_prefix = SIB_SUBNET_PREFIX;
	attr->state = state;
	if (state != IB_PORT_DOWN)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (READ_ONCE(m->disabled))
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(port->active_mtu);
	attr->phys_mtu = ib_mtu_enum_to_int(IB_MTU_4096);
	attr->gid_tbl_len = sib_gids;
	attr->port_cap_flags = READ_ONCE(port->cap_flags);
	attr->max_msg_sz = 0x80000000;
	attr->bad_pkey_cntr = min_t(u64, U16_MAX,
				    sib_counter_sum(port, SIB_CNT_PKEY_VIOLATIONS));
	attr->qkey_viol_cntr = min_t(u64, U16_MAX,
				     sib_counter_sum(port, SIB_CNT_QKEY_VIOLATIONS));
	attr->pkey_tbl_len = SIB_PKEY_TABLE_LEN;
	/* What the SM set through PortInfo, once the link is up. */
	if (state != IB_PORT_DOWN) {
		attr->lid = READ_ONCE(port->lid);
		attr->sm_lid = READ_ONCE(m->sm_lid);
		attr->lmc = READ_ONCE(port->lmc);
	}
	attr->max_vl_num = 1;		/* VL0 only */
	attr->sm_sl = READ_ONCE(m->sm_sl);
	attr->subnet_timeout = READ_ONCE(m->subnet_timeout);
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_EDR;
	return 0;
}

static int sib_modify_port(struct ib_device *ibdev, u32 port_num, int mask,
			   struct ib_port_modify *props)
{
	struct sib_port *port = sib_port(to_sdev(ibdev), port_num);
	unsigned long flags;

	if (mask & ~(IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE |
		     IB_PORT_RESET_QKEY_CNTR))
		return -EOPNOTSUPP;
	if (mask & IB_PORT_SHUTDOWN)
		sib_sm_port_down(port);

	spin_lock_irqsave(&sib_fabric.lock, flags);
	port->cap_flags = (port->cap_flags | props->set_port_cap_mask) &
			  ~props->clr_port_cap_mask;
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return 0;
}

static int sib_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = SIB_PKEY_TABLE_LEN;
	immutable->gid_tbl_len = sib_gids;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int sib_query_gid(struct ib_device *ibdev, u32 port_num, int index,
			 union ib_gid *gid)
{
	if (index < 0 || index >= sib_gids)
		return -EINVAL;
	*gid = sib_port_gid_at(sib_port(to_sdev(ibdev), port_num), index);
	return 0;
}

static int sib_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	if (index >= SIB_PKEY_TABLE_LEN)
		return -EINVAL;
	*pkey = sib_pkey_at(sib_port(to_sdev(ibdev), port_num), index);
	return 0;
}

static void sib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "1.0.0");
}

static int sib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sib_dev *sdev = to_sdev(ibpd->device);

	if (atomic_inc_return(&sdev->nr_pds) > SIB_MAX_PDS) {
		atomic_dec(&sdev->nr_pds);
		return -ENOMEM;
	}
	return 0;
}

static int sib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_sdev(ibpd->device)->nr_pds);
	return 0;
}

/* Kernel consumers only: there is no user verbs support. */
static struct ib_mr *sib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
				     u64 iova, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int sib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata)
{
	struct rdma_ah_attr *attr = init->ah_attr;
	struct sib_dev *sdev = to_sdev(ibah->device);
	struct sib_av *av = &to_sah(ibah)->av;
	u32 port_num = rdma_ah_get_port_num(attr);

	if (attr->type != RDMA_AH_ATTR_TYPE_IB || port_num < 1 ||
	    port_num > sdev->nports)
		return -EINVAL;
	if (!sib_sgid_index_ok(attr))
		return -EINVAL;
	sib_av_from_attr(av, attr);
	atomic_inc(&sdev->nr_ahs);
	return 0;
}

/* A GRH's source GID is an entry of the port's GID table (gids=). */
bool sib_sgid_index_ok(const struct rdma_ah_attr *attr)
{
	return !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	       rdma_ah_read_grh(attr)->sgid_index < sib_gids;
}

/* An AH's or a connected QP's address, as sends carry it. */
void sib_av_from_attr(struct sib_av *av, const struct rdma_ah_attr *attr)
{
	memset(av, 0, sizeof(*av));
	av->dlid = rdma_ah_get_dlid(attr);
	av->src_path_bits = rdma_ah_get_path_bits(attr);
	av->sl = rdma_ah_get_sl(attr);
	av->port_num = rdma_ah_get_port_num(attr);
	if (rdma_ah_get_ah_flags(attr) & IB_AH_GRH) {
		const struct ib_global_route *grh = rdma_ah_read_grh(attr);

		av->has_grh = true;
		av->dgid = grh->dgid;
		av->sgid_index = grh->sgid_index;
		av->hop_limit = grh->hop_limit;
		av->traffic_class = grh->traffic_class;
		av->flow_label = grh->flow_label;
	}
}

void sib_av_to_attr(const struct sib_av *av, struct rdma_ah_attr *attr)
{
	union ib_gid dgid = av->dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(attr, av->dlid);
	rdma_ah_set_path_bits(attr, av->src_path_bits);
	rdma_ah_set_sl(attr, av->sl);
	rdma_ah_set_port_num(attr, av->port_num);
	if (av->has_grh)
		rdma_ah_set_grh(attr, &dgid, av->flow_label,
				av->sgid_index, av->hop_limit,
				av->traffic_class);
}

static int sib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	sib_av_to_attr(&to_sah(ibah)->av, attr);
	return 0;
}

static int sib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_dec(&to_sdev(ibah->device)->nr_ahs);
	return 0;
}

const struct ib_device_ops sib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.alloc_mr = sib_alloc_mr,
	.alloc_pd = sib_alloc_pd,
	.attach_mcast = sib_attach_mcast,
	.create_ah = sib_create_ah,
	.create_cq = sib_create_cq,
	.create_qp = sib_create_qp,
	.create_srq = sib_create_srq,
	.dealloc_pd = sib_dealloc_pd,
	.dereg_mr = sib_dereg_mr,
	.destroy_ah = sib_destroy_ah,
	.destroy_cq = sib_destroy_cq,
	.destroy_qp = sib_destroy_qp,
	.destroy_srq = sib_destroy_srq,
	.detach_mcast = sib_detach_mcast,
	.get_dev_fw_str = sib_get_dev_fw_str,
	.get_dma_mr = sib_get_dma_mr,
	.get_port_immutable = sib_get_port_immutable,
	.map_mr_sg = sib_map_mr_sg,
	.modify_cq = sib_modify_cq,
	.modify_port = sib_modify_port,
	.modify_qp = sib_modify_qp,
	.modify_srq = sib_modify_srq,
	.poll_cq = sib_poll_cq,
	.post_recv = sib_post_recv,
	.post_send = sib_post_send,
	.post_srq_recv = sib_post_srq_recv,
	.process_mad = sib_process_mad,
	.query_ah = sib_query_ah,
	.query_device = sib_query_device,
	.query_gid = sib_query_gid,
	.query_pkey = sib_query_pkey,
	.query_port = sib_query_port,
	.query_qp = sib_query_qp,
	.query_srq = sib_query_srq,
	.reg_user_mr = sib_reg_user_mr,
	.req_notify_cq = sib_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, sib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sib_srq, ibsrq),
};
