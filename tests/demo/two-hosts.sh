#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our ib_ipoib between two hosts on the software InfiniBand fabric:
#
#   h1 (ns) -- ib (sib0 port 1) == fabric + SM == ib (sib1 port 1) -- h2 (ns)
#              10.0.0.1, fd00::1                   10.0.0.2, fd00::2
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

step "load the software fabric (2 HCAs, SM and SA) and our driver"
fabric_up devices=2 ports=1
ours_up
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
modinfo -F filename ib_ipoib
ib_host h1 "$a" 10.0.0.1/24 fd00::1/64
ib_host h2 "$b" 10.0.0.2/24 fd00::2/64
wait_carrier h1 "$a"
wait_carrier h2 "$b"

step "the interfaces"
on h1 ip -d addr show "$a"
on h1 ethtool -i "$a"

step "ping"
on h1 ping -c 3 -i 0.2 10.0.0.2
on h1 ping -6 -c 3 -i 0.2 fd00::2

step "iperf3 TCP, 5 s"
iperf_server h2
on h1 iperf3 -c 10.0.0.2 -t 5

step "what crossed the fabric"
sib_counters sib0 1
on h1 ethtool -S "$a"
pass
