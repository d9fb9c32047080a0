#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Leaving connected mode changes our link address (the RC flag goes): the
# peers must hear of it at once, or an in-tree peer goes on asking for
# connections we no longer take until its ARP and ND entries age out (15
# to 45 s, then a 5 s delay), reaching us by nothing meanwhile:
#
#   h1: ours (ipoib_alt, sib0) 10.9.0.1 fd09::1  connected -> datagram
#   h2: in-tree (sib1)         10.9.0.2 fd09::2  connected
#
# After the switch h2 must reach h1 again, IPv4 and IPv6, within 5 s: a
# gratuitous ARP and an unsolicited NA from h1 carry the new address.
# The same the other way: back to connected mode, h2 learns the RC flag.
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# lladdr_of NS ADDR: the link address NS holds for ADDR.
lladdr_of() {
	ip -n "$1" neigh show "$2" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }'
}

# holds NS ADDR FLAGS: NS's entry for ADDR has the flags octet FLAGS.
holds() { [ "$(lladdr_of "$1" "$2" | cut -d: -f1)" = "$3" ]; }

interop_up
echo connected >"/sys/class/net/$ours/mode"
echo connected >"/sys/class/net/$theirs/mode"
ib_host h1 "$ours" 10.9.0.1/24 fd09::1/64
ib_host h2 "$theirs" 10.9.0.2/24 fd09::2/64
wait_carrier h1 "$ours"
wait_carrier h2 "$theirs"

step "connected both ways"
assert on h2 ping -c 3 -i 0.2 -W 2 -s 3000 10.9.0.1
assert on h2 ping -6 -c 3 -i 0.2 -W 2 -s 3000 fd09::1
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.2
holds h2 10.9.0.1 80 || fail "h2 holds $(lladdr_of h2 10.9.0.1) for h1"
holds h2 fd09::1 80 || fail "h2 holds $(lladdr_of h2 fd09::1) for h1 (IPv6)"

step "h1 leaves connected mode: h2 hears of it"
ip netns exec h1 bash -c "echo datagram >/sys/class/net/$ours/mode"
wait_for 5 holds h2 10.9.0.1 00 ||
	fail "5 s after the switch h2 still holds $(lladdr_of h2 10.9.0.1) for h1"
wait_for 5 holds h2 fd09::1 00 ||
	fail "5 s after the switch h2 still holds $(lladdr_of h2 fd09::1) for h1 (IPv6)"
assert on h2 ping -c 2 -i 0.2 -W 2 10.9.0.1
assert on h2 ping -6 -c 2 -i 0.2 -W 2 fd09::1

step "and back: h2 learns the RC flag again"
ip netns exec h1 bash -c "echo connected >/sys/class/net/$ours/mode"
wait_for 5 holds h2 10.9.0.1 80 ||
	fail "5 s after the switch h2 still holds $(lladdr_of h2 10.9.0.1) for h1"
assert on h2 ping -c 2 -i 0.2 -W 2 -s 3000 10.9.0.1
pass
