#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Four GIDs per port (sib gids=4; gids=9 is refused at load, with a line
# saying why): entry 0 the port GUID's, 1-3 alias GUIDs, as an SM assigns
# them for SR-IOV functions (the built-in SM: the port GUID with the
# index in bits 39:32; under OpenSM, --sm opensm, the same ones restored
# from its SA database and set through GUIDInfo).  sysfs shows the four
# GIDs of each port, the SMA's PortInfo a GUIDCap of 4 and the SA's
# GUIDInfoRecord the four GUIDs; the SA answers a PathRecord between
# alias GIDs, carrying the GIDs asked for, and none for a GID no port
# has.  UD datagrams (the rdmaprobe module) from each SGID entry of sib0
# to an alias GID of sib1 arrive, their bytes compared, and the
# receiver's GRH holds the SGID used; one to a GID sib1 lacks is dropped
# there and counted (drop_bad_dgid), and an address handle with SGID
# index 4 is refused.  The SA takes sib0's join to a multicast group by
# an alias GID as its PortGID (mad-send: an MCMemberRecord Set), lists
# the group (saquery) and takes the leave by it; a join by a GID no port
# has (sib0's would-be GID 4) is refused.  Both IPoIB drivers, the in-tree one then
# ours, whose interfaces use GID 0, still ping and carry TCP.
#
#   h1: ib (sib0) 10.49.0.1  ===  h2: ib (sib1) 10.49.0.2
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

GIDS=4

gid_at() { cat "/sys/class/infiniband/$1/ports/1/gids/$2"; }
# shellcheck disable=SC2317 # called through wait_for
gid_is() { [ "$(gid_at "$1" "$2")" = "$3" ]; }

# gid_full GID: an IPv6-form GID as sysfs prints it, eight groups of four
# digits (saquery prints them compressed).
gid_full() {
	local l=() r=() out=() i
	if [[ $1 == *::* ]]; then
		[ -z "${1%%::*}" ] || IFS=: read -ra l <<<"${1%%::*}"
		[ -z "${1#*::}" ] || IFS=: read -ra r <<<"${1#*::}"
		for ((i = ${#l[@]} + ${#r[@]}; i < 8; i++)); do
			l+=(0)
		done
		l+=("${r[@]}")
	else
		IFS=: read -ra l <<<"$1"
	fi
	for i in "${l[@]}"; do
		out+=("$(printf '%04x' "0x$i")")
	done
	(IFS=:; echo "${out[*]}")
}

# pr_field NAME: a field of the PathRecord saquery printed on stdin.
pr_field() { sed -n "s/^[[:space:]]*$1\.\.*//p" | head -n 1; }

# MCMemberRecord for mad-send (IBA 15.2.5.17): a group of our own, the
# bytes up to JoinState.  mcm PORT_GID JOIN_STATE; MCM_JOIN, the
# components of a join that creates the group: MGID, PortGID, Q_Key,
# TClass, P_Key, SL, FlowLabel, JoinState; MCM_LEAVE: MGID, PortGID,
# JoinState.
MGID=ff12:e001:0000:0000:0000:0000:0000:0033
MCM_JOIN=0x130c7
MCM_LEAVE=0x10003
mcm() {
	# Q_Key 0xb1b, MLID 0, MTU, TClass 0, P_Key ffff, Rate, Life 0,
	# SL, FlowLabel, HopLimit 0, Scope 2 and JoinState.
	printf '%s%s%s%s%s%s%s%s%x\n' "${MGID//:/}" "${1//:/}" 00000b1b 0000 0000 \
		ffff 0000 00000000 $((0x20 | $2))
}
# mcm_set METHOD PORT_GID JOIN_STATE MASK: sib0's request; the answer.
mcm_set() { mad-send "$umad" sa "$sa_lid" "$1" 0x38 "$4" "$(mcm "$2" "$3")"; }
status() { sed -n 's/^status //p' <<<"$1"; }
# The answer's PortGID: record bytes 16-31, its second line.
answer_gid() { sed -n 3p <<<"$1" | sed 's/\(....\)/\1:/g; s/:$//'; }
mcm_listed() { saquery -C sib0 -P 1 MCMR | grep -qi 'ff12:e001::33'; }

# shellcheck disable=SC2317 # called through wait_for
bad_dgid_over() { [ "$(sib_counter sib1 1 drop_bad_dgid)" -gt "$1" ]; }

# ud_line IBDEV: the rdmaprobe UD endpoint's state line on IBDEV port 1.
ud_line() { grep "^ud $1:1 qpn " "$RP_CTL"; }
ud_received() { ud_line "$1" | awk '{ print $6 }'; }
# shellcheck disable=SC2317 # called through wait_for
ud_has() { [ "$(ud_received "$1")" -ge "$2" ]; }

step "gids=9 refused at load, saying why"
! modprobe sib gids=9 2>/dev/null || fail "sib loaded with gids=9"
dmesg | grep -q 'sib: gids=9 out of range 1-8' || fail "no line saying gids=9 is out of range"

fabric_up devices=2 ports=1 gids=$GIDS
modprobe ib_umad
lid1=$(lid_of sib0)
lid2=$(lid_of sib1)
guid1=$(port_guid sib0 1)
guid2=$(port_guid sib1 1)
echo "sib0: LID $lid1 GUID $guid1, sib1: LID $lid2 GUID $guid2"

step "the GID tables: $GIDS entries, 0 the port GUID's, then its aliases"
for dev in sib0 sib1; do
	guid=$(port_guid "$dev" 1)
	assert_eq "$(find "/sys/class/infiniband/$dev/ports/1/gids" -mindepth 1 | wc -l)" "$GIDS" "$dev GID table entries in sysfs"
	for ((k = 0; k < GIDS; k++)); do
		want=$(guid_gid "$(alias_guid "$guid" "$k")")
		# Under OpenSM the aliases come with its first sweep's GUIDInfo Set.
		wait_for 20 gid_is "$dev" "$k" "$want" || true
		echo "$dev GID $k: $(gid_at "$dev" "$k")"
		assert_eq "$(gid_at "$dev" "$k")" "$want" "$dev GID $k"
	done
	pi=$(smpquery -C sib0 -P 1 portinfo "$(lid_of "$dev")") || fail "no PortInfo from $dev"
	assert_eq "$(diag_field GuidCap <<<"$pi")" "$GIDS" "$dev PortInfo GuidCap"
done
smpquery -C sib0 -P 1 guidinfo "$lid2" | sed 's/^/   /' || fail "no GUIDInfo from sib1"
gir=$(saquery -C sib0 -P 1 GIR "$lid2") || fail "no GUIDInfoRecord of sib1 from the SA"
echo "${gir//$'\n'/$'\n'   }"
for ((k = 0; k < GIDS; k++)); do
	grep -qi -- "$(alias_guid "$guid2" "$k")" <<<"$gir" ||
		fail "the SA's GUIDInfoRecord of sib1 lacks GUID $k, $(alias_guid "$guid2" "$k")"
done

step "the SA: a path between alias GIDs carries them"
sgid=$(gid_at sib0 2)
dgid=$(gid_at sib1 3)
pr=$(saquery -C sib0 -P 1 --sgid-to-dgid "$sgid-$dgid") ||
	fail "no PathRecord from $sgid to $dgid"
echo "${pr//$'\n'/$'\n'   }"
assert_eq "$(gid_full "$(pr_field sgid <<<"$pr")")" "$sgid" "the path's SGID"
assert_eq "$(gid_full "$(pr_field dgid <<<"$pr")")" "$dgid" "the path's DGID"
assert_eq "$(($(pr_field slid <<<"$pr")))" "$lid1" "the path's SLID"
assert_eq "$(($(pr_field dlid <<<"$pr")))" "$lid2" "the path's DLID"
nobody=$(guid_gid "$(alias_guid "$guid2" "$GIDS")")
# None: an empty table (the built-in SA, as OpenSM's GetTable) or an error.
pr=$(saquery -C sib0 -P 1 --sgid-to-dgid "$sgid-$nobody" 2>&1) || true
! grep -q 'PathRecord dump' <<<"$pr" ||
	fail "a PathRecord to $nobody, a GID no port has: $pr"

step "UD datagrams from each SGID entry to an alias GID of sib1"
rp_up
rp_ok - "udopen sib1 1"
qpn=$(sed -n 's/^ud sib1:1 open: qpn \(0x[0-9a-f]*\) .*/\1/p' <<<"$RP_OUT")
rp_ok - "udopen sib0 1"
got=0
for ((s = 0; s < GIDS; s++)); do
	d=$(((s + 1) % GIDS))
	rp_ok - "udsend sib0 1 qpn=$qpn lid=$lid2 dgid=$(gid_at sib1 "$d") sgid=$s len=1000"
	got=$((got + 1))
	wait_for 10 ud_has sib1 "$got" || fail "sib1 did not receive datagram $got"
	line=$(ud_line sib1)
	echo "   $line"
	[[ $line == *" len 1000 "*" bytes ok "* ]] || fail "datagram $got: not the 1000 bytes sent"
	[[ $line == *" sgid $(gid_at sib0 "$s") dgid $(gid_at sib1 "$d")" ]] ||
		fail "datagram $got: the GRH does not hold SGID $s of sib0 and GID $d of sib1"
done

step "to a GID sib1 lacks: dropped and counted; SGID index $GIDS refused"
drops=$(sib_counter sib1 1 drop_bad_dgid)
rp_ok - "udsend sib0 1 qpn=$qpn lid=$lid2 dgid=$nobody len=100"
wait_for 10 bad_dgid_over "$drops" ||
	fail "sib1 did not count a datagram to $nobody as dropped"
echo "sib1 drop_bad_dgid: $drops -> $(sib_counter sib1 1 drop_bad_dgid)"
assert_eq "$(ud_received sib1)" "$got" "datagrams sib1 received"
rp_refused - "udsend sib0 1 qpn=$qpn lid=$lid2 dgid=$dgid sgid=$GIDS"
rp_has "no address handle with SGID index $GIDS: -22"
rp_ok - "udclose sib0 1"
rp_ok - "udclose sib1 1"

step "the SA: sib0 joins a group by an alias GID and leaves by it"
umad=$(umad_of sib0 1) || fail "no umad device for sib0 port 1"
sa_lid=$(($(cat /sys/class/infiniband/sib0/ports/1/sm_lid)))
alias=$(gid_at sib0 2)
ans=$(mcm_set 0x02 "$alias" 1 $MCM_JOIN) || fail "no answer to a join by $alias"
echo "$ans"
assert_eq "$(status "$ans")" 0x0000 "status of sib0's join by its GID 2"
assert_eq "$(answer_gid "$ans")" "$alias" "the join's PortGID"
mcm_listed || fail "the SA does not list $MGID after the join"
# (OpenSM takes a join by another port's GID from any port sharing its
# partition, as a proxy join; the built-in SA does not.)
stranger=$(guid_gid "$(alias_guid "$guid1" "$GIDS")")
ans=$(mcm_set 0x02 "$stranger" 1 $MCM_JOIN) || fail "no answer to a join by $stranger"
echo "$ans" | head -n 1
[ "$(status "$ans")" != 0x0000 ] || fail "the SA took a join by $stranger, a GID no port has"
ans=$(mcm_set 0x15 "$alias" 1 $MCM_LEAVE) || fail "no answer to a leave by $alias"
assert_eq "$(status "$ans")" 0x0000 "status of sib0's leave by its GID 2"
! mcm_listed || fail "the SA still lists $MGID, its only member gone"

# run DRIVER NET: DRIVER's interfaces (ib_ipoib) ping and carry TCP.
run() {
	step "$1: pings and TCP, interfaces on GID 0"
	two_hosts ib_ipoib "$2"
	assert on h1 ping -c 3 -i 0.2 -W 3 "$2.2"
	assert on h2 ping -c 3 -i 0.2 -W 3 "$2.1"
	tcp_exact h2 "$2.2" h1 2 "$1 TCP"
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	rmmod ib_ipoib
}

intree_up
run intree 10.49.0
ours_up
run ours 10.50.0
sib_counters sib1 1
pass
