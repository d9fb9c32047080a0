#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the guest stops reporting, as when its kernel hangs.
# The case stops its guardian `timeout` and sleeps forever; the host must
# kill QEMU GRACE seconds after the case's timeout and report the case
# FAILED with the console's tail. Cases after it are reported as not run.
#   GRACE=10 tests/vm/run --no-build tests/vm/selftest/hang.sh
#
# timeout: 5
# expect: FAIL gave up waiting for case
echo "stopping my timeout (pid $PPID) and sleeping forever"
kill -STOP "$PPID"
while :; do sleep 1000; done
