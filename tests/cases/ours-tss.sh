#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several send queues in datagram mode: ours (ipoib_alt, send_queues=2)
# on sib0 sends to Debian's in-tree driver on sib1 over both its TX
# queues.  A UDP sender pinned to each CPU (XPS: CPU n sends on queue n)
# sends numbered datagrams from its own context; every one reaches the
# in-tree host, and each queue's counter advances by at least what its
# CPU's sender sent.  The in-tree driver takes what the second queue's QP
# sent: that QP sends with the one QPN our link address gives (sib's
# IB_QP_CREATE_SOURCE_QPN).  Four TCP streams over both queues arrive byte
# for byte; TCP gets no floor per queue: it transmits where its ACKs are
# handled as often as where the stream runs (under sib cq_irq=1, on the
# CQ vector's CPU), so one queue may carry nearly all.  ethtool -L
# changes the count, interface up.
#
#   h1: ours (sib0, 2 TX queues)  ---  h2: in-tree (sib1)
#
# Fails as it should with --append sib.source_qpn=0: the HCA refuses the
# flag, the interface gets one queue.
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1
alt_up send_queues=2
intree_up
ours=$(wait_iface ipoib_alt sib0 1)
theirs=$(wait_iface ib_ipoib sib1 1)
ib_host h1 "$ours" 10.36.0.1/24
ib_host h2 "$theirs" 10.36.0.2/24
wait_carrier h1 "$ours"
wait_carrier h2 "$theirs"

# queue_packets Q: what TX queue Q of ours has sent.
queue_packets() {
	ip netns exec h1 ethtool -S "$ours" |
		awk -v k="tx_queue_$1_packets:" '$1 == k { print $2 }'
}

# tx_count: ethtool -l's current TX count.
tx_count() {
	ip netns exec h1 ethtool -l "$ours" |
		awk '/^Current/ { cur = 1 } cur && $1 == "TX:" { print $2 }'
}

step "two TX queues, each with its send QP"
on h1 ethtool -l "$ours"
assert_eq "$(tx_count)" 2 "TX queues (ethtool -l)"
assert_eq "$(ip netns exec h1 ls "/sys/class/net/$ours/queues" | grep -c '^tx-')" 2 "tx-N in sysfs"
assert on h1 ping -c 3 -i 0.2 -W 2 10.36.0.2

step "UDP from a sender pinned to each CPU: each queue carries its CPU's"
# udpbench window keeps 16 datagrams unanswered at most, so none is lost
# to a full receive ring or socket buffer (the in-tree driver's receive
# buffers take 8 KiB each on a 4096-byte fabric, 25 of them fill the
# default 208 KiB): each that does not arrive is one the path lost.
n=2000 size=1200
q0=$(queue_packets 0)
q1=$(queue_packets 1)
pinned_udp_windows "$n" "$size" h1 "h2 10.36.0.2 5320" "h2 10.36.0.2 5321"
# For reading a loss: where the fabric and the hosts dropped.
for d in sib0 sib1; do
	echo "$d: $(awk '$2 != 0 && /drop/ { printf "%s=%s ", $1, $2 }' "$SIB/$d/port1/counters")"
done
# shellcheck disable=SC2016 # awk's $1, not the shell's
ip netns exec h2 awk '$1 == "Udp:"' /proc/net/snmp
for i in 0 1; do
	echo "CPU $i: $(cat "/tmp/udpwin.$i"); in-tree host: $(cat "/tmp/udpack.$i")"
	assert_eq "$(cat "/tmp/udpack.$i")" "ack packets=$n bytes=$((n * size))" \
		"datagrams from CPU $i at the in-tree host"
done
d0=$(($(queue_packets 0) - q0))
d1=$(($(queue_packets 1) - q1))
echo "queue 0 sent $d0 packets, queue 1 sent $d1"
assert_ge "$d0" "$n" "packets on TX queue 0 (CPU 0's sender sent $n)"
assert_ge "$d1" "$n" "packets on TX queue 1 (CPU 1's sender sent $n)"

step "four TCP streams, two from each CPU, checked byte by byte"
q0=$(queue_packets 0)
q1=$(queue_packets 1)
r0=$(netdev_stat "$theirs" rx_bytes h2)
mib=8
pids=()
for i in 0 1 2 3; do
	ip netns exec h2 tcpstream sink $((5310 + i)) >"/tmp/tss-sink.$i" 2>&1 &
	pids+=($!)
done
for i in 0 1 2 3; do
	wait_for 10 iperf_listening h2 $((5310 + i)) || fail "sink $i did not listen"
done
senders=()
for i in 0 1 2 3; do
	ip netns exec h1 taskset -c $((i % 2)) tcpstream send 10.36.0.2 \
		$((5310 + i)) $((mib << 20)) >"/tmp/tss-send.$i" 2>&1 &
	senders+=($!)
done
for i in 0 1 2 3; do
	wait "${senders[$i]}" || fail "stream $i: $(cat "/tmp/tss-send.$i")"
	wait "${pids[$i]}" || true
	echo "stream $i: $(cat "/tmp/tss-send.$i"), $(cat "/tmp/tss-sink.$i")"
	assert_eq "$(cat "/tmp/tss-sink.$i")" "received $((mib << 20))" "stream $i at the in-tree host"
done
# Where TCP transmits, not a floor: see the header.
echo "queue 0 sent $(($(queue_packets 0) - q0)) packets, queue 1 sent $(($(queue_packets 1) - q1))"
assert_ge "$(($(netdev_stat "$theirs" rx_bytes h2) - r0))" $((4 * mib << 20)) "in-tree rx_bytes"

step "ethtool -L with the interface up: one queue, then two again"
assert on h1 ethtool -L "$ours" tx 1
assert_eq "$(tx_count)" 1 "TX queues after -L tx 1"
assert on h1 ping -c 3 -i 0.2 -W 2 10.36.0.2
assert on h1 ethtool -L "$ours" tx 2
assert_eq "$(tx_count)" 2 "TX queues after -L tx 2"
q1=$(queue_packets 1)
tcp_exact h2 10.36.0.2 h1 4 "one stream after -L"
echo "queue 1 sent $(($(queue_packets 1) - q1)) packets since"
assert on h1 ping -c 3 -i 0.2 -W 2 10.36.0.2
pass
