#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our ib_ipoib in connected mode between two hosts, for each policy
# (compatible, rfc) and each transport (RC, UC): 60000-byte pings and
# iperf3 TCP, and the driver's counters and debugfs show the traffic went
# over a connection.  Also the mode switch itself: sysfs and netlink, bad
# values refused, the MTU and the address flags following the mode.
#
#   h1: ib (sib0 port 1) 10.6.0.1  ===RC/UC===  h2: ib (sib1 port 1) 10.6.0.2
#
# timeout: 420
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
cm_file() { echo "/sys/kernel/debug/ib_ipoib/$1/cm"; }

fabric_up devices=2 ports=1

step "mode switch: sysfs, netlink, bad values"
ours_up
a=$(wait_iface ib_ipoib sib0 1)
assert_eq "$(cat "/sys/class/net/$a/mode")" datagram "default mode"
if echo bogus >"/sys/class/net/$a/mode" 2>/tmp/err; then
	fail "sysfs mode took 'bogus'"
fi
grep -q "Invalid argument" /tmp/err || fail "bogus mode: $(cat /tmp/err)"
echo connected >"/sys/class/net/$a/mode"
assert_eq "$(cat "/sys/class/net/$a/mode")" connected "mode after sysfs"
assert_eq "$(cat "/sys/class/net/$a/mtu")" 65520 "connected-mode MTU"
assert_eq "$(cut -c1-2 "/sys/class/net/$a/address")" 80 "RC flag in the address"
ethtool -k "$a" | grep -E 'tx-checksum-ipv4|tcp-segmentation-offload'
echo datagram >"/sys/class/net/$a/mode"
assert_eq "$(cat "/sys/class/net/$a/mtu")" 2044 "datagram MTU after switching back"
assert_eq "$(cut -c1-2 "/sys/class/net/$a/address")" 00 "flags cleared in datagram mode"
ip link set "$a" type ipoib mode connected
assert_eq "$(cat "/sys/class/net/$a/mode")" connected "mode after netlink"
ip -d link show "$a" | grep -q "mode connected" || fail "ip -d link does not show connected"
if ip link set "$a" mtu 65521 2>/dev/null; then
	fail "MTU 65521 accepted"
fi
rmmod ib_ipoib

run() {
	local policy=$1 uc=$2 type=$3 flags=$4
	step "policy $policy, cm_uc=$uc: $type"
	ours_up cm_policy="$policy" cm_uc="$uc"
	two_hosts --connected ib_ipoib 10.6.0 fd06
	assert_eq "$(ip netns exec h1 cut -c1-2 "/sys/class/net/$a/address")" "$flags" "address flags"

	assert on h1 ping -c 5 -i 0.2 -W 3 -s 60000 10.6.0.2
	assert on h2 ping -6 -c 3 -i 0.2 -W 3 -s 60000 fd06::1
	rx0=$(sib_counter sib1 1 rx_bytes)
	bytes=$((32 << 20))
	tcp_exact h2 10.6.0.2 h1 32 "iperf3 h1 -> h2"
	tcp_exact h1 10.6.0.1 h2 16 "iperf3 h2 -> h1"
	if [ "$policy$uc" = compatible0 ]; then
		# Each 64 KiB message fills 16 pages; without recycling every
		# one would be new.
		new0=$(stat_of h2 "$b" rx_pages_new)
		bytes3=$(iperf_bytes h2 10.6.0.2 h1 -n 50M)
		new=$(($(stat_of h2 "$b" rx_pages_new) - new0))
		echo "h2 took $bytes3 bytes, $((bytes3 / 4096)) pages' worth; $new pages came new from the allocator"
		if has_page_pool; then
			assert_ge $((bytes3 / 4096 / 2)) "$new" "receive pages reused (new ones at most half of those filled)"
		else
			assert_ge "$new" $((bytes3 / 4096 / 2)) "no page_pool in this kernel: new pages counted"
		fi
	fi

	cat "$(cm_file "$a")"
	cat "$(cm_file "$b")"
	on h1 ethtool -S "$a" | grep -E '^ +cm_'
	assert_ge "$(stat_of h1 "$a" cm_established)" 1 "h1 connections made"
	assert_ge "$(stat_of h1 "$a" cm_connections)" 1 "h1 connections up"
	assert_ge "$(stat_of h1 "$a" cm_tx_packets)" 200 "h1 sends over connections"
	assert_ge "$(stat_of h2 "$b" cm_rx_packets)" 200 "h2 receives over connections"
	assert_eq "$(stat_of h1 "$a" cm_errors_wc)" 0 "completion errors"
	assert_eq "$(stat_of h1 "$a" tx_drop_too_big)" 0 "packets too big"
	grep -q " $type .* live " "$(cm_file "$a")" || fail "no live $type connection in debugfs"
	rx=$(( $(sib_counter sib1 1 rx_bytes) - rx0 ))
	assert_ge "$rx" "$bytes" "the fabric carried the TCP bytes"
	rmmod ib_ipoib
	ip netns del h1
	ip netns del h2
}

run compatible 0 RC 80
run compatible 1 UC c0
run rfc 0 RC 80
run rfc 1 UC c0
pass
