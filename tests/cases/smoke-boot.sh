#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness sanity: namespaces, a veth pair, ping both ways (IPv4 and IPv6),
# 20 MB of TCP with iperf3, and the byte counters that traffic moved.
#
#   [h1] veth1 10.0.0.1/24 fd00::1 ---- veth2 10.0.0.2/24 fd00::2 [h2]
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"

step "topology"
ns_add h1
ns_add h2
ip link add veth1 type veth peer name veth2
move_to_ns veth1 h1
move_to_ns veth2 h2
on h1 ip addr add 10.0.0.1/24 dev veth1
on h1 ip addr add fd00::1/64 dev veth1 nodad
on h1 ip link set veth1 up
on h2 ip addr add 10.0.0.2/24 dev veth2
on h2 ip addr add fd00::2/64 dev veth2 nodad
on h2 ip link set veth2 up

step "ping"
assert on h1 ping -c 2 -i 0.2 -W 2 10.0.0.2
assert on h2 ping -c 2 -i 0.2 -W 2 10.0.0.1
assert on h1 ping -6 -c 2 -i 0.2 -W 2 fd00::2

step "iperf3, 20 MB of TCP"
assert iperf_server h2
on h1 iperf3 -c 10.0.0.2 -n 20M -J >iperf.json
# "bytes" of the "sum_received" object of the end report.
bytes=$(sed -n '/"sum_received"/,/}/s/.*"bytes":[[:space:]]*\([0-9]*\).*/\1/p' iperf.json)
bps=$(sed -n '/"sum_received"/,/}/s/.*"bits_per_second":[[:space:]]*\([0-9.e+]*\).*/\1/p' iperf.json)
echo "iperf3: $bytes bytes received, $bps bit/s"
assert_ge "${bytes:-0}" 1 "iperf3 bytes received"

rx=$(netdev_stat veth2 rx_bytes h2)
echo "veth2 rx_bytes: $rx"
assert_ge "$rx" "$bytes" "veth2 rx_bytes"
pass
