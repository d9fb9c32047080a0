#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Campaign: allocations fail inside our driver, and nowhere else, while it
# works.  The driver's own fault attribute (ipoib_fault.c, on kernels with
# CONFIG_FAULT_INJECTION_DEBUG_FS: the debug kernel) fails its allocations
# and verbs-object creations with a probability and an interval picked at
# random per attempt.  Both hosts run our driver; a TCP stream runs from h1
# to h2 through each part.  An attempt turns injection on, does one thing,
# and turns it off:
#
#   traffic   pings, unicast and to a new multicast group (in either mode)
#   events    a client reregister on both ports, or both ports' P_Key
#             tables reordered (the main interfaces restart)
#   updown    h1's interface down and up (in either mode)
#   modes     h1 switched between datagram and connected mode
#   rings     ethtool -G on h1, random sizes (in either mode)
#   children  P_Key children on both sides, by sysfs and by netlink,
#             addressed and up, pinged; then deleted
#   conns     a connected-mode child pair: a connection made by a ping and
#             reaped when idle (cm_idle_timeout=1)
#   hca       the fabric's module removed and loaded again: our driver
#             makes its interfaces anew, which go back into h1 and h2
#
#   h1: ib (sib0) 10.20.0.1, children 10.20.N.1  ===  h2: ib (sib1) 10.20.0.2, 10.20.N.2
#
# The command of an attempt either succeeds, and did what it says, or
# fails with an error message; a refused command is given once more after
# injection, and must then succeed.  The attempt recovered when h1 then
# pings h2 (the child pairs, for children and conns) within 60 s, with no
# other help.  The harness fails the campaign on any kernel report or
# leak.  One SOAK line per part, with the failures injected (the sum of
# fail_alloc/sites); then the call sites that failed.  soak.scale=N (or
# soak.faults=N) on the kernel command line: N x 2 attempts per part (make
# soak: 20), N for hca (soak.fault_hcas=N; make soak: 10).  It needs the
# debug kernel's fault injection: the debug tier runs it at soak.faults=1
# (tests/debug-kernel/ci), tests/soak/run only with --debug-kernel; on a
# stock kernel it says skipped.
#
# timeout: 3600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

ATTEMPTS=$(soak_knob faults $((2 * SOAK_SCALE)))
# Removing the fabric takes half a minute whatever the driver: fewer.
HCAS=$(soak_knob fault_hcas "$SOAK_SCALE")
FI=/sys/kernel/debug/ib_ipoib/fail_alloc
DBG=/sys/kernel/debug/ib_ipoib
PKEYS=0xffff,0x8001,0x8002,0x8003,0x8004,0x8005
PKEYS_MOVED=0x8001,0xffff,0x8002,0x8003,0x8004,0x8005
RANDOM=4394

# pick WORD...: one of the words, at random.
pick() {
	local w=("$@")
	echo "${w[RANDOM % ${#w[@]}]}"
}

fi_on() {
	echo 0 >"$FI/verbose"
	echo -1 >"$FI/times"
	echo "$2" >"$FI/interval"
	echo "$1" >"$FI/probability"
}

fi_off() { echo 0 >"$FI/probability"; }

# fi_failed: failures injected since the module was loaded.
fi_failed() { awk 'NR > 1 && $1 !~ /^#/ { n += $3 } END { print n + 0 }' "$FI/sites"; }

FABRIC="devices=2 ports=1 pkeys=$PKEYS"
# shellcheck disable=SC2086 # a list of parameters
fabric_up $FABRIC
ours_up cm_idle_timeout=1
if [ ! -d "$FI" ]; then
	# failslab and fail_page_alloc need CONFIG_FAULT_INJECTION_DEBUG_FS too.
	if [ -d /sys/kernel/debug/failslab ] || [ -d /sys/kernel/debug/fail_page_alloc ]; then
		fail "the kernel injects faults, but our driver has no $FI"
	fi
	skip "no fault injection in this kernel (CONFIG_FAULT_INJECTION_DEBUG_FS)"
fi
trap 'fi_off 2>/dev/null || true' EXIT
two_hosts ib_ipoib 10.20.0
ip -n h1 route add 239.0.0.0/8 dev "$a"
soak_baseline

# shellcheck disable=SC2317 # called through attempt and wait_for
pings() { ip netns exec h1 ping -c 1 -W 1 10.20.0.2 >/dev/null; }

# both_mode MODE: both main interfaces in MODE, carriers on (no injection).
both_mode() {
	ip -n h1 link set "$a" type ipoib mode "$1"
	ip -n h2 link set "$b" type ipoib mode "$1"
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
}

# attempt NAME VERIFY CHECK CMD...: CMD with injection on, at a random
# probability and interval; then injection off.  CMD either succeeds, and
# VERIFY then holds, or fails saying why, and succeeds when given again.
# Recovered once CHECK succeeds (60 s).
attempt() {
	local name=$1 verify=$2 check=$3 p i rc=0 why t0
	shift 3
	p=$(pick 5 10 25 50 100) i=$(pick 1 1 2 5 11)
	name="$name (${p}%, interval $i)"
	fi_on "$p" "$i"
	"$@" >/tmp/op.out 2>&1 || rc=$?
	fi_off
	t0=$(soak_now)
	if [ "$rc" = 0 ]; then
		applied=$((applied + 1))
		if ! "$verify"; then
			echo "$name: succeeded but did not do it ($verify)"
			soak_attempts=$((${soak_attempts:-0} + 1))
			return
		fi
	else
		refused=$((refused + 1))
		why=$(grep -v '^$' /tmp/op.out | tail -n 1)
		echo "$name: refused: ${why:-no message, exit status $rc}"
		if [ -z "$why" ]; then
			soak_attempts=$((${soak_attempts:-0} + 1))
			return
		fi
		echo "${why##*: }" >>/tmp/refusals
		if ! "$@" >/tmp/op.out 2>&1 || ! "$verify"; then
			echo "$name: refused again with injection off: $(tail -n 3 /tmp/op.out | tr '\n' ' ')"
			soak_attempts=$((${soak_attempts:-0} + 1))
			return
		fi
	fi
	soak_recover_when "$name" "$t0" "$check"
}

# part NAME [COUNT]: start a part (a stream, counters); part_end NAME: its SOAK line.
# (COUNT: its attempts, when not ATTEMPTS).
part() {
	step "$1: ${2:-$ATTEMPTS} attempts under TCP"
	applied=0 refused=0 injected0=$(fi_failed)
	: >/tmp/refusals
	soak_tcp_start h2 10.20.0.2 h1
}

part_end() {
	soak_tcp_stop
	echo "   $1: $applied applied, $refused refused$(sort /tmp/refusals | uniq -c |
		awk '{ n = $1; $1 = ""; printf " /%s: %d", $0, n }')"
	soak_report "allocfail-$1" injected=$(($(fi_failed) - injected0))
}

# mode_of I: datagram for odd attempts, connected for even ones.
mode_of() { if [ $(($1 % 2)) = 1 ]; then echo datagram; else echo connected; fi; }

# shellcheck disable=SC2317 # called through attempt
op_traffic() {
	ip netns exec h1 ping -c 5 -i 0.2 -W 1 10.20.0.2 || true
	ip netns exec h1 ping -c 2 -i 0.2 -W 1 "239.20.$1.1" || true
}

part traffic
for i in $(seq "$ATTEMPTS"); do
	both_mode "$(mode_of "$i")"
	attempt "traffic $i, $(mode_of "$i")" true pings op_traffic "$i"
done
part_end traffic

# flushes NS IFACE: how often the interface flushed its paths and groups.
# shellcheck disable=SC2317 # called through attempt and wait_for
flushes() { ip netns exec "$1" ethtool -S "$2" | awk '$1 == "flushes:" { print $2 }'; }
# shellcheck disable=SC2317 # called through wait_for
flushed_since() { [ "$(flushes h1 "$a")" -gt "$1" ] && [ "$(flushes h2 "$b")" -gt "$2" ]; }

# shellcheck disable=SC2317 # called through attempt
op_event() {
	local f1 f2 d
	f1=$(flushes h1 "$a") f2=$(flushes h2 "$b")
	if [ "$1" = rereg ]; then
		for d in sib0 sib1; do echo client_reregister >"$SIB/$d/port1/event"; done
	else
		sm_set_pkeys "$1"
	fi
	wait_for 30 flushed_since "$f1" "$f2"
}

part events
table=$PKEYS
for i in $(seq "$ATTEMPTS"); do
	both_mode "$(mode_of "$i")"
	event=$(pick rereg pkeys)
	if [ "$event" = pkeys ]; then
		[ "$table" = "$PKEYS" ] && table=$PKEYS_MOVED || table=$PKEYS
		event=$table
	fi
	attempt "event $i, $(mode_of "$i"): ${event/0x8001,0xffff*/P_Keys moved}" true pings op_event "$event"
done
[ "$table" = "$PKEYS" ] || sm_set_pkeys "$PKEYS"
part_end events

# shellcheck disable=SC2317 # called through attempt
op_updown() { ip -n h1 link set "$a" down && ip -n h1 link set "$a" up; }

part updown
for i in $(seq "$ATTEMPTS"); do
	both_mode "$(mode_of "$i")"
	attempt "down and up $i, $(mode_of "$i")" true pings op_updown
done
both_mode datagram
part_end updown

# shellcheck disable=SC2317 # called through attempt
op_mode() { ip -n h1 link set "$a" type ipoib mode "$want"; }
# shellcheck disable=SC2317 # called through attempt
mode_is_wanted() { [ "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" = "$want" ]; }

part modes
ip -n h2 link set "$b" type ipoib mode connected
for i in $(seq "$ATTEMPTS"); do
	want=$(mode_of $((i + 1)))
	attempt "mode $i to $want" mode_is_wanted pings op_mode
done
both_mode datagram
part_end modes

# shellcheck disable=SC2317 # called through attempt
op_rings() { ip netns exec h1 ethtool -G "$a" rx "$rx" tx "$tx"; }
# shellcheck disable=SC2317 # called through attempt
rings_are_wanted() {
	ip netns exec h1 ethtool -g "$a" | awk -v rx="$rx" -v tx="$tx" '
		/^Current/ { cur = 1 } cur && $1 == "RX:" { r = $2 } cur && $1 == "TX:" { t = $2 }
		END { exit !(r == rx && t == tx) }'
}

part rings
rx=512 tx=256
for i in $(seq "$ATTEMPTS"); do
	both_mode "$(mode_of "$i")"
	# Other sizes than now: the same ones would not reach the driver.
	was="$rx $tx"
	while [ "$rx $tx" = "$was" ]; do
		rx=$(pick 64 128 256 512 1024) tx=$(pick 64 128 256 512 1024)
	done
	attempt "rings $i, $(mode_of "$i"): rx $rx tx $tx" rings_are_wanted pings op_rings
done
both_mode datagram
ip netns exec h1 ethtool -G "$a" rx 512 tx 256
part_end rings

# Children: P_Key 0x8001 and 0x8002 through sysfs create_child (named
# parent.8001), 0x8003 and 0x8004 through netlink (parent.3, parent.4).
# shellcheck disable=SC2317 # called through attempt and wait_for
child_name() { if [ "$2" -le 2 ]; then echo "$1.800$2"; else echo "$1.$2"; fi; }

# child_up NS PARENT N HOST: child N at 10.20.N.HOST, up; what is there
# already is left as it is, so that a refused attempt can be made again.
# shellcheck disable=SC2317 # called through attempt and wait_for
child_up() {
	local c
	c=$(child_name "$2" "$3")
	if ! ip -n "$1" link show "$c" >/dev/null 2>&1; then
		if [ "$3" -le 2 ]; then
			ip netns exec "$1" sh -c "echo 0x800$3 >/sys/class/net/$2/create_child" || return
		else
			ip -n "$1" link add link "$2" name "$c" type ipoib pkey "0x800$3" || return
		fi
	fi
	ip -n "$1" addr replace "10.20.$3.$4/24" dev "$c" || return
	ip -n "$1" link set "$c" up
}

# shellcheck disable=SC2317 # called through attempt
op_children() {
	local n
	for n in 1 2 3 4; do
		child_up h1 "$a" "$n" 1 || return
		child_up h2 "$b" "$n" 2 || return
	done
}

# shellcheck disable=SC2317 # called through attempt
op_children_del() {
	local n
	for n in 1 2; do
		ip netns exec h1 sh -c "echo 0x800$n >/sys/class/net/$a/delete_child" || return
		ip netns exec h2 sh -c "echo 0x800$n >/sys/class/net/$b/delete_child" || return
	done
	for n in 3 4; do
		ip -n h1 link del "$a.$n" || return
		ip -n h2 link del "$b.$n" || return
	done
}

# shellcheck disable=SC2317 # called through attempt and wait_for
children_up() {
	local n
	for n in 1 2 3 4; do
		ip -n h1 link show "$(child_name "$a" "$n")" up | grep -q . || return 1
		ip -n h2 link show "$(child_name "$b" "$n")" up | grep -q . || return 1
	done
}

# shellcheck disable=SC2317 # called through attempt and wait_for
children_gone() { ! ip -n h1 -o link | grep -q "$a\." && ! ip -n h2 -o link | grep -q "$b\."; }

# shellcheck disable=SC2317 # called through attempt and wait_for
children_answer() {
	local n
	for n in 1 2 3 4; do
		ip netns exec h1 ping -c 1 -W 1 "10.20.$n.2" >/dev/null || return 1
	done
}

part children
for i in $(seq "$ATTEMPTS"); do
	attempt "children $i: made" children_up children_answer op_children
	attempt "children $i: deleted" children_gone pings op_children_del
done
part_end children

# conns_of IFACE: the connections the interface has, in any state.
# shellcheck disable=SC2317 # called through attempt and wait_for
conns_of() { awk 'NR > 2' "$DBG/$1/cm" | wc -l; }
# shellcheck disable=SC2317 # called through wait_for
no_conns() { [ "$(conns_of "$a.5")" = 0 ] && [ "$(conns_of "$b.5")" = 0 ]; }
# shellcheck disable=SC2317 # called through attempt and wait_for
child_pings() { ip netns exec h1 ping -c 1 -W 1 10.20.5.2 >/dev/null; }
cm_count() { ip netns exec h1 ethtool -S "$a.5" | awk -v n="$1:" '$1 == n { print $2 }'; }

# shellcheck disable=SC2317 # called through attempt
op_conn() {
	ip netns exec h1 ping -c 3 -i 0.3 -W 1 -s 2000 10.20.5.2 || true
	wait_for 20 no_conns
}

part conns
ip -n h1 link add link "$a" name "$a.5" type ipoib pkey 0x8005 mode connected
ip -n h2 link add link "$b" name "$b.5" type ipoib pkey 0x8005 mode connected
ip -n h1 addr add 10.20.5.1/24 dev "$a.5"
ip -n h2 addr add 10.20.5.2/24 dev "$b.5"
ip -n h1 link set "$a.5" up
ip -n h2 link set "$b.5" up
wait_carrier h1 "$a.5"
wait_carrier h2 "$b.5"
made0=$(cm_count cm_established) reaped0=$(cm_count cm_reaped) fell0=$(cm_count cm_fallbacks)
for i in $(seq "$ATTEMPTS"); do
	wait_for 20 no_conns || fail "conns $i: the connections of the last attempt were not reaped"
	attempt "conns $i" true child_pings op_conn
done
echo "   conns: h1 made $(($(cm_count cm_established) - made0)) connections, reaped" \
	"$(($(cm_count cm_reaped) - reaped0)), fell back to datagrams $(($(cm_count cm_fallbacks) - fell0)) times"
ip -n h1 link del "$a.5"
ip -n h2 link del "$b.5"
part_end conns

# hosts_back: our new interfaces into h1 and h2, addressed and up, with
# carrier; sets a and b.  A missing one fails saying so.
# shellcheck disable=SC2317 # called through attempt
hosts_back() {
	a=$(wait_iface ib_ipoib sib0 1) && b=$(wait_iface ib_ipoib sib1 1) || return
	ib_host h1 "$a" 10.20.0.1/24 && ib_host h2 "$b" 10.20.0.2/24 || return
	wait_for 20 carrier_is_on h1 "$a" && wait_for 20 carrier_is_on h2 "$b"
}

# The HCA driver goes and comes back: our driver makes its interfaces
# again (ipoib_add_one) with injection on.  The stream's socket outlives
# them, as in fabric.sh.
# shellcheck disable=SC2317 # called through attempt
op_hca() {
	rmmod sib || return
	# shellcheck disable=SC2086 # a list of parameters
	modprobe sib $FABRIC || return
	wait_for 10 all_ports_active || return
	hosts_back
}

part hca "$HCAS"
for i in $(seq "$HCAS"); do
	attempt "HCA $i" true pings op_hca
done
part_end hca

step "call sites that failed"
awk 'NR == 1 || ($1 !~ /^#/ && $3 > 0)' "$FI/sites"
echo "   sites: $(awk 'NR > 1 && $1 !~ /^#/' "$FI/sites" | wc -l) reached," \
	"$(awk 'NR > 1 && $1 !~ /^#/ && $3 > 0' "$FI/sites" | wc -l) failed at least once"
soak_end
