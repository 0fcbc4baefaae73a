#!/bin/bash
# Issue 32 on the device: the whole litmus corpus at >= 1e7 instances per test (160 launches of
# 2^16), one process per file (h100-async.sh), in one environment (ENV: defaults or stress), each
# directory under its MANIFEST's model; then the async mutants. A tarball of everything in $OUT.
# Here:   cargo build --release && mkdir -p .gpubin && cp target/release/scopecheck .gpubin/ \
#         && strip .gpubin/scopecheck && cp gpu-validate/scripts/{h100-async,h200-corpus}.sh .gpubin/
# There:  bash .gpubin/h200-corpus.sh defaults; bash .gpubin/h200-corpus.sh stress
cd "$(dirname "$0")/.." || exit 1
ENV=$1; extra=()
[ "$ENV" = stress ] && extra=(--stress)
export OUT=${OUT:-/tmp/out}
R=/tmp/r32; mkdir -p $R; export OUT_SAVE=$OUT; export OUT=$R
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/device.txt 2>&1
classic=$(ls corpus/litmus/*/*.litmus | grep -v -e /async/ -e /opencl/ -e /tile-ir/)
t0=$(date +%s)
bash .gpubin/h100-async.sh classic-$ENV 300 20 -- --iterations 160 "${extra[@]}" -- $classic > /dev/null
bash .gpubin/h100-async.sh tile-ir-$ENV 30 20 -- --iterations 160 --model tile-ir "${extra[@]}" -- corpus/litmus/tile-ir/*.litmus > /dev/null
bash .gpubin/h100-async.sh opencl-$ENV 20 20 -- --iterations 160 --model opencl "${extra[@]}" -- corpus/litmus/opencl/*.litmus > /dev/null
bash .gpubin/h100-async.sh async-$ENV 120 20 -- --model ptx-v8 --iterations 160 "${extra[@]}" -- corpus/litmus/async/*.litmus > /dev/null
echo "corpus: $(( $(date +%s) - t0 )) s" > $R/times.txt
t1=$(date +%s)
timeout 150 ./.gpubin/scopecheck gpu corpus/litmus/async --model ptx-v8 --mutants --iterations 160 "${extra[@]}" --json $R/mutants-async-$ENV.json --violations $R/violations-mutants > $R/mutants-async-$ENV.txt 2>&1
echo "mutants rc=$? $(( $(date +%s) - t1 )) s" >> $R/times.txt
cd /tmp && tar czf $OUT_SAVE/r32-$ENV.tgz r32
cat $R/times.txt; for f in $R/*/summary.txt; do echo "$f: $(wc -l < $f) tests, $(grep -c 'rc=0' $f) rc=0, violations $(grep -o 'violations=[1-9]' $f | wc -l)"; done; tail -15 $R/mutants-async-$ENV.txt
