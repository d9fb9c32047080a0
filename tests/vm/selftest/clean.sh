#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: run after the others, checks that the reset left no
# namespace, extra link, user process or module behind.
# expect: PASS
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

assert_eq "$(ip netns list)" "" "namespaces"
assert_eq "$(ip -o link show | wc -l)" 1 "links (only lo)"
# Only the report channel's modules, loaded at boot.
assert_eq "$(lsmod | awk 'NR > 1 && $1 !~ /^virtio/')" "" "modules"
procs=$(ps -o pid,comm | awk '$2 == "sleep"')
assert_eq "$procs" "" "leftover sleep processes"
pass
