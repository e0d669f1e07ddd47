// tests/it/npm.rs type-checks this against the installed jsprof package: the API from CommonJS.
import jsprof = require('jsprof');
import agent = require('jsprof/agent');

declare function use(...values: unknown[]): void;

async function main(): Promise<void> {
  const report: jsprof.TopReport = await jsprof.top('profile.cpuprofile', { by: 'total' });
  const heap: jsprof.HeapSummaryReport = await jsprof.heapSummary('app.heapsnapshot');
  const page: jsprof.InsightsReport = await jsprof.insights('trace.json.gz');
  use(report.functions.length, heap.node_count, page.navigations.length);
  const counters: agent.AgentStats = agent.stats();
  use(counters.running);
}

main().catch((err: unknown) => {
  if (err instanceof jsprof.JsprofUsageError) use(err.message, err.exitCode);
});
