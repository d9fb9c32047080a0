// SPDX-License-Identifier: GPL-2.0
/*
 * The performance management agents (IBA 16.1) of every HCA and of the
 * switch: ClassPortInfo, PortCounters and PortCountersExtended, from the
 * link counters the fabric keeps per HCA port (sib_fabric.c); a switch
 * port to an HCA shows its link from the other end, one between switches
 * what the switches counted (sib_switch.c).  A Set resets what its
 * CounterSelect names: the PMA notes the values then and shows what came
 * since, so the fabric's own counters (debugfs) run on untouched.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include "sib.h"

#define PMA_CLASS_VERSION	1
#define PMA_RESP_TIME		8	/* 4.096 us << 8: about 1 ms */
#define PMA_ALL_PORTS		0xff

/* The fabric's counters behind each field, before any reset base. */
u64 sib_pma_raw(struct sib_port *port, enum sib_pma_field f)
{
	switch (f) {
	case SIB_PMA_XMIT_OCTETS:
		return sib_counter_sum(port, SIB_CNT_LINK_TX_OCTETS);
	case SIB_PMA_RCV_OCTETS:
		return sib_counter_sum(port, SIB_CNT_LINK_RX_OCTETS);
	case SIB_PMA_XMIT_PKTS:
		return sib_counter_sum(port, SIB_CNT_LINK_TX_PKTS);
	case SIB_PMA_RCV_PKTS:
		return sib_counter_sum(port, SIB_CNT_LINK_RX_PKTS);
	case SIB_PMA_XMIT_UCAST:
		return sib_pma_raw(port, SIB_PMA_XMIT_PKTS) -
		       sib_pma_raw(port, SIB_PMA_XMIT_MCAST);
	case SIB_PMA_RCV_UCAST:
		return sib_pma_raw(port, SIB_PMA_RCV_PKTS) -
		       sib_pma_raw(port, SIB_PMA_RCV_MCAST);
	case SIB_PMA_XMIT_MCAST:
		return sib_counter_sum(port, SIB_CNT_LINK_TX_MCAST_PKTS);
	case SIB_PMA_RCV_MCAST:
		return sib_counter_sum(port, SIB_CNT_LINK_RX_MCAST_PKTS);
	case SIB_PMA_LINK_DOWNED:
		return sib_counter_sum(port, SIB_CNT_LINK_DOWNED);
	case SIB_PMA_XMIT_DISCARDS:
		return sib_counter_sum(port, SIB_CNT_DROP_PORT_DOWN);
	case SIB_PMA_VL15_DROPPED:
		return sib_counter_sum(port, SIB_CNT_VL15_DROPPED);
	case SIB_PMA_RCV_SW_RELAY_ERRORS:
		return 0;	/* an HCA relays nothing */
	default:
		WARN_ON_ONCE(1);
		return 0;
	}
}

/*
 * What came since the last reset; the fabric's counters may have been
 * cleared since (debugfs), and then the base with them.
 */
u64 sib_pma_since(u64 raw, u64 base)
{
	return raw >= base ? raw - base : raw;
}

/* The fabric's counters were cleared: the PMA's start from zero too. */
void sib_pma_clear(struct sib_port *port)
{
	int f;

	for (f = 0; f < SIB_PMA_NR_FIELDS; f++)
		WRITE_ONCE(port->mgmt.pma_base[f], 0);
}

/* One MAD being answered, for one port or, with AllPortSelect, all. */
struct pma_req {
	const struct sib_pma_node *node;
	const struct ib_pma_mad *in;
	struct ib_pma_mad *out;
	bool set;
	u32 first, last;		/* ports selected */
};

static u16 pma_select(struct pma_req *r, u8 port_select)
{
	const struct sib_pma_node *node = r->node;

	if (port_select == PMA_ALL_PORTS) {
		r->first = node->first;
		r->last = node->last;
	} else if (port_select >= node->first && port_select <= node->last) {
		r->first = port_select;
		r->last = port_select;
	} else {
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
	return 0;
}

static u64 pma_sum(struct pma_req *r, enum sib_pma_field f)
{
	u64 sum = 0;
	u32 p;

	for (p = r->first; p <= r->last; p++)
		sum += r->node->value(r->node->ctx, p, f);
	return sum;
}

/* A CounterSelect bit and the field it resets. */
struct pma_select_bit {
	u16 bit;
	enum sib_pma_field field;
};

static void pma_reset_selected(struct pma_req *r,
			       const struct pma_select_bit *map, int n,
			       u16 select)
{
	u32 p;
	int i;

	for (p = r->first; p <= r->last; p++)
		for (i = 0; i < n; i++)
			if (select & map[i].bit)
				r->node->reset(r->node->ctx, p, map[i].field);
}

/* Counters stop at their largest value (IBA 16.1.3.5). */
static u32 sat(u64 v, u32 max)
{
	return min_t(u64, v, max);
}

/*
 * PortCounters (IBA 16.1.3.5).  The error counters the fabric never sees
 * (symbol errors, link recovery, remote physical...) stay zero.
 */
static const struct pma_select_bit pma_counters_map[] = {
	{ BIT(2), SIB_PMA_LINK_DOWNED },
	{ BIT(5), SIB_PMA_RCV_SW_RELAY_ERRORS },
	{ BIT(6), SIB_PMA_XMIT_DISCARDS },
	{ BIT(11), SIB_PMA_VL15_DROPPED },
	{ BIT(12), SIB_PMA_XMIT_OCTETS },
	{ BIT(13), SIB_PMA_RCV_OCTETS },
	{ BIT(14), SIB_PMA_XMIT_PKTS },
	{ BIT(15), SIB_PMA_RCV_PKTS },
};

static u16 pma_port_counters(struct pma_req *r)
{
	const struct ib_pma_portcounters *in = (const void *)r->in->data;
	struct ib_pma_portcounters *pc = (void *)r->out->data;
	u16 status = pma_select(r, in->port_select);

	if (status)
		return status;
	if (r->set)
		pma_reset_selected(r, pma_counters_map,
				   ARRAY_SIZE(pma_counters_map),
				   be16_to_cpu(in->counter_select));
	pc->port_select = in->port_select;
	pc->counter_select = in->counter_select;
	pc->link_downed_counter = sat(pma_sum(r, SIB_PMA_LINK_DOWNED), U8_MAX);
	pc->port_rcv_switch_relay_errors =
		cpu_to_be16(sat(pma_sum(r, SIB_PMA_RCV_SW_RELAY_ERRORS),
				U16_MAX));
	pc->port_xmit_discards =
		cpu_to_be16(sat(pma_sum(r, SIB_PMA_XMIT_DISCARDS), U16_MAX));
	pc->vl15_dropped =
		cpu_to_be16(sat(pma_sum(r, SIB_PMA_VL15_DROPPED), U16_MAX));
	/* Data counters count 4-octet words. */
	pc->port_xmit_data =
		cpu_to_be32(sat(pma_sum(r, SIB_PMA_XMIT_OCTETS) / 4, U32_MAX));
	pc->port_rcv_data =
		cpu_to_be32(sat(pma_sum(r, SIB_PMA_RCV_OCTETS) / 4, U32_MAX));
	pc->port_xmit_packets =
		cpu_to_be32(sat(pma_sum(r, SIB_PMA_XMIT_PKTS), U32_MAX));
	pc->port_rcv_packets =
		cpu_to_be32(sat(pma_sum(r, SIB_PMA_RCV_PKTS), U32_MAX));
	return 0;
}

/* PortCountersExtended (IBA 16.1.4.11): 64 bits, no saturation. */
static const struct pma_select_bit pma_ext_map[] = {
	{ BIT(0), SIB_PMA_XMIT_OCTETS },
	{ BIT(1), SIB_PMA_RCV_OCTETS },
	{ BIT(2), SIB_PMA_XMIT_PKTS },
	{ BIT(3), SIB_PMA_RCV_PKTS },
	{ BIT(4), SIB_PMA_XMIT_UCAST },
	{ BIT(5), SIB_PMA_RCV_UCAST },
	{ BIT(6), SIB_PMA_XMIT_MCAST },
	{ BIT(7), SIB_PMA_RCV_MCAST },
};

static u16 pma_port_counters_ext(struct pma_req *r)
{
	const struct ib_pma_portcounters_ext *in = (const void *)r->in->data;
	struct ib_pma_portcounters_ext *pc = (void *)r->out->data;
	u16 status = pma_select(r, in->port_select);

	if (status)
		return status;
	if (r->set)
		pma_reset_selected(r, pma_ext_map, ARRAY_SIZE(pma_ext_map),
				   be16_to_cpu(in->counter_select));
	pc->port_select = in->port_select;
	pc->counter_select = in->counter_select;
	pc->port_xmit_data = cpu_to_be64(pma_sum(r, SIB_PMA_XMIT_OCTETS) / 4);
	pc->port_rcv_data = cpu_to_be64(pma_sum(r, SIB_PMA_RCV_OCTETS) / 4);
	pc->port_xmit_packets = cpu_to_be64(pma_sum(r, SIB_PMA_XMIT_PKTS));
	pc->port_rcv_packets = cpu_to_be64(pma_sum(r, SIB_PMA_RCV_PKTS));
	pc->port_unicast_xmit_packets =
		cpu_to_be64(pma_sum(r, SIB_PMA_XMIT_UCAST));
	pc->port_unicast_rcv_packets =
		cpu_to_be64(pma_sum(r, SIB_PMA_RCV_UCAST));
	pc->port_multicast_xmit_packets =
		cpu_to_be64(pma_sum(r, SIB_PMA_XMIT_MCAST));
	pc->port_multicast_rcv_packets =
		cpu_to_be64(pma_sum(r, SIB_PMA_RCV_MCAST));
	return 0;
}

static u16 pma_class_port_info(struct pma_req *r)
{
	struct ib_class_port_info *cpi = (void *)r->out->data;

	if (r->set)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = PMA_CLASS_VERSION;
	cpi->capability_mask = IB_PMA_CLASS_CAP_ALLPORTSELECT |
			       IB_PMA_CLASS_CAP_EXT_WIDTH |
			       IB_PMA_CLASS_CAP_XMIT_WAIT;
	ib_set_cpi_resp_time(cpi, PMA_RESP_TIME);
	return 0;
}

/* Any other attribute, or a method a PMA does not have. */
static u16 pma_unsupported(struct pma_req *r)
{
	return r->in->mad_hdr.method == IB_MGMT_METHOD_GET || r->set ?
	       IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB :
	       IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
}

/* IB_MAD_RESULT_SUCCESS alone: answers and traps, for the MAD agents. */
int sib_pma_answer(const struct sib_pma_node *node, const struct ib_mad *in,
		   struct ib_mad *out)
{
	struct pma_req r = {
		.node = node,
		.in = (const struct ib_pma_mad *)in,
		.out = (struct ib_pma_mad *)out,
		.set = in->mad_hdr.method == IB_MGMT_METHOD_SET,
	};
	u16 (*handler)(struct pma_req *r);
	u16 status;

	if (sib_mad_for_agents(in->mad_hdr.method))
		return IB_MAD_RESULT_SUCCESS;
	switch (in->mad_hdr.method == IB_MGMT_METHOD_GET || r.set ?
		in->mad_hdr.attr_id : 0) {
	case IB_PMA_CLASS_PORT_INFO:
		handler = pma_class_port_info;
		break;
	case IB_PMA_PORT_COUNTERS:
		handler = pma_port_counters;
		break;
	case IB_PMA_PORT_COUNTERS_EXT:
		handler = pma_port_counters_ext;
		break;
	default:
		handler = pma_unsupported;
		break;
	}
	memcpy(out, in, sizeof(*out));
	memset(r.out->data, 0, sizeof(r.out->data));
	if (in->mad_hdr.class_version != PMA_CLASS_VERSION)
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	else
		status = handler(&r);
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/* An HCA's ports. */
static u64 pma_hca_value(void *ctx, u32 port_num, enum sib_pma_field f)
{
	struct sib_port *port = sib_port(ctx, port_num);

	return sib_pma_since(sib_pma_raw(port, f),
			     READ_ONCE(port->mgmt.pma_base[f]));
}

static void pma_hca_reset(void *ctx, u32 port_num, enum sib_pma_field f)
{
	struct sib_port *port = sib_port(ctx, port_num);

	WRITE_ONCE(port->mgmt.pma_base[f], sib_pma_raw(port, f));
}

int sib_pma_mad(struct sib_dev *sdev, const struct ib_mad *in,
		struct ib_mad *out)
{
	const struct sib_pma_node node = {
		.first = 1,
		.last = sdev->nports,
		.value = pma_hca_value,
		.reset = pma_hca_reset,
		.ctx = sdev,
	};

	return sib_pma_answer(&node, in, out);
}
