#!/bin/bash
# Runs litmus files one process each (a hung or slow test cannot hold back the others) and
# keeps each test's output: results land in $OUT (or /tmp/gpu-async), with a summary line per
# test in summary.txt. Usage: h100-async.sh NAME BUDGET_S PER_TEST_S -- scopecheck-gpu-args... -- files...
# Here:   cargo build --release && mkdir -p .gpubin && cp target/release/scopecheck .gpubin/ \
#         && strip .gpubin/scopecheck && cp gpu-validate/scripts/h100-async.sh .gpubin/
# There:  bash .gpubin/h100-async.sh async 300 10 -- --model ptx-v8 -- corpus/litmus/async/*.litmus
cd "$(dirname "$0")/.." || exit 1
if ! ldconfig -p | grep -q libnvrtc; then
  NVRTC=$(find / -name 'libnvrtc.so*' 2>/dev/null | head -1)
  [ -n "$NVRTC" ] && export LD_LIBRARY_PATH=$(dirname "$NVRTC"):$LD_LIBRARY_PATH
fi
S=${S:-./.gpubin/scopecheck}
R=${OUT:-/tmp/gpu-async}
name=$1 budget=$2 per=$3; shift 3
[ "$1" = "--" ] && shift
args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
shift
mkdir -p "$R/$name"
t0=$(date +%s)
for f in "$@"; do
  if [ $(( $(date +%s) - t0 )) -gt "$budget" ]; then echo "$f: not run (budget)" >> "$R/$name/summary.txt"; continue; fi
  b=$(basename "$f" .litmus)
  s=$(date +%s)
  timeout "$per" $S gpu "$f" "${args[@]}" --json "$R/$name/$b.json" --violations "$R/$name/violations" > "$R/$name/$b.txt" 2>&1
  rc=$?
  e=$(( $(date +%s) - s ))
  v=$(grep -c VIOLATION "$R/$name/$b.txt")
  echo "$f: rc=$rc ${e}s violations=$v" >> "$R/$name/summary.txt"
done
cat "$R/$name/summary.txt"
