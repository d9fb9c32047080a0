#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run last by `tests/vm/run --kmemleak end`: does nothing itself; the scan
# for memory leaks after it covers the whole run, and fails it on a leak.
true
