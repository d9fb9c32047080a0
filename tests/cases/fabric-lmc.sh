#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A subnet with LMC 2 (sib lmc=2, as OpenSM's lmc option; lmc=4 is
# refused at load, with a line saying why): every port answers to the
# four LIDs of its block, its base LID aligned to four.
# sysfs shows lid_mask_count 2; an SMP sent to each of base+1..base+3
# is answered by the port (counted at a LID but the base:
# rx_path_bits_packets), one past the block by nobody; the SA lists the
# 16 paths from one port to the other, the four with the same path bits
# at both ends first, as OpenSM ranks them.  The built-in SA
# then hands out paths with path bits 3 (sa_path_bits): DLID base+3 at
# the far end, SLID base+3 at ours.  The in-tree driver (the witness),
# then ours, in datagram and connected mode: pings and 4 MiB over TCP
# (every byte checked), the path's DLID in each driver's debugfs, every
# connected QP sending to the peer's base+3 from ours, and the traffic
# counted at base+3 at both ends.  Under OpenSM (--sm opensm, lmc 2) the
# SA's Get gives the base LIDs, as OpenSM does: the paths are checked
# to name them, and only the SMPs reach the other LIDs.
#
#   h1: ib (sib0) 10.47.0.1  ===  h2: ib (sib1) 10.47.0.2
#
# timeout: 420
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

LMC=2
BITS=3
[ "$SIB_SM" = builtin ] || BITS=0

gid_of() { cat "/sys/class/infiniband/$1/ports/1/gids/0"; }
at_bits() { sib_counter "$1" 1 rx_path_bits_packets; }
# pr_pairs: "SLID>DLID" (decimal) of each PathRecord from sib0's port to
# sib1's the SA lists (a GetTable), in its order.
pr_pairs() {
	local s d
	saquery -C sib0 -P 1 PR --sgid "$gid1" --dgid "$gid2" |
		awk '{ sub(/^[ \t]+/, "") }
			/^dlid\./ { sub(/^dlid\.+/, ""); d = $0 }
			/^slid\./ { sub(/^slid\.+/, ""); print $0, d }' |
		while read -r s d; do
			echo "$((s))>$((d))"
		done
}

# short_gid GID: the GID as the in-tree driver's debugfs prints it (%x each).
short_gid() {
	local IFS=: w out=()
	for w in $1; do
		out+=("$(printf '%x' "0x$w")")
	done
	echo "${out[*]}"
}

# path_dlid DRIVER IFACE GID: the DLID (decimal) of the driver's path to GID.
path_dlid() {
	local d
	if [ "$1" = ours ]; then
		d=$(awk -v g="$3" '$1 == g { print $2 }' "/sys/kernel/debug/ib_ipoib/$2/paths")
	else
		d=$(awk -v g="$(short_gid "$3")" '
			$1 == "GID:" { on = ($2 == g) }
			on && $1 == "DLID:" { print $2; exit }' "/sys/kernel/debug/ipoib/$2_path")
	fi
	echo $((${d:-0}))
}

# rc_qps_go IBDEV DLID BITS: the IBDEV's RC QPs in RTS, at least one, all
# send to DLID from our LID with path bits BITS.
rc_qps_go() {
	local n bad
	n=$(grep -c ' type RC state RTS ' "$SIB/$1/qps") || true
	bad=$(grep ' type RC state RTS ' "$SIB/$1/qps" |
		grep -cv " dlid $(printf '0x%x' "$2") src_path_bits $3\$") || true
	sed 's/^/   /' "$SIB/$1/qps"
	[ "$n" -ge 1 ] || fail "$1 has no RC QP in RTS"
	[ "$bad" = 0 ] || fail "$1: $bad RC QPs not to LID $2 with path bits $3"
}

step "lmc=4 refused at load, saying why"
! modprobe sib lmc=4 2>/dev/null || fail "sib loaded with lmc=4"
dmesg | grep -q 'sib: lmc=4 out of range 0-3' || fail "no line saying lmc=4 is out of range"

fabric_up devices=2 ports=1 lmc=$LMC
modprobe ib_umad
lid1=$(lid_of sib0)
lid2=$(lid_of sib1)
gid1=$(gid_of sib0)
gid2=$(gid_of sib1)
echo "sib0: LID $lid1, sib1: LID $lid2"

step "the ports: LMC $LMC, blocks of $((1 << LMC)) LIDs"
for dev in sib0 sib1; do
	assert_eq "$(cat "/sys/class/infiniband/$dev/ports/1/lid_mask_count")" "$LMC" "$dev lid_mask_count"
	assert_eq "$(($(lid_of "$dev") % (1 << LMC)))" 0 "$dev base LID alignment"
done
c0=$(at_bits sib1)
for k in 1 2 3; do
	pi=$(smpquery -C sib0 -P 1 portinfo $((lid2 + k))) ||
		fail "no PortInfo from LID $((lid2 + k))"
	assert_eq "$(diag_field Lid <<<"$pi")" "$lid2" "the base LID LID $((lid2 + k)) reports"
	assert_eq "$(diag_field LMC <<<"$pi")" "$LMC" "the LMC LID $((lid2 + k)) reports"
done
echo "sib1 took $(($(at_bits sib1) - c0)) packets at base+1..base+3"
assert_ge "$(($(at_bits sib1) - c0))" 3 "SMPs sib1 took at a LID but its base"
# The SA's paths: each LID of one block to each of the other's, the
# pairs with the same path bits first, as OpenSM ranks them.
pairs=$(pr_pairs)
echo "PathRecords sib0 -> sib1: $(tr '\n' ' ' <<<"$pairs")"
assert_eq "$(wc -w <<<"$pairs")" 16 "paths sib0 -> sib1"
assert_eq "$(tr ' ' '\n' <<<"$pairs" | sort -u | wc -l)" 16 "distinct paths sib0 -> sib1"
assert_eq "$(head -n 4 <<<"$pairs" | tr '\n' ' ')" \
	"$lid1>$lid2 $((lid1 + 1))>$((lid2 + 1)) $((lid1 + 2))>$((lid2 + 2)) $((lid1 + 3))>$((lid2 + 3)) " \
	"the first paths, the same path bits at both ends"
if [ "$SIB_SM" = builtin ]; then
	# The last block's end: the LID past it is nobody's.
	! smpquery -t 200 -C sib0 -P 1 portinfo $((lid2 + (1 << LMC))) >/dev/null 2>&1 ||
		fail "LID $((lid2 + (1 << LMC))), past sib1's block, answered"
	echo "$BITS" >"$SIB/sa_path_bits"
fi

# run DRIVER NET: both modes on DRIVER's interfaces (ib_ipoib), checked.
run() {
	local drv=$1 net=$2 c1 c2
	step "$drv: datagram mode, paths with path bits $BITS"
	two_hosts ib_ipoib "$net"
	c1=$(at_bits sib0)
	c2=$(at_bits sib1)
	assert on h1 ping -c 3 -i 0.2 -W 3 "$net.2"
	assert on h2 ping -c 3 -i 0.2 -W 3 "$net.1"
	tcp_exact h2 "$net.2" h1 4 "$drv datagram TCP"
	assert_eq "$(path_dlid "$drv" "$a" "$gid2")" $((lid2 + BITS)) "$drv h1's path DLID to h2"
	assert_eq "$(path_dlid "$drv" "$b" "$gid1")" $((lid1 + BITS)) "$drv h2's path DLID to h1"
	echo "$drv datagram: at a LID but the base: sib0 $(($(at_bits sib0) - c1)), sib1 $(($(at_bits sib1) - c2))"
	if [ "$BITS" != 0 ]; then
		# 4 MiB in 2044-byte datagrams one way, fewer ACKs the other.
		assert_ge "$(($(at_bits sib1) - c2))" 2000 "packets sib1 took at LID $((lid2 + BITS))"
		assert_ge "$(($(at_bits sib0) - c1))" 50 "packets sib0 took at LID $((lid1 + BITS))"
	fi

	step "$drv: connected mode"
	two_hosts_connected
	c1=$(at_bits sib0)
	c2=$(at_bits sib1)
	assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 "$net.2"
	tcp_exact h2 "$net.2" h1 4 "$drv connected TCP"
	rc_qps_go sib0 $((lid2 + BITS)) "$BITS"
	rc_qps_go sib1 $((lid1 + BITS)) "$BITS"
	echo "$drv connected: at a LID but the base: sib0 $(($(at_bits sib0) - c1)), sib1 $(($(at_bits sib1) - c2))"
	if [ "$BITS" != 0 ]; then
		# 4 MiB in 64 kB messages one way, their ACKs and the pongs back.
		assert_ge "$(($(at_bits sib1) - c2))" 60 "messages sib1 took at LID $((lid2 + BITS))"
		assert_ge "$(($(at_bits sib0) - c1))" 10 "messages sib0 took at LID $((lid1 + BITS))"
	fi
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	rmmod ib_ipoib
}

intree_up
run intree 10.47.0
ours_up
run ours 10.48.0
sib_counters sib0 1
sib_counters sib1 1
pass
