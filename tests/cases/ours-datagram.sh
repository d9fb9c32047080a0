#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our ib_ipoib in datagram mode between two hosts: IPv4 and IPv6 ping,
# iperf3 TCP and UDP both ways; the bytes show up in the interface's
# counters and crossed the software fabric, and the receive pages come
# back from the stack to be used again.
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1
ours_up
two_hosts ib_ipoib 10.1.0 fd01

step "the interface as users see it"
on h1 ip -d link show "$a"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/type")" 32 "ARPHRD_INFINIBAND"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/addr_len")" 20 "address length"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 2044 "datagram MTU on a 2048 fabric"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/broadcast")" \
	00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff "broadcast address"

step "ping, IPv4 and IPv6, small and full-size"
assert on h1 ping -c 3 -i 0.2 -W 2 10.1.0.2
assert on h2 ping -c 3 -i 0.2 -W 2 10.1.0.1
assert on h1 ping -c 3 -i 0.2 -W 2 -s 2016 -M "do" 10.1.0.2
assert on h1 ping -6 -c 3 -i 0.2 -W 2 fd01::2
assert on h2 ping -6 -c 3 -i 0.2 -W 2 -s 1996 -M "do" fd01::1
if on h1 ping -c 1 -W 1 -s 2017 -M "do" 10.1.0.2 2>/dev/null; then
	fail "a 2045-byte packet went out of a 2044-byte MTU"
fi

step "iperf3 TCP both ways, UDP"
rx0=$(netdev_stat "$b" rx_bytes h2)
fab0=$(sib_counter sib1 1 rx_bytes)
tcp_exact h2 10.1.0.2 h1 32 "TCP h1 -> h2"
tcp=$((32 << 20))
tcp_exact h1 fd01::1 h2 32 "TCP over IPv6 h2 -> h1"
# A fixed amount, paced so that even the debug kernel under CI's load
# keeps up (at 20 Mbit/s it lost 6.6 MB of 7.5): 1000 datagrams of 1400
# bytes at 4 Mbit/s, of which at most 5% may be lost.
udp=$(iperf_bytes h2 10.1.0.2 h1 -u -b 4M -l 1400 -n 1400000)
assert_ge "$udp" 1330000 "UDP bytes h1 -> h2, of 1400000 sent"

step "counters: the interface and the fabric saw it"
rx=$(( $(netdev_stat "$b" rx_bytes h2) - rx0 ))
fab=$(( $(sib_counter sib1 1 rx_bytes) - fab0 ))
echo "h2 rx_bytes +$rx, sib1 port 1 rx_bytes +$fab"
assert_ge "$rx" "$((tcp + udp))" "h2 received at least what iperf3 counted"
assert_ge "$fab" "$rx" "the fabric carried at least what h2 received"
on h1 ethtool -S "$a" | grep -E 'tx_lso|tx_csum|path_queries|mcast_joins|tx_drop'
assert_eq "$(ip netns exec h1 ethtool -S "$a" | awk '$1 == "tx_errors_wc:" { print $2 }')" 0 "send completion errors"
assert_ge "$(ip netns exec h1 ethtool -S "$a" | awk '$1 == "path_queries:" { print $2 }')" 1 "SA path lookups"

step "receive buffers: the stack gives their pages back"
pages_new() { ip netns exec h2 ethtool -S "$b" | awk '$1 == "rx_pages_new:" { print $2 }'; }
new0=$(pages_new)
pk0=$(netdev_stat "$b" rx_packets h2)
tcp=$(iperf_bytes h2 10.1.0.2 h1 -n 20M)
pk=$(($(netdev_stat "$b" rx_packets h2) - pk0))
new=$(($(pages_new) - new0))
echo "h2: $tcp bytes in $pk packets took $new new pages"
# The server counts what it read before the client's end of test: 20 MB less
# what sat in the two sockets' buffers (tcp_wmem 4 MB + tcp_rmem 6 MB at
# most), however slow the kernel.
assert_ge "$tcp" 9000000 "TCP bytes the server read of 20 MB"
assert_ge "$pk" $((tcp / 2044)) "packets for those bytes at MTU 2044"
if has_page_pool; then
	assert_ge $((pk / 2)) "$new" "receive pages reused (new ones at most half the packets)"
else
	assert_ge "$new" $((pk / 2)) "no page_pool in this kernel: new pages counted"
fi
pass
