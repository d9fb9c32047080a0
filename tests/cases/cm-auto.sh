#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cm_policy=auto on a fabric where both kinds of peer are present, as on a
# cluster being upgraded one node at a time.  Two hosts run ours (built as
# ipoib_alt, cm_policy=auto), one runs Debian's in-tree ib_ipoib, all in
# connected mode.  Between ours: one shared connection per pair, over the
# RFC 4755 service ID.  Between ours and the in-tree driver: one one-way
# connection each way over the in-tree service ID, and at most one REJ
# (invalid service ID) before ours learned that.  TCP both ways on every
# pair.  Then the in-tree host is replaced by ours while h1 -> h2 TCP runs:
# its pairs move to one shared connection with nobody doing anything.
#
#   h1: ours (sib0) 10.12.0.1   h2: ours (sib1) 10.12.0.2
#   h3: in-tree (sib2) 10.12.0.3, then ours (sib2) 10.12.0.3
#
# timeout: 420
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
cm_file() { echo "/sys/kernel/debug/ipoib_alt/$1/cm"; }
addr_of() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }
verbs() { awk '$1 ~ /^(qps|cqs|pds)$/ { printf "%s=%s ", $1, $2 }' "$SIB/$1/resources"; }
# shellcheck disable=SC2317 # called through wait_for
verbs_are() { [ "$(verbs "$1")" = "$2" ]; }
# conns IFACE PEER_ADDR [FORM]: connections IFACE has with that peer (of
# that form, e.g. shared-rfc), in any state but dead.
conns() {
	awk -v p="$2" -v f="${3:-}" '$1 == p && $8 != "dead" && (f == "" || $NF == f)' \
		"$(cm_file "$1")" | wc -l
}
# shellcheck disable=SC2317 # called through wait_for
conns_are() { [ "$(conns "$1" "$2" "$3")" = "$4" ]; }
dump() {
	local f
	for f in /sys/kernel/debug/ipoib_alt/*/cm; do
		echo "-- $f"
		cat "$f"
	done
}

# pair NS_A IFACE_A ADDR_A NS_B IFACE_B ADDR_B: big pings and TCP both ways.
pair() {
	assert on "$1" ping -c 3 -i 0.3 -W 5 -s 60000 "$6"
	assert on "$4" ping -c 3 -i 0.3 -W 5 -s 60000 "$3"
	tcp_exact "$4" "$6" "$1" 16 "TCP $3 -> $6"
	tcp_exact "$1" "$3" "$4" 16 "TCP $6 -> $3"
}

fabric_up devices=3 ports=1
# No idle reaping: on a slow kernel the steps outlast the 60 s default,
# and this case counts connections.
alt_up cm_policy=auto cm_idle_timeout=0
intree_up
a=$(wait_iface ipoib_alt sib0 1)
b=$(wait_iface ipoib_alt sib1 1)
c=$(wait_iface ib_ipoib sib2 1)
assert_eq "$(cat /sys/module/ipoib_alt/parameters/cm_policy)" auto "cm_policy"
idle2=$(verbs sib2)
for ifc in "$a" "$b" "$c"; do
	echo connected >"/sys/class/net/$ifc/mode"
	ip link set "$ifc" mtu 65520
done
ib_host h1 "$a" 10.12.0.1/24
ib_host h2 "$b" 10.12.0.2/24
ib_host h3 "$c" 10.12.0.3/24
wait_carrier h1 "$a"
wait_carrier h2 "$b"
wait_carrier h3 "$c"
a_addr=$(addr_of h1 "$a")
b_addr=$(addr_of h2 "$b")
c_addr=$(addr_of h3 "$c")

step "ours <-> ours: one shared connection over the RFC service ID"
pair h1 "$a" 10.12.0.1 h2 "$b" 10.12.0.2
wait_for 15 conns_are "$a" "$b_addr" shared-rfc 1 || { dump; fail "h1: no shared connection to h2"; }
wait_for 15 conns_are "$b" "$a_addr" shared-rfc 1 || { dump; fail "h2: no shared connection to h1"; }
assert_eq "$(conns "$a" "$b_addr")" 1 "h1: connections with h2"
assert_eq "$(conns "$b" "$a_addr")" 1 "h2: connections with h1"

step "ours <-> in-tree: two one-way connections over the in-tree service ID"
pair h1 "$a" 10.12.0.1 h3 "$c" 10.12.0.3
pair h2 "$b" 10.12.0.2 h3 "$c" 10.12.0.3
# with_intree NS IFACE: what ours on NS has with the in-tree host.
with_intree() {
	local rej
	wait_for 15 conns_are "$2" "$c_addr" oneway-linux 2 ||
		{ dump; fail "$1: not two one-way connections with the in-tree host"; }
	assert_eq "$(conns "$2" "$c_addr")" 2 "$1: connections with the in-tree host"
	on "$1" ethtool -S "$2" | grep -E 'cm_(conn|estab|reqs|rej|cross|fall|peers)'
	rej=$(stat_of "$1" "$2" cm_rej_service_id)
	[ "$rej" -le 1 ] || fail "$1: $rej REJs for the RFC service ID from one in-tree peer"
	assert_ge "$(stat_of "$1" "$2" cm_peers_linux_form)" 1 "$1 learned the in-tree form"
	assert_eq "$(stat_of "$1" "$2" cm_fallbacks)" 0 "$1: connections that fell back to UD"
}
with_intree h1 "$a"
with_intree h2 "$b"
# What was learned sticks: more traffic asks no more REQs of the in-tree host.
reqs=$(stat_of h1 "$a" cm_reqs_sent)
pair h1 "$a" 10.12.0.1 h3 "$c" 10.12.0.3
assert_eq "$(stat_of h1 "$a" cm_reqs_sent)" "$reqs" "h1: REQs sent on more traffic"
assert_eq "$(conns "$a" "$b_addr")" 1 "h1: still one connection with h2"
dump

step "the in-tree host is replaced by ours while h1 -> h2 TCP runs"
iperf_server h2 -B 10.12.0.2 -p 5301 || fail "iperf3 server in h2 did not start"
ip netns exec h1 iperf3 -c 10.12.0.2 -p 5301 -t 3600 >/tmp/cm-auto-bg.log 2>&1 &
bg=$!
rx0=$(netdev_stat "$b" rx_bytes h2)
# The in-tree driver destroys its connections from work items it does not
# wait for on unload: link down first, and wait for its QPs to go.
ip -n h3 link set "$c" down
wait_for 20 verbs_are sib2 "$idle2" ||
	fail "sib2 verbs objects with the in-tree link down: $(verbs sib2), not $idle2"
rmmod ib_ipoib
c=$(wait_iface ipoib_alt sib2 1)
echo connected >"/sys/class/net/$c/mode"
ip link set "$c" mtu 65520
ib_host h3 "$c" 10.12.0.3/24
wait_carrier h3 "$c"
c_addr=$(addr_of h3 "$c")
# Until h1 and h2 hear the new address (our announce), they may still send
# to the old one: wait for the pings to get through, then the real checks.
# shellcheck disable=SC2317 # called through wait_for
reaches() { ip netns exec "$1" ping -c 1 -W 1 "$2"; }
wait_for 30 reaches h1 10.12.0.3 || fail "h1 does not reach the new h3"
wait_for 30 reaches h2 10.12.0.3 || fail "h2 does not reach the new h3"
pair h1 "$a" 10.12.0.1 h3 "$c" 10.12.0.3
pair h2 "$b" 10.12.0.2 h3 "$c" 10.12.0.3
wait_for 15 conns_are "$a" "$c_addr" shared-rfc 1 ||
	{ dump; fail "h1: no shared connection with the new h3"; }
wait_for 15 conns_are "$b" "$c_addr" shared-rfc 1 ||
	{ dump; fail "h2: no shared connection with the new h3"; }
assert_eq "$(conns "$a" "$c_addr")" 1 "h1: connections with the new h3"
assert_eq "$(conns "$b" "$c_addr")" 1 "h2: connections with the new h3"
assert_eq "$(conns "$c" "$a_addr")" 1 "h3: connections with h1"
assert_eq "$(conns "$c" "$b_addr")" 1 "h3: connections with h2"
kill -0 "$bg" 2>/dev/null || { cat /tmp/cm-auto-bg.log; fail "h1 -> h2 TCP ended during the replacement"; }
rx=$(( $(netdev_stat "$b" rx_bytes h2) - rx0 ))
echo "h2 received $rx bytes while h3 was replaced"
assert_ge "$rx" 1000000 "bytes h2 received during the replacement"
kill "$bg"
wait "$bg" || true
iperf_server_stop h2 5301
dump
pass
