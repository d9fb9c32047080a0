#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast applications over IPoIB: a receiver on h2 joins 50 IPv4 and
# 50 IPv6 groups through its sockets (tests/tools/mcast.c), h1 sends rounds to
# all 100, and every group gets what was sent to it, nothing of
# another's; the SA's group table agrees (h2's port a full member of each
# group, h1's port a send-only member); the receiver leaves, and the SA
# drops h2's port from every group.  On the in-tree driver first (the
# witness), then on ours with umcast off and on (umcast only changes
# groups another SA client of the port joined itself).
#
#   h1 10.93.0.1 fd93::1  ---- switch ----  h2 10.93.0.2 fd93::2
#   mcast send: 100 groups                   mcast recv: 239.93.0.1-50,
#                                            ff15::93:1-50, port 5400
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

ROUNDS=5
groups=()
mgids=()
for i in $(seq 50); do
	groups+=("239.93.0.$i")
	mgids+=("$(printf 'ff12:401b:ffff:0000:0000:0000:0f5d:%04x' "$i")")
done
for i in $(seq 50); do
	groups+=("ff15::93:$(printf '%x' "$i")")
	# The scope is the broadcast group's (2), not the IPv6 group's.
	mgids+=("$(printf 'ff12:601b:ffff:0000:0000:0000:0093:%04x' "$i")")
done

# sa_members PORT_GID STATE: how many of the 100 groups the SA lists with
# that port as a member in join state STATE (0x1 full, 0x4 or 0x8 send-only).
sa_members() {
	awk -v gid="$1" -v st="$2" '
		BEGIN { n = split(ENVIRON["MGIDS"], m, " "); for (i = 1; i <= n; i++) want[m[i]] = 1 }
		$1 in want {
			for (i = 1; i < NF; i++)
				if ($i == "member" && $(i + 1) == gid && st ~ "(^|,)" $(i + 2) "(,|$)")
					n_in++
		}
		END { print n_in + 0 }' "$SIB/sa_groups"
}
export MGIDS="${mgids[*]}"

# shellcheck disable=SC2317 # called through wait_for
sa_count_is() { [ "$(sa_members "$1" "$2")" = "$3" ]; }

port_gid() { cat "/sys/class/infiniband/$1/ports/1/gids/0"; }

# story WHO: the whole story over the driver loaded as ib_ipoib.
story() {
	local who=$1 g1 g2 out pid n bad=0 i drop0
	two_hosts ib_ipoib 10.93.0 fd93
	g1=$(port_gid sib0)
	g2=$(port_gid sib1)
	on h2 sysctl -qw net.ipv4.igmp_max_memberships=200

	step "$who: h2 joins 100 groups"
	ip netns exec h2 mcast recv "$b" 5400 "${groups[@]}" >recv.out 2>&1 &
	pid=$!
	wait_for 10 grep -q '^joined 100' recv.out || { cat recv.out; fail "the receiver did not join"; }
	wait_for 30 sa_count_is "$g2" 0x1 100 ||
		fail "the SA lists h2 as a full member of $(sa_members "$g2" 0x1) of the 100 groups"
	echo "the SA: h2's port a full member of all 100 groups"

	step "$who: h1 sends $ROUNDS rounds to the 100 groups"
	# The first datagram to each group has h1 join it send-only; to
	# another port, so that the receiver counts only the rounds.
	echo "[h1] mcast send $a 5401 1 (the 100 groups)"
	ip netns exec h1 mcast send "$a" 5401 1 "${groups[@]}"
	wait_for 30 sa_count_is "$g1" '0x4,0x8' 100 ||
		fail "the SA lists h1 as a send-only member of $(sa_members "$g1" '0x4,0x8') of the 100 groups"
	echo "the SA: h1's port a send-only member of all 100 groups"
	# A round at a time: UD has no flow control, so a burst larger than
	# h2's receive ring is lost on hardware too (drop_no_buffer).
	drop0=$(sib_counter sib1 1 drop_no_buffer)
	for i in $(seq "$ROUNDS"); do
		echo "[h1] mcast send $a 5400 1 (round $i)"
		out=$(ip netns exec h1 mcast send "$a" 5400 1 "${groups[@]}")
		assert_eq "$out" "sent 100" "datagrams sent in round $i"
		wait_for 20 grep -qx "progress $((i * 100))" recv.out || {
			echo "the receiver's count stays at $(grep progress recv.out | tail -n 1)"
			echo "h2's port found no receive posted for $(($(sib_counter sib1 1 drop_no_buffer) - drop0))"
			break
		}
	done
	kill "$pid"
	wait "$pid" || { cat recv.out; fail "the receiver failed"; }
	grep -E '^(239\.93\.0\.(1|50)|ff15::93:(1|32)) |^total' recv.out
	for i in "${groups[@]}"; do
		n=$(awk -v g="$i" '$1 == g && $2 == "received" { print $3 }' recv.out)
		[ "${n:-0}" -ge "$ROUNDS" ] || { echo "$i: received ${n:-0}"; bad=$((bad + 1)); }
	done
	[ "$bad" = 0 ] || fail "$bad groups received fewer than $ROUNDS datagrams"
	grep -q ' stray 0$' recv.out || fail "datagrams arrived on a group they were not sent to"

	step "$who: h2 left: the SA drops it from the groups"
	wait_for 30 sa_count_is "$g2" 0x1 0 ||
		fail "the SA still lists h2 in $(sa_members "$g2" 0x1) groups"
	echo "the SA: h2's port in none of the 100 groups"
	ip netns del h1
	ip netns del h2
}

fabric_up devices=2 ports=1

step "the in-tree driver (witness)"
intree_up
story in-tree
rmmod ib_ipoib

ours_up
for u in 0 1; do
	step "ours, umcast $u"
	for ifc in $(wait_iface ib_ipoib sib0 1) $(wait_iface ib_ipoib sib1 1); do
		echo "$u" >"/sys/class/net/$ifc/umcast"
	done
	story "ours, umcast $u"
done
pass
