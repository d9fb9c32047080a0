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
# Multicast rides UD in either mode and RFC 4391 sizes all of it by the
# broadcast group: from h1 (connected) a 2044-byte multicast goes, a
# bigger one is dropped and counted (for IPv6 with an ICMPv6 "packet too
# big" naming 2044, as unicast gets; IPv4 sends no ICMP about multicast),
# whether it would fit the 4096-byte port or not.  Before the fix the
# 3000-byte ones crossed the 2048-byte group and the 5000-byte ones
# vanished silently.  The in-tree driver, switched to connected mode, does
# the same (the witness).
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

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
	tcp_exact "h$peer" "10.9.0.$peer" h1 16 "TCP h1 -> h$peer"
	tcp_exact h1 10.9.0.1 "h$peer" 16 "TCP h$peer -> h1"
done

# mcast_held NS IFACE: from NS, multicast up to 2044 bytes reaches the
# group's members; bigger is refused at NS, with "mtu=2044" for IPv6.
mcast_held() {
	local ns=$1 ifc=$2 size
	assert on "$ns" ping -c 2 -i 0.2 -W 2 -M "do" -s 2016 -I "$ifc" -t 1 239.9.9.9
	assert on "$ns" ping -6 -c 2 -i 0.2 -W 2 -M "do" -s 1996 "ff02::1%$ifc"
	for size in 3000 5000; do
		if on "$ns" ping -c 2 -i 0.2 -W 2 -M "do" -s "$size" -I "$ifc" -t 1 239.9.9.9 >/tmp/m4.log 2>&1; then
			cat /tmp/m4.log
			fail "a $((size + 28))-byte multicast crossed a 2048-byte group"
		fi
		tail -n 2 /tmp/m4.log
		# A group h1 has not joined, so that nothing learnt before counts.
		if on "$ns" ping -6 -c 2 -i 0.2 -W 2 -M "do" -s "$size" "ff02::1:$size%$ifc" >/tmp/m6.log 2>&1; then
			cat /tmp/m6.log
			fail "a $((size + 48))-byte IPv6 multicast got an answer"
		fi
		cat /tmp/m6.log
		grep -Eq "mtu ?= ?2044" /tmp/m6.log ||
			fail "no ICMPv6 \"packet too big\" naming 2044 for a $((size + 48))-byte multicast"
	done
}

step "multicast from h1 (connected) is held to the group's MTU"
on h3 sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0
on h3 ip addr add 239.9.9.9/32 dev "$c" autojoin
wait_for 10 ip netns exec h1 ping -c 1 -W 1 -I "$a" -t 1 239.9.9.9 ||
	fail "h3 never answered on 239.9.9.9"
d0=$(stat_of h1 "$a" tx_drop_too_big)
mcast_held h1 "$a"
d1=$(stat_of h1 "$a" tx_drop_too_big)
echo "h1 tx_drop_too_big: $d0 -> $d1"
assert_ge "$((d1 - d0))" 4 "oversized multicast dropped and counted at h1"

step "witness: the in-tree driver in connected mode does the same"
ip -n h2 link set "$b" type ipoib mode connected
ip -n h2 link set "$b" mtu 65520
mcast_held h2 "$b"
pass
