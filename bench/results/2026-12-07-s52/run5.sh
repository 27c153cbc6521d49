#!/usr/bin/env bash
# Session 52, call 5 (the last ~3 minutes of device time): gpu_test --chooser of s122 = main e41bd38 (the chooser test
# now checks 4096x11008 on W = 3 with 2 splits up to 24 tokens), then graph_test while time is left. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
B=/tmp/prebuilt/s122; mkdir -p $B && tar xJf .carry/bins/s122.tar.xz -C $B
timeout 30 $B/w4a16_gpu_test --chooser >$O/chooser-s122.txt 2>&1
echo "gpu_test --chooser s122: exit $?; $(grep -c '^FAIL' $O/chooser-s122.txt) FAIL lines; $(tail -1 $O/chooser-s122.txt)" | tee $O/summary.txt
timeout 40 $B/w4a16_graph_test >$O/graph-s122.txt 2>&1
echo "graph_test s122: exit $?; $(tail -1 $O/graph-s122.txt)" | tee -a $O/summary.txt
