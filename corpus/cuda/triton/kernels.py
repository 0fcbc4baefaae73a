"""Two PTX fixtures from a compiler other than NVRTC: Triton (LLVM's NVPTX back end).

`python3 kernels.py` (with `pip install triton`; no GPU needed: Triton ships ptxas) compiles
each kernel for sm_90 with one warp per program and writes NAME.ptx beside this file, with the
launch as its first line (`// scopecheck: FLAGS`) and its `.file` made relative. Triton adds two
pointer parameters of its own after the kernel's (global and profile scratch), given one-word
buffers here.
"""

import os
import re

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def last_writer(out_ptr):
    # BUG: every program stores its id to the same word with a plain store: the stores of two
    # programs (two CTAs) conflict and nothing orders them (PTX ISA, memory consistency model,
    # "Data races").
    pid = tl.program_id(0)
    tl.store(out_ptr, pid)


@triton.jit
def counted(out_ptr):
    # FIXED: every program adds to the word with an atomic (atom.global.gpu.acq_rel.add):
    # morally strong operations do not race.
    tl.atomic_add(out_ptr, 1)


LAUNCH = "// scopecheck: --grid 2 --block 32 --arg out=u32[1] --arg scratch=u32[1] --arg profile=u32[1]"

here = os.path.dirname(os.path.abspath(__file__))
for fn in (last_writer, counted):
    source = ASTSource(fn=fn, signature={"out_ptr": "*u32"})
    kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 1})
    ptx = re.sub(r'(\.file\s+\d+\s+")[^"]*/(kernels\.py")', r"\1\2", kernel.asm["ptx"])
    with open(os.path.join(here, fn.__name__ + ".ptx"), "w") as out:
        out.write(LAUNCH + "\n" + ptx)
    print(fn.__name__ + ".ptx")
