#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ethtool on our interface: -i (driver, version, the HCA's firmware, bus),
# link speed and width, -S counters that count, -c/-C moderation, -k/-K
# offloads as the HCA allows them, -g/-G ring resize under traffic with
# the TCP stream intact.  Values read back, bad ones are refused and
# change nothing, traffic flows after each change.
#
#   h1: A 10.40.0.1 ---- software fabric ---- h2: B 10.40.0.2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

hosts_up() {
	fabric_up devices=2 ports=1 "$@"
	ours_up
	two_hosts ib_ipoib 10.40.0
}

# et ARGS...: ethtool in h1.
et() { ip netns exec h1 ethtool "$@"; }
# field NAME ARGS...: the value after "NAME:" in ethtool ARGS's output.
field() {
	local name=$1
	shift
	et "$@" | awk -v k="$name:" '{ sub(/^[ \t]+/, "") } index($0, k) == 1 { print $NF; exit }'
}
stat() { field "$1" -S "$a"; }
# feature NAME: on or off, as ethtool -k prints it ("[fixed]" dropped).
feature() { et -k "$a" | awk -v k="$1:" '$1 == k { print $2 }'; }
traffic() {
	assert on h1 ping -c 2 -i 0.2 -W 2 10.40.0.2
	tcp_exact h2 10.40.0.2 h1 8 "TCP"
}

hosts_up

step "ethtool -i: driver, version, firmware, bus"
et -i "$a"
assert_eq "$(field driver -i "$a")" ib_ipoib "driver"
assert_eq "$(field version -i "$a")" 1.0 "version"
assert_eq "$(field firmware-version -i "$a")" 1.0.0 "the HCA's firmware"
assert_eq "$(field bus-info -i "$a")" sib.0 "bus-info (the HCA's device)"

step "link: speed and width from the port (4x EDR)"
et "$a"
assert_eq "$(field Speed "$a")" 100000Mb/s "speed"
assert_eq "$(field Lanes "$a")" 4 "lanes (link width)"
assert_eq "$(field Duplex "$a")" Full "duplex"
assert_eq "$(field "Link detected" "$a")" yes "link"

step "ethtool -S: the in-tree figures first, then ours, and they count"
et -S "$a" | head -12
assert_eq "$(et -S "$a" | sed -n 2p | awk '{ print $1 }')" rx_packets: "first statistic"
for s in tx_drop_no_path mcast_joins path_queries rx_ring_size tx_ring_outstanding; do
	[ -n "$(stat "$s")" ] || fail "ethtool -S has no $s"
done
et -S "$a" | grep -q '^ *cm_[a-z_]*: ' || fail "ethtool -S has no connected-mode counters"
p0=$(stat tx_packets)
b0=$(stat tx_bytes)
traffic
assert_ge "$(($(stat tx_packets) - p0))" 100 "tx_packets counted"
assert_ge "$(($(stat tx_bytes) - b0))" 100000 "tx_bytes counted"
# A packet of the host's own (ND, ARP) may go out between the two reads:
# they must agree once nothing is on its way, and not only by chance.
# shellcheck disable=SC2317 # called through wait_for
tx_bytes_agree() { [ "$(stat tx_bytes)" = "$(netdev_stat "$a" tx_bytes h1)" ]; }
wait_for 10 tx_bytes_agree ||
	assert_eq "$(stat tx_bytes)" "$(netdev_stat "$a" tx_bytes h1)" "ethtool and sysfs tx_bytes"
assert_ge "$(stat mcast_joins)" 1 "multicast joins"
assert_ge "$(stat path_queries)" 1 "path lookups"

step "ethtool -c/-C: CQ moderation reads back, traffic flows"
et -c "$a"
on h1 ethtool -C "$a" rx-usecs 8 rx-frames 16 tx-usecs 4 tx-frames 32
et -c "$a"
assert_eq "$(field rx-usecs -c "$a")" 8 "rx-usecs"
assert_eq "$(field rx-frames -c "$a")" 16 "rx-frames"
assert_eq "$(field tx-usecs -c "$a")" 4 "tx-usecs"
assert_eq "$(field tx-frames -c "$a")" 32 "tx-frames"
traffic
for args in "rx-frames 70000" "tx-usecs 65536" "adaptive-rx on" "rx-usecs-irq 3"; do
	# shellcheck disable=SC2086
	if err=$(et -C "$a" $args 2>&1); then
		fail "ethtool -C $args accepted"
	fi
	echo "ethtool -C $args: $err"
	assert_eq "$(field rx-frames -c "$a")" 16 "rx-frames after refusing $args"
	assert_eq "$(field tx-usecs -c "$a")" 4 "tx-usecs after refusing $args"
done
on h1 ethtool -C "$a" rx-usecs 0 rx-frames 0 tx-usecs 0 tx-frames 0
traffic

step "ethtool -k/-K: checksum, TSO, GRO, scatter-gather as the HCA offers them"
et -k "$a" | grep -E '^(rx-checksumming|tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-receive-offload|	tx-checksum-ipv4):'
for f in rx-checksumming tx-checksumming scatter-gather tcp-segmentation-offload generic-receive-offload; do
	assert_eq "$(feature "$f")" on "$f with an HCA that offers it"
done
l0=$(stat tx_lso)
tcp_exact h2 10.40.0.2 h1 8 "TCP with TSO"
assert_ge "$(($(stat tx_lso) - l0))" 1 "large sends with TSO on"
on h1 ethtool -K "$a" tso off
assert_eq "$(feature tcp-segmentation-offload)" off "TSO after -K tso off"
l0=$(stat tx_lso)
tcp_exact h2 10.40.0.2 h1 8 "TCP with TSO off"
assert_eq "$(stat tx_lso)" "$l0" "large sends with TSO off"
on h1 ethtool -K "$a" tx off rx off gro off
for f in rx-checksumming tx-checksumming generic-receive-offload; do
	assert_eq "$(feature "$f")" off "$f after -K off"
done
c0=$(stat tx_csum)
traffic
assert_eq "$(stat tx_csum)" "$c0" "checksums offloaded with tx off"
on h1 ethtool -K "$a" tx on rx on gro on tso on
for f in rx-checksumming tx-checksumming tcp-segmentation-offload generic-receive-offload; do
	assert_eq "$(feature "$f")" on "$f after -K on"
done
traffic
if et -K "$a" rx-vlan-offload on 2>/dev/null && [ "$(feature rx-vlan-offload)" = on ]; then
	fail "an offload IPoIB cannot do was turned on"
fi

step "ethtool -g/-G: defaults, then a resize while TCP runs"
et -g "$a"
assert_eq "$(et -g "$a" | awk '/^RX:/ { n++; if (n == 2) print $2 }')" 512 "RX ring"
assert_eq "$(et -g "$a" | awk '/^TX:/ { n++; if (n == 2) print $2 }')" 256 "TX ring"
assert_eq "$(et -g "$a" | awk '/^RX:/ { print $2; exit }')" 8192 "RX ring maximum"
addr0=$(ip netns exec h1 cat "/sys/class/net/$a/address")
err0=$(stat tx_errors)
# shellcheck disable=SC2317 # called through wait_for
sent_over() { [ "$(netdev_stat "$a" tx_bytes h1)" -gt "$1" ]; }
soak_tcp_start h2 10.40.0.2 h1
wait_for 10 sent_over "$(($(netdev_stat "$a" tx_bytes h1) + 2000000))" ||
	fail "the TCP stream did not start"
on h1 ethtool -G "$a" rx 1024 tx 128
wait_for 10 sent_over "$(($(netdev_stat "$a" tx_bytes h1) + 2000000))" ||
	fail "the TCP stream did not go on after the first resize"
on h1 ethtool -G "$a" rx 256 tx 1024
wait_for 10 sent_over "$(($(netdev_stat "$a" tx_bytes h1) + 2000000))" ||
	fail "the TCP stream did not go on after the second resize"
soak_tcp_stop
echo "TCP across two resizes: sent $soak_tcp_sent bytes, received $soak_tcp_received"
assert_eq "$soak_tcp_whole" yes "the TCP stream survived the resizes"
assert_eq "$soak_tcp_received" "$soak_tcp_sent" "TCP bytes received across two resizes"
assert_ge "$soak_tcp_received" 4000000 "TCP bytes across two resizes"
assert_eq "$(stat rx_ring_size)" 256 "RX ring after -G"
assert_eq "$(stat tx_ring_size)" 1024 "TX ring after -G"
assert_ge "$(stat rx_ring_posted)" 200 "receive buffers posted after -G"
assert_eq "$(stat tx_errors)" "$err0" "send errors across the resizes"
addr1=$(ip netns exec h1 cat "/sys/class/net/$a/address")
echo "link address before: $addr0"
echo "link address after:  $addr1"
# The peer heard of the new QPN at once, from the gratuitous ARP.
assert_eq "$(ip -n h2 neigh show 10.40.0.1 | awk '{ print $5 }')" "$addr1" "h2's neighbour entry for h1"
assert on h2 ping -c 2 -i 0.2 -W 2 10.40.0.1
traffic

step "ethtool -G: sizes rounded to a power of two; bad ones refused"
on h1 ethtool -G "$a" rx 300 tx 100
assert_eq "$(stat rx_ring_size)" 512 "RX ring 300 rounded up"
assert_eq "$(stat tx_ring_size)" 128 "TX ring 100 rounded up"
for args in "rx 16" "tx 63" "rx 16384" "tx 100000" "rx-jumbo 64"; do
	# shellcheck disable=SC2086
	if err=$(et -G "$a" $args 2>&1); then
		fail "ethtool -G $args accepted"
	fi
	echo "ethtool -G $args: $err"
	assert_eq "$(stat rx_ring_size)" 512 "RX ring after refusing $args"
	assert_eq "$(stat tx_ring_size)" 128 "TX ring after refusing $args"
done
traffic

step "ethtool -G and -C on an interface that is down"
on h1 ip link set "$a" down
on h1 ethtool -G "$a" rx 128 tx 64
on h1 ethtool -C "$a" rx-usecs 3
assert_eq "$(stat rx_ring_size)" 128 "RX ring set while down"
assert_eq "$(stat tx_ring_size)" 64 "TX ring set while down"
on h1 ip link set "$a" up
wait_carrier h1 "$a"
assert_eq "$(field rx-usecs -c "$a")" 3 "rx-usecs set while down"
traffic
assert on h2 ping -c 2 -i 0.2 -W 2 10.40.0.1

if [ -e /sys/module/ib_ipoib/parameters/cm_policy ]; then
	step "connected mode: no UD checksum or segmentation offload; back in datagram mode"
	on h1 ip link set "$a" type ipoib mode connected
	on h2 ip link set "$b" type ipoib mode connected
	et -k "$a" | grep -E '^(tx-checksumming|tcp-segmentation-offload):'
	assert_eq "$(feature tx-checksumming)" off "tx-checksumming in connected mode"
	assert_eq "$(feature tcp-segmentation-offload)" off "TSO in connected mode"
	et -K "$a" tso on tx on 2>&1 || true
	assert_eq "$(feature tcp-segmentation-offload)" off "TSO after -K tso on in connected mode"
	t0=$(stat cm_tx_packets)
	traffic
	assert_ge "$(stat cm_established)" 1 "connections established (ethtool -S)"
	assert_ge "$(($(stat cm_tx_packets) - t0))" 100 "packets sent over connections (ethtool -S)"
	on h1 ip link set "$a" type ipoib mode datagram
	on h2 ip link set "$b" type ipoib mode datagram
	assert_eq "$(feature tx-checksumming)" on "tx-checksumming back in datagram mode"
	assert_eq "$(feature tcp-segmentation-offload)" on "TSO back in datagram mode"
	traffic
fi

step "an HCA without checksum offload or LSO: the offloads are off and fixed"
modprobe -r ib_ipoib sib
ip netns del h1
ip netns del h2
hosts_up csum=0 lso=0
et -k "$a" | grep -E '^(rx-checksumming|tx-checksumming|tcp-segmentation-offload):'
for f in rx-checksumming tx-checksumming tcp-segmentation-offload; do
	assert_eq "$(feature "$f")" off "$f without HCA support"
done
et -K "$a" tso on tx on rx on 2>&1 || true
for f in rx-checksumming tx-checksumming tcp-segmentation-offload; do
	assert_eq "$(feature "$f")" off "$f after -K on without HCA support"
done
assert_eq "$(feature generic-receive-offload)" on "GRO, in software"
c0=$(stat tx_csum)
l0=$(stat tx_lso)
traffic
assert_eq "$(stat tx_csum)" "$c0" "checksums offloaded by an HCA without it"
assert_eq "$(stat tx_lso)" "$l0" "large sends by an HCA without LSO"
pass
