#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connected mode on a fabric that offers no SRQ (sib srq=0): each
# connection the peer sends on brings its own receive ring (64 buffers of
# 64 KiB); a one-way connection we opened, which the peer never sends on,
# brings none: the pages each host's receive buffers took for its two
# connections with the other are one ring's worth, not two.  And
# cm_max_conn_nosrq bounds how many connections an interface takes.  h1
# and h2 fill h1's two slots (compatible policy: one connection each way);
# h3's request is then refused and h3 talks datagrams to h1, TCP sized by
# the ICMP the driver feeds it.
#
#   h1: sib0 10.10.0.1  ===RC===  h2: sib1 10.10.0.2
#          \---UD (refused)---  h3: sib2 10.10.0.3
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
# shellcheck disable=SC2317 # called through wait_for
both_up() { [ "$(stat_of h1 "$a" cm_connections)" = 2 ] && [ "$(stat_of h2 "$b" cm_connections)" = 2 ]; }

fabric_up devices=3 ports=1 srq=0
ours_up cm_max_conn_nosrq=2 cm_policy=compatible
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
c=$(wait_iface ib_ipoib sib2 1)
for ifc in "$a" "$b" "$c"; do
	echo connected >"/sys/class/net/$ifc/mode"
done
grep -q "per-QP rings" "/sys/kernel/debug/ib_ipoib/$a/cm" || fail "an SRQ was used on a fabric without"
ib_host h1 "$a" 10.10.0.1/24
ib_host h2 "$b" 10.10.0.2/24
ib_host h3 "$c" 10.10.0.3/24
wait_carrier h1 "$a"
wait_carrier h2 "$b"
wait_carrier h3 "$c"

step "receive rings only where the peer sends"
# A buffer: a 512-byte head, then pages for the rest of 65524 bytes.
ps=4096	# the VM is x86-64
ring=$(( 64 * ((65524 - 512 + ps - 1) / ps) ))
pa=$(stat_of h1 "$a" rx_pages_new)
pb=$(stat_of h2 "$b" rx_pages_new)
# Small pings: copied out of their buffers, they take no page.
assert on h1 ping -c 2 -i 0.2 -W 3 10.10.0.2
wait_for 15 both_up || fail "not two connections on each side"
cat "/sys/kernel/debug/ib_ipoib/$a/cm"
pa=$(( $(stat_of h1 "$a" rx_pages_new) - pa ))
pb=$(( $(stat_of h2 "$b" rx_pages_new) - pb ))
echo "pages the receive buffers took: h1 $pa, h2 $pb (a ring: $ring pages of $ps bytes)"
for p in "$pa" "$pb"; do
	assert_ge "$p" "$ring" "pages for the ring of the connection the peer opened"
	assert_ge $(( ring * 3 / 2 )) "$p" "pages for two connections, one of them ours and one-way"
done

step "h1 <-> h2 over RC with per-QP receive rings"
assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.10.0.2
tcp_exact h2 10.10.0.2 h1 16 "iperf3 h1 -> h2"
tcp_exact h1 10.10.0.1 h2 16 "iperf3 h2 -> h1"
cat "/sys/kernel/debug/ib_ipoib/$a/cm"
assert_eq "$(stat_of h1 "$a" cm_connections)" 2 "h1 connections"
assert_ge "$(stat_of h1 "$a" cm_rx_packets)" 200 "h1 received over RC"

step "h3: h1 is full, so datagrams"
assert on h3 ping -c 2 -i 0.2 -W 2 10.10.0.1
# TCP learns the UD MTU from the ICMP our driver feeds its stack.
tcp_exact h1 10.10.0.1 h3 16 "iperf3 h3 -> h1 over UD"
tcp_exact h3 10.10.0.3 h1 16 "iperf3 h1 -> h3 over UD"
cat "/sys/kernel/debug/ib_ipoib/$a/cm"
on h1 ethtool -S "$a" | grep -E 'cm_'
on h3 ethtool -S "$c" | grep -E 'cm_'
assert_eq "$(stat_of h1 "$a" cm_connections)" 2 "h1 stays at the limit"
assert_ge "$(stat_of h1 "$a" cm_rejects_sent)" 1 "h1 refused h3"
assert_ge "$(stat_of h3 "$c" cm_fallbacks)" 1 "h3 fell back to datagrams"
assert_ge "$(( $(stat_of h3 "$c" cm_pmtu_signals) + $(stat_of h1 "$a" cm_pmtu_signals) ))" 1 \
	"TCP was told the UD MTU"
pass
