#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test bed carries Debian's own, unmodified ib_ipoib in datagram mode:
# IPv4 and IPv6 between two ports of the software fabric, and the fabric's
# counters show the packets crossed it.
#
#   h1: ib (sib0 port 1) 10.1.0.1 fd01::1  ===  h2: ib (sib1 port 1) 10.1.0.2 fd01::2
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

step "fabric and the in-tree driver"
fabric_up devices=2 ports=1
intree_up
two_hosts ib_ipoib 10.1.0 fd01
on h1 ip -d link show "$a"
assert_eq "$(on h1 cat "/sys/class/net/$a/mode" | tail -n 1)" datagram "mode"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 2044 "datagram MTU"

tx0=$(sib_counter sib0 1 tx_packets)
rx0=$(sib_counter sib1 1 rx_packets)

step "IPv4"
assert on h1 ping -c 5 -i 0.2 -W 2 10.1.0.2
step "IPv6"
assert on h1 ping -6 -c 5 -i 0.2 -W 2 fd01::2
step "large datagrams (fragmented)"
assert on h2 ping -c 3 -i 0.2 -s 8000 -W 2 10.1.0.1

step "the fabric saw it"
sib_counters sib0 1
sib_counters sib1 1
tx=$(( $(sib_counter sib0 1 tx_packets) - tx0 ))
rx=$(( $(sib_counter sib1 1 rx_packets) - rx0 ))
# 10 echo requests went h1 -> h2, plus 3 fragmented replies of 5 packets.
assert_ge "$tx" 25 "packets sib0 port 1 sent"
assert_ge "$rx" 25 "packets sib1 port 1 received"
assert_eq "$(sib_counter sib1 1 pkey_violations)" 0 "P_Key violations"
assert_eq "$(sib_counter sib1 1 qkey_violations)" 0 "Q_Key violations"
pass
