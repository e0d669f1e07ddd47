// jsprof's JSON documents as TypeScript types.
//
// Generated from the types in `crates/jsprof_document` (`jsprof_document::schema`), like
// docs/json.md; do not edit by hand: `JSPROF_BLESS=1 cargo test -p jsprof_document
// typescript_declarations` rewrites it. Times are ms (`*_ms`), sizes bytes (`*_size`,
// `*_bytes`), positions 1-based; an optional field is left out rather than `null`.

/**
 * The whole `summary` document.
 *
 * Answers `jsprof summary FILE --json`; `GET …/artifacts/{a}/summary`.
 */
export interface SummaryReport {
  /** The samples' span (time profiles). */
  duration_ms?: number | null;
  /** Functions in `top` (all rows). */
  functions: number;
  gc_ms?: number | null;
  gc_percent?: number | null;
  /** Self time of `(idle)`, `(program)` and `(garbage collector)` among the samples. */
  idle_ms?: number | null;
  idle_percent?: number | null;
  interval_ms?: number | null;
  kind: string;
  /** A page-load trace: its Web Vitals and worst insight. */
  page?: PageSummaryJson | null;
  program_ms?: number | null;
  program_percent?: number | null;
  /** Samples of the thread (allocation samples of a heap profile). */
  samples: number;
  threads: SummaryThreadJson[];
  /** `top`'s first rows by self. */
  top_functions: FunctionJson[];
  /** Bytes sampled (heap profiles). */
  total_bytes?: number | null;
  warnings: JsonWarning[];
}

/**
 * The whole `threads` document.
 *
 * Answers `jsprof threads FILE --json`; `GET …/artifacts/{a}/threads`.
 */
export interface ThreadsReport {
  kind: string;
  timelines: ThreadJson[];
  warnings: JsonWarning[];
}

/**
 * `jsprof insights TRACE --json`: Web Vitals per navigation, then the evidence.
 *
 * Answers `jsprof insights TRACE --json`; `GET …/artifacts/{a}/insights`.
 */
export interface InsightsReport {
  clusters: ClusterJson[];
  duration_ms: number;
  interactions: InteractionJson[];
  kind: string;
  layout_shifts: ShiftJson[];
  long_tasks: LongTasksJson;
  main_frame_url: string | null;
  navigations: NavigationJson[];
  page_load_markers: MarkerJson[];
  /**
   * The events the insights point at, per navigation, insight by insight in the trace
   * engine's baseline order (INP breakdown, LCP breakdown, LCP discovery, CLS culprits,
   * render-blocking, network dependency tree, image delivery, document latency, font
   * display, DOM size, forced reflow, cache, character set, modern HTTP, third parties),
   * each insight's events in DevTools' order: e.g. a forced reflow's reflows then its
   * top-level calls, a DOM size's large layouts then its large style recalculations.
   */
  related_events: RelatedEventJson[];
  requests: number;
  screenshots: ScreenshotsJson;
  /**
   * The requests' transfer sizes summed, in bytes (each request's encoded data length, what
   * the Network panel counts as "transferred").
   */
  transfer_size: number;
  warnings: JsonWarning[];
}

/**
 * The runs of one page load, compared.
 *
 * Answers `jsprof insights DIR --json` (a folder of runs of one page load); `GET /api/ui/page-runs?runs=S/A,…`; MCP `page_runs` and `record` with `url`.
 */
export interface PageRunsReport {
  /**
   * Per insight (DevTools' names as `insights --json` keys them): in how many runs it fails,
   * and its median savings over those runs.
   */
  insights: InsightRunsJson[];
  /** `page_runs`. */
  kind: string;
  /**
   * The index in `runs` of the run closest to the medians of FCP and LCP (the sum of each
   * metric's distance to its median relative to the median), the one to open; `null` with no
   * run.
   */
  median_run: number | null;
  /** Per metric: its distribution over the runs that have it. */
  metrics: MetricRunsJson[];
  /** Each run's metrics, in the order the runs were given (file names sorted for a folder). */
  runs: RunJson[];
  /** The main frame's URL of the runs (the first run's when they differ: see `warnings`). */
  url: string | null;
  /** Runs whose main frame differs from the first's, and the like. */
  warnings: string[];
}

/**
 * Two folders of page-load runs compared.
 *
 * Answers `jsprof diff --base A/ --target B/ --json` when the inputs are page-load traces (two folders of runs); `GET /api/ui/page-diff?base=…&target=…`; MCP `page_diff`.
 */
export interface PageDiffReport {
  /** A change is significant when its Benjamini-Hochberg q-value is below this. */
  alpha: number;
  base: PageSideJson;
  /**
   * Requests that came onto or left the critical path: the longest chain of requests the
   * page waited on (the network dependency tree's), past the document.
   */
  critical_path: BlockingChangeJson[];
  /**
   * Functions (matched by name and URL) whose self or total share of the main thread
   * changed significantly by at least the noise floor, largest self shift first: what the
   * new long tasks run. `diff --base --target --functions --json`'s `changes` on the same
   * runs.
   */
  functions: AbFunctionJson[];
  /** `page_diff`. */
  kind: string;
  /** The intervals' confidence level (0.95). */
  level: number;
  /**
   * The number of long tasks per run (the metric `long_tasks`), compared with the metrics
   * in one family: a significant growth means new long tasks.
   */
  long_tasks: MetricShiftJson;
  /** Per metric of `insights DIR` that both sides have, in its order (but `long_tasks`). */
  metrics: MetricShiftJson[];
  /** Requests that became or stopped being render-blocking. */
  render_blocking: BlockingChangeJson[];
  target: PageSideJson;
  /**
   * Third parties (DevTools' entities) whose main-thread time or transfer size grew
   * significantly, largest main-thread growth first.
   */
  third_parties: ThirdPartyChangeJson[];
  /**
   * Requests that became or stopped being uncached: static resources with a cache
   * lifetime too short for a repeat visit (the cache insight's).
   */
  uncached: BlockingChangeJson[];
  /** What the sides' runs warned about (runs of another page, runs without a navigation). */
  warnings: string[];
}

/**
 * `jsprof network TRACE --json`: every request, in DevTools' order.
 *
 * Answers `jsprof network TRACE --json`; `GET …/artifacts/{a}/network`.
 */
export interface NetworkReport {
  kind: string;
  requests: RequestJson[];
  transfer_size: number;
  warnings: JsonWarning[];
}

/**
 * `jsprof timings TRACE --json`: user timings.
 *
 * Answers `jsprof timings TRACE --json`; `GET …/artifacts/{a}/timings`.
 */
export interface TimingsReport {
  console_timestamps: MarkJson[];
  console_timings: MeasureJson[];
  kind: string;
  marks: MarkJson[];
  measures: MeasureJson[];
  warnings: JsonWarning[];
}

/**
 * The screenshots of a trace, in time order (the order `jsprof insights` counts them in).
 *
 * Answers `jsprof filmstrip TRACE --json`; `GET …/artifacts/{a}/filmstrip` (and the UI's).
 */
export interface FilmstripDoc {
  frames: FrameJson[];
  kind: string;
}

/**
 * One screenshot's image.
 *
 * Answers `GET …/artifacts/{a}/filmstrip/{index}` (and the UI's): one image; `jsprof filmstrip --out DIR` writes them as files.
 */
export interface ScreenshotJson {
  /** The image, base64 as the trace holds it. */
  data: string;
  index: number;
  /** `image/jpeg` (what Chrome records) or `image/png`. */
  mime: string;
  ts_ms: number;
}

/**
 * The whole `top` document.
 *
 * Answers `jsprof top FILE --json`; `GET …/artifacts/{a}/top`.
 */
export interface TopReport {
  duration_ms?: number | null;
  functions: FunctionJson[];
  kind: string;
  /**
   * `"trace-entries"` when the numbers are a trace thread's entries (the Performance panel's
   * Bottom-up); absent when they are samples.
   */
  source?: WeightSource;
  total_bytes?: number | null;
  warnings: JsonWarning[];
}

/**
 * The whole document.
 *
 * Answers `jsprof lines FILE --function RE --json`; `GET /api/ui/…/artifacts/{a}/lines` (one function); the MCP `source` tool's per-line numbers.
 */
export interface LinesReport {
  /** The matching functions, by self time. */
  functions: FunctionLines[];
  kind: string;
  /**
   * Where the per-line numbers come from: `position_ticks` (a `.cpuprofile`: V8's counts per
   * node and line), `sample_lines` (a trace: the line V8 wrote with each sample); `null`
   * when the input has neither.
   */
  line_source: string | null;
  /** Why there are no per-line numbers at all (an input without line data), if so. */
  note?: string | null;
  /**
   * What one line tick weighs (ms): the profile's duration over its nodes' `hitCount`s
   * summed (DevTools' figure). `null` unless the lines are `position_ticks` (a trace's
   * samples each weigh the time since the sample before, as DevTools counts them).
   */
  tick_ms: number | null;
  warnings: JsonWarning[];
  /**
   * `table` when the lines weigh what the function table weighs ([`in_table_weights`]: the
   * UI's source panel beside the Functions table); absent for the Sources gutter's weights.
   */
  weights?: string | null;
}

/**
 * The whole `tree` document.
 *
 * Answers `jsprof tree FILE --json`; `GET …/artifacts/{a}/tree`.
 */
export interface TreeReport {
  /**
   * A bottom-up tree (or a sandwich's callers) whose stacks are so deep that the callers
   * were cut at this many levels (the roots and the levels shown are exact); pass a smaller
   * `max_depth` to choose the cut.
   */
  callers_cut_at_depth?: number | null;
  duration_ms?: number | null;
  kind: string;
  nodes: TreeNodeJson[];
  /** As in `top`: `"trace-entries"` for a trace thread's entries, absent for samples. */
  source?: WeightSource;
  total_bytes?: number | null;
  view: string;
  warnings: JsonWarning[];
}

/**
 * `jsprof tree --sandwich RE --json`.
 *
 * Answers `jsprof tree FILE --sandwich RE --json`; the MCP `sandwich` tool.
 */
export interface SandwichReport {
  /** The function as the root, what it called beneath (its calls merged). */
  callees: TreeNodeJson[];
  /** The function as the root, the functions that called it beneath (Bottom-up's rows). */
  callers: TreeNodeJson[];
  /**
   * A bottom-up tree (or a sandwich's callers) whose stacks are so deep that the callers
   * were cut at this many levels (the roots and the levels shown are exact); pass a smaller
   * `max_depth` to choose the cut.
   */
  callers_cut_at_depth?: number | null;
  duration_ms?: number | null;
  /** The function (the heaviest of those the pattern matches), with its `top` row's weights. */
  function: SandwichFunction;
  kind: string;
  /**
   * Other functions the pattern matched, heaviest first (at most 20): narrow the pattern to
   * pick one of them.
   */
  other_matches: SandwichFunction[];
  /** As in `top`: `"trace-entries"` for a trace thread's entries, absent for samples. */
  source?: WeightSource;
  total_bytes?: number | null;
  view: string;
  warnings: JsonWarning[];
}

/**
 * The whole answer.
 *
 * Answers `jsprof events FILE --json`; `GET …/timelines/{t}/events` (GetEvents).
 */
export interface EventsReport {
  events: EventJson[];
  kind: string;
  mode: string;
  range: RangeJson;
  timeline_id: number;
  warnings: JsonWarning[];
}

/**
 * `jsprof diff BEFORE AFTER --json`: what changed, function by function.
 *
 * Answers `jsprof diff BEFORE AFTER --json`; `GET /api/ui/…/diff` (with `svg`).
 */
export interface DiffReport {
  after: string;
  after_kind: string;
  after_total_bytes?: number | null;
  after_total_ms?: number | null;
  /** How the inputs are named. */
  before: string;
  before_total_bytes?: number | null;
  /** Weight on some function (gaps left out), before and (scaled) after. */
  before_total_ms?: number | null;
  below_noise_floor: BelowNoiseFloor;
  /** Above the noise floor, largest change of self first. */
  functions: DiffFunctionJson[];
  /** `name-url` or `function`: how functions are matched. */
  key: string;
  /** BEFORE's kind (`cpuprofile`, `trace`, …) and AFTER's. */
  kind: string;
  noise_floor_bytes?: number | null;
  /** Changes smaller than this are not listed. */
  noise_floor_ms?: number | null;
  normalized: boolean;
  /** What AFTER was multiplied by (1 without normalisation). */
  scale: number;
  /** The differential flame graph (the UI's answer only). */
  svg?: string | null;
  /** `ms` or `bytes`: the unit of every `*_ms` / `*_bytes` field. */
  unit: string;
  warnings: JsonWarning[];
}

/**
 * `jsprof diff --base … --target … --json`, `jsprof lake diff --json`: the group comparison.
 *
 * Answers `jsprof diff --base A… --target B… --json`; `jsprof lake diff LAKE --json`.
 */
export interface AbTestReport {
  /** A change is reported when its q-value is below `alpha` … */
  alpha: number;
  base: GroupJson;
  /** The reported changes, largest self shift first. */
  changes: AbFunctionJson[];
  /** `name-url` or `function`: how functions are matched. */
  key: string;
  /** Functions present in fewer profiles (both groups together) are not tested. */
  min_profiles: number;
  /** … and its shift at least this many share points. */
  noise_floor_points: number;
  /** Functions with `q < alpha` on some share but shifted less than the noise floor. */
  significant_below_floor: number;
  target: GroupJson;
  /** Functions tested, and those seen but too rare to test. */
  tested: number;
  untested: number;
  warnings: JsonWarning[];
}

/**
 * `jsprof lake add --json`: what one `add` wrote.
 *
 * The fields stand in the order this document has always printed them in (alphabetical).
 *
 * Answers `jsprof lake add LAKE INPUT… --json`.
 */
export interface LakeAddReport {
  /**
   * Inputs whose content was already in the lake (or earlier in the same add), by source
   * name: not added again.
   */
  duplicates: string[];
  /** Parquet files written. */
  files_written: number;
  /** `"lake-add"`. */
  kind: string;
  /** Profiles added (a trace adds one per sampled thread). */
  profiles: number;
  /** Files of the named directories that are not profiles, passed over. */
  skipped: number;
}

/**
 * `jsprof lake ls --json`: the selected profiles, oldest first.
 *
 * Answers `jsprof lake ls LAKE --json`.
 */
export interface LakeLsReport {
  /** `"lake-ls"`. */
  kind: string;
  profiles: LakeProfileJson[];
}

/**
 * `jsprof lake top --json`: the function table of the selected profiles, each function's self
 * and total summed over them (in ms since this document's first typed version; it spoke ns
 * before, as `self_ns`, `total_ns`).
 *
 * Answers `jsprof lake top LAKE --json`.
 */
export interface LakeTopReport {
  /** The selection's total time, which percentages are of (`TopReport`'s `duration_ms`). */
  duration_ms?: number | null;
  /**
   * `jsprof top`'s rows, in its order: over one profile, the same bytes as `jsprof top
   * --json` over its file.
   */
  functions: FunctionJson[];
  /** `"lake-top"`. */
  kind: string;
  /** How many profiles were added up. */
  profiles: number;
  /** The selection's total bytes, which percentages are of. */
  total_bytes?: number | null;
  /**
   * The weights added up, as `--unit` names them: `ns` (time, in the `_ms` fields) or
   * `bytes`.
   */
  unit: string;
}

/**
 * `jsprof lake trend FUNCTION --by LABEL --json`: how one function's share moves across a
 * label's values (versions in natural order) or days.
 *
 * Answers `jsprof lake trend LAKE FUNCTION --by LABEL --json`.
 */
export interface LakeTrendReport {
  /** The label (or `day`). */
  by: string;
  /** The function's name. */
  function: string;
  /** `"lake-trend"`. */
  kind: string;
  points: LakeTrendPoint[];
  /** The weights added up: `ns` (time, in the `_ms` fields) or `bytes`. */
  unit: string;
}

/**
 * `jsprof lake trend LAKE --metric METRIC --by LABEL --json`: how a page-load metric (`lcp_ms`,
 * `fcp_ms`, `cls`, …, as `jsprof insights DIR` names them) moves across a label's values
 * (versions in natural order) or days.
 *
 * Answers `jsprof lake trend LAKE --metric METRIC --by LABEL --json`.
 */
export interface LakePageTrendReport {
  /** The label (or `day`). */
  by: string;
  /** `"lake-page-trend"`. */
  kind: string;
  metric: string;
  points: LakePageTrendPoint[];
}

/**
 * `jsprof lake diff LAKE --page-loads --base WHERE --target WHERE --json`: two selections'
 * page loads compared metric by metric as `jsprof diff --base A/ --target B/` compares two
 * folders of runs (the same function over the values the lake stored for each run: its
 * `metrics` and `long_tasks` equal that document's on the same runs). The insights' changes
 * (render-blocking requests, third parties) need the traces themselves, which the lake does
 * not keep.
 *
 * Answers `jsprof lake diff LAKE --page-loads --base WHERE --target WHERE --json`.
 */
export interface LakePageDiffReport {
  /** A change is significant when its Benjamini-Hochberg q-value is below this. */
  alpha: number;
  base: LakePageSideJson;
  /** `"lake-page-diff"`. */
  kind: string;
  /** The intervals' confidence level (0.95). */
  level: number;
  /** The long tasks' count per run; `null` for page loads added before the lake stored it. */
  long_tasks: MetricShiftJson | null;
  /** Per metric both sides have, in `insights DIR`'s order (but `long_tasks`). */
  metrics: MetricShiftJson[];
  target: LakePageSideJson;
}

/**
 * `jsprof lake sql QUERY --json`: one object per row; integers and floats as numbers,
 * everything else (strings, times, lists, maps) as Arrow displays it.
 *
 * Answers `jsprof lake sql LAKE QUERY --json`.
 */
export interface LakeSqlReport {
  /** `"lake-sql"`. */
  kind: string;
  rows: unknown[];
}

/**
 * `jsprof lake compact LAKE --json`.
 *
 * Answers `jsprof lake compact LAKE --json`.
 */
export interface LakeCompactReport {
  /** `"lake-compact"`. */
  kind: string;
  outcome: LakeCompaction;
}

/**
 * `heap summary`: DevTools' Summary.
 *
 * Answers `jsprof heap summary FILE --json`; `GET …/heap/summary`.
 */
export interface HeapSummaryReport {
  /** Only with `--between`: the Summary covers the objects allocated between two snapshots. */
  between?: BetweenJson | null;
  classes: ClassJson[];
  /**
   * Only with `--context`: the Summary covers one JavaScript context's objects (or the
   * shared or unattributed ones).
   */
  context?: SummaryContextJson | null;
  kind: string;
  node_count: number;
  statistics: StatisticsJson;
  total_size: number;
  warnings: JsonWarning[];
}

/**
 * `heap contexts`: the snapshot's native contexts (realms: a page's frames, `vm` contexts,
 * extension worlds) with the bytes each owns alone, and the bytes several or none own.
 *
 * Answers `jsprof heap contexts FILE --json`; `GET …/heap/contexts`.
 */
export interface HeapContextsReport {
  /** In node order, as DevTools lists them. */
  contexts: NativeContextJson[];
  kind: string;
  node_count: number;
  /** The self sizes of the objects reached from several contexts. */
  shared_size: number;
  total_size: number;
  /** The self sizes of the objects reached from no context. */
  unattributed_size: number;
  warnings: JsonWarning[];
}

/**
 * `heap node`: single objects by id.
 *
 * Answers `jsprof heap node FILE ID --json`; `GET …/heap/node/{id}`.
 */
export interface NodesReport {
  kind: string;
  nodes: HeapNodeJson[];
  warnings: JsonWarning[];
}

/**
 * `heap retainers`: why an object is alive.
 *
 * Answers `jsprof heap retainers FILE ID --json`; `GET …/heap/retainers/{id}`.
 */
export interface RetainersReport {
  kind: string;
  object: ObjectJson;
  paths: PathJson[];
  warnings: JsonWarning[];
}

/**
 * `heap class`: a page of one class's objects.
 *
 * Answers `jsprof heap class FILE KEY --json`; `GET /api/ui/…/heap/class` and `…/heap/class/between`.
 */
export interface ClassObjectsReport {
  /** Smallest first: the `order` read backwards. */
  ascending: boolean;
  /** The Summary key of the class (a Summary row's `key`). */
  key: string;
  kind: string;
  name: string;
  objects: ObjectJson[];
  /** The position of the first object listed, in this order. */
  offset: number;
  order: ObjectOrder;
  /** How many objects the class has. */
  total: number;
  warnings: JsonWarning[];
}

/**
 * `heap edges`: a page of one object's edges.
 *
 * Answers `jsprof heap edges FILE ID [--retainers] --json`; `GET /api/ui/…/heap/edges/{id}`.
 */
export interface EdgesReport {
  direction: EdgeDirection;
  edges: EdgeJson[];
  kind: string;
  /** The object whose edges these are. */
  object: ObjectJson;
  offset: number;
  /**
   * How many edges in all (after DevTools' filter: no invisible edges; for retainers also no
   * weak edges and none from the snapshot's root).
   */
  total: number;
  warnings: JsonWarning[];
}

/**
 * `heap strings`.
 *
 * Answers `jsprof heap strings FILE --json`; `GET /api/ui/…/heap/strings`.
 */
export interface StringsReport {
  kind: string;
  strings: StringJson[];
  /** How many duplicated values there are in all (before `limit`). */
  total: number;
  warnings: JsonWarning[];
}

/**
 * `heap advisors`.
 *
 * Answers `jsprof heap advisors FILE --json`; `GET /api/ui/…/heap/advisors`; MCP `heap_advisors`.
 */
export interface AdvisorsReport {
  /** Largest saving first. */
  advice: AdviceJson[];
  kind: string;
  /** Findings before `limit`. */
  total: number;
  /** Their savings together (before `limit`). */
  total_saving: number;
  warnings: JsonWarning[];
}

/**
 * `heap process`.
 *
 * Answers `jsprof heap process DIR|SNAPSHOT… --json`.
 */
export interface ProcessMemoryReport {
  kind: string;
  processes: ProcessJson[];
  warnings: JsonWarning[];
}

/**
 * `heap redact`: counts of what was replaced in the copy written.
 *
 * Answers `jsprof heap redact FILE -o OUT --json`.
 */
export interface RedactReport {
  /** Nodes whose text was replaced: string values, regexps, and numbers with `--numbers`. */
  nodes_redacted: number;
  /** Whether number values were zeroed (`--numbers`). */
  numbers: boolean;
  numbers_zeroed: number;
  /** Entries in the input's string table. */
  strings: number;
  /**
   * Entries appended to the table: a text that is both a kept name (a class or property name)
   * and a value gets a placeholder of its own for the value.
   */
  strings_appended: number;
  /** Of those, replaced by placeholders of the same length (in UTF-16 code units). */
  strings_redacted: number;
}

/**
 * `heap allocations`.
 *
 * Answers `jsprof heap allocations FILE --json`; `GET /api/ui/…/heap/allocations`.
 */
export interface AllocationsReport {
  kind: string;
  stacks: StackJson[];
  /** `top-down` or `bottom-up`. */
  view: string;
  warnings: JsonWarning[];
}

/**
 * `heap diff`: DevTools' Comparison plus the retained-size change.
 *
 * Answers `jsprof heap diff BASE TARGET --json`; `GET …/heap/diff`.
 */
export interface HeapDiffReport {
  classes: ClassDiffJson[];
  kind: string;
  warnings: JsonWarning[];
}

/**
 * `heap diff --class`: one Comparison row's objects.
 *
 * Answers `jsprof heap diff BASE TARGET --class KEY --json`; `GET /api/ui/…/heap/diff/class`.
 */
export interface ClassChangesReport {
  /**
   * Objects of BASE whose ids TARGET does not have in this class, largest self size first,
   * with BASE's sizes and distances (the row's `deleted_count` and `freed_size`).
   */
  deleted: ObjectsPage;
  /** The Summary key of the class (a Comparison row's `key`). */
  key: string;
  kind: string;
  name: string;
  /**
   * Objects of TARGET whose ids BASE does not have in this class, largest self size first
   * (their count and sizes are the row's `new_count` and `alloc_size`).
   */
  new: ObjectsPage;
  warnings: JsonWarning[];
}

/**
 * `jsprof heap leaks BASE TARGET FINAL --json` and the UI's Leaks tab.
 *
 * Answers `jsprof heap leaks BASE TARGET FINAL --json`; `GET /api/ui/…/heap/leaks`.
 */
export interface LeaksReport {
  /** Largest retained first. */
  groups: LeakGroupJson[];
  kind: string;
  /** The snapshots in the order used: base, target, final. */
  snapshots: LeakSnapshotJson[];
  /** Groups found (above `min_retained`), before `limit`. */
  total: number;
  warnings: JsonWarning[];
}

/**
 * `jsprof heap leaks S1 … SN --json` (four or more snapshots, a directory, or `--series`).
 *
 * Answers `jsprof heap leaks S1 S2 … SN --json` (4 to 50 snapshots, a directory, or `--series`); `GET /api/ui/…/heap/leaks?series=`; MCP `heap_leaks` with 4 or more handles.
 */
export interface LeakSeriesReport {
  /** The significance level of the trend test. */
  alpha: number;
  /** Growing first, then by retained size in the last snapshot, largest first. */
  groups: LeakSeriesGroupJson[];
  kind: string;
  /** How the snapshots were ordered: `name_timestamp`, `name_number` or `given`. */
  order: string;
  /** In the series' order. */
  snapshots: LeakSeriesSnapshotJson[];
  /** Where the times came from: `name_timestamp`, `mtime`, or null (no per-hour rates). */
  times_from: string | null;
  /** Groups listed (growing ones, or all with `all`, above `min_retained`), before `limit`. */
  total: number;
  /** Verdicts over every group found. */
  verdicts: VerdictCounts;
  warnings: JsonWarning[];
}

/**
 * The whole `check` document.
 *
 * Answers `jsprof check FILE --budget budget.toml --json` (exit 1 when one fails).
 */
export interface CheckReport {
  checks: CheckJson[];
  kind: string;
  /** No budget failed (the exit code is 1 otherwise). */
  passed: boolean;
  warnings: JsonWarning[];
}

/**
 * `jsprof summary TRACE --range A..B --json` and `GET /api/ui/sessions/{s}/summary`: the
 * Performance panel's Summary of a selection, the time of one thread in a range by category.
 *
 * Answers `jsprof summary TRACE --range A..B --json` (or `--categories`); the UI's Summary panel: `GET /api/ui/sessions/{s}/summary`.
 */
export interface SelectionSummaryReport {
  /**
   * The categories with time, most first, then `idle` (what is left of the selection; the
   * rows sum to `total_ms`).
   */
  categories: CategoryJson[];
  end_ms: number;
  kind: string;
  /** The selection (ms from the input's time origin); an open side is the recording's edge. */
  start_ms: number;
  thread: string;
  timeline_id: number;
  /** `end_ms - start_ms`. */
  total_ms: number;
  warnings: JsonWarning[];
}

/**
 * One window of a timeline's flame chart.
 *
 * Answers the UI's flame chart: `GET /api/ui/sessions/{s}/chart`; embedded by `jsprof report`.
 */
export interface ChartDoc {
  end_ms: number;
  events: ChartEvents;
  /** `[name, url, line, column]`: string ids and 1-based positions (null when unknown). */
  functions: [number, number, number | null, number | null][];
  max_depth: number;
  merged: MergedBlocks;
  /** Events shorter than this were merged. */
  min_ms: number;
  /** The recording's extent (ms from the origin). */
  start_ms: number;
  strings: Strings;
  thread: string;
  threads: ChartThreadJson[];
  timeline: number;
  types: string[];
  /** The window sent. */
  window: number[];
}

/**
 * Both trees of a profile's thread.
 *
 * Answers the UI's trees: `GET /api/ui/…/profile`; embedded by `jsprof report`.
 */
export interface ProfileDoc {
  bottom_up: TreeDoc;
  functions: [number, number, number | null, number | null][];
  kind: string;
  /** The range the trees were clipped to (ms from the timeline's origin), when one was. */
  range: number[] | null;
  strings: Strings;
  top_down: TreeDoc;
  /** The weight percentages refer to (the duration, or all bytes). */
  total: number;
  /** `ms` or `bytes`. */
  unit: string;
  /** The input's and the filters' warnings (a subtree path that matched nothing says so here). */
  warnings: JsonWarning[];
}

/**
 * Speedscope's sandwich of one function for the UI: its callers (the Bottom-up tree under the
 * function's root: the node ids are the Bottom-up tree's, so `…/profile/children?tree=bottom_up`
 * opens them) and its callees (`tree=callees` with the function opens those).
 *
 * Answers the UI's Sandwich tab: `GET /api/ui/…/sandwich`.
 */
export interface SandwichDoc {
  /** One root, the function; its callees beneath. */
  callees: TreeDoc;
  /** One root, the function; the callers beneath. */
  callers: TreeDoc;
  /** The function (index into `functions`) with its self and total (the `top` row). */
  function: number;
  function_self: number;
  function_total: number;
  functions: [number, number, number | null, number | null][];
  range: number[] | null;
  strings: Strings;
  total: number;
  unit: string;
}

/**
 * The heap part of `jsprof report`.
 *
 * Answers the heap views `jsprof report` embeds.
 */
export interface HeapDoc {
  detached: DetachedJson[];
  /**
   * The dominator tree beneath them, breadth-first within a budget: so the report's view can
   * be walked a few levels down, not only looked at.
   */
  dominated: DominatedJson[];
  /** The root's dominator-tree children (the report's Dominators view). */
  dominators: ObjectJson[];
  /** For the largest classes: their largest objects with retaining paths. */
  objects: ClassObjects[];
  summary: HeapSummaryReport;
}

/** One function tested. */
export interface AbFunctionJson {
  /** Profiles of each group where the function has weight. */
  base_present: number;
  column: number | null;
  /** Only when functions are matched by their whole position (`key: function`). */
  line: number | null;
  name: string;
  self_share: ShareJson;
  target_present: number;
  total_share: ShareJson;
  url: string;
}

/** One finding. */
export interface AdviceJson {
  /**
   * `duplicate_objects` (objects of one class, size and content: keep one),
   * `empty_collections` (`Map`s, `Set`s and `Array`s with no entry but a store that takes
   * room: create them on first use), `low_cardinality_maps` (`Map`s of 1,000 entries or more
   * whose values take at most 16 distinct values: one `Set` of keys per value drops a value
   * slot per entry), `sparse_arrays` (`Array`s using at most a quarter of their elements
   * store: a store of just the elements saves the rest), `unread_context_variables` (an object only a closure's shared context
   * keeps, through a variable no live closure of that scope names: `held_by` is
   * `function()->variable`), `detached_by_listeners` (detached DOM trees an event listener's
   * handler keeps: `held_by` is `Target listener handler()`; remove the listener with the
   * element) or `duplicate_strings` (one text held more than once).
   */
  advisor: string;
  /** The objects' class as the Summary names it (`(string)` for strings). */
  class: string;
  count: number;
  /** For low-cardinality maps: the most distinct values one of them holds. */
  distinct_values?: number | null;
  /**
   * For low-cardinality maps: their entries together (the saving is 8 bytes each, V8's
   * pointer size in Node; Chrome's compressed pointers take 4).
   */
  entries?: number | null;
  /** How the sample is held: its closest retainer's class and edge (`Session.listeners`). */
  held_by: string;
  /**
   * For unread context variables and listeners: where the function that keeps the objects
   * is defined, `url:line:column` (1-based).
   */
  location?: string | null;
  /** The sample's shortest retaining path, from the object outwards. */
  path: PathJson | null;
  /** The objects' retained sizes together. */
  retained_size: number;
  /** One of the objects (the largest), by id. */
  sample_id: number;
  /**
   * Bytes the change would save: every duplicate's retained size but the smallest copy's;
   * the empty collections' retained sizes (their tables and stores are in them).
   */
  saving: number;
  /**
   * The finding may include objects that differ, or hold entries, only in small integers:
   * V8 writes no node for those (in objects it does when the snapshot exposes numeric values).
   */
  smi_blind: boolean;
  /** For duplicated strings: the text (cut at 200 characters). */
  value?: string | null;
  /** For unread context variables: the variable's name. */
  variable?: string | null;
}

/** Why the compositor could not run an animation (a `compositeFailed` instant of it). */
export interface AnimationFailureJson {
  animation_dur_ms: number;
  /** The animation's start and duration. */
  animation_ts_ms: number;
  /** DevTools' names of the failure's reasons, e.g. `UNSUPPORTED_CSS_PROPERTY`. */
  failure_reasons: string[];
  /** The animation's name (a CSS animation's `animation-name`). */
  name: string | null;
  /** The properties the compositor cannot animate, e.g. `margin-top`. */
  unsupported_properties: string[];
}

/** Rows under the noise floor: how many, and the sum of their self changes. */
export interface BelowNoiseFloor {
  count: number;
  delta_self_bytes?: number | null;
  delta_self_ms?: number | null;
}

/**
 * The objects a `--between` Summary covers (DevTools' "Objects allocated between Snapshot 1 and
 * Snapshot 2"): ids after the first snapshot's largest JS object id, up to the second's.
 */
export interface BetweenJson {
  after_id: number;
  up_to_id: number;
}

/**
 * A request that became, or stopped being, what its list says (render-blocking, on the
 * critical path, uncached) in most runs of a side.
 */
export interface BlockingChangeJson {
  /** Runs of each side that list it. */
  base_runs: number;
  /** `became` (blocking in the target's runs, not the base's) or `stopped`. */
  change: string;
  target_runs: number;
  url: string;
}

/**
 * Cache: static resources with an inefficient cache lifetime (under 30 days, and a hit
 * unlikely).
 */
export interface CacheJson {
  /**
   * What not downloading the wasted bytes would save (in 50 ms steps); `null` where the
   * engine has no Lantern context (`network_dependency_tree.graph_error` says why).
   */
  metric_savings: MetricSavings | null;
  /** Largest decoded body first, then shortest lifetime. */
  requests: CachedRequestJson[];
  /** `pass`, or `fail` when any request is listed. */
  state: string;
  wasted_bytes: number;
}

/** A request whose cache lifetime is short. */
export interface CachedRequestJson {
  request: RequestRefJson;
  /** The cache lifetime (seconds): `max-age`, else until `expires`, else 0. */
  ttl_s: number;
  /** The transfer size times the chance a repeat visit misses the cache. */
  wasted_bytes: number;
}

/** A JavaScript call frame (zero-based line and column, as DevTools shows them). */
export interface CallFrameJson {
  column: number;
  function: string;
  line: number;
  script_id: string;
  url: string;
}

/** One category's time in the selection. */
export interface CategoryJson {
  /**
   * DevTools' key: `loading`, `experience`, `messaging`, `scripting`, `rendering`,
   * `painting`, `gpu`, `async`, `other` or `idle`.
   */
  category: string;
  ms: number;
  /** Of the selection's length. */
  percent: number;
  /** The Summary's words (`other` is `System`). */
  title: string;
}

/** One request of the network dependency tree. */
export interface ChainRequestJson {
  /** 0 for the chain's first request (the document). */
  depth: number;
  end_ms: number;
  /** On the longest chain (the critical path). */
  is_longest: boolean;
  /** Index into `chain` of the request this one waited for; `null` at depth 0. */
  parent: number | null;
  request_id: string;
  start_ms: number;
  /** From the chain's first request's start to this request's end. */
  time_from_initial_ms: number;
  url: string;
}

/** Character set: the document declares its encoding early. */
export interface CharacterSetJson {
  /** The `Content-Type` response header names a charset. */
  http_charset: boolean;
  /** A `<meta charset>` in the first 1024 bytes of the HTML. */
  meta_charset: boolean;
  /**
   * What the parser reported (`found-in-first-1024-bytes`, `found-after-first-1024-bytes`,
   * `not-found`); `null` when the trace does not say (older Chromes write the check without it).
   */
  meta_charset_disposition: string | null;
  /**
   * The document's request; `null` before the first navigation or when the trace lacks it
   * (the insight then passes).
   */
  request: RequestRefJson | null;
  /** `pass`, or `fail` when neither the header nor an early meta tag declares it. */
  state: string;
}

export interface ChartEvents {
  /** Duration (ms). */
  d: number[];
  /** Function (index into `functions`), -1 for an engine event. */
  f: number[];
  /** Depth. */
  l: number[];
  /** Name (string id). */
  n: number[];
  /** Index of the parent among these events, -1 for a top-level one. */
  p: number[];
  /** Start (ms from the origin). */
  s: number[];
  /** Type (index into `types`). */
  t: number[];
  /** Self time (ms). */
  x: number[];
}

export interface ChartThreadJson {
  /** Events of the timeline: reconstructed calls and trace events. */
  events: number;
  id: number;
  name: string;
  /**
   * The page a renderer's main thread draws, as the Performance panel names its track:
   * `Main — URL` (the outermost main frame's process) or `Frame — NAME` (another frame's:
   * the last segment of its URL's path); see [`page_track_name`].
   */
  page?: string | null;
  pid: number | null;
  /**
   * The process's name (`process_name` metadata of a trace: `Renderer`, `Browser`, `GPU
   * Process`), when the trace names it.
   */
  process?: string | null;
  /** CPU samples of the thread's profile. */
  samples: number;
  tid: number | null;
}

/** One budget's outcome. */
export interface CheckJson {
  /** `function`, `gc`, `class`, `detached_dom`. */
  budget: string;
  /** The budget's limit. */
  limit: number;
  /**
   * `total_ms`, `self_ms`, `share_percent` (floats); `retained_size` (bytes), `count`,
   * `nodes` (integers).
   */
  measure: Measure;
  /** Why a budget was skipped or what it could not find. */
  note?: string | null;
  status: Status;
  /** What was measured: the function or class name; empty for gc and detached DOM. */
  subject: string;
  /** What the input has. */
  value: number;
}

export interface ClassDiffJson {
  alloc_size: number;
  count_delta: number;
  deleted_count: number;
  freed_size: number;
  key: string;
  name: string;
  new_count: number;
  retained_delta: number;
  size_delta: number;
}

export interface ClassJson {
  count: number;
  /** Steps from the window; `null` when only the GC roots or nothing reach it (DevTools' `−`). */
  distance: number | null;
  key: string;
  name: string;
  retained_size: number;
  self_size: number;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
}

/** A class's largest objects in the report. */
export interface ClassObjects {
  key: string;
  objects: ObjectWithPaths[];
  total: number;
}

/** Layout shift culprits. */
export interface ClsCulpritsJson {
  /** Every compositing failure of the navigation's animations, whether or not a shift followed. */
  animation_failures: AnimationFailureJson[];
  clusters: ClusterCulpritsJson[];
  /** Every shift of the navigation's clusters, in order. */
  shifts: ShiftCausesJson[];
  /** `pass` (no shifts), `informative` (the worst cluster is good) or `fail`. */
  state: string;
}

/** CLS: the score of the worst cluster of the navigation. */
export interface ClsJson {
  classification: string;
  score: number;
  worst_cluster: ClusterJson | null;
}

/** The top culprits (at most three) of one cluster. */
export interface ClusterCulpritsJson {
  cluster_start_ms: number;
  culprits: CulpritJson[];
}

/** A layout-shift cluster (session window). */
export interface ClusterJson {
  dur_ms: number;
  score: number;
  shifts: number;
  start_ms: number;
  worst_shift_ms: number | null;
}

/** A culprit of a cluster. */
export interface CulpritJson {
  /** `web_font`, `iframe`, `animation` or `unsized_image`. */
  type: string;
  /** The image's URL for an unsized image. */
  url: string | null;
}

/** One detached DOM tree. */
export interface DetachedJson {
  node_count: number;
  retained_size: number;
  root: ObjectJson;
}

/**
 * One function's change: before/after/delta of self and total in the document's unit (`*_ms`,
 * or `*_bytes` for heap profiles; the other unit's fields are left out).
 */
export interface DiffFunctionJson {
  after_self_bytes?: number | null;
  after_self_ms?: number | null;
  after_total_bytes?: number | null;
  after_total_ms?: number | null;
  before_self_bytes?: number | null;
  before_self_ms?: number | null;
  before_total_bytes?: number | null;
  before_total_ms?: number | null;
  column: number | null;
  delta_self_bytes?: number | null;
  delta_self_ms?: number | null;
  delta_total_bytes?: number | null;
  delta_total_ms?: number | null;
  /** The change of total as a percentage of BEFORE's total; `null` for a new function. */
  delta_total_percent: number | null;
  line: number | null;
  name: string;
  url: string;
}

/** A width and height in whole pixels. */
export interface DimensionsJson {
  height: number;
  width: number;
}

/** Document request latency: redirects, server response time, compression. */
export interface DocumentLatencyJson {
  no_redirects: boolean;
  /** Whole ms spent in redirects. */
  redirect_ms: number;
  request: RequestRefJson;
  /** FCP and LCP savings: the server's time past 100 ms when slow, plus redirects. */
  savings_ms: number;
  /** Under 600 ms. */
  server_response_is_fast: boolean;
  /** Whole ms, as DevTools rounds it. */
  server_response_ms: number;
  /** `pass` or `fail`. */
  state: string;
  /** Bytes text compression would save (0 when compressed or under 1400 bytes). */
  uncompressed_bytes: number;
  uses_compression: boolean;
}

/** DOM size: the largest DOM seen and the layouts and style recalculations it made slow. */
export interface DomSizeJson {
  large_layout_updates: number;
  large_style_recalcs: number;
  /**
   * Large updates (over 100 dirty objects or 300 elements, 40 ms or more), longest first,
   * at most five.
   */
  large_updates: LargeUpdateJson[];
  max_children: number | null;
  max_depth: number | null;
  /** `pass`, or `informative` when there are large updates. */
  state: string;
  total_elements: number | null;
  ts_ms: number | null;
}

/** The children of one embedded dominator-tree node (largest retained first). */
export interface DominatedJson {
  /** The node's id. */
  id: number;
  objects: ObjectJson[];
  /** How many children it has in all. */
  total: number;
}

/** A source (or a package's sources) bundled into more than one script. */
export interface DuplicateJson {
  /** Largest first; copies under 10% of the largest or under 512 bytes left out. */
  copies: SourceCopyJson[];
  /** All copies but the largest. */
  estimated_duplicate_bytes: number;
  /**
   * The source from `node_modules/` on, or its URL; for `duplication_by_package`,
   * `node_modules/NAME` (or `node_modules/@SCOPE/NAME`) for a package's files together.
   */
  source: string;
}

/**
 * Duplicated JavaScript: modules bundled into more than one script, found through the
 * scripts' source maps (those the trace's `metadata.sourceMaps` holds, or `data:` URLs give).
 */
export interface DuplicatedJavaScriptJson {
  /** Most duplicate bytes first. */
  duplication: DuplicateJson[];
  duplication_by_package: DuplicateJson[];
  /** As [`LegacyJavaScriptJson::fcp_savings_ms`]. */
  fcp_savings_ms: number | null;
  lcp_savings_ms: number | null;
  /** The navigation's scripts: compiled by its frame within its bounds. */
  scripts: number;
  /** The urls of the scripts with a duplicate, each once. */
  scripts_with_duplication: (string | null)[];
  /** `pass`, or `fail` when a source is duplicated. */
  state: string;
  /** The duplicate bytes, summed over the scripts' requests. */
  wasted_bytes: number;
}

/** Which edges of the object. */
export type EdgeDirection = "containment" | "retainers";

/** One edge and the object at its other end. */
export interface EdgeJson {
  /** The edge as DevTools labels it (`.name`, `[0]`, `->var`, `{internal}`). */
  edge: string;
  /** How many edges the object has in this direction (what expanding it lists). */
  edge_count: number;
  edge_name: string;
  edge_type: string;
  /** The target (containment) or the retainer (retainers). */
  object: ObjectJson;
}

/** One entity (a company, or a site's root domain) of the page. */
export interface EntityJson {
  entity: string;
  first_party: boolean;
  /** Self time on the main frame's main thread in the entity's scripts and events. */
  main_thread_ms: number;
  transfer_size: number;
}

/** One event of a timeline, as the service's GetEvents and `jsprof events --json` give it. */
export interface EventJson {
  child_count: number | null;
  data: unknown;
  end_ms: number | null;
  hits: number;
  id: number | null;
  name: string;
  parent_id: number | null;
  self_ms: number;
  start_ms: number | null;
  total_ms: number;
  type: string;
}

/** The objects that own an isolate's backing stores, by class. */
export interface ExternalOwnerJson {
  /** Their bytes. */
  bytes: number;
  /**
   * The owner's class (the first object up the dominator tree that is not an `ArrayBuffer`,
   * a `Buffer`, a typed array or V8's own); `(GC roots)` when only roots hold them,
   * `(unreachable)` for stores no root reaches.
   */
  class: string;
  /** How many backing stores. */
  count: number;
  /**
   * The owner of the largest one, by id (for `heap retainers`); `null` for the synthetic
   * classes.
   */
  sample_id: number | null;
}

/** Font display: web fonts whose `font-display` hides text. */
export interface FontDisplayJson {
  /** FCP savings: the largest waste; `null` without such fonts. */
  fcp_savings_ms: number | null;
  /** Most wasted time first. */
  fonts: FontJson[];
  /** `pass`, or `fail` when a font wastes time. */
  state: string;
}

/** A web font that hides text while it loads. */
export interface FontJson {
  /** Its `font-display`: `block`, `fallback` or `auto`. */
  display: string;
  /** The font's family name, when the trace gives it. */
  name: string | null;
  request: RequestRefJson;
  /** The request's time from send to finish, floored to 5 ms, at most 3000 ms. */
  wasted_ms: number;
}

/** Forced reflow: layouts and style recalculations JS forced synchronously. */
export interface ForcedReflowJson {
  /** Per JS frame that forced them (the top of each reflow's stack), most time first. */
  bottom_up: ReflowSourceJson[];
  reflow_events: number;
  /** `pass` or `fail`. */
  state: string;
  /**
   * The entry-point function call with the most forced reflow time (its line and column as
   * the `FunctionCall` event writes them).
   */
  top_level_function: ReflowSourceJson | null;
  total_reflow_ms: number;
}

/** One screenshot of the filmstrip. */
export interface FrameJson {
  /** Whether its image could be read (a broken base64 `args.snapshot` has none). */
  image: boolean;
  /** Its place in time order: the `INDEX` of `…/filmstrip/INDEX`. */
  index: number;
  /** When it was taken (ms from the trace's origin, as every page document). */
  ts_ms: number;
}

/** One function as `top` and `summary` print it. */
export interface FunctionJson {
  column: number | null;
  line: number | null;
  name: string;
  self_bytes?: number | null;
  self_ms?: number | null;
  self_percent: number;
  total_bytes?: number | null;
  total_ms?: number | null;
  total_percent: number;
  url: string;
}

/** One function and its lines. */
export interface FunctionLines {
  column: number | null;
  /** The line with the most self time (the panel scrolls to it); `null` without ticks. */
  hottest_line: number | null;
  line: number | null;
  /**
   * With the source: every line from a little before the function to a little after its
   * last ticked line; without it, only the ticked lines.
   */
  lines: LineJson[];
  /**
   * The function's self time as the gutter adds it up: `ticks` × `tick_ms`; for a trace,
   * each counted sample's time since the sample before (so about, not exactly, `self_ms`).
   */
  lines_self_ms: number;
  name: string;
  self_bytes?: number | null;
  self_ms?: number | null;
  self_percent: number;
  /** The file the text was read from; `null` when it was not read. */
  source_file: string | null;
  /** Why the text is missing, when it is. */
  source_note?: string | null;
  /**
   * Line ticks of the function, summed over its lines: its nodes' `hitCount`s (V8 counts
   * them apart from the samples, so their time need not be the self time); for a trace,
   * its samples with a line (all but the thread's first).
   */
  ticks: number;
  total_bytes?: number | null;
  total_ms?: number | null;
  total_percent: number;
  url: string;
}

/** One group: how it was chosen and how many profiles it holds. */
export interface GroupJson {
  /** Profiles compared (those with weight on some function). */
  profiles: number;
  /** The files (or the lake's selection) of the group. */
  selection: string;
}

export interface HeapNodeJson {
  /** Steps from the window; `null` when only the GC roots or nothing reach it (DevTools' `−`). */
  distance: number | null;
  dominator_id: number;
  edge_count: number;
  id: number;
  /**
   * As an object in a list: where its function is, and its original (docs/heap.md, "Source
   * maps").
   */
  location?: string | null;
  name: string;
  retained_size: number;
  retainer_count: number;
  self_size: number;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
  type: string;
}

export interface HeapStepJson {
  /** The edge as DevTools labels it (`.name`, `[0]`, `->var`, `{internal}`). */
  edge: string;
  edge_name: string;
  edge_type: string;
  /** The retainer: the object the edge comes from. */
  retainer: ObjectJson;
}

/**
 * Image delivery: painted images a modern format, more compression, a video or a smaller
 * file would shrink.
 */
export interface ImageDeliveryJson {
  /**
   * What not downloading the wasted bytes would save (in 50 ms steps); `null` where the
   * engine has no Lantern context.
   */
  metric_savings: MetricSavings | null;
  /** Most savings first, then the largest decoded body. */
  optimizable_images: OptimizableImageJson[];
  /** `pass`, or `fail` when any image is listed. */
  state: string;
  wasted_bytes: number;
}

/** One way to make an image smaller. */
export interface ImageOptimizationJson {
  byte_savings: number;
  display_dimensions: DimensionsJson | null;
  /** For `RESPONSIVE_SIZE`: the file's size and the size it was drawn at. */
  file_dimensions: DimensionsJson | null;
  /**
   * The engine's name: `MODERN_FORMAT_OR_COMPRESSION`, `ADJUST_COMPRESSION` (a WebP or
   * AVIF), `VIDEO_FORMAT` (a GIF) or `RESPONSIVE_SIZE`.
   */
  type: string;
}

/** INP: the longest interaction of the navigation. */
export interface InpJson {
  classification: string;
  interaction: InteractionJson;
  value_ms: number;
}

/** One insight over the runs. */
export interface InsightRunsJson {
  /** Runs in which it fails (`state` `fail`; `render_blocking`: any request blocks). */
  failing: number;
  /** The insight's key in `insights --json` (`render_blocking`, `lcp_discovery`, …). */
  insight: string;
  /**
   * Over the failing runs, the median of each saving the insight states (`fcp_ms`,
   * `lcp_ms`, `inp_ms`, `ms`, `wasted_bytes`), keyed by what it saves.
   */
  median_savings: {
    [key: string]: number;
  };
  /** Runs in which DevTools evaluated it. */
  runs: number;
  /** `failing / runs`. */
  share: number;
}

/**
 * The insights computed for a navigation (DevTools' insight set). Each is `null` when it does
 * not apply (no LCP, no interaction).
 */
export interface InsightsJson {
  cache: CacheJson | null;
  character_set: CharacterSetJson | null;
  /** Every layout-shift cluster of the navigation. */
  cls_clusters: ClusterJson[];
  cls_culprits: ClsCulpritsJson | null;
  /** `null` without a document request for the navigation. */
  document_latency: DocumentLatencyJson | null;
  dom_size: DomSizeJson | null;
  duplicated_javascript: DuplicatedJavaScriptJson | null;
  font_display: FontDisplayJson | null;
  forced_reflow: ForcedReflowJson | null;
  /**
   * Painted images a modern format, more compression, a video or a smaller file would
   * shrink. The drawn size is the paint's, corrected from the host's device pixel ratio to
   * the page's when the trace's metadata names the host's (`hostDPR`), as the engine does.
   */
  image_delivery: ImageDeliveryJson | null;
  /** The longest interaction, in phases. */
  inp_breakdown: InteractionJson | null;
  lcp_breakdown: LcpBreakdownJson | null;
  /** `null` unless the LCP is an image with a request. */
  lcp_discovery: LcpDiscoveryJson | null;
  legacy_javascript: LegacyJavaScriptJson | null;
  modern_http: ModernHttpJson | null;
  /** `null` before the first navigation. */
  network_dependency_tree: NetworkDependencyTreeJson | null;
  /** The render-blocking requests insight's requests, longest first. */
  render_blocking: RequestRefJson[];
  /**
   * What deferring or inlining the render-blocking requests would save, as DevTools' trace
   * engine estimates it with Lantern's simulation; `null` where the engine has no Lantern
   * context (`network_dependency_tree.graph_error` says why).
   */
  render_blocking_savings: RenderBlockingSavingsJson | null;
  slow_css_selector: SlowCssSelectorJson | null;
  third_parties: ThirdPartiesJson | null;
  viewport: ViewportJson | null;
}

/** One interaction with its phases. */
export interface InteractionJson {
  dur_ms: number;
  input_delay_ms: number;
  interaction_id: number;
  /** Over 200 ms. */
  long: boolean;
  /** Left off DevTools' Interactions track: nested in a longer interaction of its kind. */
  nested: boolean;
  presentation_delay_ms: number;
  processing_end_ms: number;
  processing_ms: number;
  processing_start_ms: number;
  start_ms: number;
  type: string;
}

/** One isolate: the main thread or a worker. */
export interface IsolateJson {
  /** The snapshot's typed-array backing stores (DevTools' Statistics "Typed arrays"). */
  external_buffers: number;
  /** `main` or `worker N`. */
  isolate: string;
  /**
   * The V8 heap as the snapshot shows it, DevTools' Statistics "V8 heap" (the Summary total
   * less native memory): the live JS heap just after the snapshot's full GC, which
   * memoryUsage's `heapUsed` measures at the same moment.
   */
  js_heap: number;
  /**
   * `process.memoryUsage()` in this isolate right after the snapshot; `null` when no
   * memory-usage file sits beside it.
   */
  memory_usage: MemoryUsage | null;
  /** Who owns those, largest first (at most `limit`). */
  owners: ExternalOwnerJson[];
  /** The snapshot read (the isolate's latest). */
  snapshot: string;
  /** DevTools' Summary total (the V8 heap and native memory, backing stores included). */
  snapshot_total: number;
  /** How many of the given snapshots are of this isolate. */
  snapshots: number;
}

/** A warning as every JSON document carries it (`{"at", "message"}`). */
export interface JsonWarning {
  at: string;
  message: string;
}

/** What `lake compact` did. */
export interface LakeCompaction {
  files_after: number;
  files_before: number;
  rows_after: number;
  rows_before: number;
  /** Files skipped as unreadable (left in place). */
  skipped: string[];
}

/** One side of `lake diff --page-loads`: its `--where` terms and its page-load traces. */
export interface LakePageSideJson {
  /** Page-load traces of the side (those with stored metrics). */
  runs: number;
  /** The terms as given. */
  selection: string;
}

/**
 * One value of `lake trend --metric`: the page-load metric's distribution over the value's
 * page-load traces, summarised as `jsprof insights DIR` summarises a folder of runs.
 */
export interface LakePageTrendPoint {
  /** The interquartile range (p75 − p25): the spread a change must beat. */
  iqr: number;
  max: number;
  median: number;
  /**
   * `fcp_ms`, `lcp_ms`, `lcp_ttfb_ms`, `lcp_load_delay_ms`, `lcp_load_duration_ms`,
   * `lcp_render_delay_ms`, `cls`, `inp_ms`, `tbt_ms` (the long tasks' time past 50 ms each),
   * `long_tasks_ms`, `requests`, `transfer_size` (bytes over the network, as the Network
   * panel's "transferred"), `long_tasks` (their count).
   */
  metric: string;
  min: number;
  p75: number;
  /** Runs that have it. */
  runs: number;
  /** The label's value (`null` for traces without the label), or the day. */
  value: string | null;
}

/** One profile of the lake, as `lake ls` lists it. */
export interface LakeProfileJson {
  /** When it was added: RFC 3339, UTC. */
  added_at: string;
  /**
   * Its duration as DevTools computes it, in ms (the lake's `duration_us` / 1000; printed as
   * `duration_us` until the lake's documents were typed).
   */
  duration_ms: number;
  /** The format it was read from (`cpuprofile`, `trace`, `heapprofile`, `heapsnapshot`, …). */
  kind: string;
  labels: {
    [key: string]: string;
  };
  /** The content-addressed id (a trace's threads each have their own). */
  profile_id: string;
  sample_count: number;
  /** The file name it was added from. */
  source_name: string;
  /** When it started: RFC 3339, UTC. */
  start_time: string | null;
  /** The thread of a trace. */
  thread: string | null;
  /** `ns` (time) or `bytes`. */
  weight_unit: string;
}

/**
 * One value of `lake trend`: the function's share of the profiles with that value (in ms and
 * `WeightsJson`'s fields since the lake's documents were typed; before, `total`, `self_weight`
 * and `total_weight` in ns).
 */
export interface LakeTrendPoint {
  profiles: number;
  self_bytes?: number | null;
  self_ms?: number | null;
  self_percent: number;
  total_bytes?: number | null;
  total_ms?: number | null;
  total_percent: number;
  /** The label's value (`null` for profiles without the label), or the day. */
  value: string | null;
  /** The total bytes of the value's profiles (what percentages are of). */
  weight_bytes?: number | null;
  /** The total time of the value's profiles (what percentages are of). */
  weight_ms?: number | null;
}

/** A large layout (`Layout`) or style recalculation (`UpdateLayoutTree`). */
export interface LargeUpdateJson {
  dur_ms: number;
  /** `layout` or `style`. */
  kind: string;
  /** Dirty objects (layout) or elements (style). */
  size: number;
  ts_ms: number;
}

/** The LCP breakdown insight: where the LCP's time went. */
export interface LcpBreakdownJson {
  /** Image LCPs only: from the first byte to the image's request. */
  load_delay: WindowJson | null;
  /** Image LCPs only: the image's request, to its network finish. */
  load_duration: WindowJson | null;
  render_delay: WindowJson;
  ttfb: WindowJson;
}

/** LCP request discovery, for an image LCP fetched over the network. */
export interface LcpDiscoveryJson {
  /** From then to the image's request. */
  discovery_delay_ms: number | null;
  /** Not lazily loaded. */
  eagerly_loaded: boolean;
  /** The document's first byte: the earliest the image could have been requested. */
  earliest_discovery_ms: number | null;
  /** `fetchpriority=high` applied. */
  priority_hinted: boolean;
  request: RequestRefJson;
  /** Preloaded or in the document's HTML. */
  request_discoverable: boolean;
  /** `pass` or `fail`. */
  state: string;
}

/** The LCP and its candidate. */
export interface LcpJson {
  candidate_index: number | null;
  classification: string;
  node_id: number | null;
  /**
   * The LCP element as the candidate event names it: its tag, then its id or class
   * (`IMG id='hero'`, `H1`), as DevTools names it from a trace.
   */
  node_name: string | null;
  /** The image's request, for an image LCP fetched over the network. */
  request: RequestRefJson | null;
  ts_ms: number;
  /** `image` or `text`. */
  type: string | null;
  value_ms: number;
}

/**
 * One group of leaked objects: the objects of FINAL created between BASE and TARGET (and not part
 * of another leaked object), grouped by class and retaining-path shape.
 */
export interface LeakGroupJson {
  /**
   * The Summary's class; a closure's is its function's name (`(anonymous)` when it has none)
   * and where it was defined, `name file.js:LINE:COL`.
   */
  class: string;
  count: number;
  /**
   * From the root side to the leaked object: each node's class and the edge to the next, in
   * DevTools' notation with indexes folded (`[]` an element, `{}` a hidden or numbered internal
   * slot, such as a `Map`'s or `Set`'s hash-table entry). The sample's path; every object of
   * the group has a path of this shape.
   */
  path: LeakStepJson[];
  /** The sum of the objects' retained sizes in FINAL. */
  retained_size: number;
  /** The group's largest object (its id in FINAL, for its Retainers). */
  sample_id: number;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
}

/** One group: objects of one class along one path shape, across the series. */
export interface LeakSeriesGroupJson {
  /** As in `heap leaks`: the Summary's class, a closure's function and where it was defined. */
  class: string;
  /** Objects in each snapshot, in the series' order. */
  count: number[];
  count_trend: LeakTrendJson;
  /** As in `heap leaks`: from the root side, indexes folded (the sample's path). */
  path: LeakStepJson[];
  /** Their retained size in each snapshot. */
  retained_size: number[];
  retained_trend: LeakTrendJson;
  /**
   * The largest object of the last snapshot that has the group (its id there, and that
   * snapshot's index in `snapshots`).
   */
  sample_id: number;
  sample_snapshot: number;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
  /** `growing`, `bounded`, `one-off` or `flat` (never present; only with groups of zero size). */
  verdict: string;
}

/** One snapshot of the series. */
export interface LeakSeriesSnapshotJson {
  /** Its largest heap-object id: V8's only grow, so these rise along a process's series. */
  max_node_id: number;
  name: string;
  /**
   * Objects made since the first snapshot (in the groups: reachable objects, closures,
   * native objects and regular expressions, not counting those inside another's leak).
   */
  new_objects: number;
  /** Milliseconds since the first snapshot, when known (see the report's `times_from`). */
  time_ms: number | null;
}

/** One of the three snapshots, as the leak search used it. */
export interface LeakSnapshotJson {
  /**
   * The place it was given in (`base`, `target` or `final`); differs from `role` when the
   * snapshots were given out of order and were reordered.
   */
  given: string;
  /**
   * Its largest heap-object id (V8's are odd; even ids are synthetic or native nodes): V8's
   * ids only grow over a process's life, so this orders the snapshots.
   */
  max_node_id: number;
  name: string;
  /** `base`, `target` or `final`: its place in the process's order. */
  role: string;
}

export interface LeakStepJson {
  class: string;
  edge: string;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
}

/** The trend of one series of a group. */
export interface LeakTrendJson {
  /** The largest rise between consecutive snapshots over the whole rise (≥ 0.8: one-off). */
  largest_step_share: number;
  /**
   * One-sided p-value of S under no trend (exact without ties; else the tie-corrected normal
   * approximation).
   */
  p_value: number;
  /** Sen's slope against the snapshots' times, per hour; null when times are unknown. */
  per_hour: number | null;
  /** Sen's slope: per snapshot. */
  per_snapshot: number;
  /** Kendall's tau over the recent half (the last ⌈n/2⌉ snapshots, at least 3). */
  recent_tau: number;
  /** Mann-Kendall's S: later-larger pairs minus later-smaller pairs. */
  s: number;
  /** This series' own verdict (the group is growing when either series is). */
  verdict: string;
}

/** Legacy JavaScript: polyfills and transforms of features modern browsers have. */
export interface LegacyJavaScriptJson {
  /**
   * How much earlier FCP would come without the wasted bytes (Lantern's simulation,
   * rounded to 50 ms); `null` where the engine has no Lantern context.
   */
  fcp_savings_ms: number | null;
  /** The same for LCP. */
  lcp_savings_ms: number | null;
  /** Scripts of 5000 bytes or more wasting 5000 bytes or more, most savings first. */
  scripts: LegacyScriptJson[];
  /** `pass`, or `fail` when a listed script was loaded by a request. */
  state: string;
  /** The listed scripts' savings, once per request. */
  wasted_bytes: number;
}

/** A polyfill or transform found in a script, where its pattern first matched. */
export interface LegacyMatch {
  /** 0-based, in UTF-16 code units. */
  column: number;
  /** 0-based; every `\r` and every `\n` ends a line, as the engine counts. */
  line: number;
  /**
   * The feature polyfilled (`Array.prototype.includes`) or the Babel plugin
   * (`@babel/plugin-transform-classes`).
   */
  name: string;
}

/** A script that ships legacy JavaScript. */
export interface LegacyScriptJson {
  /**
   * The bytes its polyfills and transforms cost, as bytes on the network (the source's
   * estimate times the script's compression ratio, rounded).
   */
  estimated_byte_savings: number;
  /**
   * By name. A polyfill whose module the script's source map lists is found where the first
   * mapping from that module is.
   */
  matches: LegacyMatch[];
  /** The first request for its url, if any. */
  request: RequestRefJson | null;
  /** `null` for a script without one (an inline or eval'd script). */
  url: string | null;
}

/** One source line. */
export interface LineJson {
  /** 1-based, in the function's file (the original file where a source map applies). */
  line: number;
  /** Self time on the line (ms): what DevTools' Sources gutter shows. */
  self_ms: number;
  /** Of the profile's duration, as `top`'s `self_percent`. */
  self_percent: number;
  /** The line's text (cut at 400 characters); `null` without the source. */
  text: string | null;
  /** Ticks on the line (a trace: samples on it). */
  ticks: number;
}

/** One long task (a `RunTask` over 50 ms on a renderer's main thread). */
export interface LongTaskJson {
  dur_ms: number;
  main_frame: boolean;
  pid: number;
  tid: number;
  ts_ms: number;
}

/** The long tasks of the trace. */
export interface LongTasksJson {
  /** Total blocking time: the time of each past 50 ms. */
  blocking_ms: number;
  count: number;
  items: LongTaskJson[];
  total_ms: number;
}

/** A mark (or `console.timeStamp`). */
export interface MarkJson {
  name: string;
  start_ms: number;
}

/** A page-load marker of the main frame (`firstContentfulPaint`, `MarkLoad`, …). */
export interface MarkerJson {
  name: string;
  ts_ms: number;
}

/** What a budget measures; serialized as its snake-case name. */
export type Measure = "total_ms" | "self_ms" | "share_percent" | "retained_size" | "count" | "nodes" | "ms" | "score" | "bytes";

/** A measure (or `console.time` span). */
export interface MeasureJson {
  dur_ms: number;
  name: string;
  start_ms: number;
}

/** Node's `process.memoryUsage()`, in bytes (Node's names). */
export interface MemoryUsage {
  /** Of `external`, the `ArrayBuffer`/`SharedArrayBuffer` backing stores (Buffers too). */
  arrayBuffers: number;
  /** Memory outside V8's heap that the isolate's objects own (backing stores included). */
  external: number;
  /** The isolate's V8 heap: the pages it holds, used or not. */
  heapTotal: number;
  /** The isolate's live V8 heap. */
  heapUsed: number;
  /** The process's resident set size. */
  rss: number;
}

export interface MergedBlocks {
  /** Events merged. */
  c: number[];
  d: number[];
  l: number[];
  s: number[];
}

/** A metric of a navigation: its value (from the navigation's start) and when it happened. */
export interface MetricJson {
  /** `good`, `ok`, `bad` or `unclassified`. */
  classification: string;
  ts_ms: number;
  value_ms: number;
}

/** A metric's distribution over the runs. */
export interface MetricRunsJson {
  /** The interquartile range (p75 − p25): the spread a change must beat. */
  iqr: number;
  max: number;
  median: number;
  /**
   * `fcp_ms`, `lcp_ms`, `lcp_ttfb_ms`, `lcp_load_delay_ms`, `lcp_load_duration_ms`,
   * `lcp_render_delay_ms`, `cls`, `inp_ms`, `tbt_ms` (the long tasks' time past 50 ms each),
   * `long_tasks_ms`, `requests`, `transfer_size` (bytes over the network, as the Network
   * panel's "transferred"), `long_tasks` (their count).
   */
  metric: string;
  min: number;
  p75: number;
  /** Runs that have it. */
  runs: number;
}

/**
 * An insight's estimated savings (the engine's `metricSavings`), from its Lantern simulation
 * of the first and largest contentful paints.
 */
export interface MetricSavings {
  /**
   * How much earlier the first contentful paint would come (ms, rounded as the engine
   * rounds it).
   */
  fcp_ms: number;
  /** The same for the largest contentful paint. */
  lcp_ms: number;
}

/** One measure compared between the sides. */
export interface MetricShiftJson {
  base_median: number;
  base_runs: number;
  /** `fcp_ms`, `lcp_ms`, … as in `insights DIR`; `long_tasks` for the count. */
  metric: string;
  /** Mann-Whitney, two-sided. */
  p: number;
  /** Benjamini-Hochberg over the metrics (and the long tasks' count). */
  q: number;
  /** Hodges-Lehmann: the median of the differences target − base over every pair of runs. */
  shift: number;
  shift_high: number;
  /** The shift's 95 % interval. */
  shift_low: number;
  /** q < alpha. */
  significant: boolean;
  target_median: number;
  target_runs: number;
}

/** The Web Vitals and load markers of one navigation. */
export interface MetricsJson {
  cls: ClsJson;
  dcl: MetricJson | null;
  fcp: MetricJson | null;
  fp: MetricJson | null;
  inp: InpJson | null;
  lcp: LcpJson | null;
  load: MetricJson | null;
}

/** Modern HTTP: requests over HTTP/1.x that HTTP/2 would multiplex. */
export interface ModernHttpJson {
  /**
   * HTTP/1.x requests to a non-local origin serving six or more static resources, each URL
   * once, in request order.
   */
  http1_requests: RequestRefJson[];
  /**
   * What serving them over HTTP/2 would save (floored to 10 ms); `null` where the engine
   * has no Lantern context.
   */
  metric_savings: MetricSavings | null;
  /** `pass`, or `fail` when any request is listed. */
  state: string;
}

/** One native context. */
export interface NativeContextJson {
  /** The self sizes of the objects it owns alone, its own included. */
  attributed_size: number;
  /** Its object id: what `heap summary --context` takes. */
  id: number;
  /** `system / NativeContext`, with the frame's URL where the embedder names it. */
  name: string;
  retained_size: number;
  self_size: number;
}

export interface NativeJson {
  total: number;
  typedArrays: number;
}

/** One navigation of the main frame (or `NO_NAVIGATION`). */
export interface NavigationJson {
  bounds: WindowJson;
  frame_id: string;
  /** `NAVIGATION_n` or `NO_NAVIGATION`, as DevTools names its insight sets. */
  id: string;
  insights: InsightsJson;
  metrics: MetricsJson;
  navigation_id: string | null;
  url: string;
}

/** Network dependency tree: chains of critical requests, each waiting for the one before. */
export interface NetworkDependencyTreeJson {
  /**
   * Every chain as one tree, depth first; each request's children by their longest chain,
   * longest first. A redirected document appears under itself (one entry per hop).
   */
  chain: ChainRequestJson[];
  /**
   * Why DevTools' trace engine has no Lantern context for this navigation — no dependency
   * graph, or a failed simulation — with its message, e.g. `NO_LCP`: the chain is then
   * empty and the render-blocking savings `null`.
   */
  graph_error: string | null;
  /** The longest chain: its first request's start to its last request's end. */
  max_critical_path_latency_ms: number;
  /**
   * Origins the LCP needed that a preconnect would have helped, most time saved first (at
   * most four; none without a Lantern context).
   */
  preconnect_candidates: PreconnectCandidate[];
  preconnected_origins: PreconnectedOriginJson[];
  /** `fail` when a chain has two requests or more, else `pass`. */
  state: string;
}

/** One object as the exploration commands list it. */
export interface ObjectJson {
  class: string;
  /** Steps from the window; `null` when only the GC roots or nothing reach it (DevTools' `−`). */
  distance: number | null;
  id: number;
  /**
   * Where its function is, as DevTools links it beside the object: a closure's own position,
   * an object's constructor's (V8's `locations`): `url:line:column`, 1-based. Absent when the
   * snapshot has none or the script has no URL.
   */
  location?: string | null;
  name: string;
  retained_size: number;
  self_size: number;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
  type: string;
}

/** What a class's objects are ordered by (largest first; the UI's sortable columns). */
export type ObjectOrder = "retained" | "self" | "distance" | "id";

/** An object with its retaining paths, as the report embeds it. */
export interface ObjectWithPaths {
  class: string;
  /** Steps from the window; `null` when only the GC roots or nothing reach it (DevTools' `−`). */
  distance: number | null;
  id: number;
  /**
   * Where its function is, as DevTools links it beside the object: a closure's own position,
   * an object's constructor's (V8's `locations`): `url:line:column`, 1-based. Absent when the
   * snapshot has none or the script has no URL.
   */
  location?: string | null;
  name: string;
  paths: PathJson[];
  retained_size: number;
  self_size: number;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
  type: string;
}

/** One page of objects. */
export interface ObjectsPage {
  objects: ObjectJson[];
  offset: number;
  /** How many there are in all. */
  total: number;
}

/** An image a different format or size would make smaller. */
export interface OptimizableImageJson {
  /** The format's savings plus the size's on what is left. */
  byte_savings: number;
  largest_paint_dur_ms: number;
  /** Its largest paint (`PaintImage`): when it started and how long it took. */
  largest_paint_ms: number;
  /** Each of 4096 bytes or more, the format's first. */
  optimizations: ImageOptimizationJson[];
  request: RequestRefJson;
}

/** One side: what it was, its runs and the run to open. */
export interface PageSideJson {
  /**
   * The file of the run closest to the side's FCP and LCP medians (`insights DIR`'s
   * `median_run`).
   */
  median_run: string | null;
  runs: number;
  /** The folder or files as given. */
  selection: string;
  /** The page's URL (its first run's). */
  url: string | null;
}

/** A page load in one line: what `summary` of a trace says about the page. */
export interface PageSummaryJson {
  cls: number;
  cls_rating: string;
  /**
   * The insights that fail, in the order DevTools' Insights sidebar lists them
   * (`lcp_discovery`, `cls_culprits`, `render_blocking`, `document_latency`, `forced_reflow`),
   * then the page checks (`image_delivery`, `font_display`, `viewport`, `cache`,
   * `character_set`, `modern_http`).
   */
  failing_insights: string[];
  inp_ms: number | null;
  inp_rating: string | null;
  lcp_ms: number | null;
  lcp_rating: string | null;
  /** The first navigation's URL. */
  url: string;
  /** The first of `failing_insights`, with its evidence in a few words. */
  worst_insight: string | null;
}

export interface PathJson {
  /** From the object's own retainer outwards; the last retainer is held by the root. */
  steps: HeapStepJson[];
}

/** An origin a preconnect would have helped (the engine's `preconnectCandidates`). */
export interface PreconnectCandidate {
  /** `ParsedURL.securityOrigin()` of its first request. */
  origin: string;
  /**
   * The connection setup a preconnect would have saved (ms): the simulator's round trip to
   * the origin (twice for TLS), at most the time from the document's end to the request.
   */
  wasted_ms: number;
}

/** An origin the page preconnected to. */
export interface PreconnectedOriginJson {
  /**
   * Requests went to the origin but still paid for a connection (it is a preconnect
   * candidate): the preconnect was likely unused, often for a `crossorigin` mismatch.
   */
  crossorigin: boolean;
  /** The `Link` header's part, for `ResponseHeader`. */
  header_text: string | null;
  /** `DOM` (`<link rel=preconnect>`) or `ResponseHeader` (the document's `Link` header). */
  source: string;
  /** No request of the navigation went to this origin. */
  unused: boolean;
  url: string;
}

/** One process. */
export interface ProcessJson {
  /** The isolates' `external` together (backing stores included). */
  external: number | null;
  /** Main thread first, then the workers by id. */
  isolates: IsolateJson[];
  /**
   * The isolates' V8 heaps (`heapTotal`) together; `null` unless every isolate has its
   * memory usage.
   */
  js_heaps: number | null;
  pid: number | null;
  /** The stem its files share (`node-4242-20261129-120000`). */
  process: string;
  /** The latest RSS its isolates' memory-usage files read; `null` without them. */
  rss: number | null;
  /**
   * `rss - js_heaps - external`: what no isolate's heap explains (code, thread stacks, the
   * allocator's free lists, native addons).
   */
  unexplained: number | null;
}

/** The smallest window covering the returned real events. */
export interface RangeJson {
  end_ms: number | null;
  start_ms: number | null;
}

/** Reflow time forced from one place. */
export interface ReflowSourceJson {
  /** `null`: the reflows carried no stack. */
  frame: CallFrameJson | null;
  reflows: number;
  total_ms: number;
}

/**
 * An event an insight points at (DevTools' `relatedEvents`): the UI outlines it where it is
 * drawn when the insight is selected — a request in the Network track, the interaction in the
 * Interactions track, a shift or cluster in the Layout shifts track, a trace event on its
 * thread's track. Listed apart from the navigations (a forced reflow may point at thousands),
 * so that a navigation's insights stay a few lines.
 */
export interface RelatedEventJson {
  /** The event's depth in that timeline (0: a top-level event), the flame chart's row. */
  depth: number | null;
  dur_ms: number;
  /**
   * The insight, by its key in `navigations[].insights` (`inp_breakdown`, `lcp_breakdown`,
   * `lcp_discovery`, `cls_culprits`, `render_blocking`, `network_dependency_tree`,
   * `image_delivery`, `document_latency`, `font_display`, `dom_size`, `forced_reflow`,
   * `cache`, `character_set`, `modern_http`, `third_parties`).
   */
  insight: string;
  /**
   * The event's name as DevTools' trace engine names it: `SyntheticNetworkRequest` (a
   * request), `EventTiming` (an interaction), `largestContentfulPaint::Candidate`,
   * `SyntheticLayoutShift`, `SyntheticLayoutShiftCluster`, or a trace event's own name
   * (`Layout`, `UpdateLayoutTree`, `FunctionCall`).
   */
  name: string;
  /** The navigation, as `navigations[].id` names it. */
  navigation: string;
  /** The thread's process id, as `jsprof threads` lists it. */
  pid: number;
  /** A request's id (`jsprof network`'s `request_id`); `null` for other events. */
  request_id: string | null;
  /**
   * `related`: one of the insight's events; `top_level_call`: a call of a forced reflow's
   * `top_level_function` that forced them (the Performance panel outlines both).
   */
  role: string;
  start_ms: number;
  /** The thread id, as `jsprof threads` lists it. */
  tid: number;
  /**
   * The thread's `timeline_id` (`jsprof threads`); `null` when its timeline does not hold
   * the event.
   */
  timeline_id: number | null;
}

/** The render-blocking insight's savings (its `metricSavings` and `requestIdToWastedMs`). */
export interface RenderBlockingSavingsJson {
  /**
   * How much earlier the first contentful paint would come, whole ms (0 when no request
   * wasted 50 ms or more).
   */
  fcp_ms: number;
  /** The same for LCP, 0 when the LCP is an image. */
  lcp_ms: number;
  /** The render-blocking requests that wasted 50 ms or more. */
  requests: WastedRequestJson[];
}

/** One request of the waterfall. */
export interface RequestJson {
  decoded_body_size: number;
  download_ms: number;
  /** Response headers received (first byte of the body). */
  download_start_ms: number;
  dur_ms: number;
  /** DevTools' bar end: the `ResourceFinish` event. */
  end_ms: number;
  failed: boolean;
  fetch_priority_hint: string;
  /** When the network stack finished receiving it. */
  finish_ms: number;
  finished: boolean;
  frame: string;
  from_cache: boolean;
  initial_priority: string;
  initiator_type: string | null;
  initiator_url: string | null;
  method: string | null;
  mime_type: string;
  priority: string;
  protocol: string;
  queueing_ms: number;
  redirects: string[];
  /** `blocking`, `in_body_parser_blocking`, `non_blocking`, … */
  render_blocking: string;
  request_id: string;
  resource_type: string;
  send_start_ms: number;
  /** Time to first byte from the request being sent (`receiveHeadersStart - sendEnd`). */
  server_response_ms: number;
  stalled_ms: number;
  /** When the request was issued (the first `ResourceWillSendRequest`/`ResourceSendRequest`). */
  start_ms: number;
  status: number;
  transfer_size: number;
  url: string;
  waiting_ms: number;
}

/** A request named by another document (an LCP image, a render-blocking request). */
export interface RequestRefJson {
  dur_ms: number;
  end_ms: number;
  request_id: string;
  start_ms: number;
  url: string;
}

/** One run: its file and the metrics of its first navigation. */
export interface RunJson {
  file: string;
  /** The navigation's URL; `null` for a trace without a navigation. */
  url: string | null;
  /** Metric name → value, for the metrics this run has (names as in `metrics`). */
  values: {
    [key: string]: number;
  };
}

/** The function a sandwich is of. */
export interface SandwichFunction {
  column: number | null;
  line: number | null;
  name: string;
  self_bytes?: number | null;
  self_ms?: number | null;
  self_percent: number;
  total_bytes?: number | null;
  total_ms?: number | null;
  total_percent: number;
  url: string;
}

/** The filmstrip. */
export interface ScreenshotsJson {
  /** Screenshots whose image could not be read. */
  broken: number;
  count: number;
  first_ts_ms: number | null;
  last_ts_ms: number | null;
}

/** A CSS selector's matching cost, summed over the navigation's style recalculations. */
export interface SelectorCostJson {
  elapsed_ms: number;
  fast_reject_count: number;
  match_attempts: number;
  match_count: number;
  selector: string;
  style_sheet_id: string;
}

/**
 * One share (self or total, as a percentage of each profile's weight on some function) of one
 * function, compared. Every `*_points` field is in share points (percent of the profile).
 */
export interface ShareJson {
  base_mean_points: number;
  /** target_mean_points − base_mean_points. */
  mean_difference_points: number;
  /** `exact` (small groups without ties) or `normal` (tie-corrected, continuity-corrected). */
  method: string;
  /** Two-sided p-value. */
  p: number;
  /** Benjamini-Hochberg adjusted over every test of the comparison. */
  q: number;
  /** `q < alpha` and `|shift| ≥ noise floor`. */
  reported: boolean;
  shift_high_points: number | null;
  shift_low_points: number | null;
  /**
   * The Hodges-Lehmann shift (median of all target − base differences) and its
   * distribution-free confidence interval; computed only where `q < alpha` (`null` else).
   */
  shift_points: number | null;
  target_mean_points: number;
  /** The Mann-Whitney statistic (R's W: pairs target > base, ties one half). */
  u: number;
}

/** What DevTools blames for one layout shift. */
export interface ShiftCausesJson {
  /** Frame ids of iframes created just before the shift's paint. */
  iframes: string[];
  /**
   * Animations the compositor could not run that ended within 500 ms before the shift's
   * paint: one entry per failure, as DevTools counts them.
   */
  non_composited_animations: AnimationFailureJson[];
  score: number;
  ts_ms: number;
  /** Images without width and height painted right after it. */
  unsized_images: UnsizedImageJson[];
  /** Font requests that finished within 500 ms before the shift's paint. */
  web_fonts: string[];
}

/** One layout shift. */
export interface ShiftJson {
  /** Index into the trace's clusters. */
  cluster: number;
  score: number;
  ts_ms: number;
  weighted_score_delta: number;
}

/**
 * CSS selector costs: what matching selectors cost the style recalculations (from the
 * trace's `SelectorStats`, recorded when the Performance panel's "CSS selector stats" is on;
 * all zero otherwise).
 */
export interface SlowCssSelectorJson {
  /** `informative` when the slowest selector took 0.5 ms or more, else `pass`. */
  state: string;
  /** The selector with the most elapsed time, when it took 0.5 ms or more. */
  top_elapsed: SelectorCostJson | null;
  /** The selector with the most match attempts. */
  top_match_attempts: SelectorCostJson | null;
  total_elapsed_ms: number;
  total_match_attempts: number;
  total_match_count: number;
}

/** One copy of a duplicated source. */
export interface SourceCopyJson {
  /** The script's bytes from this source, as bytes on the network. */
  attributed_size: number;
  request: RequestRefJson | null;
  /** The script's url (`null` for a script without one). */
  url: string | null;
}

/** One allocation stack (a function with the stack that led to it). */
export interface StackJson {
  callers?: StackJson[] | null;
  /** Top-down: the functions this one called. Bottom-up: its callers. */
  children?: StackJson[] | null;
  column: number | null;
  /** Objects allocated with this exact stack while tracking was on. */
  count: number;
  line: number | null;
  /** Of those, still in the snapshot. */
  live_count: number;
  live_size: number;
  name: string;
  size: number;
  /**
   * Where the map places its function or constructor: `url:line:column` (1-based) in the
   * original source.
   */
  source_location?: string | null;
  /** Its name in the original source (`LeakyCache` for a minified `t`), when the map names it. */
  source_name?: string | null;
  url: string;
}

export interface StatisticsJson {
  native: NativeJson;
  total: number;
  v8heap: V8HeapJson;
}

/** A budget's outcome; serialized as `pass`, `fail` or `skipped`. */
export type Status = "pass" | "fail" | "skipped";

/** One duplicated value. */
export interface StringJson {
  count: number;
  length: number | null;
  retained_size: number;
  /** One of the copies (its id), for its Retainers. */
  sample_id: number;
  total_size: number;
  /** V8 cut the value short in the snapshot; `length` is the full length (UTF-16 units). */
  truncated: boolean;
  value: string;
  /**
   * Only in answers that cut long values (MCP's `heap_strings`, at 500 characters): `value`
   * is its first characters.
   */
  value_cut?: boolean;
  /** The total minus the smallest copy: what keeping one copy would save. */
  wasted_size: number;
}

/** Strings interned once per document. */
export type Strings = string[];

/** What a `--context` Summary covers. */
export interface SummaryContextJson {
  /** The native context, when `owner` is `context`. */
  id?: number | null;
  name?: string | null;
  /** `context` (one native context's objects), `shared` or `none`. */
  owner: string;
}

/** A thread of the input, as the summary lists it. */
export interface SummaryThreadJson {
  name: string;
  pid: number | null;
  samples: number;
  tid: number | null;
}

/** Third parties: transfer size and main-thread time per entity. */
export interface ThirdPartiesJson {
  /**
   * Every entity with main-thread time or transfer size: a company third-party-web knows by
   * its name ("Google Analytics"), any other site by its root domain; most main-thread time
   * first, then most transfer size, then by name.
   */
  entities: EntityJson[];
  first_party: string | null;
  /** `pass`, or `informative` when any entity is not the first party. */
  state: string;
}

/** A third party that grew. */
export interface ThirdPartyChangeJson {
  base_main_thread_ms: number;
  /** Runs of each side in which it appears. */
  base_runs: number;
  /** Median transfer sizes, bytes. */
  base_transfer_size: number;
  entity: string;
  main_thread_q: number;
  /** The main-thread time's shift (Hodges-Lehmann) and its q-value. */
  main_thread_shift_ms: number;
  target_main_thread_ms: number;
  target_runs: number;
  target_transfer_size: number;
  transfer_q: number;
  transfer_shift_bytes: number;
}

/** One timeline. */
export interface ThreadJson {
  /** Events of the timeline: reconstructed calls and trace events. */
  events: number;
  name: string;
  /**
   * The page a renderer's main thread draws, as the Performance panel names its track:
   * `Main — URL` (the outermost main frame's process) or `Frame — NAME` (another frame's:
   * the last segment of its URL's path); see [`page_track_name`].
   */
  page?: string | null;
  pid: number | null;
  /**
   * The process's name (`process_name` metadata of a trace: `Renderer`, `Browser`, `GPU
   * Process`), when the trace names it.
   */
  process?: string | null;
  /** CPU samples of the thread's profile. */
  samples: number;
  tid: number | null;
  /** What `--thread` takes (1-based, sampled threads first). */
  timeline_id: number;
}

export interface TreeDoc {
  /** The share of the total under which a (non-root) node is left out. */
  min_fraction: number;
  nodes: TreeNodes;
  /**
   * Nodes over the threshold not sent because the budget (`max_nodes`) was spent; they sit
   * under the nodes whose `m` is non-zero and are fetched when those are opened.
   */
  over_budget: number;
  /**
   * Nodes left out because they are under `min_fraction` of the total (with their subtrees,
   * counted once each).
   */
  pruned: number;
}

/** One node, in depth-first pre-order (`parent` names an earlier `id`). */
export interface TreeNodeJson {
  column: number | null;
  depth: number;
  id: number;
  line: number | null;
  name: string;
  parent: number | null;
  self_bytes?: number | null;
  self_ms?: number | null;
  self_percent: number;
  total_bytes?: number | null;
  total_ms?: number | null;
  total_percent: number;
  url: string;
}

/**
 * A call tree, columnar, breadth-first: every root, then their children, level by level, so a
 * parent always precedes its children and siblings keep the engine's order (heaviest first).
 */
export interface TreeNodes {
  /** Function (index into `functions`). */
  f: number[];
  /** The node's id in the engine's tree: what `…/profile/children?node=` asks for. */
  k: number[];
  /**
   * How many of the node's children were not sent because the node budget was spent (they
   * can be asked for); 0 when all that pass the threshold are here.
   */
  m: number[];
  /** Parent's index (-1 for a root). */
  p: number[];
  /** Self and total (ms or bytes). */
  s: number[];
  t: number[];
}

/** An image without width and height. */
export interface UnsizedImageJson {
  node_id: number;
  url: string;
}

export interface V8HeapJson {
  code: number;
  jsArrays: number;
  strings: number;
  system: number;
  total: number;
}

export interface VerdictCounts {
  bounded: number;
  growing: number;
  one_off: number;
}

/** Viewport: whether the page is optimized for mobile (no double-tap delay on taps). */
export interface ViewportJson {
  /** INP savings: the longest such input delay, at most 300 ms (when failing). */
  inp_savings_ms: number | null;
  /** Pointer interactions over 200 ms with 50 ms or more input delay (when failing). */
  long_pointer_interactions: number;
  /** `null` when no frame was committed in the navigation (DevTools then passes it). */
  mobile_optimized: boolean | null;
  /**
   * `pass`, or `fail` when a frame committed after the viewport meta tag was not
   * mobile-optimized.
   */
  state: string;
  /** When `<meta name=viewport>` was parsed. */
  viewport_meta_ms: number | null;
}

/** A render-blocking request's estimated savings. */
export interface WastedRequestJson {
  request_id: string;
  url: string;
  /** Its download time in the simulated first paint, whole ms. */
  wasted_ms: number;
}

/** What a weighted view's numbers are made of. */
export type WeightSource = "samples" | "trace-entries";

/** A time window: start and end in ms from the origin, and its length. */
export interface WindowJson {
  dur_ms: number;
  end_ms: number;
  start_ms: number;
}

