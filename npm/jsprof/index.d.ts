// The jsprof API: one function per command that prints JSON. Each runs the jsprof binary with
// `--json` and resolves to the parsed document, typed by types.d.ts (generated from the same
// JSON Schemas as jsprof's docs/json.md). Options are the command's flags in camelCase
// (`maxDepth` is `--max-depth`): booleans are bare flags, arrays repeat the flag.

import type {
  AbTestReport,
  AllocationsReport,
  CheckReport,
  ClassChangesReport,
  ClassObjectsReport,
  DiffReport,
  EdgesReport,
  EventsReport,
  FilmstripDoc,
  HeapContextsReport,
  HeapDiffReport,
  HeapSummaryReport,
  InsightsReport,
  ProcessMemoryReport,
  JsonWarning,
  LeaksReport,
  PageRunsReport,
  LeakSeriesReport,
  AdvisorsReport,
  RedactReport,
  PageDiffReport,
  LakePageDiffReport,
  LakePageTrendReport,
  LinesReport,
  NetworkReport,
  NodesReport,
  RetainersReport,
  SandwichReport,
  SelectionSummaryReport,
  StringsReport,
  SummaryReport,
  ThreadsReport,
  TimingsReport,
  TopReport,
  TreeReport,
} from './types';

export * from './types';

// ---------------------------------------------------------------------------------------------
// Running jsprof

/** What an `AbortController`'s signal offers (no DOM or Node typings needed). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Where `run()` writes jsprof's output as it comes (a Node `Writable`, e.g. a file stream). */
export interface WritableLike {
  write(chunk: Uint8Array): unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  emit(event: string, ...args: any[]): boolean;
}

/** How jsprof is run; accepted by every function beside the command's own options. */
export interface ProcessOptions {
  /** The working directory relative input paths are read from. */
  cwd?: string;
  /** Environment variables added to this process's (`JSPROF_CACHE_DIR`, `JSPROF_BINARY`, …). */
  env?: Record<string, string | undefined>;
  /** Stops jsprof (SIGTERM); the promise rejects with an `AbortError`. */
  signal?: AbortSignalLike;
  /** The binary to run; otherwise `JSPROF_BINARY`, else the platform package's. */
  binary?: string;
  /** jsprof's standard input, for an input path of `-`. */
  input?: string | Uint8Array | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

/** Heap snapshots' flag of every command (`--no-cache`). */
export interface GlobalOptions extends ProcessOptions {
  /** Neither read nor write the index of an analysed heap snapshot in the cache directory. */
  noCache?: boolean;
}

export interface RunOptions extends ProcessOptions {
  /** Write jsprof's output here as it comes instead of collecting it (`stdout` is then null). */
  stdout?: WritableLike;
}

export interface RunResult {
  exitCode: number;
  signal: null;
  /** The output, when it was collected (no `stdout` option). */
  stdout: Uint8Array | null;
  stderr: string;
}

/** Runs jsprof with `args` as given; rejects with a `JsprofError` unless it exits with 0. */
export function run(args: ReadonlyArray<string | number>, options?: RunOptions): Promise<RunResult>;

/**
 * jsprof's output as a stream of chunks, for output too large to hold at once:
 * `for await (const chunk of stream(['export', file, '--format', 'folded', '-o', '-']))`. It fails with a
 * `JsprofError` when jsprof exits with anything but 0.
 */
export function stream(args: ReadonlyArray<string | number>, options?: ProcessOptions): AsyncIterable<Uint8Array>;

/** Runs jsprof with `args` and `--json`; resolves to the parsed document. */
export function json<T = JsprofDocument>(args: ReadonlyArray<string | number>, options?: ProcessOptions): Promise<T>;

/** A document without a schema of its own yet: `kind`, `warnings` and its fields. */
export interface JsprofDocument {
  kind: string;
  warnings?: JsonWarning[];
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Errors

export type JsprofErrorCode = 'USAGE' | 'CHECK_FAILED' | 'NO_BINARY' | 'SPAWN' | 'CRASHED' | 'BAD_OUTPUT';

/** A jsprof run that failed. `message` is jsprof's own message (its stderr, trimmed). */
export class JsprofError extends Error {
  /** `USAGE` (exit 2), `CHECK_FAILED` (exit 1), `NO_BINARY`, `SPAWN`, `CRASHED`, `BAD_OUTPUT`. */
  readonly code: JsprofErrorCode;
  /** jsprof's exit code; null when it did not run or a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Everything jsprof wrote to stderr. */
  readonly stderr: string;
  /** The arguments jsprof was run with. */
  readonly args: string[];
  /** The output, when it was collected. */
  readonly stdout: Uint8Array | null;
}

/** Exit 2: bad usage, or an input jsprof cannot read (the message names the file and offset). */
export class JsprofUsageError extends JsprofError {
  readonly code: 'USAGE';
  readonly exitCode: 2;
}

/** Exit 1: a budget of `check` failed; `report` is its document (when jsprof printed one). */
export class JsprofCheckError extends JsprofError {
  readonly code: 'CHECK_FAILED';
  readonly exitCode: 1;
  readonly report: CheckReport | undefined;
}

/** No binary for this machine (or JSPROF_BINARY names none); the message says how to get one. */
export class JsprofBinaryError extends JsprofError {
  readonly code: 'NO_BINARY';
  readonly exitCode: null;
}

// ---------------------------------------------------------------------------------------------
// Options shared by the CPU commands

/** A path to an input file, or `-` for standard input (see `input`). */
export type Input = string;

/** Which thread and time range a view shows. */
export interface ViewOptions {
  /** For a trace: the thread (a timeline_id from `threads()`, a tid or a unique name). */
  thread?: string;
  /** Only time within `START..END` (ms from the profile's start; either side may be empty). */
  range?: string;
  /** For a trace: weigh the thread's CPU samples instead of its entries. */
  samples?: boolean;
}

/** Source maps: the CPU commands' and the heap views' (`heapSummary`, `heapNode`, `heapClass`, `heapRetainers`,
 * `heapDominators`, `heapEdges`, `heapLeaks`, `heapAllocations`). */
export interface SourceMapOptions {
  /** Source maps, or folders of them, for scripts whose own comment does not lead to one. */
  sourcemap?: string | string[];
  /** Show generated positions: do not apply source maps. */
  noSourcemaps?: boolean;
}

/** The load pipeline's filters and source maps. */
export interface TransformOptions extends SourceMapOptions {
  /** Only stacks through a function whose name or URL matches one of these regular expressions. */
  focus?: string | string[];
  /** Drop frames whose function name or URL matches, charging their time to the caller. */
  exclude?: string | string[];
  /** Leave out every sample whose stack passes through a matching function. */
  drop?: string | string[];
  /** Leave out `(idle)` samples. */
  hideIdle?: boolean;
  /** One frame per `node_modules` package. */
  collapsePackages?: boolean;
  /** One frame per function per stack. */
  collapseRecursion?: boolean;
  /** Only the samples whose stack starts with this call path (`;`-separated frames). */
  focusStack?: string | string[];
  /** Only the samples whose stack ends with this path, read from the leaf. */
  focusStackInverted?: string | string[];
}

export interface SummaryOptions extends GlobalOptions {
  /** How many functions to list. */
  limit?: number;
  thread?: string;
}

/** The Performance panel's Summary of a selection: the thread's time by DevTools' categories. */
export interface SelectionSummaryOptions extends SummaryOptions {
  /** `START..END` in ms from the input's time origin (either side may be empty). */
  range?: string;
  /** The whole recording (`range` left out). */
  categories?: boolean;
}

export interface TopOptions extends ViewOptions, TransformOptions, GlobalOptions {
  /** Order by self (default) or total time. */
  by?: 'self' | 'total';
  /** How many functions to list (default 25); 0 lists all. */
  limit?: number;
}

export interface TreeOptions extends ViewOptions, TransformOptions, GlobalOptions {
  /** Functions as roots with their callers beneath (DevTools' Bottom-up). */
  bottomUp?: boolean;
  /** Show this many levels; 0 shows all. */
  maxDepth?: number;
  /** Hide nodes whose total is under this percentage. */
  minPercent?: number;
}

export interface SandwichOptions extends TreeOptions {
  /** The callers and callees of the functions matching this regular expression. */
  sandwich: string;
  bottomUp?: false;
}

export interface LinesOptions extends TransformOptions, GlobalOptions {
  /** The functions whose name matches this regular expression. */
  function: string;
  /** How many matching functions (default 5). */
  limit?: number;
  /** Lines of source around the hot ones. */
  context?: number;
  /** Numbers only, no source text. */
  noSource?: boolean;
  thread?: string;
}

export interface CheckOptions extends GlobalOptions {
  /** The budget file (TOML). */
  budget: string;
  thread?: string;
}

export interface CheckGroupOptions extends CheckOptions {
  /** The base group's profiles (files or directories). */
  base: string | string[];
  /** The target group's profiles. */
  target: string | string[];
  /** A profile lake to add the groups' profiles to. */
  lake?: string;
}

export interface DiffOptions extends ViewOptions, TransformOptions, GlobalOptions {
  /** Match functions by name and URL (default) or also by line and column. */
  key?: 'name-url' | 'function';
  /** Compare shares of each profile's total instead of absolute times. */
  normalize?: boolean;
  /** Two folders of page loads: compare their functions as profiles, not their metrics. */
  functions?: boolean;
  /** How many changes to list (default 25); 0 lists all. */
  limit?: number;
}

/** An A/B test's two groups and its thresholds (`diff` of groups and `lakeDiff`). */
export interface GroupOptions {
  /** The base group's profiles (files or directories). */
  base: string | string[];
  /** The target group's profiles. */
  target: string | string[];
  /** Report changes whose Benjamini-Hochberg q-value is below this (default 0.05). */
  alpha?: number;
  /** … and whose share shifted by at least this many points (default 0.5). */
  noiseFloor?: number;
  /** Test only functions present in at least this many profiles (default 3). */
  minProfiles?: number;
  /** Write the differential flame graph (SVG) here. */
  flamegraph?: string;
}

export interface DiffGroupOptions extends DiffOptions, GroupOptions {}

export type EventType =
  | 'DOCUMENT_PARSING'
  | 'CSS_PARSING'
  | 'SCRIPT_COMPILATION'
  | 'SCRIPT_THREAD_EVALUATION'
  | 'REFLOW'
  | 'STYLE_RECALCULATION'
  | 'CSS_SELECTOR_MATCHING'
  | 'LAYOUT'
  | 'PAINT'
  | 'GENERIC'
  | 'JS_CALL'
  | 'GC';

export interface EventsOptions extends TransformOptions, GlobalOptions {
  thread?: string;
  mode?: 'all' | 'unique-types' | 'unique-events' | 'reduce-all';
  /** Events overlapping `START..END` (ms). */
  range?: string;
  /** Iterate from this event id instead of the timeline's root. */
  event?: number;
  maxDepth?: number;
  /** Only these types. */
  type?: EventType | EventType[];
  limit?: number;
}

export interface FilmstripOptions extends GlobalOptions {
  /** Also write each screenshot into this directory. */
  out?: string;
}

export interface RecordOptions extends GlobalOptions {
  /** The Node command to launch and record (`['node', 'app.js']`). */
  command?: string[];
  /** Attach to a Node inspector: HOST:PORT or a ws:// URL. */
  inspect?: string;
  /** Attach to a running Node process. */
  pid?: number;
  /** A Chromium started with --remote-debugging-port: HOST:PORT. */
  chrome?: string;
  cpu?: boolean;
  /** CPU sampling interval in microseconds. */
  interval?: number;
  heapSampling?: boolean;
  heapSnapshot?: boolean;
  atEnd?: boolean;
  /** With `heapSnapshot`: one every this many seconds. */
  every?: number;
  trace?: boolean;
  /** With `chrome` and `trace`: record the load of this URL. */
  url?: string;
  loadTimeout?: number;
  /** With `url`: seconds the recording goes on after the load event. */
  settle?: number;
  /** With `url`: record this many loads, each in a fresh browser context (a page-load lab). */
  runs?: number;
  /** With `runs`: keep the cache between runs. */
  warm?: boolean;
  /** With `url`: CPU throttling, as the Performance panel's (e.g. 4). */
  cpuSlowdown?: number;
  /** With `url`: a network preset of DevTools' throttling menu. */
  network?: 'fast-4g' | 'slow-4g' | '3g';
  /** Stop after this many seconds. */
  duration?: number;
  /** Directory for the recorded files. */
  out?: string;
  /** File name stem. */
  name?: string;
  open?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The CPU and trace commands

/** `jsprof summary FILE --json`: what a profile holds. */
/** `jsprof summary TRACE --range A..B --json` (or `--categories`): the Summary of a selection. */
export function summary(file: Input, options: SelectionSummaryOptions & ({ range: string } | { categories: true })): Promise<SelectionSummaryReport>;
export function summary(file: Input, options?: SummaryOptions): Promise<SummaryReport>;
/** `jsprof top FILE --json`: the functions that take the most time (DevTools' Bottom-up roots). */
export function top(file: Input, options?: TopOptions): Promise<TopReport>;
/** `jsprof tree FILE --json`: the call tree (or Bottom-up tree); with `sandwich`, a sandwich. */
export function tree(file: Input, options: SandwichOptions): Promise<SandwichReport>;
export function tree(file: Input, options?: TreeOptions): Promise<TreeReport>;
/** `jsprof lines FILE --function RE --json`: a function's self time per source line. */
export function lines(file: Input, options: LinesOptions): Promise<LinesReport>;
/**
 * `jsprof check FILE --budget budget.toml --json`. Rejects with a `JsprofCheckError` (exit 1,
 * its `report` the CheckReport) when a budget is exceeded.
 */
export function check(file: Input, options: CheckOptions): Promise<CheckReport>;
export function check(first: string, snapshots: ReadonlyArray<string>, options: CheckOptions): Promise<CheckReport>;
export function check(options: CheckGroupOptions): Promise<CheckReport>;
/** `jsprof diff BEFORE AFTER --json`; with only `base` and `target` groups, an A/B test. */
export function diff(before: Input, after: Input, options?: DiffOptions): Promise<DiffReport>;
/** Two groups of profiles (or `functions: true` over page loads): per function share shifts. */
export function diff(options: DiffGroupOptions & { functions: true }): Promise<AbTestReport>;
/** Two groups: of page loads (every input a trace with a navigation), their metrics' shifts; else per function share shifts. */
export function diff(options: DiffGroupOptions): Promise<AbTestReport | PageDiffReport>;
/** `jsprof threads FILE --json`: the timelines (threads) of a trace or profile. */
export function threads(file: Input, options?: GlobalOptions): Promise<ThreadsReport>;
/** `jsprof events FILE --json`: a timeline's events. */
export function events(file: Input, options?: EventsOptions): Promise<EventsReport>;
/** `jsprof insights TRACE --json`: a page load's Web Vitals and DevTools' insights. */
export function insights(file: Input, options?: GlobalOptions): Promise<InsightsReport>;
/** `jsprof insights DIR --json`: a folder of runs of one page load as a distribution. */
export function insights(dir: string, options?: GlobalOptions): Promise<InsightsReport | PageRunsReport>;
/** `jsprof network TRACE --json`: the trace's network requests. */
export function network(file: Input, options?: GlobalOptions): Promise<NetworkReport>;
/** `jsprof filmstrip TRACE --json`: the trace's screenshots. */
export function filmstrip(file: Input, options?: FilmstripOptions): Promise<FilmstripDoc>;
/** `jsprof timings TRACE --json`: user timings (marks, measures, console.time). */
export function timings(file: Input, options?: GlobalOptions): Promise<TimingsReport>;
/**
 * `jsprof record --json [-- COMMAND…]`: records profiles over the DevTools protocol. Resolves
 * to the recording also when the launched program failed (jsprof's exit 1; the document's
 * `program` says how it ended).
 */
export function record(options: RecordOptions): Promise<JsprofDocument>;

// ---------------------------------------------------------------------------------------------
// Heap snapshots (`jsprof heap …`)

export interface HeapSummaryOptions extends GlobalOptions, SourceMapOptions {
  sort?: 'retained' | 'self' | 'count';
  limit?: number;
  /** Only objects allocated between these two snapshots (their paths). */
  between?: [string, string];
  /** Only one JavaScript context's objects: a native context's id from `heapContexts`
   * (`6045` or `'@6045'`), `'shared'` or `'none'`. */
  context?: number | string;
}
export interface HeapClassOptions extends GlobalOptions, SourceMapOptions {
  sort?: 'retained' | 'self' | 'distance' | 'id';
  ascending?: boolean;
  offset?: number;
  limit?: number;
}
export interface HeapDiffOptions extends GlobalOptions {
  limit?: number;
  offset?: number;
}
export interface HeapRetainersOptions extends GlobalOptions, SourceMapOptions {
  /** How many retaining paths (default 5). */
  paths?: number;
  maxDepth?: number;
}
export interface HeapDominatorsOptions extends GlobalOptions, SourceMapOptions {
  /** The object to start from (`@123` or 123); the root otherwise. */
  id?: number | string;
  depth?: number;
  minSize?: number;
  limit?: number;
}
export interface HeapEdgesOptions extends GlobalOptions, SourceMapOptions {
  /** The object's retainers instead of its references. */
  retainers?: boolean;
  offset?: number;
  limit?: number;
}
export interface HeapLimitOptions extends GlobalOptions {
  limit?: number;
}
export interface HeapLeaksOptions extends GlobalOptions, SourceMapOptions {
  minRetained?: number;
  limit?: number;
}
export interface HeapLeakSeriesOptions extends HeapLeaksOptions {
  /** Three snapshots as a series too. */
  series?: boolean;
  /** Every group, not only the growing ones. */
  all?: boolean;
  /** The trend test's significance (default 0.05). */
  alpha?: number;
}
export interface HeapAllocationsOptions extends GlobalOptions, SourceMapOptions {
  bottomUp?: boolean;
}

/** `jsprof heap summary FILE --json`: the Summary view (objects by class). */
export function heapSummary(file: Input, options?: HeapSummaryOptions): Promise<HeapSummaryReport>;
/** `jsprof heap stats FILE --json`: the Statistics view. */
export function heapStats(file: Input, options?: GlobalOptions): Promise<JsprofDocument>;
/** `jsprof heap contexts FILE --json`: the JavaScript contexts (realms) and the bytes each owns. */
export function heapContexts(file: Input, options?: GlobalOptions): Promise<HeapContextsReport>;
/** `jsprof heap node FILE ID… --json`: single objects. */
export function heapNode(file: Input, ids: number | string | ReadonlyArray<number | string>, options?: GlobalOptions & SourceMapOptions): Promise<NodesReport>;
/** `jsprof heap class FILE KEY --json`: a class's objects. */
export function heapClass(file: Input, className: string, options?: HeapClassOptions): Promise<ClassObjectsReport>;
/** `jsprof heap diff BASE TARGET --json`: the Comparison view; with `class`, one class's changes. */
export function heapDiff(base: Input, target: Input, options: HeapDiffOptions & { class: string }): Promise<ClassChangesReport>;
export function heapDiff(base: Input, target: Input, options?: HeapDiffOptions): Promise<HeapDiffReport>;
/** `jsprof heap retainers FILE ID --json`: an object's retaining paths. */
export function heapRetainers(file: Input, id: number | string, options?: HeapRetainersOptions): Promise<RetainersReport>;
/** `jsprof heap dominators FILE --json`: the dominator tree. */
export function heapDominators(file: Input, options?: HeapDominatorsOptions): Promise<JsprofDocument>;
/** `jsprof heap edges FILE ID --json`: an object's references (or retainers). */
export function heapEdges(file: Input, id: number | string, options?: HeapEdgesOptions): Promise<EdgesReport>;
/** `jsprof heap strings FILE --json`: duplicated strings. */
export function heapStrings(file: Input, options?: HeapLimitOptions): Promise<StringsReport>;
/** `jsprof heap detached FILE --json`: detached DOM trees. */
export function heapDetached(file: Input, options?: HeapLimitOptions): Promise<JsprofDocument>;
/** `jsprof heap leaks BASE TARGET FINAL --json`: objects allocated between and still alive. */
export function heapLeaks(base: Input, target: Input, last: Input, options?: HeapLeaksOptions): Promise<LeaksReport>;
/** `jsprof heap leaks SNAPSHOT… --json` over 4 to 50 snapshots (or a directory): which groups keep growing. */
export function heapLeaks(snapshots: ReadonlyArray<string> | string, options?: HeapLeakSeriesOptions): Promise<LeakSeriesReport>;
/** `jsprof heap advisors FILE --json`: memory the program could give back, with the bytes and paths. */
export function heapAdvisors(file: Input, options?: GlobalOptions & { limit?: number; minSaving?: number }): Promise<AdvisorsReport>;
/** `jsprof heap process DIR|SNAPSHOT… --json`: a Node process's isolates (main thread and workers), each one's JS heap and external buffers with their owners, reconciled with the RSS. */
export function heapProcess(snapshots: ReadonlyArray<string> | string, options?: GlobalOptions & { limit?: number }): Promise<ProcessMemoryReport>;
/** `jsprof heap redact FILE -o OUT --json`: a copy safe to share (string contents replaced). */
export function heapRedact(file: string, options: GlobalOptions & { output: string; numbers?: boolean }): Promise<RedactReport>;
/** `jsprof heap allocations FILE --json`: an allocation timeline's allocation stacks. */
export function heapAllocations(file: Input, options?: HeapAllocationsOptions): Promise<AllocationsReport>;

// ---------------------------------------------------------------------------------------------
// The profile lake (`jsprof lake …`; a binary built with the `lake` feature, as released ones are)

/** Which profiles of a lake: `NAME=VALUE`, `NAME=V1|V2`, `NAME!=VALUE`, `since=`, `until=`. */
export interface WhereOptions extends GlobalOptions {
  where?: string | string[];
  since?: string;
  until?: string;
}
export interface LakeAddOptions extends GlobalOptions {
  /** `NAME=VALUE` labels for every profile added. */
  label?: string | string[];
  labelsFromPath?: boolean;
  startTime?: string;
  noSourcemaps?: boolean;
}
export type LakeUnit = 'ns' | 'bytes';

export function lakeAdd(lake: string, inputs: string | ReadonlyArray<string>, options?: LakeAddOptions): Promise<JsprofDocument>;
export function lakeLs(lake: string, options?: WhereOptions): Promise<JsprofDocument>;
export function lakeTop(lake: string, options?: WhereOptions & { by?: 'self' | 'total'; limit?: number; unit?: LakeUnit }): Promise<JsprofDocument>;
export function lakeTree(
  lake: string,
  options?: WhereOptions & { bottomUp?: boolean; maxDepth?: number; minPercent?: number; unit?: LakeUnit },
): Promise<TreeReport>;
export function lakeTrend(lake: string, fn: string, options: WhereOptions & { by: string; url?: string; unit?: LakeUnit }): Promise<JsprofDocument>;
/** `jsprof lake trend LAKE --metric M --by LABEL --json`: a page-load metric's distribution per value. */
export function lakeTrend(lake: string, options: WhereOptions & { by: string; metric: string }): Promise<LakePageTrendReport>;
export function lakeDiff(
  lake: string,
  options: WhereOptions & GroupOptions & {
    unit?: LakeUnit;
    limit?: number;
  },
): Promise<AbTestReport>;
/** `jsprof lake diff LAKE --page-loads --base … --target … --json`: two selections' page loads
 * compared metric by metric, as `diff` compares two folders of runs. */
export function lakeDiff(
  lake: string,
  options: WhereOptions & Pick<GroupOptions, 'base' | 'target' | 'alpha'> & { pageLoads: true },
): Promise<LakePageDiffReport>;
export function lakeSql(
  lake: string,
  sql: string,
  options?: GlobalOptions & {
    /** The query's memory limit, e.g. `'512M'` (`--max-memory`; default 1G). */
    maxMemory?: string;
    /** Seconds the query may run (`--timeout`; default 60). */
    timeout?: number;
  },
): Promise<JsprofDocument>;
export function lakeCompact(lake: string, options?: GlobalOptions): Promise<JsprofDocument>;

/** Every command the functions run: its words, positional parameters and flags' kinds. */
export const COMMANDS: Readonly<
  Record<
    string,
    {
      words: string[];
      positionals: string[];
      trailing?: string;
      flags: Record<string, 'bool' | 'string' | 'number' | 'strings' | 'pair'>;
    }
  >
>;
