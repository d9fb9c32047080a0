#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Crossed REQs (RFC 4755 3.3).  The fabric holds CM MADs until both hosts
# have sent their REQ, so each sends its REQ before the other's arrives.
# Under cm_policy=rfc the smaller link address accepts, the other rejects:
# exactly one connection and one QP on each side, over the RFC's service
# ID (cm_service_id left as it is), traffic both ways over it.  Under auto the same: both REQs go to the RFC
# service ID, so each learns the other is an RFC peer.  Under compatible,
# each side keeps the connection it opened: two on each side.  Last, under
# rfc again, the fabric holds only the REQs and lets the larger address's
# go first: the smaller accepts it, and its own REQ, which lost, reaches
# the larger side only after that side's connection is up.  It must still
# be rejected, not taken for the peer starting afresh.
#
#   h1: ib (sib0 port 1) 10.7.0.1  <==REQ  REQ==>  h2: ib (sib1 port 1) 10.7.0.2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# shellcheck disable=SC2317 # called through wait_for
stat_is() { [ "$(stat_of "$1" "$2" "$3")" = "$4" ]; }
stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
cm_file() { echo "/sys/kernel/debug/ib_ipoib/$1/cm"; }
# A passive side is live on the RTU or the first data, which may come
# after the pings are done: wait for both ends to count.
# shellcheck disable=SC2317 # called through wait_for
settled() {
	[ "$(cm_lines "$a")" = "$1" ] && [ "$(cm_lines "$b")" = "$1" ] &&
		[ "$(stat_of h1 "$a" cm_connections)" = "$1" ] &&
		[ "$(stat_of h2 "$b" cm_connections)" = "$1" ]
}
cm_lines() { grep -c -E ' (live|connecting|wait-peer) ' "$(cm_file "$1")" || true; }
qps() { awk '$1 == "qps" { print $2 }' "$SIB/$1/resources"; }
# cm_held N: the fabric holds at least N CM MADs.
# shellcheck disable=SC2317 # called through wait_for
cm_held() { [ "$(cat "$SIB/cm_hold")" -ge "$1" ]; }
dump() {
	cat "$(cm_file "$a")" "$(cm_file "$b")"
	on h1 ethtool -S "$a" | grep -E 'cm_|drop|too_big|path'
	on h2 ethtool -S "$b" | grep -E 'cm_|drop|too_big|path'
	on h2 cat /proc/net/snmp | grep -E '^(Icmp|Ip):'
}

fabric_up devices=2 ports=1

run() {
	local policy=$1 want=$2 late=${3:-} q1 q2 a_addr b_addr small big_ns big_if
	if [ -n "$late" ]; then
		step "policy $policy: the losing REQ comes after the winner is up"
	else
		step "policy $policy: both ends connect at once"
	fi
	ours_up cm_policy="$policy"
	two_hosts --connected ib_ipoib 10.7.0
	a_addr=$(ip netns exec h1 cat "/sys/class/net/$a/address")
	b_addr=$(ip netns exec h2 cat "/sys/class/net/$b/address")
	# Known neighbours: no ARP, so neither side hears from the other
	# before its own REQ is out.
	ip -n h1 neigh replace 10.7.0.2 lladdr "$b_addr" dev "$a" nud permanent
	ip -n h2 neigh replace 10.7.0.1 lladdr "$a_addr" dev "$b" nud permanent
	q1=$(qps sib0)
	q2=$(qps sib1)
	# The fabric holds CM MADs (late: REQs only) until both REQs are
	# out, so that they cross whatever the timing of the two pings.
	echo "${late:-1}" >"$SIB/cm_hold"
	# Small pings: a 60000-byte echo reply held while its connection
	# is being set up can fill the ICMP socket's send buffer.
	ip netns exec h1 ping -c 4 -i 0.5 -W 10 10.7.0.2 >/tmp/p1 2>&1 &
	p1=$!
	ip netns exec h2 ping -c 4 -i 0.5 -W 10 10.7.0.1 >/tmp/p2 2>&1 &
	p2=$!
	wait_for 20 cm_held 2 || { echo 0 >"$SIB/cm_hold"; dump; fail "not both ends sent a REQ"; }
	if [ -n "$late" ]; then
		# The smaller address (flags aside) gets the larger's REQ and
		# accepts; its REP goes on, its own REQ still waits.
		if [[ ${a_addr:3} < ${b_addr:3} ]]; then
			small=sib0 big_ns=h2 big_if=$b
		else
			small=sib1 big_ns=h1 big_if=$a
		fi
		echo "$small has the smaller address"
		cat "$SIB/$small/port1/lid" >"$SIB/cm_release"
		wait_for 20 stat_is "$big_ns" "$big_if" cm_connections 1 ||
			{ echo 0 >"$SIB/cm_hold"; dump; fail "the larger side's connection did not come up"; }
	fi
	echo 0 >"$SIB/cm_hold"
	wait "$p1" || { cat /tmp/p1; wait "$p2" || true; cat /tmp/p2; dump; fail "h1 -> h2 pings"; }
	wait "$p2" || { cat /tmp/p2; dump; fail "h2 -> h1 pings"; }
	tail -n 2 /tmp/p1 /tmp/p2
	# The losing REQ's QP goes once the winner is up (or its wait ends).
	wait_for 15 settled "$want" || true
	cat "$(cm_file "$a")" "$(cm_file "$b")"
	on h1 ethtool -S "$a" | grep -E 'cm_(conn|estab|reqs|rej|cross|fall)'
	on h2 ethtool -S "$b" | grep -E 'cm_(conn|estab|reqs|rej|cross|fall)'
	assert_eq "$(stat_of h1 "$a" cm_reqs_sent)" 1 "h1 sent a REQ"
	assert_eq "$(stat_of h2 "$b" cm_reqs_sent)" 1 "h2 sent a REQ"
	assert_eq "$(cm_lines "$a")" "$want" "connections on h1 (debugfs)"
	assert_eq "$(cm_lines "$b")" "$want" "connections on h2 (debugfs)"
	assert_eq "$(stat_of h1 "$a" cm_connections)" "$want" "h1 cm_connections"
	assert_eq "$(stat_of h2 "$b" cm_connections)" "$want" "h2 cm_connections"
	assert_eq "$(( $(qps sib0) - q1 ))" "$want" "new QPs on sib0"
	assert_eq "$(( $(qps sib1) - q2 ))" "$want" "new QPs on sib1"
	if [ "$policy" != compatible ]; then
		assert_eq "$(stat_of h1 "$a" cm_crossings)" 1 "h1 saw the crossing"
		assert_eq "$(stat_of h2 "$b" cm_crossings)" 1 "h2 saw the crossing"
		assert_eq "$(( $(stat_of h1 "$a" cm_rejects_sent) + $(stat_of h2 "$b" cm_rejects_sent) ))" 1 \
			"one REJ, from the larger address"
		grep -q ' shared-' "$(cm_file "$a")" || fail "h1: the connection is not shared"
	fi
	if [ "$policy" = rfc ]; then
		# cm_policy=rfc asks for the RFC's service ID unless cm_service_id says otherwise.
		grep -q ' shared-rfc$' "$(cm_file "$a")" || fail "h1: cm_policy=rfc not over the RFC service ID"
		grep -q ' shared-rfc$' "$(cm_file "$b")" || fail "h2: cm_policy=rfc not over the RFC service ID"
	fi
	if [ "$policy" = auto ]; then
		assert_eq "$(stat_of h1 "$a" cm_rej_service_id)" 0 "h1: no REJ for the RFC service ID"
		assert_eq "$(stat_of h1 "$a" cm_peers_rfc_form)" 1 "h1 learned h2 takes the RFC form"
		assert_eq "$(stat_of h2 "$b" cm_peers_rfc_form)" 1 "h2 learned h1 takes the RFC form"
		grep -q ' shared-rfc$' "$(cm_file "$a")" || fail "h1: not over the RFC service ID"
	fi

	step "policy $policy: traffic both ways over what survived"
	assert on h1 ping -c 2 -i 0.3 -W 3 -s 60000 10.7.0.2
	assert on h2 ping -c 2 -i 0.3 -W 3 -s 60000 10.7.0.1
	t1=$(stat_of h1 "$a" cm_tx_packets)
	t2=$(stat_of h2 "$b" cm_tx_packets)
	tcp_exact h2 10.7.0.2 h1 16 "iperf3 h1 -> h2"
	tcp_exact h1 10.7.0.1 h2 16 "iperf3 h2 -> h1"
	assert_ge "$(( $(stat_of h1 "$a" cm_tx_packets) - t1 ))" 100 "h1 sent over the connection"
	assert_ge "$(( $(stat_of h2 "$b" cm_tx_packets) - t2 ))" 100 "h2 sent over the connection"
	assert_eq "$(cm_lines "$a")" "$want" "still $want connection(s) on h1"
	rmmod ib_ipoib
	ip netns del h1
	ip netns del h2
}

run rfc 1
run auto 1
run compatible 2
run rfc 1 req
pass
