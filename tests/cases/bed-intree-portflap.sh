#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A port that goes down and comes back: traffic stops, then recovers, with
# Debian's ib_ipoib on the test bed.
#
#   h1: ib (sib0 port 1) 10.3.0.1  ===  h2: ib (sib1 port 1) 10.3.0.2
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1
intree_up
two_hosts ib_ipoib 10.3.0
assert on h1 ping -c 2 -i 0.2 -W 2 10.3.0.2

step "port down"
echo down >"$SIB/sib1/port1/state"
assert_eq "$(cat /sys/class/infiniband/sib1/ports/1/state)" "1: DOWN" "port state"
# What the fabric drops on the way, counted at the sender: at the port
# that is down, or, once an SM (OpenSM) has taken its LID out of the
# switch's table, as not routed.
drops() { echo $(($(sib_counter sib0 1 drop_port_down) + $(sib_counter sib0 1 drop_unrouted))); }
d0=$(drops)
if on h1 ping -c 2 -i 0.2 -W 1 10.3.0.2; then
	fail "ping crossed a port that is down"
fi
sib_counters sib0 1
assert_ge "$(($(drops) - d0))" 1 "drops counted"

step "port up: traffic recovers"
echo up >"$SIB/sib1/port1/state"
wait_for 30 ip netns exec h1 ping -c 1 -W 1 10.3.0.2 ||
	fail "no traffic 30 s after the port came back"
assert on h1 ping -c 3 -i 0.2 -W 2 10.3.0.2
pass
