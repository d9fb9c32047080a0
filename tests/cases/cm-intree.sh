#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interop in connected mode: ours (built as ipoib_alt, default policy
# "auto") on sib0, Debian's in-tree ib_ipoib on sib1, both connected with
# MTU 65520.  60000-byte pings and iperf3 TCP in both directions; our
# counters show both connections (ours to it, its to us) carried the
# traffic, and that at most one REQ of ours went to the RFC service ID
# the in-tree driver does not listen on.
#
#   h1: ipoib_alt (sib0) 10.8.0.1  ===RC===  h2: in-tree ib_ipoib (sib1) 10.8.0.2
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

interop_up
echo connected >"/sys/class/net/$ours/mode"
echo connected >"/sys/class/net/$theirs/mode"
ip link set "$ours" mtu 65520
ip link set "$theirs" mtu 65520
ib_host h1 "$ours" 10.8.0.1/24 fd08::1/64
ib_host h2 "$theirs" 10.8.0.2/24 fd08::2/64
wait_carrier h1 "$ours"
wait_carrier h2 "$theirs"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$ours/mode")" connected "our mode"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$ours/mtu")" 65520 "our MTU"
assert_eq "$(ip netns exec h2 cat "/sys/class/net/$theirs/mtu")" 65520 "in-tree MTU"

step "60000-byte pings both ways"
assert on h1 ping -c 3 -i 0.3 -W 3 -s 60000 10.8.0.2
assert on h2 ping -c 3 -i 0.3 -W 3 -s 60000 10.8.0.1
assert on h1 ping -6 -c 2 -i 0.3 -W 3 -s 60000 fd08::2

step "iperf3 TCP, ours -> in-tree and in-tree -> ours"
tcp_exact h2 10.8.0.2 h1 32 "ours -> in-tree"
tcp_exact h1 10.8.0.1 h2 32 "in-tree -> ours"

cat /sys/kernel/debug/ipoib_alt/"$ours"/cm
on h1 ethtool -S "$ours" | grep -E '^ +cm_'
assert_eq "$(stat_of h1 "$ours" cm_connections)" 2 "ours to it, and its to us"
assert_ge "$(stat_of h1 "$ours" cm_reqs_sent)" 1 "REQs we sent"
assert_ge "$(stat_of h1 "$ours" cm_reqs_received)" 1 "REQs the in-tree driver sent"
assert_ge "$(stat_of h1 "$ours" cm_tx_packets)" 200 "our sends over RC"
assert_ge "$(stat_of h1 "$ours" cm_rx_packets)" 200 "our receives over RC"
rej=$(stat_of h1 "$ours" cm_rejects_received)
assert_eq "$(stat_of h1 "$ours" cm_rej_service_id)" "$rej" "REJs other than for the service ID"
[ "$rej" -le 1 ] || fail "$rej REJs from the in-tree driver, at most 1 expected"
grep -c ' oneway-linux$' /sys/kernel/debug/ipoib_alt/"$ours"/cm | grep -qx 2 ||
	fail "not two one-way connections in the in-tree form"
assert_eq "$(stat_of h1 "$ours" cm_pmtu_signals)" 0 "packets too big"
pass
