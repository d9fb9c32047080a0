#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SR-IOV VF GUIDs through the PF's IPoIB interface, as the SR-IOV network
# operator sets them for virtual machines: `ip link set IF vf N node_guid
# G port_guid G` and `state enable|disable` reach the HCA driver (sib
# models four VFs per port that store them: debugfs sibN/vfs), a VF the
# HCA does not have is refused with EINVAL; on the in-tree driver first
# (the witness), then on ours.
#
#   sib0 port 1: the PF's interface  --(ib_set_vf_guid ...)-->  sib0's VFs 0-3
#
# `ip link show` lists VFs only when the interface's parent device is a PCI
# function with VFs enabled (the kernel's dev_num_vf()); sib's parent is a
# platform device, so the read side (ndo_get_vf_config, _guid, _stats)
# cannot be reached from user space here, and neither driver lists VFs.
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

vfs=$SIB/sib0/vfs

# vf_line VF: sib's line for that VF of port 1.
vf_line() { grep "^port 1 vf $1 " "$vfs"; }

# story WHO TAG: set VF 0 and VF 3 with GUIDs ending in TAG, check sib got
# them, and a VF out of range is refused.
story() {
	local ifc out
	ifc=$(wait_iface ib_ipoib sib0 1)
	step "$1: VF 0 and VF 3 of $ifc"
	# One GUID per request: rtnetlink acts on the first of the two only.
	assert ip link set "$ifc" vf 0 node_guid "00:11:22:33:44:55:66:$2"
	assert ip link set "$ifc" vf 0 port_guid "00:11:22:33:44:55:77:$2"
	assert ip link set "$ifc" vf 0 state enable
	assert ip link set "$ifc" vf 3 port_guid "00:11:22:33:44:55:88:$2" state disable
	cat "$vfs"
	vf_line 0 | grep -q "node_guid 00112233445566$2 port_guid 00112233445577$2 state enable" ||
		fail "sib's VF 0 has not got the GUIDs and state set: $(vf_line 0)"
	vf_line 3 | grep -q "port_guid 00112233445588$2 state disable" ||
		fail "sib's VF 3 has not got the port GUID and state set: $(vf_line 3)"

	step "$1: VF 9 does not exist"
	if out=$(ip link set "$ifc" vf 9 node_guid "00:11:22:33:44:55:99:$2" 2>&1); then
		fail "setting VF 9 succeeded"
	fi
	echo "ip link set $ifc vf 9 node_guid ...: $out"
	grep -q "Invalid argument" <<<"$out" || fail "not EINVAL: $out"
	ip link show "$ifc"
}

fabric_up devices=1 ports=1

intree_up
story "the in-tree driver" 01
rmmod ib_ipoib

ours_up
story ours 02
pass
