// bench/agent.sh's summary of its rounds (one JSON line each: mode, load, the app's stats): the
// medians with and without the agent, as ratios. Rerun on a finished run:
//   node bench/agent-summary.mjs bench/out/agent/rounds.jsonl
import { readFileSync } from 'node:fs';

const rows = readFileSync(process.argv[2], "utf8").trim().split("\n").map(JSON.parse);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const of = (mode, f) => median(rows.filter((r) => r.mode === mode).map(f));
const rps = (m) => of(m, (r) => r.load.rps), p99 = (m) => of(m, (r) => r.load.p99_ms);
const rss = (m) => of(m, (r) => r.stats.appRss) / 1048576;
const cpu = (m) => of(m, (r) => (r.stats.appCpuUs - r.before.appCpuUs) / r.load.requests);
// The noise: each mode's rounds (min / median / max), and each round's agent cost against the
// round without it just before (rounds alternate: without, with, without, …).
const spread = (xs) => { const s = [...xs].sort((a, b) => a - b); return `${s[0].toFixed(1)} / ${median(s).toFixed(1)} / ${s[s.length - 1].toFixed(1)}`; };
const perRound = (r) => (r.stats.appCpuUs - r.before.appCpuUs) / r.load.requests;
const withs = rows.filter((r) => r.mode === "with"), withouts = rows.filter((r) => r.mode === "without");
const paired = withs.map((w, i) => 100 * (perRound(w) / perRound(withouts[i]) - 1)).filter(Number.isFinite);
const posts = rows.filter((r) => r.mode === "with").map((r) => r.stats.sent - r.before.sent);
console.log(`throughput: without ${rps("without").toFixed(0)} req/s, with ${rps("with").toFixed(0)} req/s: ${(100 * (1 - rps("with") / rps("without"))).toFixed(2)} % lost (with/without ${(rps("with") / rps("without")).toFixed(4)})`);
console.log(`p99 latency: without ${p99("without").toFixed(2)} ms, with ${p99("with").toFixed(2)} ms (with/without ${(p99("with") / p99("without")).toFixed(3)})`);
console.log(`app CPU per request (all its threads, the agent included): without ${cpu("without").toFixed(1)} µs, with ${cpu("with").toFixed(1)} µs: +${(100 * (cpu("with") / cpu("without") - 1)).toFixed(2)} %`);
console.log(`app RSS at the end: without ${rss("without").toFixed(1)} MB, with ${rss("with").toFixed(1)} MB (+${(rss("with") - rss("without")).toFixed(1)} MB)`);
console.log(`posts in the measured part of each round with the agent: ${posts.join(", ")}; errors: ${rows.map((r) => r.load.errors).reduce((a, b) => a + b, 0)}`);
console.log(`app CPU per request per round (min / median / max µs): without ${spread(withouts.map(perRound))}, with ${spread(withs.map(perRound))}`);
console.log(`each round with the agent against the round without it before it (min / median / max): ${paired.length ? spread(paired) : "-"} %`);
