#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connected mode across a port that goes down and comes back.  While h1's
# port is down, h2 ends its half of their connection (its interface goes
# down and up); the DREQ it sends cannot reach h1.  A connection kept
# across the flap would be half dead: h1's next sends would wait out the
# QP's retries and be lost.  Our driver ends every connection of a port
# when it comes back (cm_port_flap_ends): its DREQs reach the peers then,
# and the first pings after the flap make a new connection and are all
# answered, with no send error.  The in-tree driver keeps its connections;
# as the witness it shows the fabric carries the pings again after the
# flap.
#
#   h1: ib (sib0 port 1) 10.26.0.1  ===RC===  h2: ib (sib1 port 1) 10.26.0.2
#       port 1 down ... h2 down, up ... port 1 up
#
# timeout: 150
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
port_state() { cat /sys/class/infiniband/sib0/ports/1/state; }
# shellcheck disable=SC2317 # called through wait_for
port_is() { [ "$(port_state)" = "$1" ]; }
# shellcheck disable=SC2317 # called through wait_for
ping_once() { ip netns exec h1 ping -c 1 -W 1 10.26.0.2 >/dev/null; }
# replies_of PING_OUTPUT: how many echo replies it counted.
replies_of() { sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$1"; }

# flap WHO: the story with one driver's interfaces (connected, MTU 65520).
flap() {
	local who=$1 out t0 d0 e0=0
	two_hosts --connected ib_ipoib 10.26.0

	step "$who: a connection carries h1's pings"
	# Larger than a UD message: only a connection carries it whole.
	assert on h1 ping -c 2 -i 0.2 -W 2 -M "do" -s 8000 10.26.0.2

	step "$who: h1's port goes down; h2 ends its half meanwhile"
	echo down >"$SIB/sib0/port1/state"
	wait_for 10 port_is "1: DOWN" || fail "sib0 port 1: $(port_state)"
	d0=$(sib_counter sib1 1 drop_port_down)
	on h2 ip link set "$b" down
	on h2 ip link set "$b" up
	wait_carrier h2 "$b"
	echo "h2's packets dropped at h1's port: $(($(sib_counter sib1 1 drop_port_down) - d0))"

	step "$who: h1's port comes back"
	[ "$who" = in-tree ] || e0=$(stat_of h1 "$a" cm_errors_wc)
	t0=$SECONDS
	echo up >"$SIB/sib0/port1/state"
	wait_for 20 port_is "4: ACTIVE" || fail "sib0 port 1: $(port_state)"
	wait_carrier h1 "$a"
	if [ "$who" = in-tree ]; then
		wait_for 30 ping_once || fail "no echo reply 30 s after the port came back"
		echo "pings answered again $((SECONDS - t0)) s after the port came back"
		assert on h1 ping -c 3 -i 0.2 -W 2 -s 8000 10.26.0.2
		ip netns del h1
		ip netns del h2
		return
	fi
	# Carrier came back after the flush that ends the connections.
	out=$(ip netns exec h1 ping -c 3 -i 0.2 -W 2 -s 8000 10.26.0.2 || true)
	echo "$out" | tail -n 2
	on h1 ethtool -S "$a" | grep -E 'cm_(connections|port_flap_ends|errors_wc|established)'
	assert_eq "$(replies_of "$out")" 3 "echo replies of the first 3 pings after the flap"
	assert_eq "$(stat_of h1 "$a" cm_errors_wc)" "$e0" "h1's send errors after the flap"
	assert_ge "$(stat_of h1 "$a" cm_port_flap_ends)" 1 "connections ended as the port came back"
	assert_ge "$(stat_of h1 "$a" cm_connections)" 1 "h1's connections after the flap"
	ip netns del h1
	ip netns del h2
}

fabric_up devices=2 ports=1

step "the in-tree driver (witness)"
intree_up
flap in-tree
rmmod ib_ipoib

step "our driver"
ours_up
flap ours
pass
