#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fabric events with our driver: a port going down and up, the SM
# forgetting every group and asking for a client reregister, a LID change:
# after each, traffic resumes by itself.
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1
ours_up
two_hosts ib_ipoib 10.4.0 fd04
assert on h1 ping -c 2 -i 0.2 -W 2 10.4.0.2

recovers() {
	wait_for 30 ip netns exec h1 ping -c 1 -W 1 10.4.0.2 ||
		fail "no IPv4 traffic 30 s after $1"
	wait_for 30 ip netns exec h1 ping -6 -c 1 -W 1 fd04::2 ||
		fail "no IPv6 traffic 30 s after $1"
	assert on h1 ping -c 3 -i 0.2 -W 2 10.4.0.2
}

step "port down, then up"
echo down >"$SIB/sib1/port1/state"
wait_for 10 bash -c "[ \"\$(ip netns exec h2 cat /sys/class/net/$b/carrier)\" = 0 ]" ||
	fail "no carrier loss on a port that went down"
if on h1 ping -c 2 -i 0.2 -W 1 10.4.0.2; then
	fail "ping crossed a port that is down"
fi
echo up >"$SIB/sib1/port1/state"
wait_carrier h2 "$b"
recovers "the port came back"

step "the SM forgets all groups and asks for a reregister"
sm_restart
for d in sib0 sib1; do echo client_reregister >"$SIB/$d/port1/event"; done
wait_for 20 sa_has_group ff12:401b:ffff::ffff:ffff ||
	fail "the broadcast group was not joined again"
recovers "a client reregister"

step "LID change and SM change events"
for e in lid_change sm_change; do
	echo "$e" >"$SIB/sib0/port1/event"
	recovers "$e"
done
f=$(ip netns exec h1 ethtool -S "$a" | awk '$1 == "flushes:" { print $2 }')
assert_ge "$f" 1 "flushes counted"
pass
