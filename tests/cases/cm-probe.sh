#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad CM REQs against an IPoIB connected-mode listener, sent by the cmprobe
# test module from sib0 port 1 (its own QP, no interface of its own):
#
#   cmprobe (sib0 port 1) --REQ--> h2: ib (sib1 port 1), connected mode
#   h1: ib (sib0 port 1) <--ping--> h2
#
# The probe's own checks come first (bad input, the CM's REJ and timeout,
# unloads in the middle of a probe).  Then Debian's ib_ipoib: a good REQ to 0x1000000000000000 | UD QPN gets a
# REP carrying its UD QPN; other service IDs get REJ 8 (invalid service
# ID).  Then ours: malformed private data, a receive MTU below 1284, or UC
# while UC is off, gets a REJ carrying our UD QPN and the IBA reason that
# fits (Unsupported, Invalid MTU, Invalid Transport Type: never Consumer
# Reject, which RFC 4755 3.3 keeps for crossed REQs), a wrong service ID
# REJ 8, a good REQ a REP on both service ID forms; nothing is left
# behind, and the interfaces still ping afterwards.  A REQ whose RTU
# never comes, when the interface goes down: if the accept had not
# finished, a REJ of ours (No Resources, our UD QPN); once our REP is out,
# the CM's Consumer Reject, the only REJ that takes the REP back (after
# one of ours, the CM resends the REP until its retries run out, and the
# down waits for them: cm-down-rep).  Our RTU carries our UD QPN too
# (RFC 4755 3.2), seen by a listen of the probe's that h1 connects to.
# (The in-tree driver's answers to the same are shown, not asserted: it
# sends the CM's.)
#
# timeout: 150
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
LINUX_SID=0x1000000000000000
RFC_SID=0x0100000000000000

# probe ARGS...: one REQ; the outcome goes to the log and to $out.
probe() {
	local line t0=$SECONDS
	echo "probe: $*"
	echo "$*" >"$PROBE"
	out=$(cat "$PROBE")
	echo "   ($((SECONDS - t0)) s)"
	while IFS= read -r line; do echo "   | $line"; done <<<"$out"
}

# verbs IBDEV: the QPs, CQs and PDs the fabric's device has in use.
verbs() { awk '$1 ~ /^(qps|cqs|pds)$/ { printf "%s=%s ", $1, $2 }' "$SIB/$1/resources"; }

# shellcheck disable=SC2317 # called by wait_for
verbs_are() { [ "$(verbs "$1")" = "$2" ]; }

# field KEY: a value of the last probe's outcome.
field() { awk -v k="$1" '$1 == k { print $2 }' <<<"$out"; }

# req_drops: the MADs sib0 sent that the fabric dropped on purpose: with
# mad_drop_every=1, a probe's REQ counts there once it has left, and the
# probe is then in flight until it times out.
req_drops() { sib_counter sib0 1 drop_injected; }
# shellcheck disable=SC2317 # called by wait_for
req_drops_past() { [ "$(req_drops)" -gt "$1" ]; }

qps() { awk '$1 == "qps" { print $2 }' "$SIB/$1/resources"; }
# shellcheck disable=SC2317 # called by wait_for
qps_above() { [ "$(qps "$1")" -gt "$2" ]; }

# half_made NS IFACE PROBE_ARGS: a REQ whose REP gets no RTU, and the
# interface (on sib1) goes down once it has made the connection's QP;
# $out holds how the probe saw it end, and reason and pd what the
# target's REJ said: to the REQ, had the accept not finished, or after
# the REP.
half_made() {
	local pid q
	echo "probe (no RTU, then $2 down): $3"
	q=$(qps sib1)
	echo "$3 rtu=no" >"$PROBE" &
	pid=$!
	wait_for 10 qps_above sib1 "$q" || fail "$2 made no QP for the REQ"
	ip -n "$1" link set "$2" down
	wait "$pid"
	out=$(cat "$PROBE")
	while IFS= read -r line; do echo "   | $line"; done <<<"$out"
	case $(field outcome) in
	rep) reason=$(field teardown_reason) pd=$(field teardown_pdata) ;;
	*) reason=$(field reason) pd=$(field pdata) ;;
	esac
	ip -n "$1" link set "$2" up
	wait_carrier "$1" "$2"
}

# ud_qpn NS IFACE: the UD QPN in an interface's link address (octets 2-4).
ud_qpn() {
	ip netns exec "$1" cat "/sys/class/net/$2/address" | cut -d: -f2-4 | tr -d :
}

# hosts DRIVER NET: both interfaces of DRIVER in connected mode, as h1 and
# h2 on 10.NET.0.0/24; sets a, b, qpn (b's UD QPN, hex) and dgid.  Fails
# (status 1) when the driver cannot switch to connected mode.
hosts() {
	local ifc
	a=$(wait_iface "$1" sib0 1) || fail "no $1 interface on sib0"
	b=$(wait_iface "$1" sib1 1) || fail "no $1 interface on sib1"
	for ifc in "$a" "$b"; do
		echo connected >"/sys/class/net/$ifc/mode" || return 1
	done
	ib_host h1 "$a" "10.$2.0.1/24"
	ib_host h2 "$b" "10.$2.0.2/24"
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	qpn=$(ud_qpn h2 "$b")
	dgid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
	echo "target: $b in h2, UD QPN 0x$qpn, GID $dgid"
}

fabric_up devices=2 ports=1
modprobe cmprobe

step "the probe itself: bad input, REJ and timeout from the CM, unloads"
assert_eq "$(cat "$PROBE")" "outcome none" "before any probe"
! echo "dgid=fe80::1 qpn=0x48 pdata=bogus" >"$PROBE" 2>/dev/null ||
	fail "pdata=bogus was accepted"
! echo "qpn=0x48" >"$PROBE" 2>/dev/null || fail "a probe without dgid was accepted"
dmesg | grep -q "cmprobe: bad value for pdata: 'bogus'" ||
	fail "no kernel message says why pdata=bogus was refused"
idle=$(verbs sib0)
# A path made by hand (dlid=) needs no SA, so MADs can be dropped.
by_hand="dgid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)"
by_hand+=" dlid=$(cat /sys/class/infiniband/sib1/ports/1/lid) sid=0x1000000000000001"
probe "$by_hand"
assert_eq "$(field outcome)" rej "REQ to sib1 where nothing listens"
assert_eq "$(field reason)" 8 "REJ reason"
echo 1 >"$SIB/mad_drop_every"
probe "$by_hand"
assert_eq "$(field outcome)" timeout "REQ into a fabric that drops every MAD"
d0=$(req_drops)
echo "$by_hand" >"$PROBE" &
wait_for 10 req_drops_past "$d0" || fail "the probe's REQ did not leave sib0"
! rmmod cmprobe 2>/dev/null || fail "cmprobe unloaded in the middle of a probe"
t0=$SECONDS
wait $!
echo "the probe went on for $((SECONDS - t0)) s"
assert_eq "$(verbs sib0)" "$idle" "sib0 verbs objects after the probes"
# The fabric leaving in the middle of a probe cuts it short, cleanly.
d0=$(req_drops)
echo "$by_hand" >"$PROBE" &
wait_for 10 req_drops_past "$d0" || fail "the probe's REQ did not leave sib0"
t0=$SECONDS
rmmod sib
wait $!
echo "rmmod sib during a probe took $((SECONDS - t0)) s"
out=$(cat "$PROBE")
assert_eq "$(field stage)" device-removed "probe when its device left"
fabric_up devices=2 ports=1

step "Debian's ib_ipoib in connected mode"
intree_up
# Its verbs objects before any link is up: no connection exists yet.
wait_iface ib_ipoib sib0 1 >/dev/null && wait_iface ib_ipoib sib1 1 >/dev/null
pre0=$(verbs sib0)
pre1=$(verbs sib1)
hosts ib_ipoib 3 || fail "Debian's ib_ipoib did not switch to connected mode"
to="dev=sib0 port=1 dgid=$dgid"
# Its own connections first, so that what the probes leave shows apart.
assert on h1 ping -c 2 -i 0.2 -W 3 10.3.0.2
idle=$(verbs sib0)
idle1=$(verbs sib1)

probe "$to sid=$(printf '0x%x' $((LINUX_SID | 0x$qpn))) pdata=good"
assert_eq "$(field outcome)" rep "good REQ to the in-tree service ID"
# Its REP's private data: its UD QPN, and its receive MTU (65524).
assert_eq "$(field pdata)" "00${qpn}0000fff4" "in-tree REP private data"
assert_eq "$(field teardown)" drep "in-tree answer to our DREQ"

probe "$to sid=$(printf '0x%x' $((LINUX_SID | 0xfffffe))) pdata=good"
assert_eq "$(field outcome)" rej "REQ to a service ID nobody listens on"
assert_eq "$(field reason)" 8 "REJ reason"

probe "$to sid=$(printf '0x%x' $((RFC_SID | 0x$qpn))) pdata=good"
assert_eq "$(field outcome)" rej "REQ to the RFC 4755 service ID (in-tree listens on its own form only)"
assert_eq "$(field reason)" 8 "REJ reason"

# The in-tree driver does not look at a REQ's private data: what it does
# with malformed data is logged, not asserted.
for kind in short zero-qpn none; do
	probe "$to qpn=0x$qpn pdata=$kind"
done

assert_eq "$(verbs sib0)" "$idle" "sib0 verbs objects after the probes"

step "Debian's ib_ipoib still carries traffic"
assert on h1 ping -c 2 -i 0.2 -W 3 10.3.0.2
# Its passive connections go once their QPs have drained; unloading it
# before that makes it destroy CQs still in use (it warns).
wait_for 20 verbs_are sib1 "$idle1" ||
	fail "sib1 verbs objects 20 s after the in-tree DREPs: $(verbs sib1), not $idle1"
# Its end of a half-made connection when it goes down, for comparison.
half_made h2 "$b" "$to qpn=0x$qpn"
echo "in-tree: REJ reason ${reason:-none}, private data ${pd:-none}"
# Its connections (ours from the pings too) are destroyed by work items
# it does not wait for on unload: a QP still on its CQ then makes the CQ's
# destroy fail and warn.  Links down first, and wait for the QPs to go.
ip -n h1 link set "$a" down
ip -n h2 link set "$b" down
wait_for 20 verbs_are sib0 "$pre0" ||
	fail "sib0 verbs objects with the in-tree links down: $(verbs sib0), not $pre0"
wait_for 20 verbs_are sib1 "$pre1" ||
	fail "sib1 verbs objects with the in-tree links down: $(verbs sib1), not $pre1"
rmmod ib_ipoib
ip netns del h1
ip netns del h2

step "our ib_ipoib in connected mode"
ours_up
hosts ib_ipoib 4 || fail "our ib_ipoib cannot switch to connected mode"
to="dev=sib0 port=1 dgid=$dgid qpn=0x$qpn"
idle=$(verbs sib0)
idle1=$(verbs sib1)

for kind in short zero-qpn none; do
	probe "$to pdata=$kind"
	assert_eq "$(field outcome)" rej "REQ with private data '$kind'"
	# Unsupported request: Consumer Reject would say "crossed REQs".
	assert_eq "$(field reason)" 5 "REJ reason for private data '$kind'"
	# RFC 4755 section 6: a REJ carries the sender's UD QPN too.
	assert_eq "$(field pdata | cut -c1-8)" "00$qpn" "UD QPN in our REJ"
done

# A receive MTU too small for IPv6 (1280 + 4): refused, not half used.
# (The in-tree driver takes it and then cannot carry IPv6 to that peer.)
rej0=$(ip netns exec h2 ethtool -S "$b" | awk '$1 == "cm_rej_small_mtu:" { print $2 }')
probe "$to mtu=1000"
assert_eq "$(field outcome)" rej "REQ naming receive MTU 1000"
assert_eq "$(field reason)" 26 "REJ reason (Invalid MTU) for receive MTU 1000"
assert_eq "$(field pdata | cut -c1-8)" "00$qpn" "UD QPN in our REJ"
dmesg | grep -q "receive MTU below 1284" ||
	fail "no kernel line says why the small-MTU REQ was refused"
rej1=$(ip netns exec h2 ethtool -S "$b" | awk '$1 == "cm_rej_small_mtu:" { print $2 }')
assert_eq "$((rej1 - rej0))" 1 "cm_rej_small_mtu"
probe "$to mtu=1284"
assert_eq "$(field outcome)" rep "REQ naming receive MTU 1284, the smallest usable"

# UC only when configured (cm_uc, off by default).
probe "$to qp=uc"
assert_eq "$(field outcome)" rej "UC REQ while our driver has UC off"
assert_eq "$(field reason)" 9 "REJ reason (Invalid Transport Type) for UC"

# A rejected REQ leaves nothing behind on either side.
wait_for 10 verbs_are sib1 "$idle1" ||
	fail "sib1 verbs objects after the rejected REQs: $(verbs sib1), not $idle1"

probe "dev=sib0 port=1 dgid=$dgid sid=$(printf '0x%x' $((LINUX_SID | 0xfffffe)))"
assert_eq "$(field outcome)" rej "REQ to a service ID nobody listens on"
assert_eq "$(field reason)" 8 "REJ reason"

for sid in $((LINUX_SID | 0x$qpn)) $((RFC_SID | 0x$qpn)); do
	probe "dev=sib0 port=1 dgid=$dgid sid=$(printf '0x%x' "$sid") pdata=good"
	assert_eq "$(field outcome)" rep "good REQ to $(printf '0x%x' "$sid")"
	assert_eq "$(field pdata | cut -c1-8)" "00$qpn" "UD QPN in our REP"
	assert_eq "$(field teardown)" drep "our answer to the DREQ"
done

assert_eq "$(verbs sib0)" "$idle" "sib0 verbs objects after the probes"
wait_for 20 verbs_are sib1 "$idle1" ||
	fail "sib1 verbs objects 20 s after the DREQs: $(verbs sib1), not $idle1"

step "ours: a half-made connection when the interface goes down"
half_made h2 "$b" "$to pdata=good"
if [ "$(field outcome)" = rej ]; then
	# No Resources: ours going down is no crossing (Consumer Reject).
	assert_eq "$reason" 3 "REJ reason when going down before the REP"
	assert_eq "${pd:0:8}" "00$qpn" "UD QPN in that REJ"
else
	assert_eq "$(field teardown)" rej "how our half-made connection ended"
	assert_eq "$reason" 28 "REJ reason when going down after the REP (the CM's)"
fi
wait_for 20 verbs_are sib1 "$idle1" ||
	fail "sib1 verbs objects after the half-made connection: $(verbs sib1), not $idle1"

step "ours: our RTU names our UD QPN"
# A made-up neighbour of h1's whose service IDs a probe listen holds,
# answering with a REP h1 takes (receive MTU 2^32-1 reads as no limit).
fake=0xf00123
for form in 0x1000000000000000 0x0100000000000000; do
	echo "listen dev=sib1 sid=$(printf '%x' $((form | fake))) answer=rep-mtu-max" >"$PROBE"
done
a_qpn=$(ud_qpn h1 "$a")
ip -n h1 neigh replace 10.4.0.99 nud permanent dev "$a" \
	lladdr "$(printf '80:%02x:%02x:%02x:' $((fake >> 16)) $((fake >> 8 & 255)) $((fake & 255)))$(sed 's/../&:/g; s/:$//' <<<"${dgid//:/}")"
# shellcheck disable=SC2317 # called by wait_for
rtu_seen() { grep -q '^rtu_pdata ' "$PROBE"; }
# The fake QP answers nothing.  When a send to it failed at once, h1's
# DREQ followed its RTU at once, and ib_cm (a work item per MAD, per CPU)
# could hand the listen the DREQ first, and then never the RTU.  Now the
# send waits out its retries (about a second on sib) and the listen's own
# DREQ, sent once it has the RTU, ends the connection first.  For a CM
# slower than that: another connection, after h1's back-off, sends
# another RTU.
for try in 1 2 3; do
	ip netns exec h1 ping -c 1 -W 1 10.4.0.99 >/dev/null 2>&1 || true
	! wait_for 10 rtu_seen || break
	echo "try $try: the RTU was not handed to the listen"
done
rtu_seen || { cat "$PROBE"; fail "no RTU came to the listen in 3 connections"; }
grep -E '^(listens|rtu_pdata) ' "$PROBE"
assert_eq "$(awk '$1 == "rtu_pdata" { print substr($2, 1, 8) }' "$PROBE")" "00$a_qpn" \
	"UD QPN in h1's RTU"
for form in 0x1000000000000000 0x0100000000000000; do
	echo "unlisten sid=$(printf '%x' $((form | fake)))" >"$PROBE"
done
ip -n h1 neigh del 10.4.0.99 dev "$a"

step "our interfaces still carry traffic"
assert on h1 ping -c 2 -i 0.2 -W 3 10.4.0.2
assert on h1 ping -c 2 -i 0.2 -W 3 -s 60000 10.4.0.2
pass
