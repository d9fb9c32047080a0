#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# At boot, rdma-core loads the modules an InfiniBand HCA wants: udev starts
# rdma-load-modules@infiniband.service for the HCA, which runs
# systemd-modules-load on /etc/rdma/modules/infiniband.conf (rdma-core's
# own file, copied from Debian's package).  With our module installed in
# updates/ (as make install and DKMS put it), the ib_ipoib it loads must
# be ours, and make the port's interface.
#
#   sib0 (an HCA appears) -> systemd-modules-load infiniband.conf
#                            -> ib_ipoib (ours, from updates/), ib_umad
#
# (That Debian's mkinitramfs takes our module for a network boot is checked
# on the host: tests/dkms/run.)
#
# timeout: 60
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

conf=/etc/rdma/modules/infiniband.conf
fabric_up devices=1 ports=1

step "rdma-core's list"
grep -v '^#' "$conf" | grep .
grep -qx ib_ipoib "$conf" || fail "rdma-core's $conf does not list ib_ipoib"

step "what rdma-load-modules@infiniband runs"
# /lib/systemd/systemd-modules-load, copied into the image's /bin.
assert systemd-modules-load "$conf"
lsmod | grep -E '^(ib_ipoib|ib_umad) '
grep -q '^ib_ipoib ' /proc/modules || fail "ib_ipoib was not loaded"
grep -q '^ib_umad ' /proc/modules || fail "ib_umad was not loaded"

step "the ib_ipoib loaded is ours"
file=$(modinfo -F filename ib_ipoib)
echo "modinfo: $file"
[[ $file == */updates/* ]] || fail "modprobe's ib_ipoib is $file, not ours in updates/"
ifc=$(wait_iface ib_ipoib sib0 1)
ethtool -i "$ifc" | head -n 2
version=$(ethtool -i "$ifc" | sed -n 's/^version: //p')
assert_eq "$version" "$(modinfo -F version "$file")" "the running driver's version"
pass
