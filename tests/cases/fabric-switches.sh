#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Three switches in a line (sib switches=3; switches=5 is refused at load,
# with a line saying why): the two HCA ports hang on the two end switches,
# so every path between the hosts crosses all three.  ibnetdiscover finds
# the three switches by directed route through them, each with its own
# GUID and LID, the links between them and both HCAs; ibtracert follows
# each switch's LFT from sib0 to sib1, hop by hop, through the three.  The
# SA's path between the hosts has the packet lifetime OpenSM's rule
# gives: its subnet timeout whatever the hops (osm_sa_path_record.c counts
# a path's hops only against its limit of 64), 14 from the built-in SM,
# 18, OpenSM's default, under OpenSM.  Then the in-tree driver (the
# witness) and ours, in datagram and connected mode: pings and 2 MiB over
# TCP (every byte checked) from one end switch to the other, and no packet
# dropped on the way for want of a route.  The data crosses each switch
# by its LFT, hop by hop: perfquery shows the TCP stream on both ends of
# the link from switch 0 to switch 1 (PortXmitData and PortRcvData, in
# 4-octet words), and broadcast pings, crossing by the MFTs, as
# multicast packets there (PortMulticastXmitPkts, PortMulticastRcvPkts).
# Under OpenSM (--sm opensm) the same proves that OpenSM found the line
# and programmed every switch's LFT and MFT.
#
#   h1: ib (sib0) 10.49.0.1 == [switch 0] == [switch 1] == [switch 2] == h2: ib (sib1) 10.49.0.2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

SWITCHES=3
FROM=(-C sib0 -P 1)
SW_GUID=$((0x5eb1b0ff00000001))
LIFE=0x0e
[ "$SIB_SM" = builtin ] || LIFE=0x12

gid_of() { cat "/sys/class/infiniband/$1/ports/1/gids/0"; }
sw_name() { printf 'S-%016x' $((SW_GUID + $1)); }
# sw_block S: switch S's lines in ibnetdiscover's $topo; sw_lid S, its LID.
sw_block() { awk -v s="\"$(sw_name "$1")\"" '$1 == "Switch" { on = $3 == s } on' <<<"$topo"; }
sw_lid() { sw_block "$1" | sed -n 's/^Switch.* lid \([0-9]*\) .*/\1/p'; }
# isl_data LID PORT FIELD: PortXmitData or PortRcvData of a switch's port.
isl_data() { perfquery "${FROM[@]}" -x "$1" "$2" | diag_field "$3"; }
# isl_mcast: multicast packets switch 0 sent out of its top port and
# switch 1 received by its own.
isl_mcast() {
	echo "$(isl_data "$sw0" "$isl0" PortMulticastXmitPkts) $(isl_data "$sw1" "$isl1" PortMulticastRcvPkts)"
}
# shellcheck disable=SC2317 # called by wait_for
isl_mcast_ge() {
	local tx rx
	read -r tx rx <<<"$(isl_mcast)"
	[ "$tx" -ge "$1" ] && [ "$rx" -ge "$2" ]
}
unrouted() { echo $(($(sib_counter "$1" 1 drop_unrouted) + $(sib_counter "$1" 1 drop_port_down))); }

step "switches=5 refused at load, saying why"
! modprobe sib switches=5 2>/dev/null || fail "sib loaded with switches=5"
dmesg | grep -q 'sib: switches=5 out of range 1-4' || fail "no line saying switches=5 is out of range"

fabric_up devices=2 ports=1 switches=$SWITCHES
modprobe ib_umad
lid1=$(lid_of sib0)
lid2=$(lid_of sib1)
echo "sib0: LID $lid1, sib1: LID $lid2"

step "ibnetdiscover: $SWITCHES switches in a line, an HCA on each end"
topo=$(ibnetdiscover "${FROM[@]}")
echo "$topo"
assert_eq "$(grep -c '^Switch' <<<"$topo")" "$SWITCHES" "switches found"
assert_eq "$(grep -c '^Ca' <<<"$topo")" 2 "HCAs found"
for s in $(seq 0 $((SWITCHES - 1))); do
	assert grep -q "^Switch[[:space:]].*\"S-$(printf '%016x' $((SW_GUID + s)))\"" <<<"$topo"
done
# Each link is listed from both its ends: the two HCAs' and the two
# between switches.
assert_eq "$(grep -c '4xEDR' <<<"$topo")" $((2 * (2 + SWITCHES - 1))) "link ends at 4xEDR"
# The link from switch 0 to switch 1: "[3] "S-...02"[2]" in switch 0's block.
isl=$(sw_block 0 | sed -n "s/^\[\([0-9]*\)\][[:space:]]*\"$(sw_name 1)\"\[\([0-9]*\)\].*/\1 \2/p")
read -r isl0 isl1 <<<"$isl"
[ -n "$isl0" ] || fail "no link from switch 0 to switch 1 in ibnetdiscover"
sw0=$(sw_lid 0)
sw1=$(sw_lid 1)
echo "switch 0 (LID $sw0) port $isl0 == switch 1 (LID $sw1) port $isl1"

step "ibtracert: sib0 to sib1 through the $SWITCHES switches, by their LFTs"
trace=$(ibtracert "${FROM[@]}" "$lid1" "$lid2")
echo "$trace"
hops=$(grep -- '-> switch port' <<<"$trace" | sed 's/.*{0x\([0-9a-f]*\)}.*/\1/')
assert_eq "$(wc -l <<<"$hops")" "$SWITCHES" "switches on the way"
want=$(for s in $(seq 0 $((SWITCHES - 1))); do printf '%016x\n' $((SW_GUID + s)); done)
assert_eq "$(tr '\n' ' ' <<<"$hops")" "$(tr '\n' ' ' <<<"$want")" "the switches, in order"
assert grep -q "^To ca .* lid $lid2-$lid2 " <<<"$trace"

step "the SA's path sib0 -> sib1: the subnet timeout as lifetime, as OpenSM's rule"
pr=$(saquery "${FROM[@]}" PR --sgid "$(gid_of sib0)" --dgid "$(gid_of sib1)")
echo "$pr"
life=$(sed -n 's/^[[:space:]]*pkt_life\.*//p' <<<"$pr" | head -n 1)
assert_eq "$((life & 0x3f))" "$((LIFE))" "packet lifetime"
assert_eq "$(sed -n 's/^[[:space:]]*dlid\.*//p' <<<"$pr" | head -n 1)" "$lid2" "the path's DLID"

# run DRIVER NET: both modes on DRIVER's interfaces (ib_ipoib), checked.
run() {
	local drv=$1 net=$2 u1 u2 tx rx mtx mrx
	u1=$(unrouted sib0)
	u2=$(unrouted sib1)
	step "$drv: datagram mode, end switch to end switch"
	two_hosts ib_ipoib "$net"
	assert on h1 ping -c 3 -i 0.2 -W 3 "$net.2"
	assert on h2 ping -c 3 -i 0.2 -W 3 "$net.1"
	tx=$(isl_data "$sw0" "$isl0" PortXmitData)
	rx=$(isl_data "$sw1" "$isl1" PortRcvData)
	tcp_exact h2 "$net.2" h1 2 "$drv datagram TCP"
	tx=$(($(isl_data "$sw0" "$isl0" PortXmitData) - tx))
	rx=$(($(isl_data "$sw1" "$isl1" PortRcvData) - rx))
	echo "$drv: switch 0 port $isl0 sent $tx words, switch 1 port $isl1 received $rx"
	# 2 MiB of payload and its headers (under a quarter more), in words.
	assert_ge "$tx" $((2 << 18)) "$drv: switch 0 PortXmitData"
	assert_ge $(((2 << 18) * 5 / 4)) "$tx" "$drv: switch 0 PortXmitData (words, not octets)"
	assert_ge "$rx" $((2 << 18)) "$drv: switch 1 PortRcvData"

	# Broadcast pings go to the broadcast group's MLID (and get no echo:
	# hosts ignore them), over the link by the switches' MFTs.
	step "$drv: multicast crosses the link too, by the MFTs"
	read -r tx rx <<<"$(isl_mcast)"
	on h1 ping -b -c 3 -i 0.2 -W 0.2 "$net.255" || true
	wait_for 5 isl_mcast_ge $((tx + 3)) $((rx + 3)) || true
	read -r mtx mrx <<<"$(isl_mcast)"
	echo "$drv: switch 0 port $isl0 sent $((mtx - tx)) multicast packets, switch 1 port $isl1 received $((mrx - rx))"
	assert_ge $((mtx - tx)) 3 "$drv: switch 0 PortMulticastXmitPkts"
	assert_ge $((mrx - rx)) 3 "$drv: switch 1 PortMulticastRcvPkts"

	step "$drv: connected mode"
	two_hosts_connected
	assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 "$net.2"
	tcp_exact h2 "$net.2" h1 2 "$drv connected TCP"
	assert_eq "$(($(unrouted sib0) - u1)) $(($(unrouted sib1) - u2))" "0 0" \
		"$drv: packets dropped on the way (unrouted, port down) at sib0, sib1"
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	rmmod ib_ipoib
}

intree_up
run intree 10.49.0
ours_up
run ours 10.50.0
sib_counters sib0 1
sib_counters sib1 1
pass
