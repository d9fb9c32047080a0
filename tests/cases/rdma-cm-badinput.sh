#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connection requests that no IPoIB interface owns, sent to an rdma_cm
# listener on h2's address, with Debian's in-tree ib_ipoib first (the
# witness), then ours.  cmprobe sends rdma_cm's REQ by hand (service ID
# RDMA_PS_TCP << 16 | port, private data starting with rdma_cm's header
# and its IP addresses) from sib0, over a path made by hand:
#
#   cmprobe (sib0) --REQ--> sib1 port 1: h2: ib1 10.71.0.2, fd71::2, listening :7000
#
# A well-formed REQ is taken (the listener sees it, on ib1): the control
# that shows the hand-made REQs are rdma_cm's.  Then a REQ on a P_Key the
# port holds but no interface uses, one naming a GID the port does not
# have, and ones to an IPv4 and an IPv6 address that is not h2's: each is
# refused, the listener never sees it, and nothing is left behind (the
# fabric's count of QPs, CQs and PDs, the probe's connections).  Last, as
# a user would: rdma_cm itself from h1 to an address nobody has fails in
# address resolution.
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
SID_7000=$(printf '%x' $(((0x106 << 16) | 7000)))

# req ARGS...: one hand-made REQ from sib0 to sib1 port 1, its outcome
# shown and in $outcome and $reason; the probe's log in RP_OUT.
req() {
	local out
	echo clear >"$RP_CTL"
	echo "cmprobe: $*"
	echo "dev=sib0 dlid=$lid sid=$SID_7000 pdata=cma $*" >"$PROBE"
	out=$(cat "$PROBE")
	indent <<<"$out"
	outcome=$(awk '$1 == "outcome" { print $2 }' <<<"$out")
	reason=$(awk '$1 == "reason" { print $2 }' <<<"$out")
	RP_OUT=$(cat "$RP_CTL")
	echo "    rdmaprobe's log:"
	indent <<<"$RP_OUT"
}

# refused ARGS...: req, refused with a REJ, unseen by the listener.
refused() {
	req "$@"
	assert_eq "$outcome" rej "outcome of a REQ no interface owns"
	rp_lacks CONNECT_REQUEST
}

# shellcheck disable=SC2317 # called by wait_for
no_connections() { ! grep -q '^conn ' "$RP_CTL"; }

run() {
	local label=$1 before0 before1 gid
	step "$label: h1, h2, a listen on h2's addresses"
	$2
	two_hosts ib_ipoib 10.71.0 fd71
	echo "h2: $b: $(driver_of h2 "$b")"
	gid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
	lid=$(cat /sys/class/infiniband/sib1/ports/1/lid)
	rp_ok h2 "listen 10.71.0.2:7000"
	rp_ok h2 "listen [fd71::2]:7000"
	before0=$(verbs sib0)
	before1=$(verbs sib1)

	step "$label: a well-formed hand-made REQ is rdma_cm's"
	req "dgid=$gid src=10.71.0.1 dst=10.71.0.2"
	assert_eq "$outcome" rep "outcome of a well-formed REQ"
	rp_has "CONNECT_REQUEST status 0: 10.71.0.1:40000 -> 10.71.0.2:7000"
	rp_has "net_device $b \\(netns $(netns_id h2)\\)"
	wait_for 10 no_connections || fail "the accepted connection stayed"

	step "$label: P_Key 0x8123: the port holds it, no interface uses it"
	refused "dgid=$gid pkey=8123 src=10.71.0.1 dst=10.71.0.2"
	assert_eq "$reason" 28 "REJ reason (consumer reject: rdma_cm found no interface)"

	step "$label: a GID sib1 port 1 does not have"
	refused "dgid=fe80::dead:beef src=10.71.0.1 dst=10.71.0.2"

	step "$label: addresses that are not h2's"
	refused "dgid=$gid src=10.71.0.1 dst=10.71.0.9"
	assert_eq "$reason" 28 "REJ reason"
	refused "dgid=$gid src=fd71::1 dst=fd71::9"
	assert_eq "$reason" 28 "REJ reason"

	step "$label: rdma_cm from h1 to an address nobody has"
	rp_refused h1 "connect 10.71.0.9:7000 timeout=2000"
	rp_has "^cli#[0-9]+ ADDR_ERROR status"

	step "$label: nothing left behind"
	wait_for 10 no_connections || fail "connections left: $(grep '^conn ' "$RP_CTL")"
	wait_for 10 verbs_are sib0 "$before0" || fail "sib0 verbs objects: $(verbs sib0), were $before0"
	wait_for 10 verbs_are sib1 "$before1" || fail "sib1 verbs objects: $(verbs sib1), were $before1"
	echo "verbs objects: sib0 $(verbs sib0), sib1 $(verbs sib1)"
	rp_ok h2 "listen 10.71.0.2:7001"
	rp_ok h1 "connect 10.71.0.2:7001"
	rp_exchanged h2 "$b"
	rp_ok h2 "unlisten 10.71.0.2:7000"
	rp_ok h2 "unlisten [fd71::2]:7000"
	rp_ok h2 "unlisten 10.71.0.2:7001"
	ip netns del h1
	ip netns del h2
	rmmod ib_ipoib
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8123
rp_up
modprobe cmprobe
run in-tree intree_up
run ours ours_up
pass
