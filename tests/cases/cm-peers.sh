#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connected mode's peer table (debugfs cm_peers): one entry per peer, found
# by its address and by its GID, two of the three peers sharing a GID (two
# children of one port on one P_Key).  Events that concern one peer end
# only that peer's connections: the kernel's neighbour of one deleted
# (found by address), the LID of the port two peers share moved (found by
# GID); the third peer's connection is the same QP throughout.
#
#   h1: p1 (sib0, P_Key 0x8123) 10.64.0.1
#   h2: c1 (sib1, 0x8123) 10.64.0.2  } one GID
#   h3: c2 (sib1, 0x8123) 10.64.0.3  }
#   h4: c3 (sib2, 0x8123) 10.64.0.4
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

dbg=/sys/kernel/debug/ib_ipoib/p1
stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
# The peer's address without its flags octet, as both files print it.
key_of() { ip netns exec "$1" cat "/sys/class/net/$2/address" | cut -c4-; }
# peer_field KEY COLUMN: that column of the peer's line in cm_peers.
peer_field() { awk -v k="$1" -v c="$2" 'NR > 2 && substr($1, 4) == k { print $c }' "$dbg/cm_peers"; }
peer_lines() { awk 'NR > 2' "$dbg/cm_peers" | wc -l; }
# conn_qpns KEY: our QPNs of the connections with that peer, not dead.
conn_qpns() { awk -v k="$1" 'substr($1, 4) == k && $8 != "dead" { print $2 }' "$dbg/cm" | sort | tr '\n' ' '; }
# shellcheck disable=SC2317 # called through wait_for
conns_are() { [ "$(conn_qpns "$1")" = "$2" ]; }
# conn_gone KEY QPN: our connection of that QPN with the peer has ended.
# shellcheck disable=SC2317 # called through wait_for
conn_gone() {
	! awk -v k="$1" -v q="$2" 'substr($1, 4) == k && $2 == q && $8 != "dead"' "$dbg/cm" | grep -q .
}
# shellcheck disable=SC2317 # called through wait_for
peer_is() { [ "$(peer_field "$1" 7)" = "$2" ] && [ "$(peer_field "$1" 8)" = "$3" ]; }
# shellcheck disable=SC2317 # called through wait_for
moved_seen() {
	ip netns exec h1 ping -c 1 -W 1 10.64.0.2 >/dev/null 2>&1 || true
	[ "$(stat_of h1 p1 path_lid_moved)" -ge 1 ]
}
dump() {
	cat "$dbg/cm_peers" "$dbg/cm" || true
	on h1 ethtool -S p1 | grep -E 'cm_|path_' || true
}
# table_ok N G: N peers at G GIDs, each found by both lookups.
table_ok() {
	local head
	head=$(head -n 1 "$dbg/cm_peers")
	assert_eq "$head" "# $1 peers, $1 by address, at $2 GIDs" "cm_peers header"
	assert_eq "$(peer_lines)" "$1" "entries in cm_peers"
	assert_eq "$(awk 'NR > 2 && $2 != "ok"' "$dbg/cm_peers" | wc -l)" 0 "entries a lookup misses"
}

fabric_up devices=3 ports=1 pkeys=0xffff,0x8123
ours_up cm_idle_timeout=0
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
c=$(wait_iface ib_ipoib sib2 1)
for p in "$a p1 h1 1" "$b c1 h2 2" "$b c2 h3 3" "$c c3 h4 4"; do
	read -r parent ifc ns n <<<"$p"
	ip link set "$parent" up
	ip link add link "$parent" name "$ifc" type ipoib pkey 0x8123
	echo connected >"/sys/class/net/$ifc/mode"
	ip link set "$ifc" mtu 65520
	ib_host "$ns" "$ifc" "10.64.0.$n/24"
done
wait_carrier h1 p1
wait_carrier h2 c1
wait_carrier h3 c2
wait_carrier h4 c3
k1=$(key_of h2 c1)
k2=$(key_of h3 c2)
k3=$(key_of h4 c3)
echo "peers: $k1 $k2 $k3"
[ "${k1:9}" = "${k2:9}" ] || fail "c1 and c2 do not share a GID"
[ "$k1" != "$k2" ] || fail "c1 and c2 have one address"

step "h1 reaches three peers, two at one GID: one entry each"
for n in 2 3 4; do
	assert on h1 ping -c 2 -i 0.3 -W 5 -s 60000 "10.64.0.$n"
done
for k in "$k1" "$k2" "$k3"; do
	wait_for 10 peer_is "$k" 1 live || { dump; fail "peer $k: no live connection to send on"; }
	assert_eq "$(conn_qpns "$k" | wc -w)" 1 "connections with $k"
done
cat "$dbg/cm_peers"
table_ok 3 2
q1=$(conn_qpns "$k1")
q3=$(conn_qpns "$k3")

step "h2's neighbour deleted: only its connection ends (lookup by address)"
lost=$(stat_of h1 p1 cm_peers_lost)
ip -n h1 neigh del 10.64.0.3 dev p1
wait_for 10 conns_are "$k2" "" || { dump; fail "the connection with c2 did not end"; }
assert_ge "$(( $(stat_of h1 p1 cm_peers_lost) - lost ))" 1 "peers lost"
assert_eq "$(conn_qpns "$k1")" "$q1" "the connection with c1"
assert_eq "$(conn_qpns "$k3")" "$q3" "the connection with c3"
# Its neighbour still names it: the entry stays, with no connection.
assert_eq "$(peer_field "$k2" 7)" 0 "c2's connections in cm_peers"
table_ok 3 2
assert on h1 ping -c 2 -i 0.3 -W 5 -s 60000 10.64.0.3
wait_for 10 peer_is "$k2" 1 live || { dump; fail "c2: no new connection"; }
table_ok 3 2

step "the port of c1 and c2 moves LID: their GID's connections end (lookup by GID)"
q2=$(conn_qpns "$k2")
sm_set_lid sib1 1 0x40
wait_for 30 moved_seen || { dump; fail "h1 did not see c1 move"; }
wait_for 10 conn_gone "$k1" "${q1% }" ||
	{ dump; fail "the old connection with c1 is still there"; }
wait_for 10 conn_gone "$k2" "${q2% }" ||
	{ dump; fail "the old connection with c2 is still there"; }
assert_eq "$(conn_qpns "$k3")" "$q3" "the connection with c3 (another GID)"
assert_eq "$(peer_field "$k3" 8)" live "c3's connection"
for n in 2 3 4; do
	assert on h1 ping -c 2 -i 0.3 -W 5 -s 60000 "10.64.0.$n"
done
wait_for 10 peer_is "$k1" 1 live || { dump; fail "c1: no new connection"; }
wait_for 10 peer_is "$k2" 1 live || { dump; fail "c2: no new connection"; }
assert_eq "$(conn_qpns "$k3")" "$q3" "the connection with c3, after"
cat "$dbg/cm_peers"
table_ok 3 2
pass
