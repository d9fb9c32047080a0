#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sending to a multicast group one has not joined makes the interface a
# send-only member: it joins at the first packet and leaves the group once
# nothing is sent to it for a while.  While packets keep going, the group
# must stay joined: no leave and join again at every idle period, and no
# packet held back or lost meanwhile.
#
#   h1: ours (ipoib_alt, sib0) 10.12.0.1     --> 239.12.0.1 (send-only)
#   h2: in-tree (sib1) 10.12.0.2             --> 239.12.0.2 (send-only)
#   h3: ours (ipoib_alt, sib2) 10.12.0.3, a full member of both; answers
#
# The idle periods are made short so that a 14-second stream outlives
# several: ours 2 s (debugfs sendonly_idle_s; the collector runs every
# 10 s, so at least once more than 2 s into the stream), the in-tree
# driver's 4 s (it leaves a send-only group with its
# neighbour, idle for two of ARP's gc_interval, set to 2 s; the witness).
# Each sender pings its group 5 times a second; every ping must be
# answered; h1 must count no join and no leave after the first, and the
# in-tree group keeps its creation stamp.  Before the fix h1 left and
# joined again at every collection (the fast path never told the group it
# was in use).  When the streams stop, both groups are left.
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

# intree_created IFACE MGID: the creation stamp the in-tree driver shows
# for the group (its debugfs prints the MGID's words without leading 0s).
intree_created() {
	awk -v g="$2" '$1 == "GID:" { cur = $2 } $1 == "created:" && cur == g { print $2 }' \
		"/sys/kernel/debug/ipoib/$1_mcg"
}

# ours_has IFACE MGID: our driver lists the group as a joined send-only one.
ours_has() { grep -q "^$2 .* sendonly  joined" "/sys/kernel/debug/ipoib_alt/$1/mcg"; }

# ours_left IFACE MGID / intree_left IFACE MGID: the driver lists no such group.
# shellcheck disable=SC2317 # called through wait_for
ours_left() { ! grep -q "^$2 " "/sys/kernel/debug/ipoib_alt/$1/mcg"; }
# shellcheck disable=SC2317
intree_left() { [ -z "$(intree_created "$1" "$2")" ]; }

# answered NS IFACE GROUP: a ping to the group got an answer.
# shellcheck disable=SC2317
answered() { ip netns exec "$1" ping -c 1 -W 1 -I "$2" -t 1 "$3"; }

gc=/proc/sys/net/ipv4/neigh/default/gc_interval
gc_was=$(cat "$gc")
trap 'echo "$gc_was" >"$gc"' EXIT
echo 2 >"$gc"

fabric_up devices=3 ports=1
alt_up
intree_up
a=$(wait_iface ipoib_alt sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
c=$(wait_iface ipoib_alt sib2 1)
echo 2 >"/sys/kernel/debug/ipoib_alt/$a/sendonly_idle_s"
# No IPv6 on the senders: its ND and MLD would come and go in groups of
# their own, and ours are counted per interface.
for h in h1 h2; do
	ns_add "$h"
	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ib_host h1 "$a" 10.12.0.1/24
ib_host h2 "$b" 10.12.0.2/24
ib_host h3 "$c" 10.12.0.3/24
wait_carrier h1 "$a"
wait_carrier h2 "$b"
wait_carrier h3 "$c"
on h3 sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0
on h3 ip addr add 239.12.0.1/32 dev "$c" autojoin
on h3 ip addr add 239.12.0.2/32 dev "$c" autojoin
g1=ff12:401b:ffff:0000:0000:0000:0f0c:0001
g2_intree=ff12:401b:ffff:0:0:0:f0c:2

step "first packets: each sender joins its group"
wait_for 10 answered h1 "$a" 239.12.0.1 || fail "h3 never answered on 239.12.0.1"
wait_for 10 answered h2 "$b" 239.12.0.2 || fail "h3 never answered on 239.12.0.2"
ours_has "$a" "$g1" || { cat "/sys/kernel/debug/ipoib_alt/$a/mcg"; fail "h1 is not a send-only member"; }
cat "/sys/kernel/debug/ipoib_alt/$a/mcg"
created=$(intree_created "$b" "$g2_intree")
[ -n "$created" ] || { cat "/sys/kernel/debug/ipoib/${b}_mcg"; fail "the in-tree driver shows no $g2_intree"; }
j0=$(stat_of h1 "$a" mcast_joins)
l0=$(stat_of h1 "$a" mcast_leaves)

step "14 s of pings to each group, 5 a second"
ip netns exec h1 ping -q -c 70 -i 0.2 -W 2 -I "$a" -t 1 239.12.0.1 >/tmp/s1.log 2>&1 &
p1=$!
ip netns exec h2 ping -q -c 70 -i 0.2 -W 2 -I "$b" -t 1 239.12.0.2 >/tmp/s2.log 2>&1 &
p2=$!
wait "$p1" || true
wait "$p2" || true
for n in 1 2; do
	cat "/tmp/s$n.log"
	grep -q "70 packets transmitted, 70 received" "/tmp/s$n.log" ||
		fail "h$n: not every ping to its group was answered"
done
j1=$(stat_of h1 "$a" mcast_joins)
l1=$(stat_of h1 "$a" mcast_leaves)
echo "h1 (ours): mcast_joins $j0 -> $j1, mcast_leaves $l0 -> $l1"
cat "/sys/kernel/debug/ipoib_alt/$a/mcg"
assert_eq "$((j1 - j0))" 0 "joins by h1 while it kept sending"
assert_eq "$((l1 - l0))" 0 "leaves by h1 while it kept sending"
echo "h2 (in-tree): $g2_intree created at $created, now at $(intree_created "$b" "$g2_intree")"
assert_eq "$(intree_created "$b" "$g2_intree")" "$created" "the in-tree group's creation stamp"

step "the streams stop: both groups are left"
wait_for 20 ours_left "$a" "$g1" || fail "h1 still holds $g1 20 s after its last packet"
wait_for 20 intree_left "$b" "$g2_intree" || fail "the in-tree driver still holds $g2_intree"
l2=$(stat_of h1 "$a" mcast_leaves)
echo "h1 mcast_leaves: $l1 -> $l2"
assert_ge "$((l2 - l1))" 1 "h1 left its idle group"
pass
