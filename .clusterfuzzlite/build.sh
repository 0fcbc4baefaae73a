#!/bin/bash -eu
# ClusterFuzzLite build script: builds the three cargo-fuzz targets of fuzz/ (parse, engines, gpu)
# into $OUT, each with a seed corpus from corpus/litmus, and the parse target's dictionary.
#
# In the image (Dockerfile) the repository is $SRC/scopecheck. Without Docker it builds the
# repository this script sits in, with a nightly toolchain:
#   RUSTUP_TOOLCHAIN=nightly OUT=/tmp/cfl-out bash .clusterfuzzlite/build.sh
# SANITIZER (set by ClusterFuzzLite; `address` is the only one it supports for Rust) is handed to
# cargo-fuzz; `none` builds without instrumentation for sanitizers.

repo="${SRC:-}/scopecheck"
if [ ! -d "$repo/fuzz" ]; then
    repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fi
: "${OUT:?set OUT to the folder the fuzzers go to}"
mkdir -p "$OUT"
cd "$repo/fuzz"

targets="parse engines gpu"
cargo fuzz build -O --debug-assertions --features gpu --sanitizer "${SANITIZER:-address}"

triple="$(rustc -vV | sed -n 's/^host: //p')"
for target in $targets; do
    cp "target/$triple/release/$target" "$OUT/"
done

# Seed corpora (<target>_seed_corpus.zip, the litmus corpus: `parse` reads text, `engines` reads
# a litmus file first) and the parse target's dictionary.
seeds="$(mktemp -d)"
find "$repo/corpus/litmus" "$repo/corpus/fuzz-findings" -name '*.litmus' -exec cp --backup=numbered {} "$seeds/" \;
for target in parse engines; do
    rm -f "$OUT/${target}_seed_corpus.zip"
    (cd "$seeds" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done
rm -rf "$seeds"
cp litmus.dict "$OUT/parse.dict"
