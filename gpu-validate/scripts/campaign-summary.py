#!/usr/bin/env python3
"""Compact summary of `scopecheck gpu --json` campaign results: one row per test.

usage: campaign-summary.py NAME=RESULT.json [NAME=RESULT.json ...] > campaign.tsv

Columns: test, whether ptx-v7.5 allows the weak outcome (the condition's target states), then per
result file the weak-outcome count and the instances run ("-" where the file lacks the test), and
the violations summed over all files. A last line per file counts the tests whose allowed weak
outcome showed, and how many met MC Mutants' rule at the confidence recorded.
"""
import json
import sys


def allowed_weak(t):
    d = t["diff"]
    return any(r["condition"] and r["allowed"] for r in d["observed"] + d["not_seen"])


runs = []
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    runs.append((name, {t["name"]: t for t in json.load(open(path))["tests"]}))
names = sorted(set().union(*[r.keys() for _, r in runs]))
print("\t".join(["test", "weak_allowed"] + [f"{n}_weak\t{n}_instances" for n, _ in runs] + ["violations"]))
for name in names:
    first = next(r[name] for _, r in runs if name in r)
    cells = [name, "allowed" if allowed_weak(first) else "forbidden"]
    viol = 0
    for _, r in runs:
        t = r.get(name)
        cells += [str(t["weak"]), str(t["instances"])] if t else ["-", "-"]
        viol += t["diff"]["violations"] if t else 0
    cells.append(str(viol))
    print("\t".join(cells))
union = {n for n in names if any(n in r and r[n]["weak"] > 0 and allowed_weak(r[n]) for _, r in runs)}
allowed = {n for n in names if allowed_weak(next(r[n] for _, r in runs if n in r))}
for n, r in runs:
    seen = sum(1 for t in r.values() if allowed_weak(t) and t["weak"] > 0)
    rep = sum(1 for t in r.values() if allowed_weak(t) and t["reproducible"])
    print(f"# {n}: {len(r)} tests, weak outcome allowed in {sum(1 for t in r.values() if allowed_weak(t))}, seen in {seen}, reproducible in {rep}")
print(f"# any run: weak outcome seen in {len(union)} of {len(allowed)} tests whose weak outcome the model allows")
