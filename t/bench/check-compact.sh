#!/bin/sh
# check-lease.sh on the same cluster's trace at the compact level
# (elect-trace(5), Compact traces): each grantor's routine renewal a renew
# line, as elect-node writes by default.
BENCH_GEN=leasegen BENCH_SET=lease BENCH_FILTER=tcompact \
    exec sh "$(dirname "$0")/check.sh"
