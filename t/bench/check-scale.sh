#!/bin/sh
# check.sh on a hundred lease nodes over ten minutes, at the compact level
# elect-node writes by default: elect-sim's run, about 4 million lines,
# three in four of them renew lines, the shortest a trace has, where the
# checker's cost per line weighs most beside awk's.
BENCH_TRACE='elect-sim -a lease -n 100 -d 600 --trace-level compact' \
    BENCH_SET=lease exec sh "$(dirname "$0")/check.sh"
