#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mixed modes: h1 connected (MTU 65520), h2 datagram (MTU 2044, no RC
# flag in its address).  h1 must not send h2 anything bigger than a UD
# message: it tells its own stack so (ICMP "fragmentation needed", ICMPv6
# "packet too big", RFC 4755 7.2), and TCP over IPv4 and IPv6 completes
# at full size both ways without hanging.
#
#   h1: ib (sib0) 10.9.0.1 connected  ---UD---  h2: ib (sib1) 10.9.0.2 datagram
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

fabric_up devices=2 ports=1
ours_up
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
echo connected >"/sys/class/net/$a/mode"
ib_host h1 "$a" 10.9.0.1/24 fd09::1/64
ib_host h2 "$b" 10.9.0.2/24 fd09::2/64
wait_carrier h1 "$a"
wait_carrier h2 "$b"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 65520 "h1 MTU"
assert_eq "$(ip netns exec h2 cat "/sys/class/net/$b/mtu")" 2044 "h2 MTU"
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.2
assert on h1 ping -6 -c 2 -i 0.2 -W 2 fd09::2

step "too big for h2: the local stack hears it, for IPv4 and IPv6"
s0=$(stat_of h1 "$a" cm_pmtu_signals)
if on h1 ping -c 2 -i 0.3 -W 2 -M "do" -s 3000 10.9.0.2 >/tmp/df.log 2>&1; then
	cat /tmp/df.log
	fail "a 3028-byte DF packet reached a 2044-byte peer"
fi
cat /tmp/df.log
grep -qi "too long\|frag needed\|mtu" /tmp/df.log || fail "ping did not learn the path MTU"
if on h1 ping -6 -c 2 -i 0.3 -W 2 -M "do" -s 3000 fd09::2 >/tmp/df6.log 2>&1; then
	cat /tmp/df6.log
	fail "a 3048-byte IPv6 packet reached a 2044-byte peer"
fi
cat /tmp/df6.log
s1=$(stat_of h1 "$a" cm_pmtu_signals)
echo "cm_pmtu_signals: $s0 -> $s1"
assert_ge "$((s1 - s0))" 2 "PMTU signals, IPv4 and IPv6"
on h1 ip route get 10.9.0.2
on h1 ip -6 route get fd09::2
# Without DF, the stack fragments to what it learnt.
assert on h1 ping -c 3 -i 0.3 -W 2 -s 3000 10.9.0.2
assert on h1 ping -6 -c 3 -i 0.3 -W 2 -s 3000 fd09::2

step "TCP at full size, both ways, IPv4 and IPv6"
tcp_exact h2 10.9.0.2 h1 16 "IPv4 h1 -> h2"
tcp_exact h1 10.9.0.1 h2 16 "IPv4 h2 -> h1"
tcp_exact h2 fd09::2 h1 16 "IPv6 h1 -> h2"
tcp_exact h1 fd09::1 h2 16 "IPv6 h2 -> h1"
on h1 ethtool -S "$a" | grep -E 'cm_|too_big'
assert_eq "$(stat_of h1 "$a" cm_reqs_sent)" 0 "no connection tried to a datagram-only peer"
assert_eq "$(stat_of h2 "$b" rx_drop_bad_len)" 0 "h2 bad-length drops"
pass
