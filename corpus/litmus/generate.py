#!/usr/bin/env python3
"""Writes the classic-shape litmus corpus and its manifest of expected ptx-v7.5 verdicts.

Each shape comes in three flavours (relaxed accesses; release/acquire; relaxed accesses with
fence.sc between them) at three scopes (.cta, .gpu, .sys), with all threads in one CTA or each in
its own CTA. The expected verdict is reasoned from the PTX axioms, not taken from our engine:

* Morally strong pairs need each scope to include the other thread. With `.cta` scope and threads
  in different CTAs nothing is morally strong, so no synchronization, coherence or fence-SC
  ordering applies across threads and every weak outcome is allowed (and the program races).
* Otherwise: coherence forbids CoRR/CoWW; release/acquire (causality through observation) forbids
  MP, LB, WRC and ISA2; fence.sc (fence-SC order) forbids all of the shapes, including SB, IRIW,
  RWC, 2+2W and SB+RMW, which release/acquire alone does not (PTX is not multi-copy atomic).

Run from the repository root: python3 corpus/litmus/generate.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# A thread body lists abstract operations:
#   ("W", loc, val)  ("R", reg, loc)  ("F",)  ("RMW", reg, loc, val)
# 'strong' says which role release/acquire gives each access: W -> release, R -> acquire.
SHAPES = {
    "MP": dict(
        threads=[[("W", "x", 1), ("F",), ("W", "y", 1)], [("R", "r0", "y"), ("F",), ("R", "r1", "x")]],
        cond="P1:r0 == 1 /\\ P1:r1 == 0",
        forbidden_by={"relacq", "fence"},
        doc="message passing: the flag is seen but not the data",
    ),
    "SB": dict(
        threads=[[("W", "x", 1), ("F",), ("R", "r0", "y")], [("W", "y", 1), ("F",), ("R", "r0", "x")]],
        cond="P0:r0 == 0 /\\ P1:r0 == 0",
        forbidden_by={"fence"},
        doc="store buffering: each thread misses the other's store",
    ),
    "LB": dict(
        threads=[[("R", "r0", "x"), ("F",), ("W", "y", 1)], [("R", "r0", "y"), ("F",), ("W", "x", 1)]],
        cond="P0:r0 == 1 /\\ P1:r0 == 1",
        forbidden_by={"relacq", "fence"},
        doc="load buffering: each load reads the other thread's later store",
    ),
    "CoRR": dict(
        threads=[[("W", "x", 1)], [("R", "r0", "x"), ("R", "r1", "x")]],
        cond="P1:r0 == 1 /\\ P1:r1 == 0",
        forbidden_by={"relaxed", "relacq", "fence"},
        doc="coherence of two reads: new value, then the old one",
    ),
    "CoWW": dict(
        threads=[[("W", "x", 1), ("W", "x", 2)], [("R", "r0", "x")]],
        cond="x == 1",
        forbidden_by={"relaxed", "relacq", "fence"},
        same_thread_only=True,
        doc="coherence of two writes of one thread: the first ends last",
    ),
    "IRIW": dict(
        threads=[
            [("W", "x", 1)],
            [("R", "r0", "x"), ("F",), ("R", "r1", "y")],
            [("R", "r0", "y"), ("F",), ("R", "r1", "x")],
            [("W", "y", 1)],
        ],
        cond="P1:r0 == 1 /\\ P1:r1 == 0 /\\ P2:r0 == 1 /\\ P2:r1 == 0",
        forbidden_by={"fence"},
        doc="independent reads of independent writes disagree on their order",
    ),
    "WRC": dict(
        threads=[[("W", "x", 1)], [("R", "r0", "x"), ("F",), ("W", "y", 1)], [("R", "r0", "y"), ("F",), ("R", "r1", "x")]],
        cond="P1:r0 == 1 /\\ P2:r0 == 1 /\\ P2:r1 == 0",
        forbidden_by={"relacq", "fence"},
        doc="write-to-read causality: a write seen, passed on, and then missed",
    ),
    "ISA2": dict(
        threads=[
            [("W", "x", 1), ("F",), ("W", "y", 1)],
            [("R", "r0", "y"), ("F",), ("W", "z", 1)],
            [("R", "r0", "z"), ("F",), ("R", "r1", "x")],
        ],
        cond="P1:r0 == 1 /\\ P2:r0 == 1 /\\ P2:r1 == 0",
        forbidden_by={"relacq", "fence"},
        doc="message passing through a chain of two flags",
    ),
    "2+2W": dict(
        threads=[[("W", "x", 1), ("F",), ("W", "y", 2)], [("W", "y", 1), ("F",), ("W", "x", 2)]],
        cond="x == 1 /\\ y == 1",
        forbidden_by={"fence"},
        doc="two threads' write pairs end in opposite orders",
    ),
    "RWC": dict(
        threads=[[("W", "x", 1)], [("R", "r0", "x"), ("F",), ("R", "r1", "y")], [("W", "y", 1), ("F",), ("R", "r0", "x")]],
        cond="P1:r0 == 1 /\\ P1:r1 == 0 /\\ P2:r0 == 0",
        forbidden_by={"fence"},
        doc="read-to-write causality",
    ),
    "SB+RMW": dict(
        threads=[[("RMW", "r1", "x", 1), ("F",), ("R", "r0", "y")], [("RMW", "r1", "y", 1), ("F",), ("R", "r0", "x")]],
        cond="P0:r0 == 0 /\\ P1:r0 == 0",
        forbidden_by={"fence"},
        doc="store buffering with atomic increments as the stores",
    ),
}

FLAVOURS = ["relaxed", "relacq", "fence"]
SCOPES = ["cta", "gpu", "sys"]
PLACEMENTS = ["same-cta", "diff-cta"]


def instr(op, flavour, scope):
    kind = op[0]
    if kind == "F":
        return f"fence.sc.{scope}" if flavour == "fence" else None
    if kind == "W":
        order = "release" if flavour == "relacq" else "relaxed"
        return f"st.{order}.{scope} {op[1]}, {op[2]}"
    if kind == "R":
        order = "acquire" if flavour == "relacq" else "relaxed"
        return f"ld.{order}.{scope} {op[1]}, {op[2]}"
    if kind == "RMW":
        order = "acq_rel" if flavour == "relacq" else "relaxed"
        return f"atom.{order}.{scope}.add {op[1]}, {op[2]}, {op[3]}"
    raise ValueError(op)


def render(name, shape, flavour, scope, placement):
    threads = [[i for i in (instr(op, flavour, scope) for op in body) if i] for body in shape["threads"]]
    headers = [f"P{t}@cta {0 if placement == 'same-cta' else t},gpu 0" for t in range(len(threads))]
    cols = [[h] + body for h, body in zip(headers, threads)]
    rows = max(len(c) for c in cols)
    for c in cols:
        c += [""] * (rows - len(c))
    widths = [max(len(x) for x in c) for c in cols]
    locs = sorted({op[2] if op[0] == "R" else op[1] for body in shape["threads"] for op in body if op[0] in "RW"}
                  | {op[2] for body in shape["threads"] for op in body if op[0] == "RMW"})
    lines = [f"PTX {name}", f"\"{shape['doc']}; {flavour}, .{scope}, {placement}\"", "{"]
    lines += [f"{l}=0;" for l in locs]
    lines.append("}")
    for r in range(rows):
        lines.append("|".join(f" {c[r]:<{w}} " for c, w in zip(cols, widths)) + ";")
    lines.append(f"exists ({shape['cond']})")
    return "\n".join(lines) + "\n"


def expected(shape, flavour, scope, placement):
    morally_strong = placement == "same-cta" or scope != "cta" or shape.get("same_thread_only")
    if not morally_strong:
        return "allowed"
    return "forbidden" if flavour in shape["forbidden_by"] else "allowed"


def main():
    manifest = ["file,model,expected"]
    for shape_name, shape in SHAPES.items():
        for flavour in FLAVOURS:
            for scope in SCOPES:
                for placement in PLACEMENTS:
                    name = f"{shape_name}+{flavour}-{scope}-{placement}"
                    rel = f"{shape_name}/{name}.litmus"
                    os.makedirs(os.path.join(HERE, shape_name), exist_ok=True)
                    with open(os.path.join(HERE, rel), "w") as f:
                        f.write(render(name, shape, flavour, scope, placement))
                    manifest.append(f"{rel},ptx-v7.5,{expected(shape, flavour, scope, placement)}")
    with open(os.path.join(HERE, "MANIFEST.csv"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"wrote {len(manifest) - 1} tests")


if __name__ == "__main__":
    main()
