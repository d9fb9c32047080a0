#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed frames over UD, from a packet socket on h1 to h2's address:
# random EtherTypes and lengths, ARP of every shape, ARP from bogus sender
# addresses, truncated IPv4, IPv6 ND with link-layer options of every
# length, empty payloads (tests/tools/ipoib-fuzz.c).
#
#   h1: ib (sib0) 10.13.0.1  --UD-->  h2: ib (sib1) 10.13.0.2, ours
#
# Every frame the fabric delivered to h2 is counted by h2's driver as
# received or dropped; ARP that is not RFC 4391's, or names a sender no
# packet can go to, never reaches the stack (rx_drop_bad_arp), so no such
# neighbour appears; and h2 still talks to h1 afterwards.
#
# soak.scale=N on the kernel command line (make soak) sends N x 3000
# (soak.frames=N: N).
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

N=$(soak_knob frames $((3000 * SOAK_SCALE)))

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
ifstat() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }
# What h2's driver took from its QP: passed up or dropped (and why), each
# frame once.  The driver's own rx_dropped (ethtool), not the interface's:
# that one adds what the stack dropped after the driver passed it up (an
# unknown EtherType), which rx_packets already counts.
h2_in() { echo $(($(ifstat h2 "$b" rx_packets) + $(stat_of h2 "$b" rx_dropped) + $(stat_of h2 "$b" rx_drop_own_mcast))); }
fabric_lost() { sib_counter sib1 1 drop_no_buffer; }
# shellcheck disable=SC2317 # called through wait_for
all_in() { [ $(($(h2_in) - in0 + $(fabric_lost) - lost0)) -ge "$want" ]; }

fabric_up devices=2 ports=1
ours_up
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
ib_host h1 "$a" 10.13.0.1/16 fd00:13::1/64
ib_host h2 "$b" 10.13.0.2/16 fd00:13::2/64
wait_carrier h1 "$a"
wait_carrier h2 "$b"
assert on h1 ping -c 2 -i 0.2 -W 3 10.13.0.2
b_addr=$(ip netns exec h2 cat "/sys/class/net/$b/address")

step "$N malformed frames from h1 to h2"
in0=$(h2_in) lost0=$(fabric_lost)
txd0=$(ifstat h1 "$a" tx_dropped)
arp0=$(stat_of h2 "$b" rx_drop_bad_arp)
out=$(ip netns exec h1 ipoib-fuzz "$a" "$b_addr" "$N" 4391)
echo "   $out"
# Whatever h1's driver did not drop went to h2.
want=$((N - $(ifstat h1 "$a" tx_dropped) + txd0))
wait_for 30 all_in ||
	fail "h2 accounted for $(($(h2_in) - in0)) frames and the fabric lost $(($(fabric_lost) - lost0)), of $want sent"
echo "   h2: $(($(h2_in) - in0)) frames received or dropped, of $want that h1 sent"
on h2 ethtool -S "$b" | grep -E 'rx_drop|rx_errors'
bad_arp=$(($(stat_of h2 "$b" rx_drop_bad_arp) - arp0))
assert_ge "$bad_arp" 1 "ARP packets h2 dropped as bogus"

step "no neighbour with an address nothing can be sent to"
# Octets 2-4 of a link address are the QPN, octet 5 starts the GID.
bogus=$(ip -n h2 neigh show dev "$b" | awk '/lladdr/ {
	for (i = 1; i <= NF; i++) if ($i == "lladdr") split($(i + 1), o, ":")
	qpn = o[2] o[3] o[4]
	if ($1 ~ /^10\.13\.200\./ && (qpn == "000000" || qpn == "ffffff" || o[5] == "ff")) print
}')
[ -z "$bogus" ] || fail "h2 keeps neighbours no packet can reach: $bogus"
echo "   $(ip -n h2 neigh show dev "$b" | grep -c '^10\.13\.200\.' || true) neighbours from sound ARP senders"

step "h1 and h2 still talk"
assert on h1 ping -c 3 -i 0.2 -W 3 10.13.0.2
assert on h2 ping -c 3 -i 0.2 -W 3 -6 fd00:13::1
pass
