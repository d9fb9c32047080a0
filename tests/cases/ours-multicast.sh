#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast with our driver: a host joins an IPv4 group and answers pings
# sent to it; IPv6 all-nodes answers; the groups are seen by the SA with
# the MGIDs RFC 4391 gives them, and leaving the group removes it.
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# shellcheck disable=SC2317 # called through wait_for
link_local_ready() {
	ip -n "$1" -6 addr show dev "$2" scope link | grep -q "inet6 fe80::" &&
		! ip -n "$1" -6 addr show dev "$2" scope link | grep -q tentative
}

fabric_up devices=2 ports=1
ours_up
two_hosts ib_ipoib 10.2.0 fd02
dbg=/sys/kernel/debug/ib_ipoib

step "h2 joins 239.1.1.1"
on h2 sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0
on h2 ip addr add 239.1.1.1/32 dev "$b" autojoin
mgid=ff12:401b:ffff:0000:0000:0000:0f01:0101
wait_for 10 grep -q "$mgid" "$dbg/$b/mcg" || {
	cat "$dbg/$b/mcg"; fail "h2 has not joined $mgid"
}
cat "$dbg/$b/mcg"

step "ping to the group"
# An SM may answer the join before the switch forwards the group to h2
# (OpenSM programs the MFT after): once it answers, every ping must.
wait_for 10 ip netns exec h1 ping -c 1 -W 1 -I "$a" -t 1 239.1.1.1 ||
	fail "the group never answered"
m0=$(netdev_stat "$b" multicast h2)
out=$(on h1 ping -c 3 -i 0.3 -W 2 -I "$a" -t 1 239.1.1.1) || fail "no answer from the group"
echo "$out"
echo "$out" | grep -q "from 10.2.0.2" || fail "the answer did not come from h2"
assert_ge "$(( $(netdev_stat "$b" multicast h2) - m0 ))" 3 "multicast packets counted at h2"
sa_has_group "$mgid" || fail "the SA does not know the group"

step "IPv6 all-nodes"
# Until DAD has finished a link-local address is not used as a source,
# and the answers would come from the global ones.
wait_for 10 link_local_ready h1 "$a" || fail "h1's link-local address stayed tentative"
wait_for 10 link_local_ready h2 "$b" || fail "h2's link-local address stayed tentative"
out=$(on h1 ping -6 -c 3 -i 0.3 -W 2 "ff02::1%$a") || fail "no answer to all-nodes"
echo "$out"
echo "$out" | grep -q "from fe80::" || fail "no link-local answer"
grep -q "ff12:601b:ffff:0000:0000:0000:0000:0001" "$dbg/$a/mcg" ||
	fail "h1 is not in the IPv6 all-nodes group"

step "h2 leaves the group"
on h2 ip addr del 239.1.1.1/32 dev "$b"
wait_for 10 bash -c "! grep -q '$mgid' '$dbg/$b/mcg'" || fail "h2 still in $mgid"
if on h1 ping -c 2 -i 0.3 -W 1 -I "$a" -t 1 239.1.1.1 2>/dev/null | grep -q "from 10.2.0.2"; then
	fail "h2 answered after leaving"
fi
pass
