#!/bin/bash
# Reproduces corpus/gpu-observations/h100-2026-11-22 on a GPU machine.
#
# Here:   cargo build --release && mkdir -p .gpubin && cp target/release/scopecheck .gpubin/ \
#         && cp -r corpus/gpu-shapes .gpubin/shapes && cp -r ../shared/oracle/ptx/tests .gpubin/oracle \
#         && cp gpu-validate/scripts/h100-observations.sh .gpubin/
# There:  bash .gpubin/h100-observations.sh   (results land in $OUT, or /tmp/gpu-observations)
# The whole set takes about 5 minutes on an H100; split it across calls if a call is limited.
cd "$(dirname "$0")" || exit 1
# NVRTC is loaded at run time; CUDA's lib64 is not always on the loader path.
if ! ldconfig -p | grep -q libnvrtc; then
  NVRTC=$(find / -name 'libnvrtc.so*' 2>/dev/null | head -1)
  [ -n "$NVRTC" ] && export LD_LIBRARY_PATH=$(dirname "$NVRTC"):$LD_LIBRARY_PATH
fi
S=./scopecheck
R=${OUT:-/tmp/gpu-observations}
mkdir -p "$R"
run() {
  local name=$1; shift
  echo "### $name: $*"
  timeout 290 $S gpu "$@" --json "$R/$name.json" --violations "$R/violations" > "$R/$name.txt" 2>&1
  echo "rc=$?"
  grep -E 'FORBIDDEN|VIOLATION|mutation score|^bench|stopped early' "$R/$name.txt" | head -20
}
run shapes-1e9 shapes --iterations 15000
run shapes shapes --iterations 1000
run shapes-stress shapes --iterations 1000 --stress
run shapes-warp shapes/MP-rel-acq-cta.litmus shapes/SB-fence-sc-cta.litmus --iterations 1000 --layout warp
run corpus ../corpus/litmus --iterations 200
run corpus-stress ../corpus/litmus --iterations 50 --stress
run oracle oracle --iterations 200
run bench shapes/MP-relaxed-gpu.litmus --bench
run mutants shapes --mutants --iterations 1000
run mutants-stress shapes --mutants --iterations 1000 --stress
