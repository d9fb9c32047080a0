#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CM fuzzing, both ways, against our driver in connected mode:
#
#   cmprobe (sib0) --random REQs--> h2: ib (sib1), ours
#   h1: ib (sib0), ours --REQs--> cmprobe listens on sib1 for made-up
#       neighbours, answering with malformed REPs or (random) REJs
#
# REQs carry random private data (0-92 bytes), RC or UC, to either form of
# h2's service ID or a random one; each gets a REP or a REJ, never silence.
# Our REQs to a listener that answers with a malformed REP (short, QPN 0,
# a QPN not the address's, receive MTU 0) are refused with a REJ; a
# receive MTU of 2^32-1 is taken as "no limit" and the connection made;
# a REJ of any reason with any private data is taken.  After all of it the
# connection tables are empty, the fabric's verbs objects are back where
# they were, and h1 and h2 still ping in connected mode.
#
# soak.scale=N on the kernel command line (make soak) multiplies the
# counts: N x 100 REQs (or soak.cm_reqs=N), and N REQs of ours per kind
# of answer.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
N_REQS=$(soak_knob cm_reqs $((100 * SOAK_SCALE)))
N_ROUNDS=$SOAK_SCALE
ANSWERS="rep-short rep-zero-qpn rep-bad-qpn rep-mtu0 rep-mtu-max rej rej-random"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
# shellcheck disable=SC2317 # called through wait_for
cm_lines() { grep -c -E ' (live|connecting|wait-peer) ' "/sys/kernel/debug/ib_ipoib/$1/cm" || true; }
verbs() { awk '$1 ~ /^(qps|cqs|pds|mrs)$/ { printf "%s=%s ", $1, $2 }' "$SIB/$1/resources"; }
# listens KEY: a count of the "listens" line of cmprobe's control file.
listens() {
	awk -v k="$1" '$1 == "listens" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$PROBE"
}
# shellcheck disable=SC2317 # called through wait_for
tables_empty() { [ "$(cm_lines "$a")" = 0 ] && [ "$(cm_lines "$b")" = 0 ]; }
# shellcheck disable=SC2317 # called through wait_for
at_baseline() { [ "$(verbs sib0)" = "$v0" ] && [ "$(verbs sib1)" = "$v1" ]; }
# shellcheck disable=SC2317 # called through wait_for
answered() { [ "$(($(listens peer_rejs) + $(listens taken) + $(listens unanswered)))" -gt "$1" ]; }
# shellcheck disable=SC2317 # called through wait_for
rej_seen() { [ "$(stat_of h1 "$a" cm_rejects_received)" -gt "$1" ]; }
dump() {
	cat "$PROBE" "/sys/kernel/debug/ib_ipoib/$a/cm" "/sys/kernel/debug/ib_ipoib/$b/cm" || true
	on h1 ethtool -S "$a" | grep -E 'cm_' || true
	on h2 ethtool -S "$b" | grep -E 'cm_' || true
}

fabric_up devices=2 ports=1
ours_up
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
for ifc in "$a" "$b"; do
	echo connected >"/sys/class/net/$ifc/mode"
done
ib_host h1 "$a" 10.12.0.1/16
ib_host h2 "$b" 10.12.0.2/16
wait_carrier h1 "$a"
wait_carrier h2 "$b"
modprobe cmprobe
v0=$(verbs sib0) v1=$(verbs sib1)

b_qpn=$(ip netns exec h2 cat "/sys/class/net/$b/address" | cut -d: -f2-4 | tr -d :)
b_gid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
b_lid=$(cat /sys/class/infiniband/sib1/ports/1/lid)

step "$N_REQS REQs with random private data at h2"
RANDOM=4755
declare -A outcomes=()
for i in $(seq "$N_REQS"); do
	# Builtins only (printf -v, read): a fork costs more than a REQ here.
	case $((RANDOM % 4)) in
	0) printf -v sid '%x' $((0x0100000000000000 | 0x$b_qpn)) ;;
	3) printf -v sid '%04x%04x%04x%04x' $RANDOM $RANDOM $RANDOM $RANDOM ;;
	*) printf -v sid '%x' $((0x1000000000000000 | 0x$b_qpn)) ;;
	esac
	qp=rc
	[ $((RANDOM % 4)) != 0 ] || qp=uc
	echo "dev=sib0 dgid=$b_gid dlid=$b_lid sid=$sid qp=$qp pdata=random len=$((RANDOM % 93)) seed=$i" >"$PROBE"
	o=none
	while read -r key val _; do
		[ "$key" != outcome ] || o=$val
	done <"$PROBE"
	outcomes[$o]=$((${outcomes[$o]:-0} + 1))
	case $o in
	rep | rej) ;;
	*) cat "$PROBE"; fail "REQ $i: outcome $o (only a REP or a REJ will do)" ;;
	esac
done
for o in "${!outcomes[@]}"; do echo "   $o: ${outcomes[$o]}"; done
on h2 ethtool -S "$b" | grep -E 'cm_(reqs_rec|rej|conn|estab)'

step "our REQs to listeners that answer badly, $N_ROUNDS rounds of each kind"
k=0
for answer in $ANSWERS; do
	k=$((k + 1))
	for r in $(seq "$N_ROUNDS"); do
		qpn=$((0xf00000 + k * 0x100 + r))
		for form in 0x1000000000000000 0x0100000000000000; do
			echo "listen dev=sib1 sid=$(printf '%x' $((form | qpn))) answer=$answer seed=$((k * 1000 + r))" >"$PROBE"
		done
		addr="10.12.$k.$r"
		lladdr=$(printf '80:%02x:%02x:%02x:%s' $((qpn >> 16)) $((qpn >> 8 & 255)) $((qpn & 255)) \
			"$(echo "$b_gid" | tr -d : | sed 's/../&:/g; s/:$//')")
		ip -n h1 neigh replace "$addr" lladdr "$lladdr" nud permanent dev "$a"
		seen=$(($(listens peer_rejs) + $(listens taken) + $(listens unanswered)))
		rej0=$(stat_of h1 "$a" cm_rejects_received)
		# One datagram starts the connection; nothing will answer it.
		ip netns exec h1 bash -c "echo fuzz >/dev/udp/$addr/9" 2>/dev/null || true
		case $answer in
		rej*) wait_for 30 rej_seen "$rej0" || { dump; fail "$answer: h1 saw no REJ"; } ;;
		*) wait_for 30 answered "$seen" || { dump; fail "$answer: h1 neither refused nor took the REP"; } ;;
		esac
		wait_for 30 tables_empty || { dump; fail "$answer: a connection was left"; }
		for form in 0x1000000000000000 0x0100000000000000; do
			echo "unlisten sid=$(printf '%x' $((form | qpn)))" >"$PROBE"
		done
		ip -n h1 neigh del "$addr" dev "$a"
	done
	echo "   $answer: $(grep '^listens' "$PROBE")"
done
taken=$(listens taken)
peer_rejs=$(listens peer_rejs)
# Only rep-mtu-max is to be taken; the other four REP kinds refused.
assert_eq "$taken" "$N_ROUNDS" "REPs h1 completed (rep-mtu-max only)"
assert_ge "$peer_rejs" $((4 * N_ROUNDS)) "malformed REPs h1 refused"
on h1 ethtool -S "$a" | grep -E 'cm_(reqs_sent|rej|fall)'

step "nothing left behind, and connected mode still works"
wait_for 30 tables_empty || { dump; fail "connections left"; }
wait_for 30 at_baseline || fail "verbs objects: sib0 $(verbs sib0)(was $v0), sib1 $(verbs sib1)(was $v1)"
echo "   sib0 $(verbs sib0); sib1 $(verbs sib1)"
assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.12.0.2
assert on h2 ping -c 3 -i 0.2 -W 3 -s 60000 10.12.0.1
pass
