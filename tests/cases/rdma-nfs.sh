#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA (rpcrdma, NFSv4) to an IPoIB address: Debian's in-tree
# ib_ipoib first (the witness that the case and the fabric are fair), then
# ours, each in datagram and in connected mode.  h2 runs the kernel's nfsd
# (rpc.nfsd, rpc.mountd, exportfs, as users start it) with an RDMA
# listener on port 20049, exporting a tmpfs; h1 mounts it with
# `mount.nfs4 -o proto=rdma` at h2's address, writes random bytes with
# O_DIRECT, unmounts, mounts again and reads them back: what was written,
# what came back and what h2's file holds have the same checksums.
# IPoIB resolves the address (ARP) and tells rdma_cm which interface owns
# it (get_net_dev_by_params); the data moves by RDMA READ (h2 pulls what
# h1 writes) and RDMA WRITE (h2 pushes what h1 reads), which the fabric
# counts at h1's port, the responder; the client's mountstats name the
# rdma transport.
#
# rpcrdma makes its rdma_cm ids in the namespace of the mount, svcrdma
# in the one nfsd's control filesystem was mounted from, so h1 and h2 are
# namespaces, each address routed to the other over the fabric (no policy
# rules needed).  Mounts are made with nsenter --net (ip netns exec would
# unshare the mount namespace).
#
# Each round pings h2 before it mounts, so rdma_cm finds the neighbour
# entry valid.  Without it, after our mode switch (a new link address,
# the neighbours flushed), rdma_cm's first resolution could sleep out its
# 5 s timeout though the ARP reply came in 2 ms: a lost wake-up in
# ib_core (process_one_req re-arms the timeout just after the netevent
# asked for a run), opened by h2's own neighbour update, which only hosts
# sharing one kernel see.
#
#   h1: ib (sib0 port 1) 10.50.0.1  ==== rdma_cm, RC ====  h2: ib (sib1 port 1) 10.50.0.2
#       mount.nfs4 proto=rdma -> /mnt/nfs                  nfsd rdma :20049, /srv/nfs (tmpfs)
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

NET=10.50.0 H2=10.50.0.2 PORT=20049
EXPORT=/srv/nfs MNT=/mnt/nfs
MOUNTD='' CLD=''
PIPEFS=/var/lib/nfs/rpc_pipefs

# netns NS CMD...: CMD in NS's network namespace, in our mount namespace.
netns() {
	local ns=$1
	shift
	nsenter "--net=/run/netns/$ns" "$@"
}

sum() { sha256sum | cut -c1-16; }
secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
# shellcheck disable=SC2317 # called through wait_for
no_ipoib_rc_qps() { ! rdma res show qp | grep -Eq 'type RC .*ib_ipoib'; }
# shellcheck disable=SC2317 # called from the EXIT trap
mounted() { grep -q " $1 " /proc/mounts; }
# shellcheck disable=SC2317 # called by wait_for
nfsd_listens() { grep -qx "rdma $PORT" /proc/fs/nfsd/portlist; }

# cleanup: no mount, no nfsd threads, no mountd, nothing exported: the
# modules unload after the case.
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	local st=$?
	if [ "$st" != 0 ]; then
		[ ! -s mountd.log ] || sed 's/^/rpc.mountd: /' mountd.log
		[ ! -s nfsdcld.log ] || sed 's/^/nfsdcld: /' nfsdcld.log
	fi
	! mounted "$MNT" || timeout 30 umount "$MNT" || umount -l "$MNT" || true
	if mounted /proc/fs/nfsd; then
		netns h2 rpc.nfsd 0 || true
		netns h2 exportfs -ua || true
	fi
	[ -z "$MOUNTD" ] || { kill "$MOUNTD" 2>/dev/null; wait "$MOUNTD" 2>/dev/null; } || true
	[ -z "$CLD" ] || { kill "$CLD" 2>/dev/null; wait "$CLD" 2>/dev/null; } || true
	! mounted "$PIPEFS" || umount "$PIPEFS" || true
	! mounted /proc/fs/nfsd || umount /proc/fs/nfsd || true
	! mounted "$EXPORT" || umount "$EXPORT" || true
	rm -f /etc/exports
}
trap cleanup EXIT

# cld_watching PID: nfsdcld watches for nfsd's pipe to appear: nfsd,
# starting, makes it and waits only a second for nfsdcld to open it.
# shellcheck disable=SC2317 # called by wait_for
cld_watching() { grep -qs '^inotify wd:' "/proc/$1"/fdinfo/*; }

# server_up: h2 exports $EXPORT (NFSv4 only) and listens on RDMA port
# $PORT.  nfsdcld tracks its clients, as Debian's nfs-server starts it:
# with none to reclaim nfsd skips its 90 s grace period, so h1's first
# OPEN is not held off (without a tracker nfsd in a namespace has none,
# and the grace period cannot be cut short).
server_up() {
	local t=$EPOCHREALTIME
	mkdir -p "$EXPORT" "$MNT" "$PIPEFS"
	mount -t tmpfs -o size=64m nfsexport "$EXPORT"
	echo "$EXPORT $NET.0/24(rw,insecure,no_root_squash,no_subtree_check,fsid=0)" >/etc/exports
	netns h2 mount -t nfsd nfsd /proc/fs/nfsd
	netns h2 mount -t rpc_pipefs sunrpc "$PIPEFS"
	# nsenter execs them: $! is the daemon.
	nsenter --net=/run/netns/h2 nfsdcld -F >nfsdcld.log 2>&1 &
	CLD=$!
	wait_for 10 cld_watching "$CLD" || fail "nfsdcld does not watch $PIPEFS/nfsd"
	netns h2 exportfs -ra
	nsenter --net=/run/netns/h2 rpc.mountd -F -N 2 -N 3 >mountd.log 2>&1 &
	MOUNTD=$!
	netns h2 rpc.nfsd -N 3 -V 4 -U -p 2049 --rdma="$PORT" 4
	wait_for 20 nfsd_listens || fail "nfsd does not listen on rdma $PORT: $(cat /proc/fs/nfsd/portlist)"
	dmesg | grep -E 'NFSD: .*(nfsdcld|grace|tracking)' | sed 's/^\[[ 0-9.]*\] /h2: /'
	assert_eq "$(cat /proc/fs/nfsd/v4_end_grace)" Y "nfsd's grace period over"
	echo "h2: nfsd up in $(secs "$t") s: versions $(cat /proc/fs/nfsd/versions)," \
		"$(cat /proc/fs/nfsd/threads) threads, listening on $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
	netns h2 exportfs -v | sed 's/^/h2: exports /'
}

# nfs_mount: h1 mounts h2's export over RDMA; the mount's transport is rdma.
nfs_mount() {
	local t=$EPOCHREALTIME opts xprt
	netns h1 timeout -k 5 60 mount.nfs4 "$H2:/" "$MNT" -o "proto=rdma,port=$PORT" ||
		fail "mount.nfs4 $H2:/ over rdma failed"
	opts=$(awk -v m="$MNT" '$1 == "device" { on = ($5 == m) } on && $1 == "opts:" { print $2 }' /proc/self/mountstats)
	xprt=$(awk -v m="$MNT" '$1 == "device" { on = ($5 == m) } on && $1 == "xprt:" { print $2; exit }' /proc/self/mountstats)
	echo "h1: mounted $H2:/ in $(secs "$t") s; transport $xprt; $(tr , '\n' <<<"$opts" | grep -E '^(vers|proto|port|rsize|wsize|addr|clientaddr)=' | tr '\n' ' ')"
	assert_eq "$xprt" rdma "the mount's transport (mountstats xprt:)"
}

# round WHO MODE: mount, write, remount, read back, compare.
round() {
	local who=$1 mode=$2 f=f-$1-$2 src back held t
	step "$who, $mode mode"
	ip -n h1 link set "$a" type ipoib mode "$mode"
	ip -n h2 link set "$b" type ipoib mode "$mode"
	if [ "$mode" = connected ]; then
		ip -n h1 link set "$a" mtu 65520
		ip -n h2 link set "$b" mtu 65520
	fi
	assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" "$mode" "$a mode"
	assert_eq "$(ip netns exec h2 cat "/sys/class/net/$b/mode")" "$mode" "$b mode"
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	echo "h1: $a $NET.1, $(driver_of h1 "$a")"
	echo "h2: $b $H2, $(driver_of h2 "$b")"

	step "$who, $mode: h1 writes 4 MiB with O_DIRECT, remounts, reads them back"
	responder_mark
	dd if=/dev/urandom of=src bs=1M count=4 status=none
	ip netns exec h1 ping -c 1 -W 5 "$H2" >/dev/null || fail "h1 cannot ping $H2"
	nfs_mount
	rdma res show cm_id | grep -E "(src|dst)-addr $H2:$PORT" | grep -v LISTEN >cm_ids.txt || true
	sed 's/^/rdma_cm: /' cm_ids.txt
	grep -Eq "^link sib0/1 .* state CONNECT .*src-addr $NET.1:[0-9]+ dst-addr $H2:$PORT" cm_ids.txt ||
		fail "rdma res show cm_id lists no connection from $NET.1 to $H2:$PORT on sib0"
	echo "h1: $(ip -n h1 neigh show "$H2" dev "$a")"
	t=$EPOCHREALTIME
	dd if=src of="$MNT/$f" bs=1M oflag=direct conv=fsync status=none
	echo "h1: wrote 4 MiB in $(secs "$t") s"
	umount "$MNT"
	nfs_mount
	t=$EPOCHREALTIME
	dd if="$MNT/$f" of=back bs=1M iflag=direct status=none
	echo "h1: read $(stat -c %s back) bytes in $(secs "$t") s"
	umount "$MNT"

	src=$(sum <src) back=$(sum <back) held=$(sum <"$EXPORT/$f")
	echo "h1 wrote $(stat -c %s src) bytes sha256 $src; h2 holds $(stat -c %s "$EXPORT/$f") bytes sha256 $held; h1 read back sha256 $back"
	assert_eq "$held" "$src" "sha256 of the file h2 holds"
	assert_eq "$back" "$src" "sha256 of what h1 read back"

	responder_moved $((4 << 20)) $((4 << 20)) 0
	rm -f "$EXPORT/$f"
}

fabric_up devices=2 ports=1
for m in rpcrdma nfsd nfsv4; do
	modprobe "$m" || fail "this kernel has no $m module (the debug kernel is built without NFS)"
done

step "in-tree driver: h1 and h2, h2 serves NFS over RDMA"
intree_up
two_hosts ib_ipoib "$NET"
server_up
round in-tree datagram
round in-tree connected
# The in-tree driver's unload destroys its CQs before it flushes the work
# that destroys its connections' QPs, which use them: ib_core then WARNs
# "Destroy of kernel CQ shouldn't fail" (once in a make check).  Down
# first, so that its connections go, and unload once their QPs have.
n=$(rdma res show qp | grep -Ec 'type RC .*ib_ipoib' || true)
echo "the in-tree driver's RC QPs before the link down: $n"
assert_ge "$n" 1 "the in-tree driver's RC QPs in connected mode"
ip -n h1 link set "$a" down
ip -n h2 link set "$b" down
wait_for 20 no_ipoib_rc_qps ||
	fail "the in-tree driver's RC QPs outlived the link down: $(rdma res show qp | grep -Ec 'type RC .*ib_ipoib')"
rmmod ib_ipoib

step "our driver: h1 and h2 again, the same nfsd"
ours_up
two_hosts ib_ipoib "$NET"
round ours datagram
round ours connected
grep -E '^(rdma|rkey|remote)' "$SIB/sib0/port1/counters"
pass
