#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPoIB interfaces taken away under established rdma_cm connections, with
# Debian's in-tree ib_ipoib first (the witness), then ours.  Two
# connections from h1 are held up, one to h2's address, one to its P_Key
# child's; then h2's interface goes down, the child is deleted, the driver
# is unloaded:
#
#   h1: ib0       10.N.0.1  ==cli A==>  h2: ib1       10.N.0.2:7000  (down, up)
#   h1: ib0.8123  10.M.0.1  ==cli B==>  h2: ib1.8123  10.M.0.2:7000  (deleted, made again)
#
# Each time: nothing hangs; the held connections still carry a message
# each way (RDMA connections do not use the IPoIB data path); a new
# connection to the address that went is refused with the event rdma_cm
# gives, and the listener never sees it; once the interface is back the
# same listener takes connections again.  With no interface left at all,
# a hand-made rdma_cm REQ (cmprobe) to the listener is refused too.  At
# the end the fabric counts as many QPs, CQs and PDs as before, and the
# probe unloads with a connection and a listen held.
#
# timeout: 420
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
# rdma_cm's service ID of a TCP port: RDMA_PS_TCP << 16 | port.
SID_7000=$(printf '%x' $(((0x106 << 16) | 7000)))
REFUSALS='(REJECTED|UNREACHABLE|ADDR_ERROR|ROUTE_ERROR|CONNECT_ERROR) status'

# refused NS ADDR:PORT: a new connection there fails, and no listener saw
# its request.
refused() {
	rp_refused "$1" "connect $2 timeout=3000"
	rp_has "^cli#[0-9]+ $REFUSALS"
	rp_lacks CONNECT_REQUEST
}

# child_up: h2's P_Key child, addressed, with carrier.
child_up() {
	ip -n h2 link add link "$b" name "$b.8123" type ipoib pkey 0x8123
	ip -n h2 addr add "10.$m.0.2/24" dev "$b.8123"
	ip -n h2 link set "$b.8123" up
	wait_carrier h2 "$b.8123"
}

# hosts LOAD: the driver, both hosts and both children.
hosts() {
	$1
	two_hosts ib_ipoib "10.$n.0"
	ip -n h1 link add link "$a" name "$a.8123" type ipoib pkey 0x8123
	ip -n h1 addr add "10.$m.0.1/24" dev "$a.8123"
	ip -n h1 link set "$a.8123" up
	wait_carrier h1 "$a.8123"
	child_up
	echo "h2: $b: $(driver_of h2 "$b")"
}

# sends: both held connections still carry a message each way.
sends() {
	rp_ok - "send $cli_a"
	rp_has "^cli#$cli_a received seq [0-9]+: 4096 bytes crc32 0x[0-9a-f]+, matches"
	rp_ok - "send $cli_b"
	rp_has "^cli#$cli_b received seq [0-9]+: 4096 bytes crc32 0x[0-9a-f]+, matches"
}

# run LABEL LOAD NET NET_CHILD: the whole session with one driver.
run() {
	local label=$1 load=$2 before0 before1 t0 gid lid
	n=$3 m=$4
	step "$label: hosts, listens, two connections held"
	hosts "$load"
	before0=$(verbs sib0)
	before1=$(verbs sib1)
	echo "verbs objects: sib0 $before0, sib1 $before1"
	rp_ok h2 "listen 10.$n.0.2:7000"
	rp_ok h2 "listen 10.$m.0.2:7000"
	rp_ok h1 "connect 10.$n.0.2:7000 hold"
	rp_exchanged h2 "$b"
	cli_a=$(rp_cli_nr)
	rp_ok h1 "connect 10.$m.0.2:7000 hold"
	rp_exchanged h2 "$b.8123"
	cli_b=$(rp_cli_nr)
	sends

	step "$label: h2's interface down"
	ip -n h2 link set "$b" down
	refused h1 "10.$n.0.2:7000"
	sends
	ip -n h2 link set "$b" up
	wait_carrier h2 "$b"
	rp_ok h1 "connect 10.$n.0.2:7000"
	rp_exchanged h2 "$b"

	step "$label: h2's child deleted"
	ip -n h2 link del "$b.8123"
	refused h1 "10.$m.0.2:7000"
	sends
	child_up
	rp_ok h1 "connect 10.$m.0.2:7000"
	rp_exchanged h2 "$b.8123"

	step "$label: the driver unloaded"
	t0=$SECONDS
	rmmod ib_ipoib
	echo "rmmod ib_ipoib took $((SECONDS - t0)) s"
	wait_for 10 sh -c "! ip -n h2 link show $b" || fail "$b still exists"
	sends
	gid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
	lid=$(cat /sys/class/infiniband/sib1/ports/1/lid)
	echo clear >"$RP_CTL"
	echo "cmprobe: rdma_cm's REQ for 10.$n.0.2:7000, no interface anywhere"
	echo "dev=sib0 dgid=$gid dlid=$lid sid=$SID_7000 pdata=cma src=10.$n.0.1 dst=10.$n.0.2" >"$PROBE"
	indent <"$PROBE"
	assert_eq "$(awk '$1 == "outcome" { print $2 }' "$PROBE")" rej "the REQ's outcome"
	assert_eq "$(awk '$1 == "reason" { print $2 }' "$PROBE")" 28 "REJ reason (consumer reject)"
	RP_OUT=$(cat "$RP_CTL")
	rp_lacks CONNECT_REQUEST

	step "$label: the driver back: the same listens take connections"
	hosts "$load"
	rp_ok h1 "connect 10.$n.0.2:7000"
	rp_exchanged h2 "$b"
	rp_ok h1 "connect 10.$m.0.2:7000"
	rp_exchanged h2 "$b.8123"
	sends

	step "$label: connections closed, listens dropped, nothing left behind"
	rp_ok - "close $cli_a"
	rp_has "^cli#$cli_a DISCONNECTED status 0"
	rp_ok - "close $cli_b"
	rp_ok h2 "unlisten 10.$n.0.2:7000"
	rp_ok h2 "unlisten 10.$m.0.2:7000"
	rp_lacks "^(listen|conn) "
	wait_for 10 verbs_are sib0 "$before0" || fail "sib0 verbs objects: $(verbs sib0), were $before0"
	wait_for 10 verbs_are sib1 "$before1" || fail "sib1 verbs objects: $(verbs sib1), were $before1"
	echo "verbs objects: sib0 $(verbs sib0), sib1 $(verbs sib1)"
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8123
rp_up
modprobe cmprobe
run in-tree intree_up 51 52
ip netns del h1
ip netns del h2
rmmod ib_ipoib
run ours ours_up 53 54

step "the probe unloaded with a listen and a connection held"
before0=$(verbs sib0)
before1=$(verbs sib1)
rp_ok h2 "listen 10.53.0.2:7001"
rp_ok h1 "connect 10.53.0.2:7001 hold"
rp_exchanged h2 "$b"
echo "verbs objects: sib0 $(verbs sib0), sib1 $(verbs sib1)"
t0=$SECONDS
rmmod rdmaprobe
echo "rmmod rdmaprobe took $((SECONDS - t0)) s"
wait_for 10 verbs_are sib0 "$before0" || fail "sib0 verbs objects: $(verbs sib0), were $before0"
wait_for 10 verbs_are sib1 "$before1" || fail "sib1 verbs objects: $(verbs sib1), were $before1"
echo "verbs objects: sib0 $(verbs sib0), sib1 $(verbs sib1)"
pass
