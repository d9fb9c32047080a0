#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the guest kernel panics (sysrq c) and QEMU exits; the
# case must be reported FAILED with the console's tail, the cases after it as
# not run.
# expect: FAIL kernel panic
echo "crashing the kernel"
echo c >/proc/sysrq-trigger
