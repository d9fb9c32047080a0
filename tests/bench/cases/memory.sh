#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark, memory: what one more interface, and one more connected-mode
# connection, costs the kernel.  Per driver and round: K partition children
# on each of two ports, each child in a namespace of its own, up; then the
# same children in connected mode, one ping per pair: the in-tree driver
# makes a connection each way, ours (cm_policy=auto) one shared connection.
# Per connection and per pair of hosts; then ours again under
# cm_policy=compatible (a connection each way), for the pair figure.
# In round 1, per driver: 64 children of one interface (ip link add, all
# in its partition), connected, MTU 65520, up and idle: what connected mode
# costs a port with that many interfaces (each in-tree one fills an SRQ of
# its own; ours share one pool per port).
# Kernel memory is MemTotal - MemFree - Buffers - Cached after dropping
# caches; slab is /proc/meminfo's Slab.
#
#   a1..aK: children of PARENT_A (pkeys 0x8001..)   b1..bK: of PARENT_B
#   ours: parents on sib0, sib1               in-tree: on sib2, sib3
#
# timeout: 900
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../../lib/bench.sh
. "$TESTS_LIB/bench.sh"

K=4
fabric_up devices=4 ports=1 pkeys=0xffff,0x8001,0x8002,0x8003,0x8004
bench_alt_up
bench_intree_up
declare -A PA PB
PA[ours]=$(wait_iface ipoib_alt sib0 1)
PB[ours]=$(wait_iface ipoib_alt sib1 1)
PA[intree]=$(wait_iface ib_ipoib sib2 1)
PB[intree]=$(wait_iface ib_ipoib sib3 1)
for who in ours intree; do
	ip link set "${PA[$who]}" up
	ip link set "${PB[$who]}" up
done

# per N BEFORE AFTER: the growth, in KiB, per one of N.
per() { echo $(( ($3 - $2) / $1 )); }

# ours_conns: connections ours has up, counted once (on the a side: a
# shared connection shows on both sides, a one-way one on each).
ours_conns() {
	local k n=0
	for k in $(seq "$K"); do
		n=$((n + $(grep -c ' live ' "/sys/kernel/debug/ipoib_alt/${PA[ours]}.800$k/cm" || true)))
	done
	echo "$n"
}

# ping_pairs WHO: one ping through each pair of children.
ping_pairs() {
	local k
	for k in $(seq "$K"); do
		ip netns exec "a$k" ping -c 1 -W 3 "10.7$k.0.2" >/dev/null ||
			echo "$1: no ping through child $k" >&2
	done
}

# children WHO: K children on each parent, each in its namespace, up.
children() {
	local who=$1 k side p c
	for k in $(seq "$K"); do
		for side in a b; do
			if [ "$side" = a ]; then p=${PA[$who]}; else p=${PB[$who]}; fi
			c=$p.800$k
			echo "0x800$k" >"/sys/class/net/$p/create_child"
			ib_host "$side$k" "$c" "10.7$k.0.$([ "$side" = a ] && echo 1 || echo 2)/24"
		done
	done
	for k in $(seq "$K"); do
		wait_carrier "a$k" "${PA[$who]}.800$k"
		wait_carrier "b$k" "${PB[$who]}.800$k"
	done
}

# connected WHO: the children to connected mode, MTU 65520; false if refused.
connected() {
	local who=$1 k side c
	for k in $(seq "$K"); do
		for side in a b; do
			if [ "$side" = a ]; then c=${PA[$who]}.800$k; else c=${PB[$who]}.800$k; fi
			ip netns exec "$side$k" sh -c "echo connected >/sys/class/net/$c/mode" ||
				return 1
			ip -n "$side$k" link set "$c" mtu 65520 || return 1
		done
	done
	for k in $(seq "$K"); do
		wait_carrier "a$k" "${PA[$who]}.800$k"
		wait_carrier "b$k" "${PB[$who]}.800$k"
	done
}

# unchild WHO: back to the root namespace, deleted.
unchild() {
	local who=$1 k side p
	for k in $(seq "$K"); do
		for side in a b; do
			if [ "$side" = a ]; then p=${PA[$who]}; else p=${PB[$who]}; fi
			ip -n "$side$k" link set "$p.800$k" netns 1
			ip netns del "$side$k"
			echo "0x800$k" >"/sys/class/net/$p/delete_child"
		done
	done
}

# connections WHO ROUND PAIR_KEY: connected mode and a ping per pair;
# memory per connection and per pair (as PAIR_KEY), and what connected
# mode adds to an interface before any connection.
connections() {
	local who=$1 r=$2 key=$3 n m1 m2 s2 m3 s3
	read -r m1 _ <<<"$(mem_kib)"
	if ! connected "$who"; then
		echo "$who: refuses connected mode: no connection figures"
		na "$who" "$r" mem_conn slab_conn mem_if_cm "$key"
		return
	fi
	read -r m2 s2 <<<"$(mem_kib)"
	echo "$who: $((2 * K)) interfaces to connected mode: kernel memory $m1 -> $m2 KiB"
	[ "$key" != mem_pair ] || result mem_if_cm "$who" "$r" "$(per $((2 * K)) "$m1" "$m2")"
	ping_pairs "$who"
	read -r m3 s3 <<<"$(mem_kib)"
	n=$((2 * K))
	[ "$who" = intree ] || n=$(ours_conns)
	echo "$who ($key): $K pairs, $n connections: kernel memory $m2 -> $m3 KiB, slab $s2 -> $s3 KiB"
	result "$key" "$who" "$r" "$(per "$K" "$m2" "$m3")"
	[ "$key" = mem_pair ] || return 0
	if [ "$n" -gt 0 ]; then
		result mem_conn "$who" "$r" "$(per "$n" "$m2" "$m3")"
		result slab_conn "$who" "$r" "$(per "$n" "$s2" "$s3")"
	else
		na "$who" "$r" mem_conn slab_conn
	fi
}

# children64 WHO ROUND: 64 connected children of WHO's interface on
# sib0 (or sib2), up; the kernel memory they took, in MiB, and how many
# such children the memory the kernel called available before them would
# hold at that cost each (an estimate: making them until memory runs out
# would take the VM's processes with it).
children64() {
	local who=$1 r=$2 p=${PA[$1]} k m0 m1 avail t=$SECONDS
	read -r m0 _ <<<"$(mem_kib)"
	avail=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
	# Ours' children take the mode through sysfs: iproute2 knows no
	# options for a link kind other than "ipoib".
	for k in $(seq 64); do
		if [ "$who" = ours ]; then
			echo "link add link $p name $p.c$k type ipoib_alt"
		else
			echo "link add link $p name $p.c$k type ipoib mode connected"
		fi
	done | ip -batch -
	if [ "$who" = ours ]; then
		for k in $(seq 64); do
			echo connected >"/sys/class/net/$p.c$k/mode"
		done
	fi
	for k in $(seq 64); do
		echo "link set $p.c$k mtu 65520 up"
	done | ip -batch - || echo "$who: not every child took MTU 65520 and up" >&2
	if wait_for 120 children_up "$p"; then
		read -r m1 _ <<<"$(mem_kib)"
		echo "$who: 64 connected children of $p up in $((SECONDS - t)) s: kernel memory $m0 -> $m1 KiB"
		result mem_child64 "$who" "$r" $(((m1 - m0) / 1024))
		if [ "$m1" -gt "$m0" ]; then
			echo "$who: MemAvailable before them $avail KiB: $((avail * 64 / (m1 - m0))) such children"
			result fit_children "$who" "$r" $((avail * 64 / (m1 - m0)))
		else
			na "$who" "$r" fit_children
		fi
	else
		echo "$who: not all 64 children of $p connected with carrier: no figure"
		na "$who" "$r" mem_child64 fit_children
	fi
	for k in $(seq 64); do
		echo "link del $p.c$k"
	done | ip -batch -
}
# children_up PARENT: its 64 children have carrier at MTU 65520, which
# only connected mode allows (the in-tree driver's netlink children have
# no mode file to read).
# shellcheck disable=SC2317 # called through wait_for
children_up() {
	local k
	for k in $(seq 64); do
		[ "$(cat "/sys/class/net/$1.c$k/carrier" 2>/dev/null)" = 1 ] &&
			[ "$(cat "/sys/class/net/$1.c$k/mtu")" = 65520 ] || return 1
	done
}

for who in ours intree; do
	children64 "$who" 1
done

for r in $(seq "$BENCH_ROUNDS"); do
	step "round $r of $BENCH_ROUNDS"
	for who in $(order "$r" ours intree); do
		read -r m0 s0 <<<"$(mem_kib)"
		children "$who"
		read -r m1 s1 <<<"$(mem_kib)"
		echo "$who: $((2 * K)) interfaces: kernel memory $m0 -> $m1 KiB, slab $s0 -> $s1 KiB"
		result mem_if "$who" "$r" "$(per $((2 * K)) "$m0" "$m1")"
		result slab_if "$who" "$r" "$(per $((2 * K)) "$s0" "$s1")"
		connections "$who" "$r" mem_pair
		unchild "$who"
	done
done

step "ours under cm_policy=compatible: memory per pair of hosts"
rmmod ipoib_alt
bench_alt_up cm_policy=compatible
PA[ours]=$(wait_iface ipoib_alt sib0 1)
PB[ours]=$(wait_iface ipoib_alt sib1 1)
ip link set "${PA[ours]}" up
ip link set "${PB[ours]}" up
for r in $(seq "$BENCH_ROUNDS"); do
	children ours
	connections ours "$r" mem_pair_compat
	unchild ours
done
pass
