#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test bed carries Debian's ib_ipoib in connected mode: RC connections
# through ib_cm, MTU 65520, 60000-byte pings and TCP.
#
#   h1: ib (sib0 port 1) 10.2.0.1  ===RC===  h2: ib (sib1 port 1) 10.2.0.2
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1
intree_up
two_hosts --connected ib_ipoib 10.2.0
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" connected "mode"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 65520 "MTU"

rx0=$(sib_counter sib1 1 rx_bytes)
step "60000-byte pings"
assert on h1 ping -c 5 -i 0.2 -s 60000 -W 3 10.2.0.2
step "TCP"
bytes=$((32 << 20))
tcp_exact h2 10.2.0.2 h1 32 "iperf3"

sib_counters sib1 1
rx=$(( $(sib_counter sib1 1 rx_bytes) - rx0 ))
# One 60000-byte request per ping travels as one RC message.
assert_ge "$rx" $((5 * 60000 + bytes)) "bytes sib1 port 1 received"
echo "RNR NAKs on sib0 port 1: $(sib_counter sib0 1 rnr_naks)"
pass
