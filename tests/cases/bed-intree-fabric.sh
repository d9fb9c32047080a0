#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric's own knobs, seen through Debian's unmodified ib_ipoib: a
# broadcast group MTU below the port MTU (group_mtu), the per-port IPoIB
# counters by transport and class, a port that stops taking receives
# (rx_stall), and cmprobe holding a CM listen.
#
#   h1: ib (sib0 port 1) 10.9.0.1 fd09::1  ===  h2: ib (sib1 port 1) 10.9.0.2 fd09::2
#   4096-byte ports, a 2048-byte broadcast group
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
BCAST_MGID=ff12:401b:ffff:0000:0000:0000:ffff:ffff

# count IBDEV TRANSPORT CLASS: what port 1 of IBDEV sent, by the fabric.
count() { sib_ipoib_count "$1" 1 "$2" "$3"; }

# shellcheck disable=SC2317 # called by wait_for
count_above() { [ "$(count "$1" "$2" "$3")" -gt "$4" ]; }

# rc_sent IBDEV: every rc line of port 1's ipoib file, summed.
rc_sent() { awk '$1 == "rc" { n += $3 } END { print n + 0 }' "$SIB/$1/port1/ipoib"; }

# shellcheck disable=SC2317 # called by wait_for
pings() { ip netns exec "$1" ping -c 1 -W 1 "$2"; }

step "group_mtu must be an IB MTU"
if modprobe sib group_mtu=3000 2>/dev/null; then
	fail "sib loaded with group_mtu=3000"
fi
dmesg | grep "group_mtu=3000" || fail "no kernel line saying why group_mtu=3000 was refused"

step "4096-byte ports, 2048-byte broadcast group"
fabric_up devices=2 ports=1 mtu=4096 group_mtu=2048
assert_eq "$(cat "$SIB/group_mtu")" 2048 "group_mtu"
assert_eq "$(cat "$SIB/sib0/port1/mtu")" 4096 "sib0 port 1 MTU"
if echo 3000 2>/dev/null >"$SIB/group_mtu"; then
	fail "group_mtu took 3000"
fi
assert_eq "$(cat "$SIB/group_mtu")" 2048 "group_mtu after a bad write"
intree_up
two_hosts ib_ipoib 10.9.0 fd09
assert_eq "$(sa_group_mtu "$BCAST_MGID")" 2048 "broadcast group MTU (saquery)"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 2044 "datagram MTU on a 4096 port"

step "datagram mode: pings counted as ud arp, ipv4, nd, ipv6"
arp0=$(count sib0 ud arp)
ip40=$(count sib0 ud ipv4)
nd0=$(count sib0 ud nd)
ip60=$(count sib0 ud ipv6)
assert on h1 ping -c 3 -i 0.2 -W 2 10.9.0.2
assert on h1 ping -6 -c 3 -i 0.2 -W 2 fd09::2
cat "$SIB/sib0/port1/ipoib"
assert_ge "$(count sib0 ud arp)" $((arp0 + 1)) "ud arp sib0 sent"
assert_ge "$(count sib0 ud ipv4)" $((ip40 + 3)) "ud ipv4 sib0 sent"
assert_ge "$(count sib0 ud nd)" $((nd0 + 1)) "ud nd sib0 sent"
assert_ge "$(count sib0 ud ipv6)" $((ip60 + 3)) "ud ipv6 sib0 sent"
assert_ge "$(count sib1 ud ipv4)" 3 "ud ipv4 sib1 sent (replies)"
assert_eq "$(rc_sent sib0)" 0 "rc messages sib0 sent in datagram mode"
assert_eq "$(rc_sent sib1)" 0 "rc messages sib1 sent in datagram mode"
assert_eq "$(wc -l <"$SIB/sib0/port1/ipoib")" 15 "lines of the ipoib file"

step "rx_stall: sib1 port 1 takes no receives, pings to it fail"
sib_stall sib1 1 1
assert_eq "$(cat "$SIB/sib1/port1/rx_stall")" 1 "rx_stall"
drop0=$(sib_counter sib1 1 drop_no_buffer)
if on h1 ping -c 2 -i 0.2 -W 1 10.9.0.2; then
	fail "ping went through a stalled port"
fi
sib_counters sib1 1
assert_ge "$(sib_counter sib1 1 drop_no_buffer)" $((drop0 + 2)) "sib1 drop_no_buffer"

step "released, pings go through again"
sib_stall sib1 1 0
assert_eq "$(cat "$SIB/sib1/port1/rx_stall")" 0 "rx_stall"
wait_for 10 pings h1 10.9.0.2 || fail "no ping after the stall was released"
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.2

step "connected mode: pings counted as rc ipv4"
on h1 sh -c "echo connected >/sys/class/net/$a/mode"
on h2 sh -c "echo connected >/sys/class/net/$b/mode"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" connected "mode"
rc0=$(count sib0 rc ipv4)
assert on h1 ping -c 3 -i 0.2 -W 2 10.9.0.2
wait_for 10 count_above sib0 rc ipv4 "$rc0" || fail "rc ipv4 did not grow on sib0"
cat "$SIB/sib0/port1/ipoib"

step "cmprobe: a held listen refuses REQs and keeps its service ID"
modprobe cmprobe
# The IPoIB form of QPN 1: no UD QP has it.
sid=0x1000000000000001
echo "listen dev=sib1 sid=$sid" >"$PROBE"
assert grep -x "listen dev=sib1 sid=$sid answer=rej" "$PROBE"
if err=$({ echo "listen dev=sib1 sid=$sid" >"$PROBE"; } 2>&1); then
	fail "a second listen on $sid succeeded"
fi
echo "second listen: $err"
assert grep -q "busy" <<<"$err"
dgid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
echo "dgid=$dgid sid=$sid" >"$PROBE"
cat "$PROBE"
assert grep -x "outcome rej" "$PROBE"
assert grep "^reason 28 " "$PROBE"
echo "unlisten sid=$sid" >"$PROBE"
if grep "^listen " "$PROBE"; then
	fail "a listen is still held after unlisten"
fi
echo "listen dev=sib1 sid=$sid" >"$PROBE"
assert grep -x "listen dev=sib1 sid=$sid answer=rej" "$PROBE"

step "cmprobe: the in-tree driver's own service ID is taken"
qpn=$(ip netns exec h2 cat "/sys/class/net/$b/address" | cut -d: -f2-4 | tr -d :)
if err=$({ echo "listen dev=sib1 sid=0x1000000000$qpn" >"$PROBE"; } 2>&1); then
	fail "listened on the service ID of h2's connected-mode interface"
fi
echo "listen on 0x1000000000$qpn: $err"
assert grep -q "busy" <<<"$err"
pass
