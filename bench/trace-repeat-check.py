#!/usr/bin/env python3
"""Checks a trace written by bench/tracegen against the recording it repeats: the generated trace
has `copies` times the recording's threads, with the same samples and events each, and on the
busiest sampled threads of its first and last copy `events --mode unique-events` answers exactly
as on the recording's own (every row, every number).

    python3 bench/trace-repeat-check.py JSPROF RECORDING GENERATED

Exits 1 on a mismatch."""
import json
import subprocess
import sys

PID_STEP = 1 << 24  # bench/tracegen/src/gen.rs
jsprof, recording, generated = sys.argv[1:4]


def run(*args):
    out = subprocess.run([jsprof, *args, "--json"], check=True, capture_output=True).stdout
    return json.loads(out)


ours = run("threads", recording)["timelines"]
big = run("threads", generated)["timelines"]
copies = len(big) // max(len(ours), 1)
bad = 0
if not ours or len(big) != copies * len(ours):
    print(f"  {len(big)} threads, not a multiple of the recording's {len(ours)}", file=sys.stderr)
    sys.exit(1)
by_key = {(t["pid"], t["tid"]): t for t in big}
for k in range(copies):
    for t in ours:
        twin = by_key.get((t["pid"] + k * PID_STEP, t["tid"]))
        if twin is None or (twin["samples"], twin["events"]) != (t["samples"], t["events"]):
            bad += 1
print(f"  {copies} copies x {len(ours)} threads: {len(big)} threads, {bad} unlike the recording's")


def answer(trace, thread):
    doc = run("events", trace, "--thread", str(thread["timeline_id"]), "--mode", "unique-events")
    # What names the thread or the processes differs by copy; the rows must not.
    doc.pop("timeline_id")
    doc.pop("warnings")
    return doc


busiest = sorted((t for t in ours if t["samples"] > 0), key=lambda t: -t["samples"])[:2]
for t in busiest:
    want = answer(recording, t)
    for k in sorted({0, copies - 1}):
        got = answer(generated, by_key[(t["pid"] + k * PID_STEP, t["tid"])])
        same = got == want
        bad += not same
        rows = len(want.get("events", []))
        print(f"  {t['name'] or t['tid']} (copy {k + 1}): {rows} rows {'equal' if same else 'DIFFER'}")
sys.exit(1 if bad else 0)
