#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A link between two switches taken down and brought back under OpenSM,
# as an operator does it: ibportstate disable and enable on the switch's
# port, a PortInfo Set the switch honours.  Three switches in a line
# (sib switches=3, sm=external), the hosts on the two end switches, our
# driver on both.  Traffic crosses both links between switches, and
# perfquery shows it on each end of the first one: what switch 0 sent
# out of its top port (PortXmitData in 4-octet words, PortXmitPkts),
# what switch 1 received by its own.  Then the link goes down: switch 0's
# Trap 128 has OpenSM sweep, find switches 1 and 2 and sib1 gone (its SA
# lists one switch, ibnetdiscover finds one); pings either way fail,
# neither host receiving anything; switch 0 counts what it could not
# forward (a relay error once OpenSM has left it no route, a discard
# before), and switch 1, which OpenSM no longer reaches and whose LFT
# still leads to the dead port, discards what h2 sends (perfquery from
# sib1), LinkDowned 1 at both ends; h2's broadcast pings, which switch
# 1's MFT sends to the dead port, are discards there too, and so is an
# SMP sent by directed route over the link, at switch 0.  Enabled again,
# OpenSM finds the line whole and TCP crosses it again, every byte
# checked.
#
#   h1: ib (sib0) 10.52.0.1 == [switch 0] =X= [switch 1] == [switch 2] == h2: ib (sib1) 10.52.0.2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

FROM=(-C sib0 -P 1)
SW_GUID=$((0x5eb1b0ff00000001))
NET=10.52.0
MIB=1

sw_name() { printf 'S-%016x' $((SW_GUID + $1)); }
# sw_block TOPO S: switch S's lines in ibnetdiscover's TOPO.
sw_block() { awk -v s="\"$(sw_name "$2")\"" '$1 == "Switch" { on = $3 == s } on' <<<"$1"; }
# sw_lid TOPO S: switch S's LID, from its "... base port 0 lid N" line.
sw_lid() { sw_block "$1" "$2" | sed -n 's/^Switch.* lid \([0-9]*\) .*/\1/p'; }
# pq [-x] LID PORT FIELD: that PortCounters field of a port, asked from
# sib0; PortCountersExtended with -x.  pq1: asked from sib1.
pq() { perfquery "${FROM[@]}" "${@:1:$#-1}" | diag_field "${*: -1}"; }
pq1() { perfquery -C sib1 -P 1 "${@:1:$#-1}" | diag_field "${*: -1}"; }
rx_of() { netdev_stat "$2" rx_packets "$1"; }
# shellcheck disable=SC2317 # called by wait_for
sa_switches_are() { [ "$(saquery "${FROM[@]}" NR | grep -c 'node_type\.*Switch')" = "$1" ]; }
# shellcheck disable=SC2317 # called by wait_for
pings() { on h1 ping -c 1 -W 1 "$NET.2"; }
# shellcheck disable=SC2317 # called by wait_for
mcast_discards_ge() {
	[ $(($(pq1 "$sw1" "$p1" PortXmitDiscards) - disc0 -
	     $(sib_counter sib1 1 drop_port_down) + uni0)) -ge "$1" ]
}

SIB_SM=opensm fabric_up devices=2 ports=1 switches=3
modprobe ib_umad
topo=$(ibnetdiscover "${FROM[@]}")
echo "$topo"
assert_eq "$(grep -c '^Switch' <<<"$topo")" 3 "switches found"
# The link from switch 0 to switch 1: "[3] "S-...02"[2]" in switch 0's block.
isl=$(sw_block "$topo" 0 | sed -n "s/^\[\([0-9]*\)\][[:space:]]*\"$(sw_name 1)\"\[\([0-9]*\)\].*/\1 \2/p")
read -r p0 p1 <<<"$isl"
sw0=$(sw_lid "$topo" 0)
sw1=$(sw_lid "$topo" 1)
echo "switch 0 (LID $sw0) port $p0 == switch 1 (LID $sw1) port $p1"
if [ -z "$p0" ] || [ -z "$p1" ] || [ -z "$sw0" ] || [ -z "$sw1" ]; then
	fail "no link from switch 0 to switch 1 in ibnetdiscover, or no LIDs"
fi

ours_up
two_hosts ib_ipoib "$NET"

step "traffic across the line; perfquery shows it at both ends of the link"
assert on h1 ping -c 3 -i 0.2 -W 3 "$NET.2"
tx0=$(pq -x "$sw0" "$p0" PortXmitData)
txp0=$(pq -x "$sw0" "$p0" PortXmitPkts)
rx1=$(pq -x "$sw1" "$p1" PortRcvData)
rxp1=$(pq -x "$sw1" "$p1" PortRcvPkts)
tcp_exact h2 "$NET.2" h1 "$MIB" "before: TCP"
tx=$(($(pq -x "$sw0" "$p0" PortXmitData) - tx0))
txp=$(($(pq -x "$sw0" "$p0" PortXmitPkts) - txp0))
rx=$(($(pq -x "$sw1" "$p1" PortRcvData) - rx1))
rxp=$(($(pq -x "$sw1" "$p1" PortRcvPkts) - rxp1))
echo "switch 0 port $p0 sent $tx words in $txp packets; switch 1 port $p1 received $rx words in $rxp packets"
# MIB MiB of payload, plus headers (under a quarter more), in 4-octet words.
assert_ge "$tx" $((MIB << 18)) "switch 0 PortXmitData (words)"
assert_ge $(((MIB << 18) * 5 / 4)) "$tx" "switch 0 PortXmitData (words, not octets)"
assert_ge "$rx" $((MIB << 18)) "switch 1 PortRcvData (words)"
assert_ge "$txp" $(((MIB << 20) / 4096)) "switch 0 PortXmitPkts"
assert_ge "$rxp" $(((MIB << 20) / 4096)) "switch 1 PortRcvPkts"

step "ibportstate: switch 0 port $p0 disabled; OpenSM sweeps the far side away"
down0=$(pq "$sw0" "$p0" LinkDownedCounter)
assert ibportstate "${FROM[@]}" "$sw0" "$p0" disable
wait_for 30 sa_switches_are 1 || opensm_failed sm0 "still lists more than one switch in its SA"
topo=$(ibnetdiscover "${FROM[@]}")
echo "$topo"
assert_eq "$(grep -c '^Switch' <<<"$topo")" 1 "switches ibnetdiscover finds"
assert_eq "$(grep -c '^Ca' <<<"$topo")" 1 "HCAs ibnetdiscover finds"
assert_eq "$(($(pq "$sw0" "$p0" LinkDownedCounter) - down0))" 1 "switch 0 port $p0 LinkDownedCounter"

step "nothing crosses from h1: pings fail, h2 receives none, switch 0 counts them"
rx2=$(rx_of h2 "$b")
relay0=$(pq "$sw0" 1 PortRcvSwitchRelayErrors)
disc0=$(pq "$sw0" "$p0" PortXmitDiscards)
if on h1 ping -c 3 -i 0.2 -W 1 "$NET.2"; then
	fail "a ping crossed a disabled link"
fi
assert_eq "$(($(rx_of h2 "$b") - rx2))" 0 "packets h2 received"
relay=$(($(pq "$sw0" 1 PortRcvSwitchRelayErrors) - relay0))
disc=$(($(pq "$sw0" "$p0" PortXmitDiscards) - disc0))
# OpenSM has rerouted switch 0 by now, or is about to: no route, or the dead port.
echo "switch 0: port 1 PortRcvSwitchRelayErrors +$relay, port $p0 PortXmitDiscards +$disc"
assert_ge $((relay + disc)) 3 "pings switch 0 could not forward"

# OpenSM reaches neither switch 1 nor 2 now: their LFTs still lead to the
# dead port, and sib1's perfquery finds switch 1 counting what it meets.
step "nothing crosses from h2: pings fail, h1 receives none, switch 1 discards them"
rx1=$(rx_of h1 "$a")
disc0=$(pq1 "$sw1" "$p1" PortXmitDiscards)
if on h2 ping -c 3 -i 0.2 -W 1 "$NET.1"; then
	fail "a ping crossed a disabled link"
fi
assert_eq "$(($(rx_of h1 "$a") - rx1))" 0 "packets h1 received"
disc=$(($(pq1 "$sw1" "$p1" PortXmitDiscards) - disc0))
echo "switch 1: port $p1 PortXmitDiscards +$disc"
assert_ge "$disc" 3 "switch 1 port $p1 PortXmitDiscards"
assert_eq "$(pq1 "$sw1" "$p1" LinkDownedCounter)" 1 "switch 1 port $p1 LinkDownedCounter"

# h2's broadcast pings (no echo: hosts ignore them) follow the MFTs
# OpenSM left on switches 2 and 1, to the dead port.  What the port
# discards of h2's unicast (its neighbour probes) sib1 counts as
# drop_port_down too, and is taken off.
step "multicast from h2: switch 1's MFT leads to the dead port, which discards it"
ip -n h2 neigh flush dev "$b"
disc0=$(pq1 "$sw1" "$p1" PortXmitDiscards)
uni0=$(sib_counter sib1 1 drop_port_down)
on h2 ping -b -c 3 -i 0.2 -W 0.2 "$NET.255" || true
wait_for 5 mcast_discards_ge 3 || true
disc=$(($(pq1 "$sw1" "$p1" PortXmitDiscards) - disc0))
uni=$(($(sib_counter sib1 1 drop_port_down) - uni0))
echo "switch 1: port $p1 PortXmitDiscards +$disc, h2's unicast among them +$uni"
assert_ge $((disc - uni)) 3 "multicast switch 1 port $p1 discarded (PortXmitDiscards)"

step "an SMP by directed route over the dead link: lost, switch 0 discards it"
ip -n h1 neigh flush dev "$a"
disc0=$(pq "$sw0" "$p0" PortXmitDiscards)
uni0=$(sib_counter sib0 1 drop_port_down)
if smpquery "${FROM[@]}" -t 200 -D nodeinfo "0,1,$p0"; then
	fail "an SMP crossed a disabled link"
fi
disc=$(($(pq "$sw0" "$p0" PortXmitDiscards) - disc0))
uni=$(($(sib_counter sib0 1 drop_port_down) - uni0))
echo "switch 0: port $p0 PortXmitDiscards +$disc, h1's unicast among them +$uni"
assert_ge $((disc - uni)) 1 "SMPs switch 0 port $p0 discarded (PortXmitDiscards)"

step "ibportstate: the link enabled again; OpenSM finds the line whole"
assert ibportstate "${FROM[@]}" "$sw0" "$p0" enable
wait_for 30 sa_switches_are 3 || opensm_failed sm0 "does not list the three switches again"
wait_for 10 all_ports_active || fail "ports not ACTIVE again"
topo=$(ibnetdiscover "${FROM[@]}")
assert_eq "$(grep -c '^Switch' <<<"$topo")" 3 "switches ibnetdiscover finds"

step "traffic flows again, every byte checked"
wait_for 20 pings || fail "no ping crossed the link enabled again"
assert on h1 ping -c 3 -i 0.2 -W 3 "$NET.2"
tcp_exact h2 "$NET.2" h1 "$MIB" "after: TCP"
pass
