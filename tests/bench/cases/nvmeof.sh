#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark, NVMe over Fabrics over RDMA: sequential reads in 1 MiB
# O_DIRECT requests from a null_blk namespace (no memory behind it: the
# target's device costs next to nothing), host and target on sib0 and
# sib1, over ours and over the in-tree driver in turn.  IPoIB is not on
# the data path: it resolves the address and names the interface to
# rdma_cm, and the data moves by RDMA on the fabric, so the ratio should
# be about 1.0.  Both ends live in init_net, as nvme-rdma and nvmet-rdma
# need (tests/lib/nvmeof.sh).
#
# One driver is loaded at a time, each round: loaded together, both
# answer rdma_cm for every port (each has one interface there), and the
# one registered first answers for the other's addresses too, with an
# interface that does not hold them; rdma_cm then refuses the request.
# No host runs two IPoIB drivers, so that is the bench's to avoid.
#
#   h1: sib0 10.63.0.1, nvme-rdma  ====  h2: sib1 10.63.0.2, nvmet-rdma, /dev/nullb0
#
# timeout: 600
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../../lib/bench.sh
. "$TESTS_LIB/bench.sh"
# shellcheck source=SCRIPTDIR/../../lib/nvmeof.sh
. "$TESTS_LIB/nvmeof.sh"

H1=10.63.0.1 H2=10.63.0.2
trap nvmeof_cleanup EXIT

# pair_up WHO ROUND: WHO's driver loaded, the two ends up, the host
# connected; sets DISK (empty when the connection failed) and MOD.
pair_up() {
	local who=$1 r=$2 drv a b
	if [ "$who" = ours ]; then
		MOD=ipoib_alt drv=ipoib_alt
		alt_up
		[ "$r" != 1 ] || bench_info ours
	else
		MOD=ib_ipoib drv=ib_ipoib
		intree_up ${BENCH_INTREE[@]+"${BENCH_INTREE[@]}"}
		[ "$r" != 1 ] || bench_info intree ${BENCH_INTREE[@]+"${BENCH_INTREE[@]}"}
	fi
	a=$(wait_iface "$drv" sib0 1)
	b=$(wait_iface "$drv" sib1 1)
	nvmeof_iface "$a" "$H1/24"
	nvmeof_iface "$b" "$H2/24"
	nvmeof_route 0 "$a" "$H1" "$b" "$H2"
	nvmeof_target 0 "$H2" >/dev/null
	DISK=$(nvmeof_connect 0 "$H2" "$H1") ||
		{ DISK=; echo "$who: nvme connect to $H2 failed: its line reads n/a"; }
	echo "$who: $a (sib0) -> $b (sib1): /dev/${DISK:-none}"
}

pair_down() {
	[ -z "$DISK" ] || nvmeof_disconnect 0 || echo "nvme disconnect failed" >&2
	nvmeof_target_down 0
	nvmeof_unroute
	rmmod "$MOD"
}

fabric_up devices=2 ports=1
modprobe null_blk nr_devices=1 gb=4 bs=4096

for r in $(seq "$BENCH_ROUNDS"); do
	step "round $r of $BENCH_ROUNDS"
	for who in $(order "$r" ours intree); do
		pair_up "$who" "$r"
		bench_nvme_read "$who" "$r" "$DISK"
		pair_down
	done
done
pass
