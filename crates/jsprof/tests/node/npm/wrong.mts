// tests/it/npm.rs: every line marked `// error` must fail to type-check (the types are not
// `any`), and nothing else may.
import { heapSummary, insights, top, type HeapSummaryReport, type InsightsReport, type TopReport } from 'jsprof';

declare function use(...values: unknown[]): void;

const report: TopReport = await top('profile.cpuprofile');
const count: number = report.functions; // error
const name: number = report.functions[0]!.name; // error
await top('profile.cpuprofile', { limt: 10 }); // error
await top('profile.cpuprofile', { by: 'self-time' }); // error
const heap: TopReport = await heapSummary('app.heapsnapshot'); // error
const total: string = (await heapSummary('app.heapsnapshot')).total_size; // error
const page: HeapSummaryReport = await insights('trace.json.gz'); // error
const url: string = (await insights('trace.json.gz')).main_frame_url; // error
const missing: InsightsReport = { kind: 'insights' }; // error
use(count, name, heap, total, page, url, missing);
