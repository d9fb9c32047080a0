#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test bed maps DMA as a device does (sib dma=1, the default): each HCA
# is registered with its platform device as its DMA device, so
# ib_dma_map_*() gives real DMA addresses, bounce buffers under
# swiotlb=force, and a consumer's syncs are what move its bytes.
#
#   sibperf: QP on sib0 port 1 --SEND--> QP on sib1 port 1, into a buffer
#            of 0xc3 bytes mapped with ib_dma_map_single()
#   h1: ib (sib0 port 1) 10.N.0.1  ===UD, then RC===  h2: ib (sib1 port 1) 10.N.0.2
#
# - sibperf's dmasync, UD and RC: one SEND of 0x3c bytes into that buffer,
#   read before ib_dma_sync_single_for_cpu() and after.  dma=0: the DMA
#   address is the kernel address (virtual DMA), both reads see the
#   message, sib walks nothing by DMA address.  dma=1: the DMA address is
#   the buffer's physical one, or with swiotlb=force on the kernel command
#   line a bounce buffer's ("remapped"): then the read before the sync sees
#   the old bytes, only the one after it the message; sibN/dma counts the
#   list entries walked by DMA address, none refused;
# - dma=1: the in-tree ib_ipoib (the witness), then ours, in datagram and
#   connected mode: pings and 4 MiB over TCP (every byte checked), the
#   entries sib0 walked by DMA address rising, none refused.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

DMASYNC=/sys/kernel/debug/sibperf/dmasync
FORCE=0
! bounce_buffers || FORCE=1

# field LINE NAME: NAME's value in a key=value line.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }

# dma_stat IBDEV NAME: a line of sibN/dma.
dma_stat() { awk -v n="$2" '$1 == n { print $2 }' "$SIB/$1/dma"; }

# expect TYPE BYTES MAPPING UNSYNCED: one dmasync, judged.
expect() {
	local out
	echo "$1 $2" >"$DMASYNC" || fail "sibperf dmasync $1 $2 failed"
	out=$(cat "$DMASYNC")
	echo "dma=$(cat /sys/module/sib/parameters/dma) swiotlb=force:$FORCE: $out"
	assert_eq "$(field "$out" mapping)" "$3" "$1: the receive buffer's DMA address"
	assert_eq "$(field "$out" unsynced)" "$4" "$1: read before the sync"
	assert_eq "$(field "$out" synced)" sent "$1: read after the sync"
	assert_eq "$(field "$out" recv)" success "$1: receive status"
}

step "dma=0: virtual DMA, no sync needed"
fabric_up devices=2 ports=1 dma=0
modprobe sibperf
assert_eq "$(dma_stat sib1 dma_dev)" none "sib1's DMA device"
expect ud 256 virtual sent
expect rc 4096 virtual sent
assert_eq "$(dma_stat sib1 sges)" 0 "entries sib1 walked by DMA address"
rmmod sibperf
rmmod sib

step "dma=1: DMA addresses, the sync carries the bytes"
fabric_up devices=2 ports=1 dma=1
modprobe sibperf
assert_eq "$(dma_stat sib1 dma_dev)" sib.1 "sib1's DMA device"
s0=$(dma_stat sib1 sges)
if [ "$FORCE" = 1 ]; then
	expect ud 256 remapped old
	expect rc 4096 remapped old
else
	expect ud 256 physical sent
	expect rc 4096 physical sent
fi
# Each receive: at least its one entry (UD: the GRH and the payload).
assert_ge "$(($(dma_stat sib1 sges) - s0))" 2 "entries sib1 walked by DMA address"
rmmod sibperf

run() {
	local drv=$1 net=$2 s0
	s0=$(dma_stat sib0 sges)
	step "$drv: datagram mode, dma=1"
	two_hosts ib_ipoib "$net"
	assert on h1 ping -c 3 -i 0.2 -W 3 "$net.2"
	assert on h1 ping -c 3 -i 0.2 -W 3 -s 1400 "$net.2"
	tcp_exact h2 "$net.2" h1 4 "$drv datagram TCP"

	step "$drv: connected mode, dma=1"
	two_hosts_connected
	assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 "$net.2"
	tcp_exact h2 "$net.2" h1 4 "$drv connected TCP"
	echo "$drv: sib0 walked $(($(dma_stat sib0 sges) - s0)) list entries by DMA address"
	# 8 MiB sent: a thousand entries at least, whatever the MTU.
	assert_ge "$(($(dma_stat sib0 sges) - s0))" 1000 "entries sib0 walked by DMA address"
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	rmmod ib_ipoib
}

intree_up
run intree 10.45.0
ours_up
run ours 10.46.0
assert_eq "$(dma_stat sib0 refused)" 0 "sib0's DMA addresses with no memory"
assert_eq "$(dma_stat sib1 refused)" 0 "sib1's DMA addresses with no memory"
pass
