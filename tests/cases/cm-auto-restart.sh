#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cm_policy=auto and a peer caught while it listens on neither service ID
# (starting, stopping, switching mode): the REQ to the RFC 4755 service ID
# and then the one to the in-tree service ID both get REJ 8 (invalid
# service ID).  That is no in-tree peer, which would have taken the second:
# what was learned from the first is dropped, and once the peer listens,
# the RFC form is asked first again and one shared connection is made,
# not a pair of one-way ones in the in-tree form for as long as traffic
# flows.  (Auto is ours alone: there is nothing to run on the in-tree
# driver.)
#
#   h1: ours (sib0) 10.15.0.1, connected mode
#   h2: ours (sib1) 10.15.0.2, datagram mode (nothing listens), then connected
#
# h1 holds h2's address with the RC flag (a permanent neighbour, as a cache
# still holding it from before h2 switched would), so its REQs go to h2.
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
cm_file() { echo "/sys/kernel/debug/ib_ipoib/$1/cm"; }
# conns IFACE PEER_ADDR [FORM]: connections IFACE has with that peer (of
# that form, e.g. shared-rfc), in any state but dead.
conns() {
	awk -v p="$2" -v f="${3:-}" '$1 == p && $8 != "dead" && (f == "" || $NF == f)' \
		"$(cm_file "$1")" | wc -l
}
# shellcheck disable=SC2317 # called through wait_for
conns_are() { [ "$(conns "$1" "$2" "$3")" = "$4" ]; }
# shellcheck disable=SC2317 # called through wait_for
stat_at_least() { [ "$(stat_of "$1" "$2" "$3")" -ge "$4" ]; }
dump() {
	cat "$(cm_file "$a")" "$(cm_file "$b")" || true
	on h1 ethtool -S "$a" | grep -E 'cm_' || true
	on h2 ethtool -S "$b" | grep -E 'cm_' || true
}

fabric_up devices=2 ports=1
ours_up
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
echo connected >"/sys/class/net/$a/mode"
ib_host h1 "$a" 10.15.0.1/24
ib_host h2 "$b" 10.15.0.2/24
wait_carrier h1 "$a"
wait_carrier h2 "$b"
a_addr=$(ip netns exec h1 cat "/sys/class/net/$a/address")
b_addr=$(ip netns exec h2 cat "/sys/class/net/$b/address")
b_rc="80${b_addr:2}"
ip -n h1 neigh replace 10.15.0.2 lladdr "$b_rc" dev "$a" nud permanent

step "h2 listens on neither service ID: both REQs refused, pings over UD"
assert on h1 ping -c 3 -i 0.3 -W 3 10.15.0.2
wait_for 10 stat_at_least h1 "$a" cm_rejects_received 2 ||
	{ dump; fail "h1 did not get REJs for both service IDs"; }
on h1 ethtool -S "$a" | grep -E 'cm_(reqs_sent|rej|peers|fallbacks)'
assert_eq "$(stat_of h1 "$a" cm_rej_service_id)" 1 "REJ 8 for the RFC service ID"
assert_eq "$(stat_of h1 "$a" cm_reqs_sent)" 2 "REQs: RFC, then in-tree service ID"

step "h2 switches to connected mode: one shared connection, RFC form"
ip netns exec h2 sh -c "echo connected >/sys/class/net/$b/mode"
assert_eq "$(ip netns exec h2 cat "/sys/class/net/$b/address")" "$b_rc" "h2's address now"
# h1 tries again once its backoff (a second) is over.
assert on h1 ping -c 6 -i 0.5 -W 3 10.15.0.2
wait_for 15 conns_are "$a" "$b_rc" "" 1 || { dump; fail "h1: no connection with h2"; }
cat "$(cm_file "$a")" "$(cm_file "$b")"
assert_eq "$(conns "$a" "$b_rc" shared-rfc)" 1 "h1: shared connections over the RFC service ID with h2"
assert on h2 ping -c 3 -i 0.3 -W 3 -s 60000 10.15.0.1
t2=$(stat_of h2 "$b" cm_tx_packets)
assert_ge "$t2" 3 "h2 sent over the connection"
assert_eq "$(conns "$a" "$b_rc")" 1 "h1: connections with h2"
assert_eq "$(conns "$b" "$a_addr")" 1 "h2: connections with h1"
assert_eq "$(stat_of h2 "$b" cm_peers_linux_form)" 0 "h2 took h1 for an in-tree peer"
pass
