#!/usr/bin/env python3
"""Every MCP tool's default answer on the benches' big inputs: bytes against the default budget.

Run by bench/mcp.sh:  mcp_answers.py JSPROF ROOT FILE...  (FILE: a .cpuprofile, a trace, a
.heapsnapshot under ROOT). Starts `JSPROF mcp --root ROOT` over stdio, opens each file, then calls
each tool that applies with only the arguments it requires (taken from the previous answers: the
hottest function for `sandwich`, the largest class for `heap_class`, …). Prints per call the
answer's size (the whole JSON-RPC result, which is what an agent's context pays for), the default
budget (`max_bytes` 8000 for listing tools), the wall time, and whether it was an error.
Exits 1 when any default answer is an error or over its budget.
"""
import json
import os
import subprocess
import sys
import time

BUDGET = 8000  # the listing tools' default max_bytes (the server's instructions say so)


class Mcp:
    def __init__(self, jsprof, root):
        self.p = subprocess.Popen([jsprof, "mcp", "--root", root], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.id = 0

    def rpc(self, method, params):
        self.id += 1
        msg = {"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        return json.loads(line), len(line.encode())

    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.p.stdin.flush()


def first(doc, *keys):
    """The first list among `keys` in doc, else []."""
    for k in keys:
        v = doc.get(k)
        if isinstance(v, list) and v:
            return v
    return []


def main():
    jsprof, root = sys.argv[1], sys.argv[2]
    files = [os.path.abspath(f) for f in sys.argv[3:]]
    m = Mcp(jsprof, root)
    m.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "0"}})
    m.notify("notifications/initialized")
    listed, size = m.rpc("tools/list", {})
    tools = {t["name"] for t in listed["result"]["tools"]}
    rows = [("tools/list", "", size, BUDGET, 0.0, False)]
    failed = size > BUDGET

    def call(name, args, label):
        nonlocal failed
        t0 = time.monotonic()
        answer, size = m.rpc("tools/call", {"name": name, "arguments": args})
        wall = time.monotonic() - t0
        result = answer.get("result", {})
        error = bool(result.get("isError")) or "error" in answer
        budget = BUDGET if name != "open" else None
        over = budget is not None and size > budget
        failed = failed or error or over
        rows.append((name, label, size, budget, wall, error))
        if error:
            text = (result.get("content") or [{}])[0].get("text", "") or json.dumps(answer)[:300]
            print(f"  {name} on {label}: {text[:300]}", file=sys.stderr)
        return result.get("structuredContent") or {}

    for f in files:
        label = f.rsplit("/", 1)[-1]
        # A file that takes longer than the server's --timeout to load goes on loading, and
        # the next `open` finds it: the first answer is then a timeout error, and counts.
        opened = call("open", {"path": f}, label)
        for _ in range(5):
            if opened.get("handle"):
                break
            opened = call("open", {"path": f}, label + " (again)")
        h = opened.get("handle")
        if not h:
            continue
        kind = opened.get("kind", "")
        if "heap" in kind or label.endswith(".heapsnapshot"):
            summary = call("heap_summary", {"handle": h}, label)
            classes = first(summary, "classes", "rows")
            if classes:
                key = classes[0].get("key") or classes[0].get("name")
                cls = call("heap_class", {"handle": h, "key": key}, label)
                objs = first(cls, "objects", "rows")
                if objs:
                    oid = objs[0].get("id")
                    call("heap_object", {"handle": h, "id": oid}, label)
                    call("heap_retainers", {"handle": h, "id": oid}, label)
            for name in ["heap_dominators", "heap_statistics", "heap_strings", "heap_advisors",
                         "heap_detached"]:
                if name in tools:
                    call(name, {"handle": h}, label)
            call("heap_diff", {"base": h, "target": h}, label)
        else:
            top = call("top", {"handle": h}, label)
            call("tree", {"handle": h}, label)
            call("tree", {"handle": h, "bottom_up": True}, label + " bottom-up")
            fns = first(top, "functions", "rows")
            if fns:
                call("sandwich", {"handle": h, "function": fns[0]["name"]}, label)
            call("flame_chart", {"handle": h}, label)
            call("cpu_diff", {"before": h, "after": h}, label)
            if kind == "trace" or ".trace" in label:
                call("events", {"handle": h}, label)
                for name in ["trace_insights", "trace_network", "trace_timings"]:
                    call(name, {"handle": h}, label)
    m.p.kill()
    print(f"{'tool':<16} {'input':<34} {'bytes':>8} {'budget':>7} {'wall s':>7}  verdict")
    for name, label, size, budget, wall, error in rows:
        verdict = "ERROR" if error else ("over" if budget and size > budget else "ok")
        print(f"{name:<16} {label:<34} {size:>8} {budget or '-':>7} {wall:>7.2f}  {verdict}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
