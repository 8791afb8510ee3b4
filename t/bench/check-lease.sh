#!/bin/sh
# check.sh on a Nerio lease cluster: five nodes, a new leader every 20 to
# 40 s, edicts and failure detectors (t/tools/leasegen), checked with the
# lease set that its boots' algo= names.
BENCH_GEN=leasegen BENCH_SET=lease exec sh "$(dirname "$0")/check.sh"
