#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input to our driver: a gratuitous ARP whose sender address is
# malformed (dropped before the stack), a neighbour made by hand at that
# address, a neighbour whose GID has no path, absurd MTUs.  Each is refused
# or dropped and counted, and traffic to the good peer goes on.
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1
ours_up
two_hosts ib_ipoib 10.7.0
assert on h1 ping -c 2 -i 0.2 -W 2 10.7.0.2

stat() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

step "gratuitous ARP: 10.7.0.9 is at a multicast QPN with a unicast GID"
on h2 sysctl -qw net.ipv4.conf.all.arp_accept=1 net.ipv4.conf."$b".arp_accept=1
bcast=$(ip netns exec h1 cat "/sys/class/net/$a/broadcast")
gid=$(ip netns exec h1 cat "/sys/class/net/$a/address" | cut -d: -f5-)
bogus="00:ff:ff:ff:$gid"
#      htype ptype hlen plen op    sender hw    sender IP  target hw (zero)  target IP
arp="0020 0800 14 04 0001 ${bogus//:/} 0a070009 $(printf '0%.0s' {1..40}) 0a070009"
r0=$(stat h2 "$b" rx_drop_bad_arp)
on h1 ipoib-send "$a" "$bcast" 0806 "${arp// /}"
wait_for 5 bash -c "[ \$(ip netns exec h2 ethtool -S $b | awk '\$1 == \"rx_drop_bad_arp:\" { print \$2 }') -gt $r0 ]" ||
	fail "the ARP from a malformed address was not dropped and counted (rx_drop_bad_arp)"
! ip -n h2 neigh show 10.7.0.9 | grep -q lladdr ||
	fail "the ARP from a malformed address reached h2's stack: $(ip -n h2 neigh show 10.7.0.9)"
dmesg | grep -q "dropped an ARP packet" || fail "no kernel message about the dropped ARP"

step "a hand-made neighbour at that malformed address"
on h2 ip neigh replace 10.7.0.9 dev "$b" nud permanent lladdr "$bogus"
d0=$(stat h2 "$b" tx_drop_bad_addr)
if on h2 ping -c 2 -i 0.2 -W 1 10.7.0.9; then
	fail "a ping to a malformed address was answered"
fi
assert_ge "$(( $(stat h2 "$b" tx_drop_bad_addr) - d0 ))" 2 "drops to the malformed address counted"
dmesg | grep -q "malformed link address" || fail "no kernel message about the malformed address"
assert on h2 ping -c 2 -i 0.2 -W 2 10.7.0.1

step "a neighbour whose GID has no path"
on h1 ip neigh replace 10.7.0.8 dev "$a" nud permanent \
	lladdr 00:00:00:48:fe:80:00:00:00:00:00:00:de:ad:be:ef:00:00:00:01
p0=$(stat h1 "$a" path_failures)
n0=$(stat h1 "$a" tx_drop_no_path)
if on h1 ping -c 3 -i 0.3 -W 1 10.7.0.8; then
	fail "a GID that does not exist answered"
fi
wait_for 10 bash -c "[ \$(ip netns exec h1 ethtool -S $a | awk '\$1 == \"path_failures:\" { print \$2 }') -gt $p0 ]" ||
	fail "the failed path lookup was not counted"
assert_ge "$(( $(stat h1 "$a" tx_drop_no_path) - n0 ))" 1 "packets dropped for want of a path"
assert on h1 ping -c 2 -i 0.2 -W 2 10.7.0.2

step "absurd MTUs are refused, the MTU stays"
for m in 0 67 2045 4092 65521 70000; do
	if err=$(ip -n h1 link set "$a" mtu "$m" 2>&1); then
		fail "MTU $m accepted in datagram mode on a 2048 fabric"
	fi
	echo "mtu $m: $err"
	[ -n "$err" ] || fail "MTU $m refused without a word"
	assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 2044 "MTU after refusing $m"
done
on h1 ip link set "$a" mtu 1500
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 1500 "MTU lowered"
assert on h1 ping -c 2 -i 0.2 -W 2 -s 1472 -M "do" 10.7.0.2
on h1 ip link set "$a" mtu 2044
assert on h1 ping -c 2 -i 0.2 -W 2 -s 2016 -M "do" 10.7.0.2
pass
