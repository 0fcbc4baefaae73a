#!/usr/bin/env bash
# Regenerates the committed PTX beside each kernel of this folder: compiles every `.cu` with
# NVRTC exactly as `scopecheck kernel FILE.cu` does (scopecheck_gpu::nvrtc: -arch=compute_90
# -lineinfo -default-device, the CUDA and CCCL headers), through the `nvrtc_ptx` example.
# Needs NVRTC: `pip install nvidia-cuda-nvrtc nvidia-cuda-cccl` in the active virtual
# environment (or set CUDA_HOME); .ci/run's .venv-cuda is used when present.
#
# The `.cu`'s first line, its `// scopecheck: FLAGS` launch, is put first in the `.ptx` too, so
# that `scopecheck kernel NAME.ptx` runs at the same launch.
#
# NVRTC writes absolute paths into the `.file` directives (the program name, made absolute from
# the working directory, and each header's path). They are made relative here, `.cu` files to the
# repository root and headers to their site-packages directory, so that the committed PTX names
# `corpus/cuda/NAME.cu` wherever it was generated; nothing else is changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [ -z "${VIRTUAL_ENV:-}" ] && [ -d .venv-cuda ]; then
    export VIRTUAL_ENV="$root/.venv-cuda"
fi
cargo build --release -q -p scopecheck-gpu --example nvrtc_ptx
for cu in corpus/cuda/*.cu; do
    target/release/examples/nvrtc_ptx "$cu" >/dev/null
    ptx="${cu%.cu}.ptx"
    sed -i -E -e "s|^(\s*\.file\s+[0-9]+ \")$root/|\1|" \
        -e 's|^(\s*\.file\s+[0-9]+ ")[^"]*/site-packages/|\1|' "$ptx"
    { head -n 1 "$cu"; cat "$ptx"; } > "$ptx.tmp" && mv "$ptx.tmp" "$ptx"
    echo "$ptx"
done
