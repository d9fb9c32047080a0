#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark, scale: how fast one host reaches many others, and what that
# costs; ours and the in-tree driver in turn on one eight-HCA fabric.
# Per driver and round, the drivers as the other cases load them:
#
#   1. 1,000 neighbours, datagram mode: peer 1 holds 1,000 addresses, the
#      host pings each (tests/tools/pingall, one process); seconds from the
#      first request to the last reply (and to the 500th), and all 1,000
#      must then read REACHABLE in `ip neigh`.
#   2. 7 peers, connected mode: the host pings peers 1-7; connections set
#      up per second, from the first request until the last reply and the
#      last connection up.
#
# then, both drivers reloaded with equal, smaller rings (SMALL_RINGS: 64
# connected-mode interfaces at the default rings do not fit the VM's 2 GB),
# per driver and round:
#
#   3. 64 endpoints, connected mode: 64 children of the peers' interfaces,
#      all in the default partition (`ip link add link PARENT ... type KIND`
#      with no P_Key), each in a namespace of its own; the same figure, and
#      the kernel memory the connections took (as memory.sh measures it).
#
# Connections are counted from ours' debugfs (live ones on the host: one
# shared per peer under cm_policy=auto), and for the in-tree driver, which
# does not expose them, from the fabric's QP count (a connection is a QP at
# each end; it makes one each way, so four QPs per peer).
#
#   host: main interface on sib0, namespace Wh (W: o ours, i in-tree)
#   peer d (1-7): main interface on sibd, namespace Wpd
#   endpoint k (1-64): child of peer 1 + (k - 1) % 7, namespace ek
#   ours 10.81.0.0/16, in-tree 10.82.0.0/16: host .0.1, peer d .0.(1+d),
#   endpoint k .1.k, peer 1's 1,000 extra addresses from .4.1 on
#
# timeout: 2400
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../../lib/bench.sh
. "$TESTS_LIB/bench.sh"

PEERS=7 ENDPOINTS=64 NEIGHS=1000
SMALL_RINGS=(send_queue_size=128 recv_queue_size=128)

fabric_up devices=$((PEERS + 1)) ports=1

# 1,000 neighbours (and the entries of the other tests) must not meet the
# ARP table's garbage collector, which is global; put it back at the end.
gc=/proc/sys/net/ipv4/neigh/default/gc_thresh
# gc_set T1 T2 T3: the three thresholds, the largest first.
gc_set() {
	echo "$3" >"${gc}3"
	echo "$2" >"${gc}2"
	echo "$1" >"${gc}1"
}
gc_saved="$(cat "${gc}1") $(cat "${gc}2") $(cat "${gc}3")"
# shellcheck disable=SC2086 # three numbers
trap 'gc_set $gc_saved' EXIT
gc_set 4096 8192 16384

# scale_ns NAME: a namespace without IPv6, so that no interface joins
# IPv6 groups or runs DAD while a figure is taken.
scale_ns() {
	ns_add "$1"
	ip netns exec "$1" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
		echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6'
}

# fabric_qps: QPs on every HCA of the fabric; qps_at_most N: N or fewer.
fabric_qps() { cat "$SIB"/sib*/resources | awk '$1 == "qps" { s += $2 } END { print s + 0 }'; }
# shellcheck disable=SC2317 # called through wait_for
qps_at_most() { [ "$(fabric_qps)" -le "$1" ]; }

declare -A IFC NET DRV KIND
NET[ours]=10.81 NET[intree]=10.82
DRV[ours]=ipoib_alt DRV[intree]=ib_ipoib
KIND[ours]=ipoib_alt KIND[intree]=ipoib

# host_ns WHO / peer_ns WHO D: namespace names; D 0 is the host.
host_ns() { echo "${1:0:1}h"; }
peer_ns() { if [ "$2" = 0 ]; then host_ns "$1"; else echo "${1:0:1}p$2"; fi; }

# hosts: the drivers' main interfaces into the host's and the peers'
# namespaces (made on the first call), addressed, down.
hosts() {
	local who d ns
	for who in ours intree; do
		for d in $(seq 0 "$PEERS"); do
			IFC[$who,$d]=$(wait_iface "${DRV[$who]}" "sib$d" 1)
			ns=$(peer_ns "$who" "$d")
			[ -e "/run/netns/$ns" ] || scale_ns "$ns"
			move_to_ns "${IFC[$who,$d]}" "$ns"
			ip -n "$ns" addr add "${NET[$who]}.0.$((d + 1))/16" dev "${IFC[$who,$d]}"
		done
		echo "$who: host ${IFC[$who,0]} (sib0), peers ${IFC[$who,1]}..${IFC[$who,$PEERS]} (sib1-sib$PEERS)"
	done
}

# set_mode WHO D MODE: datagram or connected (then MTU 65520).
set_mode() {
	local ns
	ns=$(peer_ns "$1" "$2")
	ip netns exec "$ns" sh -c "echo $3 >/sys/class/net/${IFC[$1,$2]}/mode"
	[ "$3" = datagram ] || ip -n "$ns" link set "${IFC[$1,$2]}" mtu 65520
}

# carrier NS IFACE: waits until IFACE has joined its broadcast group: as
# wait_carrier, through netlink (ip -n), which is cheaper in a TCG guest
# than entering the namespace (ip netns exec mounts its sysfs).
# shellcheck disable=SC2317 # called through wait_for
lower_up() { ip -n "$1" -o link show dev "$2" | grep -q 'LOWER_UP'; }
carrier() {
	wait_for 20 lower_up "$1" "$2" || fail "$2 in $1 got no carrier"
}

# links WHO up|down D...: the main interfaces on sibD; up waits for carrier.
links() {
	local who=$1 op=$2 d
	shift 2
	for d in "$@"; do
		ip -n "$(peer_ns "$who" "$d")" link set "${IFC[$who,$d]}" "$op"
	done
	[ "$op" = up ] || return 0
	for d in "$@"; do
		carrier "$(peer_ns "$who" "$d")" "${IFC[$who,$d]}"
	done
}

# conns WHO: what shows WHO's connections: ours, the live ones on the host
# (it is in every one); the in-tree driver, the fabric's QPs (two each).
conns() {
	if [ "$1" = ours ]; then
		grep -c ' live ' "/sys/kernel/debug/ipoib_alt/${IFC[ours,0]}/cm" || true
	else
		fabric_qps
	fi
}

# conns_reach WHO N: conns WHO is N or more.
conns_reach() { [ "$(conns "$1")" -ge "$2" ]; }

# reach WHO ROUND KEY FIRST COUNT: the host pings COUNT addresses from
# FIRST; KEY is peers per second, from the first request until the last
# reply and the last connection up: each peer reached over connected mode
# both ways (ours: one shared connection per peer; in-tree: one each way,
# two per peer), so that the same time per peer gives the same figure.
reach() {
	local who=$1 r=$2 key=$3 first=$4 n=$5 c0 want per=1 out start end made
	[ "$who" = ours ] || per=2
	c0=$(conns "$who")
	# Ours: one shared connection per peer; in-tree: one each way.
	want=$n
	[ "$who" = ours ] || want=$((4 * n))
	out=$(ip netns exec "$(host_ns "$who")" pingall "$first" "$n" 60) || true
	echo "$who: $out" >&2
	end=$(echo "$out" | sed -n 's/.* end=\([0-9.]*\).*/\1/p')
	start=$(echo "$out" | sed -n 's/.* start=\([0-9.]*\).*/\1/p')
	if ! conns_reach "$who" $((c0 + want)); then
		wait_for 60 conns_reach "$who" $((c0 + want)) || true
		end=$EPOCHREALTIME
	fi
	made=$((($(conns "$who") - c0) / per))
	echo "$who: $n peers, $made connections (expected $((want / per)))" >&2
	echo "$who: $n peers connected in $(awk -v s="$start" -v e="$end" \
		'BEGIN { printf "%.3f", e - s }') s" >&2
	if [ "$made" -ge $((want / per)) ] && [[ $out == *" answered=$n "* ]]; then
		result "$key" "$who" "$r" "$(awk -v n="$n" -v s="$start" -v e="$end" \
			'BEGIN { printf "%.1f", n / (e - s) }')"
	else
		result "$key" "$who" "$r"
	fi
}

# arp_sent: ARP messages sib0 (the host's port) and sib1 (peer 1's) have
# sent, and packets each dropped for want of a receive buffer: "HOST_ARP
# PEER_ARP HOST_DROPS PEER_DROPS".
arp_sent() {
	echo "$(sib_ipoib_count sib0 1 ud arp) $(sib_ipoib_count sib1 1 ud arp)" \
		"$(sib_counter sib0 1 drop_no_buffer) $(sib_counter sib1 1 drop_no_buffer)"
}

# drop_stats NS IFACE: the interface's counters (its statistics and
# ethtool -S) with "drop" in their name, "NAME VALUE" lines.
drop_stats() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$1" sh -c 'ethtool -S "$1" 2>/dev/null
		for f in /sys/class/net/"$1"/statistics/*drop*; do
			echo "${f##*/}: $(cat "$f")"
		done' - "$2" | awk -F': *' 'tolower($1) ~ /drop/ { gsub(/ /, "", $1); print $1, $2 }' |
		sort -u
}

# neighbours WHO ROUND: the host resolves peer 1's 1,000 addresses, all
# at once.  What the fabric and the drivers counted meanwhile goes to the
# log: what dominates the figure is how many messages are lost (each costs
# a second: the host asks again).
neighbours() {
	local who=$1 r=$2 h ifc out n a0 a1 s0 lost
	h=$(host_ns "$who") ifc=${IFC[$who,0]}
	read -r -a a0 <<<"$(arp_sent)"
	s0=$(drop_stats "$h" "$ifc")
	out=$(ip netns exec "$h" pingall "${NET[$who]}.4.1" "$NEIGHS" 120) || true
	read -r -a a1 <<<"$(arp_sent)"
	echo "$who: $out" >&2
	n=$(ip -n "$h" -4 neigh show dev "$ifc" nud reachable | grep -c "^${NET[$who]}\.[4-7]\." || true)
	lost=$(drop_stats "$h" "$ifc" | awk -v before="$s0" '
		BEGIN { n = split(before, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); was[f[1]] = f[2] } }
		$2 != was[$1] { printf " %s +%d", $1, $2 - was[$1] }')
	echo "$who: $n of $NEIGHS neighbours REACHABLE; ARP messages sent by the host" \
		"$((a1[0] - a0[0])), by peer 1 $((a1[1] - a0[1])); dropped by the fabric for" \
		"want of a receive buffer: at the host $((a1[2] - a0[2])), at peer 1 $((a1[3] - a0[3]));" \
		"the host's drop counters:${lost:- none moved}" >&2
	if [ "$n" = "$NEIGHS" ] && [[ $out == *" answered=$NEIGHS "* ]]; then
		result neigh1000 "$who" "$r" "$(echo "$out" | sed -n 's/.* secs=\([0-9.]*\).*/\1/p')"
		result neigh500 "$who" "$r" "$(echo "$out" | sed -n 's/.* p50=\([0-9.]*\).*/\1/p')"
	else
		na "$who" "$r" neigh1000 neigh500
	fi
}

# make_endpoints WHO: the 64 children, each in its namespace (named
# Wepk), connected, addressed, down.  In batches, where iproute2 can.
make_endpoints() {
	local who=$1 w=${1:0:1} k d p eps
	for d in $(seq "$PEERS"); do
		p=$(peer_ns "$who" "$d")
		eps=$(seq -s " " "$d" "$PEERS" "$ENDPOINTS")
		for k in $eps; do
			if [ "$who" = ours ]; then
				echo "link add link ${IFC[$who,$d]} name ${w}ep$k type ${KIND[$who]}"
			else
				echo "link add link ${IFC[$who,$d]} name ${w}ep$k type ${KIND[$who]} mode connected"
			fi
		done | ip -n "$p" -batch -
		# Ours' children take the mode through sysfs: iproute2 knows no
		# options for a link kind other than "ipoib".
		[ "$who" != ours ] || ip netns exec "$p" sh -c \
			"for k in $eps; do echo connected >/sys/class/net/${w}ep\$k/mode; done"
		for k in $eps; do
			echo "link set ${w}ep$k netns e$k"
		done | ip -n "$p" -batch -
	done
	for k in $(seq "$ENDPOINTS"); do
		printf 'link set %s mtu 65520\naddr add %s/16 dev %s\n' \
			"${w}ep$k" "${NET[$who]}.1.$k" "${w}ep$k" | ip -n "e$k" -batch -
	done
}

# endpoints WHO up|down: WHO's 64 children; up waits for carrier.  Only
# the measured driver's are up: the others would take every broadcast.
endpoints() {
	local who=$1 w=${1:0:1} op=$2 k t=$SECONDS
	for k in $(seq "$ENDPOINTS"); do
		ip -n "e$k" link set "${w}ep$k" "$op"
	done
	[ "$op" = up ] || return 0
	echo "$who: $ENDPOINTS endpoints set up in $((SECONDS - t)) s"
	for k in $(seq "$ENDPOINTS"); do
		carrier "e$k" "${w}ep$k"
	done
	echo "$who: and with carrier in $((SECONDS - t)) s"
}

# settle WHO Q: what WHO set up is gone (the fabric is back to Q QPs)
# before the other driver is measured.
settle() {
	wait_for 60 qps_at_most "$2" ||
		echo "$1: the fabric holds $(fabric_qps) QPs, $2 before" >&2
}

step "the drivers as the bench loads them: neighbours, 7 peers"
bench_alt_up
bench_intree_up
hosts
for who in ours intree; do
	# The host keeps what it resolved for the whole measurement.
	ip netns exec "$(host_ns "$who")" sh -c \
		"echo 600000 >/proc/sys/net/ipv4/neigh/${IFC[$who,0]}/base_reachable_time_ms"
	for i in $(seq "$NEIGHS"); do
		echo "addr add ${NET[$who]}.$((4 + i / 256)).$((i % 256))/16 dev ${IFC[$who,1]}"
	done | ip -n "$(peer_ns "$who" 1)" -batch -
done
for r in $(seq "$BENCH_ROUNDS"); do
	step "round $r of $BENCH_ROUNDS"
	for who in $(order "$r" ours intree); do
		q=$(fabric_qps) t0=$SECONDS
		links "$who" up 0 1
		neighbours "$who" "$r"
		links "$who" down 0 1
		for d in $(seq 0 "$PEERS"); do
			set_mode "$who" "$d" connected
		done
		# shellcheck disable=SC2046 # a list of numbers
		links "$who" up $(seq 0 "$PEERS")
		reach "$who" "$r" peer_rate7 "${NET[$who]}.0.2" "$PEERS"
		# shellcheck disable=SC2046 # a list of numbers
		links "$who" down $(seq 0 "$PEERS")
		for d in $(seq 0 "$PEERS"); do
			set_mode "$who" "$d" datagram
		done
		settle "$who" "$q"
		echo "$who: round $r took $((SECONDS - t0)) s"
	done
done

step "both drivers with ${SMALL_RINGS[*]}: 64 endpoints"
rmmod ipoib_alt ib_ipoib
bench_alt_up "${SMALL_RINGS[@]}"
BENCH_INTREE=("${SMALL_RINGS[@]}")
bench_intree_up
hosts
for k in $(seq "$ENDPOINTS"); do
	scale_ns "e$k"
done
for who in ours intree; do
	for d in $(seq 0 "$PEERS"); do
		set_mode "$who" "$d" connected
	done
	make_endpoints "$who"
done
for r in $(seq "$BENCH_ROUNDS"); do
	step "round $r of $BENCH_ROUNDS"
	for who in $(order "$r" ours intree); do
		q=$(fabric_qps) t0=$SECONDS
		# shellcheck disable=SC2046 # a list of numbers
		links "$who" up $(seq 0 "$PEERS")
		endpoints "$who" up
		echo "$who: host, peers and $ENDPOINTS endpoints up in $((SECONDS - t0)) s"
		read -r m0 s0 <<<"$(mem_kib)"
		q1=$(fabric_qps)
		reach "$who" "$r" peer_rate64 "${NET[$who]}.1.1" "$ENDPOINTS"
		read -r m1 s1 <<<"$(mem_kib)"
		echo "$who: $ENDPOINTS endpoints connected: kernel memory $m0 -> $m1 KiB, slab $s0 -> $s1 KiB"
		result mem64 "$who" "$r" $((m1 - m0))
		result slab64 "$who" "$r" $((s1 - s0))
		# The host going down ends every connection (the in-tree driver
		# warns when a child goes with connections up: not here).
		t1=$SECONDS
		links "$who" down 0
		settle "$who" "$q1"
		endpoints "$who" down
		# shellcheck disable=SC2046 # a list of numbers
		links "$who" down $(seq 1 "$PEERS")
		settle "$who" "$q"
		echo "$who: down in $((SECONDS - t1)) s; round $r took $((SECONDS - t0)) s"
	done
done
# Children with connections must not be deleted (see above): the
# harness deletes them, now that none has any.
pass
