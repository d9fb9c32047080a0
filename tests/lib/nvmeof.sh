# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# NVMe over Fabrics over RDMA between ports of the fabric: a target
# (nvmet-rdma, set up through nvmet's configfs) exporting a null_blk
# device on one IPoIB address, a host (nvme-rdma, through Debian's
# nvme-cli, as users connect) reaching it from another.  Pairs are
# numbered (N = 0, 1, ...): subsystem $NVMEOF_NQN_BASE$N on nvmet port N
# exports /dev/nullbN (load null_blk first, nr_devices= as many).
#
# nvme-rdma and nvmet-rdma make their rdma_cm ids in init_net (6.1 and
# 6.12), so both interfaces of a pair stay there; nvmeof_route keeps the
# two addresses, both local, from being routed to each other through lo.
# Nothing here goes away with the case (configfs, the rules, the
# connections): call nvmeof_cleanup on exit.  Source after common.sh.

NVMEOF_NQN_BASE=nqn.2014-08.org.sib.test:nullb
NVMEOF_HOSTID=5eb1b0ff-0000-4000-8000-000000000001
NVMEOF_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$NVMEOF_HOSTID
NVMEOF_SVC=4420
NVMET=/sys/kernel/config/nvmet

# nvmeof_iface IFACE ADDR/LEN: an IPoIB interface of init_net addressed,
# up, and joined to its broadcast group.
nvmeof_iface() {
	ip addr add "$2" dev "$1"
	ip link set "$1" up
	wait_for 20 iface_has_carrier "$1" || fail "$1 got no carrier"
}

iface_has_carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

# nvmeof_route N HOST_IF HOST_ADDR TARGET_IF TARGET_ADDR: the host's
# lookups for TARGET_ADDR (iif lo: its own) go out of HOST_IF, and the
# target's check that the requester is reached by the interface the
# request came in on (rdma_cm's validate_net_dev: a lookup with oif set)
# finds TARGET_IF; the local table comes after them.  accept_local: ARP
# between two addresses of one host.
nvmeof_route() {
	local n=$1 hif=$2 h=$3 tif=$4 t=$5 ifc
	ip rule add pref $((10 + 2 * n)) iif lo from "$h" to "$t" lookup $((110 + 2 * n))
	ip route add "$t" dev "$hif" table $((110 + 2 * n))
	ip rule add pref $((11 + 2 * n)) from "$t" to "$h" oif "$tif" lookup $((111 + 2 * n))
	ip route add "$h" dev "$tif" table $((111 + 2 * n))
	if ip rule show pref 0 | grep -q 'lookup local'; then
		ip rule add pref 100 lookup local
		ip rule del pref 0 lookup local
	fi
	for ifc in "$hif" "$tif"; do
		echo 1 >"/proc/sys/net/ipv4/conf/$ifc/accept_local"
	done
}

# nvmeof_unroute: every pair's rules gone, the local table first again,
# as the kernel made it: a rule of another protocol is foreign to
# systemd-networkd, which deletes it (surf-networkd then lost its local
# table, and with it every reply).
nvmeof_unroute() {
	local n
	for n in 0 1 2 3; do
		ip rule del pref $((10 + 2 * n)) 2>/dev/null || true
		ip rule del pref $((11 + 2 * n)) 2>/dev/null || true
		ip route flush table $((110 + 2 * n)) 2>/dev/null || true
		ip route flush table $((111 + 2 * n)) 2>/dev/null || true
	done
	ip rule show pref 0 | grep -q 'lookup local' ||
		ip rule add pref 0 lookup local protocol kernel
	ip rule del pref 100 lookup local 2>/dev/null || true
}

configfs_up() {
	modprobe configfs
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config
}

# nvmeof_target N ADDR: export /dev/nullbN as namespace 1 of subsystem
# $NVMEOF_NQN_BASE$N, to any host, on ADDR:4420.  Linking the subsystem
# to the port is what makes nvmet-rdma listen there.
nvmeof_target() {
	local n=$1 nqn=$NVMEOF_NQN_BASE$1 s p
	modprobe nvmet-rdma
	configfs_up
	s=$NVMET/subsystems/$nqn
	p=$NVMET/ports/$((n + 1))
	mkdir "$s"
	echo 1 >"$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	echo "/dev/nullb$n" >"$s/namespaces/1/device_path"
	echo 1 >"$s/namespaces/1/enable"
	mkdir "$p"
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$2" >"$p/addr_traddr"
	echo "$NVMEOF_SVC" >"$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$nqn"
	echo "nvmet: $nqn (/dev/nullb$n) on rdma $2:$NVMEOF_SVC"
}

# nvmeof_target_down N: the port stops listening, the subsystem goes.
nvmeof_target_down() {
	local nqn=$NVMEOF_NQN_BASE$1 p=$NVMET/ports/$(($1 + 1)) s
	s=$NVMET/subsystems/$nqn
	[ ! -L "$p/subsystems/$nqn" ] || rm "$p/subsystems/$nqn"
	[ ! -d "$p" ] || rmdir "$p"
	if [ -d "$s/namespaces/1" ]; then
		echo 0 >"$s/namespaces/1/enable"
		rmdir "$s/namespaces/1"
	fi
	[ ! -d "$s" ] || rmdir "$s"
}

# nvmeof_disk N: the block device of the host's namespace of subsystem N
# (with native multipath its head, under the subsystem; else under the
# controller), when there is one.
nvmeof_disk() {
	local nqn=$NVMEOF_NQN_BASE$1 d b
	for d in /sys/class/nvme-subsystem/* /sys/class/nvme/*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
		for b in "$d"/nvme*n1; do
			[ -e "$b/size" ] || continue
			[ -b "/dev/${b##*/}" ] || continue
			echo "${b##*/}"
			return 0
		done
	done
	return 1
}

# nvmeof_connect N TARGET_ADDR HOST_ADDR: nvme-cli connects the host from
# HOST_ADDR; prints the namespace's block device once it is there.
nvmeof_connect() {
	modprobe nvme-rdma
	nvme connect -t rdma -a "$2" -s "$NVMEOF_SVC" -w "$3" \
		-n "$NVMEOF_NQN_BASE$1" --hostnqn="$NVMEOF_HOSTNQN" \
		--hostid="$NVMEOF_HOSTID" >&2 || return 1
	wait_for 20 nvmeof_disk "$1" || return 1
	nvmeof_disk "$1"
}

# nvmeof_disconnect N: the host's controllers of subsystem N go.
nvmeof_disconnect() {
	nvme disconnect -n "$NVMEOF_NQN_BASE$1" >&2 || return 1
	wait_for 20 eval "! nvmeof_disk $1"
}

# nvmeof_cleanup: no controller, no target, configfs unmounted, routing
# as it was; for a trap on EXIT.
nvmeof_cleanup() {
	local c n
	for c in /sys/class/nvme/nvme*; do
		[ ! -e "$c/delete_controller" ] || echo 1 >"$c/delete_controller" 2>/dev/null || true
	done
	if [ -d "$NVMET" ]; then
		for n in 0 1 2 3; do
			nvmeof_target_down "$n" 2>/dev/null || true
		done
	fi
	! grep -q ' /sys/kernel/config ' /proc/mounts || umount /sys/kernel/config || true
	nvmeof_unroute
}
