#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics over RDMA to an IPoIB address: Debian's in-tree
# ib_ipoib first (the witness that the case and the fabric are fair), then
# ours, each in datagram and in connected mode.  The target (nvmet-rdma)
# exports a memory-backed null_blk on h2's address; the host (nvme-rdma,
# through nvme-cli) connects to it from h1's, writes random bytes with
# O_DIRECT in 1 MiB and in 4 KiB requests, reads them back; what was
# written, what came back and what the target's device holds have the
# same checksums; then it disconnects.  IPoIB resolves the address (ARP)
# and tells rdma_cm which interface owns it (get_net_dev_by_params); the
# data moves by RDMA READ and WRITE, fast-registered regions and remote
# invalidation, which the fabric counts at h1's port, the responder: the
# target reads what h1 writes and writes what h1 reads.
#
# nvme-rdma and nvmet-rdma make their rdma_cm ids in init_net, so h1 and
# h2 are two interfaces of init_net, not namespaces; policy rules route
# each address to the other over the fabric, not through lo
# (tests/lib/nvmeof.sh).
#
#   init_net:  h1: ib (sib0 port 1) 10.40.0.1  ====  h2: ib (sib1 port 1) 10.40.0.2
#              nvme-rdma, nvme-cli                   nvmet-rdma, /dev/nullb0
#
# timeout: 480
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"
# shellcheck source=SCRIPTDIR/../lib/nvmeof.sh
. "$TESTS_LIB/nvmeof.sh"

# The kernel's NVMe/RDMA target of 6.1 maps a read's data when the
# command arrives, fills it afterwards, and posts the RDMA WRITE with no
# sync for the device between (drivers/nvme/target/rdma.c: the mapping in
# nvmet_rdma_map_sgl_keyed, a sync only for the response capsule): where
# every mapping is a bounce buffer the host reads the bounce buffer's stale
# bytes, whichever IPoIB driver resolved the address (Identify comes back
# zero: "Mismatching cntlid").  Nothing of ours can be shown there.
! bounce_buffers ||
	skip "bounce buffers (swiotlb=force): the kernel's nvmet-rdma sends a read's data unsynced"

H1=10.40.0.1 H2=10.40.0.2
trap nvmeof_cleanup EXIT

sum() { sha256sum | cut -c1-16; }

# hosts DRIVER MODE: h1 and h2 in MODE, addressed, up; sets a and b.
hosts() {
	local ifc
	a=$(wait_iface "$1" sib0 1)
	b=$(wait_iface "$1" sib1 1)
	for ifc in "$a" "$b"; do
		echo "$2" >"/sys/class/net/$ifc/mode"
		[ "$2" = datagram ] || ip link set "$ifc" mtu 65520
		assert_eq "$(cat "/sys/class/net/$ifc/mode")" "$2" "$ifc mode"
	done
	nvmeof_iface "$a" "$H1/24"
	nvmeof_iface "$b" "$H2/24"
	echo "h1: $a $H1, $(ethtool -i "$a" | grep -E '^(driver|version):' | tr '\n' ' ')"
	echo "h2: $b $H2, $(ethtool -i "$b" | grep -E '^(driver|version):' | tr '\n' ' ')"
	nvmeof_route 0 "$a" "$H1" "$b" "$H2"
}

# round WHO MODE: connect, write, read back, compare, disconnect.
round() {
	local who=$1 mode=$2 disk ctrl p1 p2 back t
	step "$who, $mode mode: h1 and h2"
	hosts ib_ipoib "$mode"

	step "$who, $mode: h2 exports /dev/nullb0, h1 connects to $H2"
	nvmeof_target 0 "$H2"
	t=$EPOCHREALTIME
	disk=$(nvmeof_connect 0 "$H2" "$H1") || fail "nvme connect to $H2 failed"
	echo "h1: connected in $(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s; $(ip neigh show "$H2" dev "$a")"
	for ctrl in /sys/class/nvme/nvme*; do
		echo "h1: $(basename "$ctrl"): $(cat "$ctrl/transport") $(cat "$ctrl/address"), state $(cat "$ctrl/state")"
	done
	echo "h1: /dev/$disk, $(($(cat "/sys/class/block/$disk/size") / 2048)) MiB"

	step "$who, $mode: 8 MiB in 1 MiB requests, 256 KiB in 4 KiB requests, O_DIRECT"
	responder_mark
	dd if=/dev/urandom of=/tmp/p1 bs=1M count=8 status=none
	dd if=/dev/urandom of=/tmp/p2 bs=4k count=64 status=none
	dd if=/tmp/p1 of="/dev/$disk" bs=1M count=8 oflag=direct status=none
	dd if="/dev/$disk" of=/tmp/back1 bs=1M count=8 iflag=direct status=none
	dd if=/tmp/p2 of="/dev/$disk" bs=4k count=64 oflag=direct status=none
	dd if="/dev/$disk" of=/tmp/back2 bs=4k count=64 iflag=direct status=none
	p1=$(sum </tmp/p1) p2=$(sum </tmp/p2)
	back=$(sum </tmp/back1)
	echo "1 MiB requests: wrote $(stat -c %s /tmp/p1) bytes sha256 $p1, read back $(stat -c %s /tmp/back1) bytes sha256 $back"
	assert_eq "$back" "$p1" "sha256 of 8 MiB read back"
	back=$(sum </tmp/back2)
	echo "4 KiB requests: wrote $(stat -c %s /tmp/p2) bytes sha256 $p2, read back $(stat -c %s /tmp/back2) bytes sha256 $back"
	assert_eq "$back" "$p2" "sha256 of 256 KiB read back"
	# The target's device: the 4 KiB writes over the first 256 KiB.
	t=$({ cat /tmp/p2; dd if=/tmp/p1 bs=4k skip=64 status=none; } | sum)
	back=$(dd if=/dev/nullb0 bs=1M count=8 iflag=direct status=none | sum)
	echo "h2: /dev/nullb0 holds sha256 $back, h1 wrote sha256 $t"
	assert_eq "$back" "$t" "sha256 of the target's device"

	responder_moved $((8 << 20)) $(((8 << 20) + (256 << 10))) 1

	step "$who, $mode: disconnect"
	nvmeof_disconnect 0 || fail "nvme disconnect failed"
	nvmeof_target_down 0
	nvmeof_unroute
	ip addr flush dev "$a"
	ip addr flush dev "$b"
}

# Under the DMA API's debugging the kernel's nvme-rdma is reported at its
# first connect, whichever IPoIB driver resolved the address: its
# completion buffers are 16-byte kzalloc()s mapped for the device to
# write, so two share a cache line ("cacheline tracking EEXIST";
# drivers/nvme/host/rdma.c, nvme_rdma_alloc_qe), and after that first
# report the checker prints no more.  Here the fabric maps virtually, as
# it did before it mapped for real; our driver's mappings are checked
# under the debugging by ours-datagram, cm-basic and bed-dma.
fabric_dma=
if dma_api_debug; then
	fabric_dma=dma=0
	echo "DMA API debugging: sib dma=0 (nvme-rdma's 16-byte completion buffers share cache lines)"
fi
fabric_up devices=2 ports=1 ${fabric_dma:+"$fabric_dma"}
modprobe null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1
wait_for 10 test -b /dev/nullb0 || fail "no /dev/nullb0"

intree_up
round in-tree datagram
round in-tree connected
rmmod ib_ipoib

ours_up
round ours datagram
round ours connected
grep -E '^(rdma|rkey|remote)' "$SIB/sib0/port1/counters"
pass
