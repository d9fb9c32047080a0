#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Address resolution stays on UD in connected mode (RFC 4755 section 7),
# even to a peer we have a live connection with, and traffic over a
# connection keeps the neighbour fresh:
#
#   h1: ib (sib0) 10.9.0.1 fd09::1 ==RC== h2: ib (sib1) 10.9.0.2 fd09::2
#
# After both sides have connections, their ARP and ND caches are flushed:
# the broadcast ARP request and multicast NS go over UD anyway, and the
# unicast ARP reply and NA -- which the connection could carry -- must go
# over UD too.  The fabric counts what each port sent, by transport and
# ethertype.  (The in-tree driver keeps unicast ARP on UD, but not ND.)
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

# sent DEV TRANSPORT CLASS: what sib DEV's port 1 has sent of that kind.
sent() { sib_ipoib_count "$1" 1 "$2" "$3"; }

# idle_of IFACE PEER_GID: seconds the neighbour of that GID has been idle,
# from our debugfs neighbour table (debugfs is outside the namespaces).
idle_of() {
	awk -v g="$2" 'index($1, g) { print $NF; exit }' "/sys/kernel/debug/ib_ipoib/$1/neighs"
}

fabric_up devices=2 ports=1
ours_up
two_hosts --connected ib_ipoib 10.9.0 fd09

step "connections both ways"
assert on h1 ping -c 3 -i 0.2 -W 2 10.9.0.2
assert on h2 ping -c 3 -i 0.2 -W 2 10.9.0.1
assert on h1 ping -6 -c 3 -i 0.2 -W 2 fd09::2
assert on h2 ping -6 -c 3 -i 0.2 -W 2 fd09::1
cat "/sys/kernel/debug/ib_ipoib/$a/cm"
assert_ge "$(stat_of h1 "$a" cm_connections)" 1 "h1's live connections"
assert_ge "$(stat_of h2 "$b" cm_connections)" 1 "h2's live connections"

step "flushed ARP and ND caches resolve again, over UD only"
declare -A before
for d in sib0 sib1; do
	for k in rc:arp rc:nd ud:arp ud:nd rc:ipv4; do
		before[$d:$k]=$(sent "$d" "${k%:*}" "${k#*:}")
	done
done
on h1 ip neigh flush dev "$a"
on h2 ip neigh flush dev "$b"
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.2
assert on h1 ping -6 -c 2 -i 0.2 -W 2 fd09::2
assert on h2 ping -c 2 -i 0.2 -W 2 10.9.0.1
assert on h2 ping -6 -c 2 -i 0.2 -W 2 fd09::1
for d in sib0 sib1; do
	echo "-- $d port 1 sent:"
	sed 's/^/   /' "$SIB/$d/port1/ipoib"
	for k in rc:arp rc:nd; do
		now=$(sent "$d" "${k%:*}" "${k#*:}")
		n=$((now - ${before[$d:$k]}))
		assert_eq "$n" 0 "$d: $k sent since the flush"
	done
	for k in ud:arp ud:nd rc:ipv4; do
		now=$(sent "$d" "${k%:*}" "${k#*:}")
		n=$((now - ${before[$d:$k]}))
		assert_ge "$n" 1 "$d: $k sent since the flush"
	done
done

step "traffic over the connection keeps the neighbour fresh"
gid_b=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
# Pings over RC go on while the table is read: after 20 of them (4 s and
# more), a neighbour that only UD traffic refreshed would be 3 s idle.
c0=$(stat_of h1 "$a" cm_tx_packets)
ip netns exec h1 ping -c 150 -i 0.2 -W 2 -q 10.9.0.2 >/dev/null &
pinger=$!
# shellcheck disable=SC2317 # called by wait_for
rc_pings_sent() { [ "$(($(stat_of h1 "$a" cm_tx_packets) - c0))" -ge 20 ]; }
wait_for 20 rc_pings_sent || fail "20 pings did not go over RC"
cat "/sys/kernel/debug/ib_ipoib/$a/neighs"
idle=$(idle_of "$a" "$gid_b")
kill "$pinger"
wait "$pinger" || true
[ -n "$idle" ] || fail "no neighbour for h2 in h1's table"
[ "$idle" -le 1 ] || fail "h2's neighbour is $idle s idle under traffic over RC"
pass
