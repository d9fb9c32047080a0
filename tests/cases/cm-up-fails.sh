#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connected mode that cannot start must not leave a half-connected
# interface.  cmprobe holds a CM listen on h1's own service ID
# (0x1000000000000000 | UD QPN), so our driver's listen there fails:
#
#   h1: ib (sib0) 10.9.0.1, connected mode chosen while down
#   h2: ib (sib1) 10.9.0.2 connected
#
# Bringing h1 up then runs it in datagram mode, with a kernel line saying
# why: mode reads "datagram", the address carries no RC flag, the MTU is
# the datagram one, and h1 and h2 ping both ways.  A switch to connected
# mode while the listen is still taken fails with an errno and changes
# nothing.  Once it is free, the switch works and a connection comes up.
# Before the fix, h1 came up still claiming connected mode (RC flag, MTU
# 65520) with nothing listening.
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

fabric_up devices=2 ports=1
ours_up
modprobe cmprobe
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
echo connected >"/sys/class/net/$a/mode"
echo connected >"/sys/class/net/$b/mode"
qpn=$(cut -d: -f2-4 "/sys/class/net/$a/address" | tr -d :)
sid=$(printf '0x%x' $((0x1000000000000000 | 0x$qpn)))
ib_host h2 "$b" 10.9.0.2/24
ns_add h1
move_to_ns "$a" h1
ip -n h1 addr add 10.9.0.1/24 dev "$a"

step "our service ID is taken: h1 comes up in datagram mode"
echo "cmprobe holds $sid on sib0"
echo "listen dev=sib0 sid=$sid" >"$PROBE"
kernel_log_mark "cm-up-fails: up with the listen taken"
on h1 ip link set "$a" up
wait_carrier h1 "$a"
wait_carrier h2 "$b"
dmesg | sed -n '/cm-up-fails: up with the listen taken/,$p'
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" datagram "h1's mode"
dmesg | sed -n '/cm-up-fails: up with the listen taken/,$p' |
	grep -q "connected mode could not start" || fail "no kernel line says why"
assert_eq "$(ip netns exec h1 cut -d: -f1 "/sys/class/net/$a/address")" 00 "h1's address flags"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mtu")" 2044 "h1's MTU"
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.2
assert on h2 ping -c 2 -i 0.2 -W 2 10.9.0.1

step "switching to connected mode while the listen is taken fails"
if ip netns exec h1 bash -c "echo connected >/sys/class/net/$a/mode" 2>/tmp/err.log; then
	fail "the switch to connected mode succeeded with nothing listening"
fi
cat /tmp/err.log
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" datagram "h1's mode after the refusal"
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.2

step "the listen freed: connected mode starts"
echo "unlisten sid=$sid" >"$PROBE"
ip netns exec h1 bash -c "echo connected >/sys/class/net/$a/mode"
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" connected "h1's mode"
assert_eq "$(ip netns exec h1 cut -d: -f1 "/sys/class/net/$a/address")" 80 "h1's address flags"
assert on h1 ping -c 3 -i 0.2 -W 2 -s 3000 10.9.0.2
assert on h2 ping -c 3 -i 0.2 -W 2 -s 3000 10.9.0.1
assert_ge "$(stat_of h1 "$a" cm_established)" 1 "h1's connections"
pass
