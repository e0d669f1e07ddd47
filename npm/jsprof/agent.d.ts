// The production agent (`jsprof/agent`): `node --require jsprof/agent app.js` with
// `JSPROF_AGENT_*` in the environment, or `start(options)` from the application. Every option
// has an environment variable; an option passed to `start` wins over it. docs/production.md.

export interface AgentOptions {
  /** The jsprof service's base URL (`JSPROF_AGENT_URL`); windows go to `/ingest/v1/profile`. */
  url?: string;
  /** An ingest key (`JSPROF_AGENT_KEY`), sent as `Authorization: Bearer KEY`. */
  key?: string;
  /**
   * Labels of every window (`JSPROF_AGENT_LABELS`, `service=shop,version=1.4,k=v`): `service`,
   * `version`, `host` and `pid` as themselves, any other as `label.K=V`. `service` defaults to
   * the main script's name, `host` to the host name, `pid` to the process id.
   */
  labels?: Record<string, string> | string;
  /** Window length in seconds (`JSPROF_AGENT_WINDOW_S`, default 60). */
  windowS?: number;
  /** CPU sampling interval in µs (`JSPROF_AGENT_INTERVAL_US`, default 10000: 100 Hz). */
  intervalUs?: number;
  /** A loop blocked longer than this many ms is a stall (`JSPROF_AGENT_STALL_MS`, default 200; 0 turns the watchdog off). */
  stallMs?: number;
  /** A directory for windows the sink could not take yet (`JSPROF_AGENT_SPOOL`); sent later, once. */
  spool?: string;
  /** At most this many files in the spool (`JSPROF_AGENT_SPOOL_MAX`, default 1000). */
  spoolMax?: number;
  /** Heap sampling per window (`JSPROF_AGENT_HEAP`, default on; `0`/`off` turns it off). */
  heap?: boolean;
  /** Heap sampling interval in bytes (`JSPROF_AGENT_HEAP_INTERVAL`, default 524288). */
  heapIntervalBytes?: number;
  /**
   * The part of a heap-sampled window heap sampling runs, from its start
   * (`JSPROF_AGENT_HEAP_DUTY`, default 0.1; 1: the whole window). While it runs it costs the
   * application ~5-9 % CPU.
   */
  heapDuty?: number;
  /**
   * The heap is sampled in one window of every this many: the first, then every
   * `heapEvery`-th (`JSPROF_AGENT_HEAP_EVERY`, default 4; 1: every window).
   */
  heapEvery?: number;
  /** Posts held in memory while the sink is away (`JSPROF_AGENT_RING`, default 16). */
  ring?: number;
}

/** The agent's counters for this thread. */
export interface AgentStats {
  running: boolean;
  /** Windows closed. */
  windows?: number;
  /** Profiles to post (a window's CPU profile, and its heap profile when it has samples). */
  posts?: number;
  /** Posts the sink accepted (2xx). */
  sent?: number;
  /** Posts dropped: the ring was full and there was no spool (or it was full). */
  dropped?: number;
  /** Posts the sink refused (4xx other than 429); reported on stderr. */
  refused?: number;
  /** The agent's own failures, each reported on stderr (at most once a minute per kind). */
  failures?: number;
  /** Posts written to the spool. */
  spooled?: number;
  /** Spooled posts sent (and deleted). */
  replayed?: number;
  /** Stalls the watchdog reported. */
  stalls?: number;
  /** Posts in memory now, at most, and the bound. */
  ring?: number;
  ringHigh?: number;
  ringCapacity?: number;
  /** Files in the spool now. */
  spoolFiles?: number;
  /** `main` or `worker-<threadId>`. */
  thread?: string;
}

/** Starts the agent in this thread (once; later calls return its stats). Never throws. */
export function start(options?: AgentOptions): AgentStats;
/** Closes the current window and posts what is pending, for at most `limitMs` (default 5000). */
export function stop(limitMs?: number): Promise<AgentStats>;
export function stats(): AgentStats;
