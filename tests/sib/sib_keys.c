// SPDX-License-Identifier: GPL-2.0
/*
 * P_Key rules (IBA 10.9) and the per-port counters.
 */
#include "sib.h"

const char *const sib_counter_names[SIB_NR_COUNTERS] = {
	[SIB_CNT_TX_PKTS] = "tx_packets",
	[SIB_CNT_TX_BYTES] = "tx_bytes",
	[SIB_CNT_RX_PKTS] = "rx_packets",
	[SIB_CNT_RX_BYTES] = "rx_bytes",
	[SIB_CNT_RX_MCAST_PKTS] = "rx_multicast_packets",
	[SIB_CNT_RX_PATH_BITS] = "rx_path_bits_packets",
	[SIB_CNT_DROP_PORT_DOWN] = "drop_port_down",
	[SIB_CNT_DROP_NO_QP] = "drop_no_qp",
	[SIB_CNT_DROP_NO_BUFFER] = "drop_no_buffer",
	[SIB_CNT_DROP_INJECTED] = "drop_injected",
	[SIB_CNT_PKEY_VIOLATIONS] = "pkey_violations",
	[SIB_CNT_QKEY_VIOLATIONS] = "qkey_violations",
	[SIB_CNT_RNR_NAKS] = "rnr_naks",
	[SIB_CNT_LOCAL_ACK_TIMEOUTS] = "local_ack_timeouts",
	[SIB_CNT_RETRANSMITS] = "retransmits",
	[SIB_CNT_RETRIES_EXCEEDED] = "retries_exceeded",
	[SIB_CNT_LEN_ERRORS] = "length_errors",
	[SIB_CNT_CSUM_OFFLOADS] = "csum_offloads",
	[SIB_CNT_LSO_SEGMENTS] = "lso_segments",
	[SIB_CNT_LINK_TX_PKTS] = "link_tx_packets",
	[SIB_CNT_LINK_TX_OCTETS] = "link_tx_octets",
	[SIB_CNT_LINK_TX_MCAST_PKTS] = "link_tx_multicast_packets",
	[SIB_CNT_LINK_RX_PKTS] = "link_rx_packets",
	[SIB_CNT_LINK_RX_OCTETS] = "link_rx_octets",
	[SIB_CNT_LINK_RX_MCAST_PKTS] = "link_rx_multicast_packets",
	[SIB_CNT_LINK_DOWNED] = "link_downed",
	[SIB_CNT_VL15_DROPPED] = "vl15_dropped",
	[SIB_CNT_DROP_UNROUTED] = "drop_unrouted",
	[SIB_CNT_RDMA_WRITES] = "rdma_writes",
	[SIB_CNT_RDMA_WRITE_BYTES] = "rdma_write_bytes",
	[SIB_CNT_RDMA_READS] = "rdma_reads",
	[SIB_CNT_RDMA_READ_BYTES] = "rdma_read_bytes",
	[SIB_CNT_RKEY_VIOLATIONS] = "rkey_violations",
	[SIB_CNT_REMOTE_INVALIDATES] = "remote_invalidates",
	[SIB_CNT_ASYNC_BATCHES] = "async_batches",
	[SIB_CNT_ASYNC_WQES] = "async_wqes",
	[SIB_CNT_SA_REQUESTS] = "sa_requests",
	[SIB_CNT_SA_DELAYED] = "sa_delayed",
	[SIB_CNT_SA_BUSY] = "sa_busy",
	[SIB_CNT_SA_SILENT] = "sa_silent",
	[SIB_CNT_DROP_RANDOM] = "drop_random",
	[SIB_CNT_LOSS_BURSTS] = "loss_bursts",
	[SIB_CNT_WR_FLUSHED] = "wr_flushed",
	[SIB_CNT_DROP_BAD_DGID] = "drop_bad_dgid",
};

/* 0x0000 and 0x8000 are reserved: they never match anything. */
bool sib_pkey_valid(u16 pkey)
{
	return (pkey & 0x7fff) != 0;
}

/* Same partition, and not both limited members. */
bool sib_pkey_match(u16 a, u16 b)
{
	if (!sib_pkey_valid(a) || !sib_pkey_valid(b))
		return false;
	return ((a ^ b) & 0x7fff) == 0 && ((a | b) & 0x8000);
}

u16 sib_pkey_at(const struct sib_port *port, u16 index)
{
	if (index >= SIB_PKEY_TABLE_LEN)
		return 0;
	return READ_ONCE(port->pkeys[index]);
}

/*
 * The index of a P_KeyTable (a port's, or the switch's port 0) holding
 * this partition, whatever its membership bit.
 */
int sib_pkey_table_find(const u16 *pkeys, u16 pkey)
{
	int i;

	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++) {
		u16 entry = READ_ONCE(pkeys[i]);

		if (sib_pkey_valid(entry) && !((entry ^ pkey) & 0x7fff))
			return i;
	}
	return -1;
}

int sib_pkey_find(const struct sib_port *port, u16 pkey)
{
	return sib_pkey_table_find(port->pkeys, pkey);
}

u64 sib_counter_sum(struct sib_port *port, enum sib_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(port->stats, cpu)->cnt[c];
	return sum;
}

void sib_counters_clear(struct sib_port *port)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(port->stats, cpu), 0,
		       sizeof(struct sib_port_stats));
}
