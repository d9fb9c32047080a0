#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several send queues in connected mode: each connection posts on one TX
# queue for its life, the one XPS gives the CPU whose packet first used
# it, under that queue's lock.  h1 (two TX queues) sends to h2 from CPU 0
# and to h3 from CPU 1: the connection to h2 is on queue 0, the one to h3
# on queue 1 (debugfs cm), every datagram arrives, and each queue's
# counter advances by what went on its connection.  Then TCP to each peer
# from the other CPU: the packets follow the connection, not the CPU, and
# arrive byte for byte.  Nearly nothing reaches a connection of queue 1
# through queue 0 (cm_tx_via_queue0: only what waited for it to come up);
# with ndo_select_queue leaving connections out, all of it does, and the
# case fails.  Last, ethtool -L and a mode change while a stream runs.
#
#   h1: ib (sib0) 10.37.0.1, 2 TX queues ==RC (queue 0)==> h2: ib (sib1) 10.37.0.2
#                                        ==RC (queue 1)==> h3: ib (sib2) 10.37.0.3
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec h1 ethtool -S "$a" | awk -v k="$1:" '$1 == k { print $2 }'; }
queue_packets() { stat_of "tx_queue_$1_packets"; }
# conn_txq H: the TX queue of the live connection h1 sends to host H on.
conn_txq() {
	awk -v k="$(cut -c4- <<<"${addr[$1]}")" 'substr($1, 4) == k && $8 == "live" &&
		($9 == "initiator" || $NF ~ /^shared/) { print $10 }' "$dbg/cm"
}
# stream H CPU MIB: a TCP stream of MIB MiB from h1, pinned to CPU, to
# host H, in the background; stream_check H MIB waits for it and checks.
stream() {
	ip netns exec "h$1" tcpstream sink $((5330 + $1)) >"/tmp/cmtss-sink.$1" 2>&1 &
	sinks[$1]=$!
	wait_for 10 iperf_listening "h$1" $((5330 + $1)) || fail "the sink in h$1 did not listen"
	ip netns exec h1 taskset -c "$2" timeout $((120 * ${TIMEOUT_SCALE:-1})) tcpstream send "10.37.0.$1" \
		$((5330 + $1)) $(($3 << 20)) >"/tmp/cmtss-send.$1" 2>&1 &
	senders[$1]=$!
}
stream_check() {
	wait "${senders[$1]}" || fail "stream to h$1: $(cat "/tmp/cmtss-send.$1")"
	wait "${sinks[$1]}" || true
	echo "stream to h$1: $(cat "/tmp/cmtss-send.$1"), $(cat "/tmp/cmtss-sink.$1")"
	assert_eq "$(cat "/tmp/cmtss-sink.$1")" "received $(($2 << 20))" "stream to h$1"
}
# rx_moved H: host H has received a MiB more than at the last rx_mark H.
rx_mark() { rx0=$(netdev_stat "${ifc[$1 - 1]}" rx_bytes "h$1"); }
# shellcheck disable=SC2317 # called through wait_for
rx_moved() { [ $(($(netdev_stat "${ifc[$1 - 1]}" rx_bytes "h$1") - rx0)) -ge $((1 << 20)) ]; }

fabric_up devices=3 ports=1
ours_up send_queues=2
for i in 0 1 2; do
	ifc[i]=$(wait_iface ib_ipoib "sib$i" 1)
	echo connected >"/sys/class/net/${ifc[i]}/mode"
	ib_host "h$((i + 1))" "${ifc[i]}" "10.37.0.$((i + 1))/24"
done
for i in 0 1 2; do
	wait_carrier "h$((i + 1))" "${ifc[i]}"
done
a=${ifc[0]}
dbg=/sys/kernel/debug/ib_ipoib/$a
# The peers' link addresses, given to h1's ARP table: the first packet to
# each is then the pinned sender's own, not one sent from the context
# that handled an ARP reply, and XPS sees the sender's CPU.
for h in 2 3; do
	addr[h]=$(ip netns exec "h$h" cat "/sys/class/net/${ifc[h - 1]}/address")
	ip -n h1 neigh replace "10.37.0.$h" lladdr "${addr[h]}" dev "$a" nud permanent
done
on h1 ethtool -l "$a" | sed -n '/Current/,$p'

step "UDP from CPU 0 to h2 and from CPU 1 to h3: each connection on its CPU's queue"
n=2000 size=1200
q0=$(queue_packets 0)
q1=$(queue_packets 1)
v0=$(stat_of cm_tx_via_queue0)
pinned_udp_windows "$n" "$size" h1 "h2 10.37.0.2 5320" "h3 10.37.0.3 5320"
cat "$dbg/cm"
for h in 2 3; do
	echo "to h$h: $(cat "/tmp/udpwin.$((h - 2))"); at h$h: $(cat "/tmp/udpack.$((h - 2))")"
	assert_eq "$(cat "/tmp/udpack.$((h - 2))")" "ack packets=$n bytes=$((n * size))" \
		"datagrams at h$h"
done
assert_eq "$(conn_txq 2)" 0 "TX queue of the connection to h2 (made from CPU 0)"
assert_eq "$(conn_txq 3)" 1 "TX queue of the connection to h3 (made from CPU 1)"
d0=$(($(queue_packets 0) - q0))
d1=$(($(queue_packets 1) - q1))
via=$(($(stat_of cm_tx_via_queue0) - v0))
echo "queue 0 sent $d0 packets, queue 1 sent $d1; $via reached queue 1's connection through queue 0"
assert_ge "$d0" "$n" "packets on TX queue 0 (to h2)"
assert_ge "$d1" "$n" "packets on TX queue 1 (to h3)"
# What waited for the connection (the window: 16) goes through queue 0.
[ "$via" -le 64 ] ||
	fail "packets to h3's connection through queue 0: expected <= 64, got $via"

step "TCP to each peer from the other CPU: on its connection's queue, byte for byte"
q0=$(queue_packets 0)
q1=$(queue_packets 1)
v0=$(stat_of cm_tx_via_queue0)
mib=8
stream 2 1 "$mib"
stream 3 0 "$mib"
stream_check 2 "$mib"
stream_check 3 "$mib"
d0=$(($(queue_packets 0) - q0))
d1=$(($(queue_packets 1) - q1))
via=$(($(stat_of cm_tx_via_queue0) - v0))
echo "queue 0 sent $d0 packets, queue 1 sent $d1; $via through queue 0"
# At most 64 KiB a packet: 128 packets carry 8 MiB.
assert_ge "$d0" 128 "packets on TX queue 0 (TCP to h2, from CPU 1)"
assert_ge "$d1" 128 "packets on TX queue 1 (TCP to h3, from CPU 0)"
assert_eq "$via" 0 "packets to h3's live connection through queue 0"
ip netns exec h1 ethtool -S "$a" | grep -E 'cm_tx|tx_drop_ring_full|tx_queue'
assert_eq "$(stat_of tx_drop_ring_full)" 0 "tx_drop_ring_full"

step "ethtool -L twice while a stream to h3 runs"
# Long enough to outlast both: each takes the data path down for seconds.
mib=256
rx_mark 3
stream 3 1 "$mib"
wait_for 30 rx_moved 3 || fail "the stream to h3 did not start"
assert on h1 ethtool -L "$a" tx 1
rx_mark 3
wait_for 30 rx_moved 3 || fail "the stream to h3 stopped after -L tx 1"
assert on h1 ethtool -L "$a" tx 2
stream_check 3 "$mib"
cat "$dbg/cm"

step "datagram mode and back while a stream to h2 runs"
rx_mark 2
stream 2 1 "$mib"
wait_for 30 rx_moved 2 || fail "the stream to h2 did not start"
echo datagram | ip netns exec h1 tee "/sys/class/net/$a/mode" >/dev/null
rx_mark 2
wait_for 30 rx_moved 2 || fail "the stream to h2 stopped in datagram mode"
echo connected | ip netns exec h1 tee "/sys/class/net/$a/mode" >/dev/null
stream_check 2 "$mib"
assert on h1 ping -c 2 -i 0.2 -W 2 10.37.0.3
pass
