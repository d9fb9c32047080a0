#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's infiniband-diags on the fabric, as a user debugging IPoIB runs
# them, beside Debian's unmodified ib_ipoib: ibstat; the HCAs' and the
# switch's subnet management agents by directed route and by LID
# (smpquery, ibroute); the topology (ibnetdiscover); the SM (sminfo); the
# performance agents counting what ping and iperf3 sent (perfquery, and
# ib_core's sysfs counters through them); the SA's groups, paths and SM
# ports (saquery); SubnSets by directed route that the tools cannot send
# (mad-send): a P_KeyTable the in-tree driver's children then use, and
# what the agents answer to what they do not have; and a port taken down,
# armed and activated by SubnSet (ibportstate) with IPoIB following it.
#
#   h1: ib (sib0 port 1)          switch, LID 1: SM, SA           h2: ib (sib1 port 1)
#   10.12.0.1 fd12::1  ======  [port P0]  ...  [port P1]  ======  10.12.0.2 fd12::2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# What this case reads is the built-in SM's own doing (its SM at the
# switch's LID 1, its SA's tables, SubnSets that OpenSM would undo at its
# next sweep): it runs under the built-in SM whatever --sm says, and
# osm-fabric asks the same tools under OpenSM.
SIB_SM=builtin
SW_GUID=0x5eb1b0ff00000001
BCAST=ff12:401b:ffff::ffff:ffff
# The tools speak from sib0 port 1, whatever order they find the HCAs in.
FROM=(-C sib0 -P 1)

# sa_field NAME: the value of saquery's "NAME.......value" line.
sa_field() { sed -n "s/^[[:space:]]*$1\.\.*//p" | head -n 1; }
# guid_of IBDEV: port 1's GUID, from its GID.
guid_of() {
	printf '0x%s\n' "$(cut -d: -f5-8 "/sys/class/infiniband/$1/ports/1/gids/0" | tr -d :)"
}
sq() { smpquery "${FROM[@]}" "$@"; }
pma() { perfquery "${FROM[@]}" "$@"; }
# status_of ARGS...: the status of the answer mad-send gets from sib0 port 1.
status_of() { mad-send "$umad" "$@" | sed -n 's/^status //p'; }
# shellcheck disable=SC2317 # called by wait_for
carrier_off() { ! carrier_is_on "$@"; }
# shellcheck disable=SC2317 # called by wait_for
port_state_is() { ibstat "$1" 1 | grep -qx "State: $2"; }

fabric_up devices=2 ports=1
modprobe ib_umad
intree_up
two_hosts ib_ipoib 10.12.0 fd12
lid0=$(lid_of sib0)
lid1=$(lid_of sib1)
guid0=$(guid_of sib0)
guid1=$(guid_of sib1)
echo "sib0 port 1: LID $lid0 GUID $guid0; sib1 port 1: LID $lid1 GUID $guid1"

step "ibstat: both ports Active, with their LIDs and the SM's"
for dev in sib0 sib1; do
	out=$(ibstat "$dev" 1)
	echo "$out"
	assert_eq "$(diag_field State <<<"$out")" Active "$dev state"
	assert_eq "$(diag_field 'Physical state' <<<"$out")" LinkUp "$dev physical state"
	assert_eq "$(diag_field 'Base lid' <<<"$out")" "$(lid_of "$dev")" "$dev LID"
	assert_eq "$(diag_field 'SM lid' <<<"$out")" 1 "$dev SM LID"
done

step "the HCA's SMA: by directed route (local) and by LID (across the fabric)"
out=$(sq nodeinfo -D 0)
echo "$out"
assert_eq "$(diag_field NodeType <<<"$out")" "Channel Adapter" "node type"
assert_eq "$(diag_field PortGuid <<<"$out")" "$guid0" "sib0 port GUID"
assert_eq "$(diag_field LocalPort <<<"$out")" 1 "local port"
out=$(sq portinfo -D 0)
assert_eq "$(diag_field LinkState <<<"$out")" Active "sib0 link state"
assert_eq "$(diag_field Lid <<<"$out")" "$lid0" "sib0 LID in PortInfo"
assert_eq "$(diag_field SMLid <<<"$out")" 1 "sib0 SM LID in PortInfo"
assert_eq "$(diag_field NeighborMTU <<<"$out")" 2048 "sib0 active MTU"
assert_eq "$(sq nodedesc "$lid1" | diag_field 'Node Description')" "sib software HCA 1" "sib1 by LID"
assert_eq "$(sq nodeinfo "$lid1" | diag_field PortGuid)" "$guid1" "sib1 port GUID by LID"

step "the switch, one hop away by directed route"
out=$(sq nodeinfo -D 0,1)
echo "$out"
assert_eq "$(diag_field NodeType <<<"$out")" Switch "node type one hop away"
assert_eq "$(diag_field Guid <<<"$out")" "$SW_GUID" "switch GUID"
assert_eq "$(diag_field NumPorts <<<"$out")" 2 "switch ports"
p0=$(diag_field LocalPort <<<"$out")
out=$(sq portinfo -D 0,1 0)
assert_eq "$(diag_field Lid <<<"$out")" 1 "switch port 0 LID"
assert grep -q IsSM <<<"$out"
p1=
for p in 1 2; do
	if [ "$(sq nodeinfo -D "0,1,$p" | diag_field PortGuid)" = "$guid1" ]; then
		p1=$p
	fi
done
[ -n "$p1" ] || fail "no switch port leads to sib1 by directed route"
echo "sib0 on switch port $p0, sib1 on switch port $p1"
assert_eq "$(sq portinfo -D "0,1,$p1" | diag_field Lid)" "$lid1" "sib1 LID, two hops away"
assert_eq "$(sq portinfo -D 0,1 "$p1" | diag_field LinkState)" Active "switch port $p1 state"
out=$(ibroute "${FROM[@]}" 1)
echo "$out"
assert grep -q "^$(printf '0x%04x %03d ' "$lid1" "$p1")" <<<"$out"
assert grep -q "^$(printf '0x%04x %03d ' "$lid0" "$p0")" <<<"$out"
ibtracert "${FROM[@]}" "$lid0" "$lid1"

step "ibnetdiscover: the switch and both HCA ports behind it"
topo=$(ibnetdiscover "${FROM[@]}")
echo "$topo"
assert grep -q "^Switch[[:space:]]2 \"S-${SW_GUID#0x}\".*# \"sib switch\" base port 0 lid 1 " <<<"$topo"
assert_eq "$(grep -c '^Ca' <<<"$topo")" 2 "HCAs found"
for pg in "$p0:$guid0:$lid0" "$p1:$guid1:$lid1"; do
	IFS=: read -r p g l <<<"$pg"
	assert grep -q "^\[$p\][[:space:]].*($(printf '%x' "$g")).* lid $l 4xEDR" <<<"$topo"
done

step "sminfo: the built-in SM, master at LID 1"
out=$(sminfo "${FROM[@]}")
echo "$out"
assert grep -q "sm lid 1 sm guid $SW_GUID,.* SMINFO_MASTER" <<<"$out"

step "perfquery: the PMAs count what ping and iperf3 sent"
tx0=$(pma -x | diag_field PortXmitPkts)
rx0=$(pma -x "$lid1" 1 | diag_field PortRcvPkts)
sw0=$(pma -x 1 "$p0" | diag_field PortRcvPkts)
sys0=$(cat /sys/class/infiniband/sib0/ports/1/counters/port_xmit_packets)
assert on h1 ping -c 20 -i 0.1 -W 2 10.12.0.2
assert_ge "$(($(pma -x | diag_field PortXmitPkts) - tx0))" 20 "sib0 PortXmitPkts"
assert_ge "$(($(pma -x "$lid1" 1 | diag_field PortRcvPkts) - rx0))" 20 "sib1 PortRcvPkts"
assert_ge "$(($(pma -x 1 "$p0" | diag_field PortRcvPkts) - sw0))" 20 "switch port $p0 PortRcvPkts"
assert_ge "$(($(cat /sys/class/infiniband/sib0/ports/1/counters/port_xmit_packets) - sys0))" 20 \
	"sib0 port_xmit_packets in sysfs"
data0=$(pma -x "$lid1" 1 | diag_field PortRcvData)
tcp_exact h2 10.12.0.2 h1 16 "TCP h1 -> h2"
bytes=$((16 << 20))
data=$(($(pma -x "$lid1" 1 | diag_field PortRcvData) - data0))
echo "iperf3: $bytes bytes; sib1 PortRcvData +$data words"
assert_ge "$((data * 4))" "$bytes" "sib1 PortRcvData (4-octet words)"
pma "$lid1" 1
before=$(pma "$lid1" 1 | diag_field PortRcvPkts)
pma -R "$lid1" 1
after=$(pma "$lid1" 1 | diag_field PortRcvPkts)
echo "sib1 PortRcvPkts $before before the reset, $after after"
[ "$after" -lt "$before" ] || fail "perfquery -R did not reset sib1's PortRcvPkts"

step "saquery: the broadcast group, the paths, the SM's port"
out=$(saquery "${FROM[@]}" -g)
echo "$out"
grp=$(grep -A5 "MGID\.*$BCAST\$" <<<"$out") || fail "saquery -g does not list $BCAST"
mlid=$(awk '$1 == "ff12:401b:ffff:0000:0000:0000:ffff:ffff" { print $3 }' "$SIB/sa_groups")
assert_eq "$(sa_field Mlid <<<"$grp" | tr A-F a-f)" "$mlid" "broadcast group MLID"
assert_eq "$(sa_field pkey <<<"$grp")" 0xFFFF "broadcast group P_Key"
assert_eq "$(sa_field Mtu <<<"$grp")" 0x84 "broadcast group MTU (exactly 2048)"
out=$(saquery "${FROM[@]}" -p)
assert_eq "$(grep -c 'PathRecord dump' <<<"$out")" 9 \
	"paths between 3 end ports (2 HCAs, the switch's port 0), each way and to itself"
out=$(saquery "${FROM[@]}" -p --src-to-dst "$lid0:$lid1")
echo "$out"
assert_eq "$(sa_field slid <<<"$out")" "$lid0" "path source LID"
assert_eq "$(sa_field dlid <<<"$out")" "$lid1" "path destination LID"
assert_eq "$(sa_field mtu <<<"$out")" 0x84 "path MTU (exactly 2048)"
out=$(saquery "${FROM[@]}" -s)
echo "$out"
assert_eq "$(sed -n '/^IsSM ports/,/^IsSMdisabled/p' <<<"$out" | sa_field EndPortLid)" 1 "IsSM port LID"
caps=$(sed -n '/^IsSM ports/,/^IsSMdisabled/p' <<<"$out" | sa_field capability_mask)
assert_eq "$((caps & 2))" 2 "IsSM in its capability mask"

step "SubnSet P_KeyTable by directed route, here and through the switch"
umad=$(umad_of sib0 1)
out=$(mad-send "$umad" smp 0 2 0x16 0 ffff8001)
echo "$out"
assert_eq "$(head -n 1 <<<"$out")" "status 0x0000" "P_KeyTable set on sib0"
assert grep -q "^ffff8001" <<<"$out"
assert_eq "$(status_of smp "0,1,$p1" 2 0x16 0 ffff8001)" 0x0000 "P_KeyTable set on sib1, 2 hops away"
assert_eq "$(cat /sys/class/infiniband/sib1/ports/1/pkeys/1)" 0x8001 "sib1 P_Key 1 (ib_core's cache)"
assert_eq "$(cut -d' ' -f2 "$SIB/sib0/port1/pkeys")" 0x8001 "sib0 P_Key 1 (the fabric's table)"
wait_for 10 grep -q "^ff12:401b:8001:0000:0000:0000:ffff:ffff .* permanent" "$SIB/sa_groups" ||
	fail "the SM made no broadcast group for partition 0x8001"
ip -n h1 link add link "$a" name "$a.8001" type ipoib pkey 0x8001
ip -n h2 link add link "$b" name "$b.8001" type ipoib pkey 0x8001
ip -n h1 addr add 10.13.0.1/24 dev "$a.8001"
ip -n h2 addr add 10.13.0.2/24 dev "$b.8001"
ip -n h1 link set "$a.8001" up
ip -n h2 link set "$b.8001" up
wait_carrier h1 "$a.8001"
wait_carrier h2 "$b.8001"
assert on h1 ping -c 3 -i 0.2 -W 2 10.13.0.2

step "what the agents answer to what they do not have"
assert_eq "$(status_of smp 0 1 0xff20 0)" 0x000c "SubnGet of an unknown attribute"
assert_eq "$(status_of smp 0 2 0x11 0)" 0x000c "SubnSet of NodeInfo, read-only"
assert_eq "$(status_of smp 0 3 0x11 0)" 0x0008 "method 3 (Send) to an SMA"
assert_eq "$(status_of smp 0 1 0x15 9)" 0x001c "PortInfo of port 9 of a 1-port HCA"
assert_eq "$(status_of smp 0,1 2 0x19 0)" 0x000c "SubnSet of the switch's LFT"
assert_eq "$(status_of pma "$lid1" 1 0x99 0)" 0x000c "PMA Get of an unknown attribute"
assert_eq "$(status_of pma "$lid1" 1 0x12 0 00000000)" 0x001c "PortCounters of port 0 of an HCA"

step "ibportstate: sib1 down, armed, active by SubnSet; IPoIB follows"
ibportstate "${FROM[@]}" "$lid1" 1 down
wait_for 10 port_state_is sib1 Initializing || fail "sib1 did not come back in INIT"
wait_for 10 carrier_off h2 "$b" || fail "h2 kept its carrier with the port in INIT"
ibportstate "${FROM[@]}" "$lid1" 1 arm
assert port_state_is sib1 Armed
ibportstate "${FROM[@]}" "$lid1" 1 active
assert port_state_is sib1 Active
wait_carrier h2 "$b"
assert on h1 ping -c 3 -i 0.2 -W 2 10.12.0.2
pass
