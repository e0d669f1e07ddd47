// tests/it/npm.rs type-checks this against the installed jsprof package (strict, no other
// typings): the API as an ES module, with the generated document types.
import {
  check,
  diff,
  heapSummary,
  insights,
  JsprofCheckError,
  JsprofError,
  run,
  stream,
  top,
  tree,
  type AbTestReport,
  type HeapSummaryReport,
  type InsightsReport,
  type SandwichReport,
  type TopReport,
  type TreeReport,
} from 'jsprof';
import { start, stats, stop, type AgentOptions, type AgentStats } from 'jsprof/agent';

// No console without DOM or Node typings: values are used by this.
declare function use(...values: unknown[]): void;

const report: TopReport = await top('profile.cpuprofile', { limit: 10, hideIdle: true, focus: ['^render'] });
const hottest: string | undefined = report.functions[0]?.name;
const selfMs: number | null | undefined = report.functions[0]?.self_ms;
const percent: number = report.functions.reduce((sum, f) => sum + f.self_percent, 0);
const warnings: string[] = report.warnings.map((w) => `${w.at}: ${w.message}`);

const heap: HeapSummaryReport = await heapSummary('app.heapsnapshot', { sort: 'retained', limit: 5 });
const biggest: { name: string; retained: number }[] = heap.classes.map((c) => ({ name: c.name, retained: c.retained_size }));
const total: number = heap.total_size;

const page: InsightsReport = await insights('trace.json.gz');
const lcp: number | undefined = page.navigations[0]?.metrics.lcp?.value_ms;
const url: string | null = page.main_frame_url;

const calls: TreeReport = await tree('profile.cpuprofile', { bottomUp: true, maxDepth: 3 });
const sandwich: SandwichReport = await tree('profile.cpuprofile', { sandwich: '^render$' });
const ab: AbTestReport = await diff({ base: ['a/'], target: ['b/'], alpha: 0.01, functions: true });

try {
  await check('profile.cpuprofile', { budget: 'budget.toml' });
} catch (err) {
  if (err instanceof JsprofCheckError) {
    const failed: boolean | undefined = err.report?.passed === false;
    use(failed, err.report?.checks.map((c) => c.subject));
  } else if (err instanceof JsprofError) {
    const code: number | null = err.exitCode;
    use(code, err.code, err.stderr, err.args.join(' '));
  }
}

const out = await run(['flamegraph', 'profile.cpuprofile', '-o', '-']);
const svg: Uint8Array | null = out.stdout;
for await (const chunk of stream(['export', 'profile.cpuprofile', '--format', 'folded', '--output', '-'])) {
  const bytes: number = chunk.byteLength;
  use(bytes);
}

use(hottest, selfMs, percent, warnings, biggest, total, lcp, url, calls.kind, sandwich.kind, ab.changes.length, svg);

// The production agent's entry point, `jsprof/agent`, typed.
const options: AgentOptions = { url: 'http://127.0.0.1:8600', labels: { service: 'shop' }, windowS: 60, heap: false };
const started: AgentStats = start(options);
const dropped: number | undefined = stats().dropped;
const final: AgentStats = await stop(1000);
use(started.running, dropped, final.sent);
