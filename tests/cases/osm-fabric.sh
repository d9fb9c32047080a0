#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# OpenSM (Debian's) manages the fabric (sib sm=external) with a
# partitions.conf of three partitions, and both drivers run on it: ours
# (ipoib_alt) on sib0 and sib2, the in-tree one on sib1.  Before OpenSM
# the ports wait in INIT without a LID; after it, ibstat shows them ACTIVE
# with OpenSM's port as their SM, ibnetdiscover the switch and the three
# HCAs, saquery the groups the drivers joined (MGID, MTU, P_Key, rate),
# perfquery counters that grow with traffic.  Each driver's interface takes the MTU of the group
# OpenSM made for its partition, not the port's 4096: 2048 in the
# default partition, 4096 in 0x8002.  In 0x8003 sib1 and sib2 are
# limited members: each reaches sib0, a full member, and not each other.
#
#   h1: ours (sib0, OpenSM)    h2: in-tree (sib1)    h3: ours (sib2)
#   default 10.30.0.1          10.30.0.2             10.30.0.3
#   0x8002  10.31.0.1          10.31.0.2             10.31.0.3
#   0x8003  10.32.0.1 (full)   10.32.0.2 (limited)   10.32.0.3 (limited)
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

FROM=(-C sib0 -P 1)
SW_GUID=0x5eb1b0ff00000001

# field NAME: the value of the "NAME:.....value" line on stdin.
field() { sed -n "s/^[[:space:]]*$1:[.[:space:]]*//p" | head -n 1; }
# sa_field NAME: the value of saquery's "NAME.......value" line.
sa_field() { sed -n "s/^[[:space:]]*$1\.\.*//p" | head -n 1; }
lid_of() { echo $(($(cat "/sys/class/infiniband/$1/ports/1/lid"))); }
mtu_of() { ip netns exec "$1" cat "/sys/class/net/$2/mtu"; }
# group GROUPS MGID: saquery -g's record of that group (MGID as it prints it).
group() { grep -A5 "MGID\.*$2\$" <<<"$1"; }

modprobe sib sm=external devices=3 ports=1 mtu=4096
modprobe ib_umad

step "before any SM: every port INIT, no LID"
for dev in sib0 sib1 sib2; do
	out=$(ibstat "$dev" 1)
	assert_eq "$(field State <<<"$out")" Initializing "$dev state"
	assert_eq "$(field 'Physical state' <<<"$out")" LinkUp "$dev physical state"
	assert_eq "$(field 'Base lid' <<<"$out")" 0 "$dev LID"
done

guid0=$(port_guid sib0 1)
guid1=$(port_guid sib1 1)
guid2=$(port_guid sib2 1)
cat >partitions.conf <<EOF
Default=0x7fff, ipoib, mtu=4, rate=16: ALL=full;
Big=0x0002, ipoib, mtu=5, rate=16: ALL=full;
Guests=0x0003, ipoib, mtu=4, rate=16: $guid0=full, $guid1=limited, $guid2=limited;
EOF
cat partitions.conf
opensm_up partitions.conf
lid0=$(lid_of sib0)
lid1=$(lid_of sib1)
echo "OpenSM gave sib0 LID $lid0, sib1 LID $lid1, sib2 LID $(lid_of sib2)"

step "ibstat: every port ACTIVE, OpenSM's port its SM"
for dev in sib0 sib1 sib2; do
	out=$(ibstat "$dev" 1)
	echo "$out"
	assert_eq "$(field State <<<"$out")" Active "$dev state"
	assert_eq "$(field 'SM lid' <<<"$out")" "$lid0" "$dev SM LID"
	[ "$(field 'Base lid' <<<"$out")" -gt 0 ] || fail "$dev has no LID"
	assert_eq "$(field Rate <<<"$out")" 100 "$dev rate"
done
out=$(sminfo "${FROM[@]}")
echo "$out"
assert grep -q "sm lid $lid0 sm guid $(printf 0x%x "$guid0"),.* SMINFO_MASTER" <<<"$out"

step "ibnetdiscover: the switch, LID'd by OpenSM, and the three HCAs"
topo=$(ibnetdiscover "${FROM[@]}")
echo "$topo"
assert grep -q "^Switch[[:space:]]3 \"S-${SW_GUID#0x}\"" <<<"$topo"
assert_eq "$(grep -c '^Ca' <<<"$topo")" 3 "HCAs found"
assert_eq "$(grep -c '4xEDR' <<<"$topo")" 6 "links seen from both ends at 4xEDR"

step "both drivers, a host a port, children in 0x8002 and 0x8003"
alt_up
intree_up
a=$(wait_iface ipoib_alt sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
c=$(wait_iface ipoib_alt sib2 1)
for ifc in "$a" "$b" "$c"; do
	echo 0x8002 >"/sys/class/net/$ifc/create_child"
	echo 0x8003 >"/sys/class/net/$ifc/create_child"
done
n=1
for ifc in "$a" "$b" "$c"; do
	ib_host "h$n" "$ifc" "10.30.0.$n/24" "fd30::$n/64"
	ib_host "h$n" "$ifc.8002" "10.31.0.$n/24"
	ib_host "h$n" "$ifc.8003" "10.32.0.$n/24"
	n=$((n + 1))
done
n=1
for ifc in "$a" "$b" "$c"; do
	wait_carrier "h$n" "$ifc"
	wait_carrier "h$n" "$ifc.8002"
	n=$((n + 1))
done
wait_carrier h1 "$a.8003"

step "the group MTU OpenSM chose, in both drivers"
n=1
for ifc in "$a" "$b" "$c"; do
	echo "h$n: $ifc $(mtu_of "h$n" "$ifc"), $ifc.8002 $(mtu_of "h$n" "$ifc.8002")"
	assert_eq "$(mtu_of "h$n" "$ifc")" 2044 "$ifc MTU (group 2048)"
	assert_eq "$(mtu_of "h$n" "$ifc.8002")" 4092 "$ifc.8002 MTU (group 4096)"
	n=$((n + 1))
done
for dst in 2 3; do
	assert on h1 ping -c 3 -i 0.2 -W 2 "10.30.0.$dst"
	assert on h1 ping -c 3 -i 0.2 -W 2 -s 4000 "10.31.0.$dst"
done
assert on h2 ping -c 3 -i 0.2 -W 2 10.30.0.3
assert on h2 ping -c 3 -i 0.2 -W 2 -s 4000 10.31.0.3

step "0x8003: the limited members reach the full one, not each other"
wait_carrier h2 "$b.8003"
wait_carrier h3 "$c.8003"
assert on h2 ping -c 3 -i 0.2 -W 2 10.32.0.1
assert on h3 ping -c 3 -i 0.2 -W 2 10.32.0.1
if on h2 ping -c 2 -i 0.2 -W 1 10.32.0.3; then
	fail "a limited member reached another one"
fi

step "saquery -g: the groups the drivers joined, as OpenSM made them"
groups=$(saquery "${FROM[@]}" -g)
echo "$groups"
g=$(group "$groups" ff12:401b:ffff::ffff:ffff) ||
	fail "no broadcast group in the default partition"
assert_eq "$(sa_field Mtu <<<"$g")" 0x84 "default broadcast group MTU (2048)"
assert_eq "$(sa_field pkey <<<"$g")" 0xFFFF "default broadcast group P_Key"
assert_eq "$(sa_field Rate <<<"$g")" 0x90 "default broadcast group rate (100 Gb/s)"
g=$(group "$groups" ff12:401b:8002::ffff:ffff) ||
	fail "no broadcast group in partition 0x8002"
assert_eq "$(sa_field Mtu <<<"$g")" 0x85 "0x8002 broadcast group MTU (4096)"
assert_eq "$(sa_field pkey <<<"$g")" 0x8002 "0x8002 broadcast group P_Key"
group "$groups" ff12:401b:ffff::1 >/dev/null ||
	fail "no IPv4 all-hosts group"
group "$groups" ff12:601b:ffff::1 >/dev/null ||
	fail "no IPv6 all-nodes group"

step "perfquery: sib1's counters grow with traffic"
rx0=$(perfquery "${FROM[@]}" -x "$lid1" 1 | field PortRcvPkts)
assert on h1 ping -c 20 -i 0.05 -W 2 10.30.0.2
rx=$(($(perfquery "${FROM[@]}" -x "$lid1" 1 | field PortRcvPkts) - rx0))
echo "sib1 PortRcvPkts +$rx"
assert_ge "$rx" 20 "sib1 PortRcvPkts"
pass
