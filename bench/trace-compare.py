#!/usr/bin/env python3
"""Checks jsprof's answers on a trace against the trace oracle's (DevTools' trace engine), per thread:
JS calls (start and duration within 1 us, same function and line) and, for every function whose
(name, url) is unique in DevTools' Bottom-up, self and total within 0.01 ms.

    python3 bench/trace-compare.py JSPROF TRACE ORACLE.json

Prints one line per thread and exits 1 on a mismatch."""
import json
import subprocess
import sys

jsprof, trace, oracle_path = sys.argv[1:4]
oracle = json.load(open(oracle_path))


def run(*args):
    out = subprocess.run([jsprof, *args, "--json"], check=True, capture_output=True).stdout
    return json.loads(out)


ids = {(t["pid"], t["tid"]): str(t["timeline_id"]) for t in run("threads", trace)["timelines"]}
bad = 0
for thread in oracle["threads"]:
    calls = thread["profile_calls"]
    if not calls:
        continue
    key = (thread["pid"], thread["tid"])
    tid = ids[key]
    ours = sorted(
        (
            round(e["start_ms"] * 1000),
            -round((e["end_ms"] - e["start_ms"]) * 1000),
            e["name"],
            (e["data"].get("line") or 0) - 1,
            e["start_ms"] * 1000,
            (e["end_ms"] - e["start_ms"]) * 1000,
        )
        for e in run("events", trace, "--thread", tid, "--type", "JS_CALL")["events"]
    )
    theirs = sorted(
        (round(c["ts_us"]), -round(c["dur_us"]), c["name"], c["line"], c["ts_us"], c["dur_us"])
        for c in calls
    )
    call_errors = 0 if len(ours) == len(theirs) else 1
    for a, b in zip(ours, theirs):
        if abs(a[4] - b[4]) > 1 or abs(a[5] - b[5]) > 1 or a[2:4] != b[2:4]:
            call_errors += 1
            if call_errors <= 3:
                print(f"  call {a[2:]} vs DevTools {b[2:]}", file=sys.stderr)
    unique = run("events", trace, "--thread", tid, "--mode", "unique-events", "--type", "JS_CALL")
    by_key = {}
    for e in unique["events"]:
        by_key.setdefault((e["name"], e["data"].get("url")), []).append(e)
    rows = [r for r in thread["bottom_up"] if isinstance(r.get("url"), str)]
    count = {}
    for r in rows:
        count[(r["name"], r["url"])] = count.get((r["name"], r["url"]), 0) + 1
    checked = worst = 0
    row_errors = 0
    for r in rows:
        k = (r["name"], r["url"])
        if count[k] != 1:
            continue
        mine = by_key.get(k, [])
        if len(mine) > 1:  # DevTools' Bottom-up leaves out functions without self time
            mine = [e for e in mine if e["self_ms"] > 0]
        if len(mine) != 1:
            row_errors += 1
            print(f"  {k}: {len(mine)} rows in jsprof", file=sys.stderr)
            continue
        d = max(abs(mine[0]["self_ms"] - r["self_ms"]), abs(mine[0]["total_ms"] - r["total_ms"]))
        worst = max(worst, d)
        if d >= 0.01:
            row_errors += 1
            print(f"  {k}: {mine[0]['self_ms']}/{mine[0]['total_ms']} vs DevTools "
                  f"{r['self_ms']:.3f}/{r['total_ms']:.3f}", file=sys.stderr)
        checked += 1
    ok = call_errors == 0 and row_errors == 0 and checked > 0
    bad += not ok
    print(f"  thread {key[0]}:{key[1]} {thread['name']}: {len(ours)} calls (DevTools {len(theirs)}), "
          f"{call_errors} differ; {checked} unique functions, worst self/total difference "
          f"{worst:.4f} ms -> {'OK' if ok else 'MISMATCH'}")
sys.exit(1 if bad else 0)
