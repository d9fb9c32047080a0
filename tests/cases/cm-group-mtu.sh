#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 4096-byte ports in a partition whose IPoIB broadcast group is 2048 bytes,
# the usual subnet manager set-up: datagram-mode peers take at most 2044
# bytes over UD, whatever the ports could carry.  Ours in connected mode
# must send them no more over UD, and tell its own stack so:
#
#   h1: ours (ipoib_alt, sib0) 10.9.0.1 connected
#     --UD--> h3: ours (ipoib_alt, sib2) 10.9.0.3 datagram, MTU 2044
#     ==RC==> h2: in-tree (sib1) 10.9.0.2 datagram, MTU 2044
#
# To h3 (no RC flag in its address): ping -M do -s 2016 (2044 bytes)
# passes, -s 2017 fails locally with "mtu=2044".  Before the fix the UD
# limit was the port's 4092 and 2045-byte packets went out.  The in-tree
# driver in datagram mode still advertises RC and accepts connections, so
# h1 reaches h2 over RC at the connection's MTU: 3000-byte DF pings pass,
# and the fabric shows them on RC.  TCP runs both ways with each peer.
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=3 ports=1 mtu=4096 group_mtu=2048
alt_up
intree_up
a=$(wait_iface ipoib_alt sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
c=$(wait_iface ipoib_alt sib2 1)
echo connected >"/sys/class/net/$a/mode"
ib_host h1 "$a" 10.9.0.1/24 fd09::1/64
ib_host h2 "$b" 10.9.0.2/24 fd09::2/64
ib_host h3 "$c" 10.9.0.3/24 fd09::3/64
wait_carrier h1 "$a"
wait_carrier h2 "$b"
wait_carrier h3 "$c"
grep -i "mtu" "$SIB/sa_groups" | head -3
assert_eq "$(cat "$SIB/sib0/port1/mtu")" 4096 "port MTU"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 65520 "h1 (connected) MTU"
assert_eq "$(ip netns exec h2 cat "/sys/class/net/$b/mtu")" 2044 "in-tree datagram MTU under a 2048 group"
assert_eq "$(ip netns exec h3 cat "/sys/class/net/$c/mtu")" 2044 "our datagram MTU under a 2048 group"

step "h1 to h3 (datagram, ours): the group's MTU, not the port's"
assert_eq "$(ip netns exec h3 cut -d: -f1 "/sys/class/net/$c/address")" 00 "h3's address flags"
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.3
assert on h1 ping -c 2 -i 0.2 -W 2 -M "do" -s 2016 10.9.0.3
if on h1 ping -c 2 -i 0.2 -W 2 -M "do" -s 2017 10.9.0.3 >/tmp/big.log 2>&1; then
	cat /tmp/big.log
	fail "a 2045-byte DF packet went over UD to a 2044-byte peer"
fi
cat /tmp/big.log
grep -Eq "mtu ?= ?2044" /tmp/big.log || fail "ping did not learn mtu=2044"
assert on h1 ping -6 -c 2 -i 0.2 -W 2 -M "do" -s 1996 fd09::3
if on h1 ping -6 -c 2 -i 0.2 -W 2 -M "do" -s 1997 fd09::3 >/tmp/big6.log 2>&1; then
	cat /tmp/big6.log
	fail "a 2045-byte IPv6 packet went over UD to a 2044-byte peer"
fi
cat /tmp/big6.log
grep -q "2044" /tmp/big6.log || fail "ping -6 did not learn the MTU 2044"

step "h1 to h2 (datagram, in-tree, advertising RC): over a connection"
assert_eq "$(ip netns exec h2 cut -d: -f1 "/sys/class/net/$b/address")" 80 "in-tree address flags"
rc0=$(sib_ipoib_count sib0 1 rc ipv4)
assert on h1 ping -c 3 -i 0.2 -W 2 -M "do" -s 3000 10.9.0.2
assert_ge "$(($(sib_ipoib_count sib0 1 rc ipv4) - rc0))" 3 "IPv4 messages h1 sent over RC"

for peer in 2 3; do
	step "TCP both ways between h1 and h$peer"
	fwd=$(iperf_bytes "h$peer" "10.9.0.$peer" h1 -t 3)
	back=$(iperf_bytes h1 10.9.0.1 "h$peer" -t 3)
	assert_ge "$fwd" 100000 "TCP bytes h1 -> h$peer"
	assert_ge "$back" 100000 "TCP bytes h$peer -> h1"
done
pass
