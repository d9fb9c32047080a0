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
# BOOT_LINKS and BOOT_MODULES: what guest-init saw at boot.
links=$(ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort | xargs)
assert_eq "$links" "$(echo "$BOOT_LINKS" | tr ' ' '\n' | sort | xargs)" "links"
modules=$(awk '{ print $1 }' /proc/modules | sort | xargs)
assert_eq "$modules" "$(echo "$BOOT_MODULES" | tr ' ' '\n' | sort | xargs)" "modules"
procs=$(ps -o pid,comm | awk '$2 == "sleep"')
assert_eq "$procs" "" "leftover sleep processes"
pass
