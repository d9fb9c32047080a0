#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packets waiting for a path and for a join, with the SA not answering
# (sib mad_drop_every=1): each host sends 80 UDP datagrams at once to a
# peer whose path never comes (a GID no port has, by a static neighbour),
# then 80 to a multicast group it has not joined.  Each waiting queue keeps
# its limit and drops the rest at once; when the SA query times out, what
# waited is dropped too.  Ours counts both by queue and reason:
#
#   tx_drop_wait_path_full   = 80 - 16    tx_drop_wait_path_purged = 16
#   tx_drop_wait_join_full   = 80 - 16    tx_drop_wait_join_purged = 16
#
# and tx_dropped once per packet.  Then 80 each way between the two, the
# SA answering late (mad_delay_ms): a full queue drops its oldest, so the
# 16 newest arrive (and whatever was sent once the path came).  The
# in-tree driver is the witness that the fabric holds back the same: it
# keeps 3 per destination and 64 per group, drops the rest at once, then
# what waited; with a late path its 3 oldest arrive.
#
#   h1: ours (ipoib_alt, sib0) 10.14.0.1 --> 10.14.0.9 (no path), 239.14.0.1
#   h2: in-tree (sib1)         10.14.0.2 --> 10.14.0.9 (no path), 239.14.0.1
#       h1 <--> h2 (late path), udplog on each
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

n=80
ghost=00:00:00:48:fe:80:00:00:00:00:00:00:de:ad:be:ef:00:00:00:01

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
dropped() { netdev_stat "$2" tx_dropped "$1"; }
# shellcheck disable=SC2317 # called through wait_for
stat_is() { [ "$(stat_of "$1" "$2" "$3")" = "$4" ]; }
# shellcheck disable=SC2317
dropped_is() { [ "$(dropped "$1" "$2")" = "$3" ]; }

# burst NS IFACE DEST EXPECT: send $n datagrams to DEST as fast as the
# shell goes, then print tx_dropped once it reaches EXPECT (or after a
# few thousand reads), from inside the one shell: no fork, so the print
# comes well before the SA query's timeout (1 s for a path) drops more.
burst() {
	# shellcheck disable=SC2016 # the inner shell's variables
	ip netns exec "$1" bash -c '
		f=/sys/class/net/$1/statistics/tx_dropped
		for ((i = 0; i < $3; i++)); do echo "$i" >"/dev/udp/$2/9"; done
		for ((i = 0; i < 5000; i++)); do
			read -r v <"$f"
			[ "$v" -lt "$4" ] || break
		done
		echo "$v"' burst "$2" "$3" "$n" "$4"
}

dump() {
	cat "/sys/kernel/debug/ipoib_alt/$a/neighs" "/sys/kernel/debug/ipoib_alt/$a/mcg" || true
	ip netns exec h1 ethtool -S "$a" | grep -E 'tx_drop|path_|mcast_' || true
}

fabric_up devices=2 ports=1
alt_up
intree_up
a=$(wait_iface ipoib_alt sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
# No IPv6: its ND and MLD would wait for joins of their own.
for h in h1 h2; do
	ns_add "$h"
	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ib_host h1 "$a" 10.14.0.1/24
ib_host h2 "$b" 10.14.0.2/24
wait_carrier h1 "$a"
wait_carrier h2 "$b"
for h in h1:"$a" h2:"$b"; do
	on "${h%%:*}" ip neigh replace 10.14.0.9 dev "${h#*:}" nud permanent lladdr "$ghost"
	on "${h%%:*}" ip route add 224.0.0.0/4 dev "${h#*:}"
done

trap 'echo 0 >"$SIB/mad_drop_every"' EXIT
echo 1 >"$SIB/mad_drop_every"

# never_comes WHAT DEST KIND THEIRS SECS SHOW...: $n datagrams to DEST,
# whose path or join (KIND) never comes.  Ours keeps 16 waiting, the
# in-tree driver THEIRS; each drops the rest at once, and what waited
# once the SA's query times out (within SECS); SHOW greps debugfs.
never_comes() {
	local what=$1 dest=$2 kind=$3 theirs=$4 secs=$5 d1 d2 v1 v2 t0=$SECONDS
	shift 5
	step "$n datagrams to $what"
	d1=$(dropped h1 "$a")
	d2=$(dropped h2 "$b")
	v1=$(burst h1 "$a" "$dest" $((d1 + n - 16)))
	v2=$(burst h2 "$b" "$dest" $((d2 + n - theirs)))
	echo "at once: ours dropped $((v1 - d1)), the in-tree driver $((v2 - d2)) (in $((SECONDS - t0)) s)"
	grep "$@" || true
	assert_eq "$((v1 - d1))" $((n - 16)) "ours: dropped at once (16 wait)"
	assert_eq "$((v2 - d2))" $((n - theirs)) "in-tree: dropped at once ($theirs wait)"
	wait_for "$secs" stat_is h1 "$a" "tx_drop_wait_${kind}_purged" 16 ||
		{ dump; fail "ours: the 16 waiting were not purged"; }
	wait_for "$secs" dropped_is h2 "$b" $((d2 + n)) || fail "in-tree: the $theirs waiting were not dropped"
	assert_eq "$(stat_of h1 "$a" "tx_drop_wait_${kind}_full")" $((n - 16)) "ours: tx_drop_wait_${kind}_full"
	assert_eq "$(stat_of h1 "$a" "tx_drop_wait_${kind}_purged")" 16 "ours: tx_drop_wait_${kind}_purged"
	assert_eq "$(dropped h1 "$a")" $((d1 + n)) "ours: tx_dropped, once per datagram"
	ip netns exec h1 ethtool -S "$a" | grep -E "tx_drop_(wait_$kind|queue_full|no_path|no_mcast)|path_(queries|failures)|mcast_join"
}

# The SA's path query times out after 1 s, a join after 3 s.
never_comes "a peer whose path never comes" 10.14.0.9 path 3 10 \
	dead:beef "/sys/kernel/debug/ipoib_alt/$a/neighs"
never_comes "a group not joined yet" 239.14.0.1 join 64 15 \
	"^ff12:401b:ffff:0000:0000:0000:0f0e:0001 " "/sys/kernel/debug/ipoib_alt/$a/mcg"

step "$n datagrams to a peer whose path comes late: which ones wait"
# The SA answers after 2 x 300 ms, within the query's 1 s.  Ours keeps the
# newest: what arrives is the run that ends at the last one sent.  The
# in-tree driver keeps the oldest: its first 3 arrive.
echo 0 >"$SIB/mad_drop_every"
echo 300 >"$SIB/mad_delay_ms"
trap 'echo 0 >"$SIB/mad_drop_every"; echo 0 >"$SIB/mad_delay_ms"' EXIT
on h1 ip neigh replace 10.14.0.2 dev "$a" nud permanent lladdr "$(ip netns exec h2 cat "/sys/class/net/$b/address")"
on h2 ip neigh replace 10.14.0.1 dev "$b" nud permanent lladdr "$(ip netns exec h1 cat "/sys/class/net/$a/address")"
ip netns exec h1 udplog 9 >udplog-h1.out 2>&1 &
u1=$!
ip netns exec h2 udplog 9 >udplog-h2.out 2>&1 &
u2=$!
wait_for 10 udp_bound h1 9 || fail "udplog did not start in h1"
wait_for 10 udp_bound h2 9 || fail "udplog did not start in h2"
f1=$(stat_of h1 "$a" tx_drop_wait_path_full)
d2=$(dropped h2 "$b")
burst h1 "$a" 10.14.0.2 0 >/dev/null
burst h2 "$b" 10.14.0.1 0 >/dev/null
# shellcheck disable=SC2317 # called through wait_for
accounted() { # LOG DROPS: every datagram arrived or was dropped
	[ $(($(wc -l <"$1") + $2)) -ge "$n" ]
}
# shellcheck disable=SC2317
ours_accounted() { accounted udplog-h2.out $(($(stat_of h1 "$a" tx_drop_wait_path_full) - f1)); }
# shellcheck disable=SC2317
intree_accounted() { accounted udplog-h1.out $(($(dropped h2 "$b") - d2)); }
wait_for 10 ours_accounted || fail "ours: datagrams neither arrived nor counted as dropped"
wait_for 10 intree_accounted || fail "in-tree: datagrams neither arrived nor counted as dropped"
kill "$u1" "$u2"
wait "$u1" "$u2" 2>/dev/null || true
echo "ours -> h2, arrived: $(awk '{ printf "%s ", $2 }' udplog-h2.out)"
echo "in-tree -> h1, arrived: $(awk '{ printf "%s ", $2 }' udplog-h1.out)"
# As sets: sends after the path came may pass those that waited.
got1=$(awk '{ print $2 }' udplog-h2.out | sort -n | tr '\n' ' ')
got2=$(awk '$2 < 3 { print $2 }' udplog-h1.out | sort -n | tr '\n' ' ')
r=$(wc -l <udplog-h2.out)
assert_ge "$r" 16 "ours: datagrams that arrived"
assert_eq "$got1" "$(seq -s ' ' $((n - r)) $((n - 1))) " "ours: the datagrams that arrived are the newest"
assert_eq "$((r + $(stat_of h1 "$a" tx_drop_wait_path_full) - f1))" "$n" "ours: arrived + tx_drop_wait_path_full"
assert_eq "$got2" "0 1 2 " "in-tree: its 3 oldest arrived"
pass
