#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every load of the driver brings a new UD QP and so a new link address:
# the peers must hear of it at once, or they keep sending to the old QPN
# until their ARP and ND entries age out (30 s and more; soak reload.sh
# measured 30.6 s to the first ping before the fix, 1 s after):
#
#   h1: ours (ipoib_alt, sib0) 10.16.0.1 fd16::1   rmmod, modprobe
#   h2: in-tree (sib1)         10.16.0.2 fd16::2
#
# After ours comes back (same addresses, a new QPN), h2's IPv4 and IPv6
# entries for h1 must hold the new address without h2 sending anything:
# only h1's gratuitous ARP and unsolicited NA can put it there.
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# lladdr_of NS ADDR: the link address NS holds for ADDR.
lladdr_of() {
	ip -n "$1" neigh show "$2" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }'
}
# shellcheck disable=SC2317 # called through wait_for
h2_knows() { [ "$(lladdr_of h2 10.16.0.1)" = "$1" ] && [ "$(lladdr_of h2 fd16::1)" = "$1" ]; }

interop_up
ib_host h1 "$ours" 10.16.0.1/24 fd16::1/64
ib_host h2 "$theirs" 10.16.0.2/24 fd16::2/64
wait_carrier h1 "$ours"
wait_carrier h2 "$theirs"
assert on h2 ping -c 2 -i 0.2 -W 2 10.16.0.1
assert on h2 ping -c 2 -i 0.2 -W 2 fd16::1
old=$(ip netns exec h1 cat "/sys/class/net/$ours/address")
assert_eq "$(lladdr_of h2 10.16.0.1)" "$old" "h2's ARP entry for h1"

step "ours unloaded and loaded again"
rmmod ipoib_alt
alt_up
ours=$(wait_iface ipoib_alt sib0 1)
ib_host h1 "$ours" 10.16.0.1/24 fd16::1/64
wait_carrier h1 "$ours"
new=$(ip netns exec h1 cat "/sys/class/net/$ours/address")
[ "$new" != "$old" ] || fail "the new interface kept the old address $old: nothing to announce"
echo "h1's address: $old -> $new"

step "h2 learns it without sending"
wait_for 10 h2_knows "$new" ||
	fail "h2 holds $(lladdr_of h2 10.16.0.1) (IPv4) and $(lladdr_of h2 fd16::1) (IPv6) for h1, not $new"
ip -n h2 neigh show
assert on h2 ping -c 2 -i 0.2 -W 2 10.16.0.1
assert on h2 ping -c 2 -i 0.2 -W 2 fd16::1
pass
