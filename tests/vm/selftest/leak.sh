#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: loads modules and leaves them loaded with users (a veth
# pair inside a namespace, a process holding the namespace); the reset must
# remove them all. Passes; the next case sees a clean VM.
# expect: PASS
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

ns_add a
on a ip link add v0 type veth peer name v1
on a ip link set v0 up
ip netns exec a sleep 1000 &
modprobe ib_ipoib
lsmod
pass
