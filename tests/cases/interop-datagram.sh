#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interop in datagram mode: ours (built as ipoib_alt) on sib0, Debian's
# in-tree ib_ipoib on sib1, one host each.  IPv4 and IPv6 ping and iperf3
# in both directions; both drivers count the bytes.
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

interop_up
ib_host h1 "$ours" 10.6.0.1/24 fd06::1/64
ib_host h2 "$theirs" 10.6.0.2/24 fd06::2/64
wait_carrier h1 "$ours"
wait_carrier h2 "$theirs"

step "ping both ways, IPv4 and IPv6, up to the full MTU"
assert on h1 ping -c 3 -i 0.2 -W 2 10.6.0.2
assert on h2 ping -c 3 -i 0.2 -W 2 10.6.0.1
assert on h1 ping -6 -c 3 -i 0.2 -W 2 fd06::2
assert on h2 ping -6 -c 3 -i 0.2 -W 2 fd06::1
assert on h1 ping -c 2 -i 0.2 -W 2 -s 2016 -M "do" 10.6.0.2
assert on h2 ping -c 2 -i 0.2 -W 2 -s 2016 -M "do" 10.6.0.1

step "iperf3, ours -> in-tree and in-tree -> ours"
o0=$(netdev_stat "$ours" tx_bytes h1)
t0=$(netdev_stat "$theirs" tx_bytes h2)
tcp_exact h2 10.6.0.2 h1 32 "ours -> in-tree"
tcp_exact h1 10.6.0.1 h2 32 "in-tree -> ours"
tcp_exact h1 fd06::1 h2 16 "IPv6 in-tree -> ours"
tcp_exact h2 fd06::2 h1 16 "IPv6 ours -> in-tree"
fwd=$((32 << 20)) back=$((32 << 20)) fwd6=$((16 << 20)) back6=$((16 << 20))
echo "ours sent $(( $(netdev_stat "$ours" tx_bytes h1) - o0 )) bytes, in-tree sent $(( $(netdev_stat "$theirs" tx_bytes h2) - t0 ))"
assert_ge "$(( $(netdev_stat "$ours" tx_bytes h1) - o0 ))" "$((fwd + fwd6))" "our tx_bytes"
assert_ge "$(( $(netdev_stat "$theirs" tx_bytes h2) - t0 ))" "$((back + back6))" "in-tree tx_bytes"
pass
