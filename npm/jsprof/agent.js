'use strict';
// The jsprof production agent: continuous CPU and heap sampling of a running Node process,
// posted window by window to `jsprof serve --lake` (`POST /ingest/v1/profile`).
//
//   JSPROF_AGENT_URL=https://profiles.internal JSPROF_AGENT_KEY=… \
//   JSPROF_AGENT_LABELS=service=shop,version=1.4 node --require jsprof/agent app.js
//
// or `require('jsprof/agent').start({ url, key, labels: { service: 'shop' } })`.
//
// Plain JavaScript over `node:inspector`'s in-process session: no native addon. Why it is built
// this way (docs/production.md says what it sends):
// - A window is one `Profiler.start`..`Profiler.stop` (a .cpuprofile) and one
//   `HeapProfiler.startSampling`..`stopSampling` (a .heapprofile), restarted at once; the
//   in-process session answers synchronously, so closing a window is a few synchronous calls and
//   everything after it (gzip, the post, the spool) is asynchronous.
// - The stall watchdog is a Worker (it runs while the loop is blocked), one per profiled thread
//   (the main thread's, and each worker thread's own): the thread writes a heartbeat (the
//   monotonic clock, the same clock as a profile's `startTime`) into a SharedArrayBuffer from an
//   unref'd interval; the watchdog notices a heartbeat older than the
//   threshold and, once the loop turns again, reports the stall's start and end. The window
//   covering the stall is labelled with them in ms from its profile's start (what
//   `jsprof top --range START..END` takes).
// - Memory is bounded: closed windows wait in a ring of `ring` posts; when it is full the oldest
//   goes to the disk spool (if any, up to `spoolMax` files) or is dropped and counted.
// - Nothing the agent does throws into the application: every failure is caught and reported on
//   stderr with a `jsprof agent:` prefix (once per kind of failure and minute).
// - At `beforeExit` and on SIGINT/SIGTERM the current window is closed and posted before the
//   process ends (a signal is re-raised afterwards when the application has no handler of its
//   own, so the process ends as Node would have ended it). At `exit` (process.exit) only
//   synchronous work is possible: what is still unsent is written to the spool when there is
//   one, else posted by a short-lived child process the exit waits for (at most 5 s).
// - A worker thread ended by `worker.terminate()` loses its current window and its unsent ring:
//   V8 stops its JavaScript at once and no hook (`exit`, `beforeExit`) runs in it, and the
//   profile lives in its isolate (docs/production.md says why the agent does not hold
//   `terminate()` back instead).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const inspector = require('node:inspector');
const worker = require('node:worker_threads');

const PREFIX = 'jsprof agent:';
const INGEST_PATH = '/ingest/v1/profile';
// Parameters the endpoint knows; any other label is sent as `label.K=V`.
const KNOWN = new Set(['service', 'version', 'host', 'pid']);
// Names the agent sets itself, or the lake keeps as columns: the sink refuses them as labels.
const RESERVED = new Set([
  'thread', 'stall', 'stall_start_ms', 'stall_end_ms', 'stall_ms', 'heap_used', 'heap_total',
  'rss', 'external', 'start_ms', 'key', 'source', 'kind', 'source_name', 'profile_id', 'weight_unit',
]);
const WATCHDOG = '__jsprofAgentWatchdog';
const SEND_TIMEOUT_MS = 10000;
const EXIT_SEND_TIMEOUT_MS = 5000;

const DEFAULTS = {
  url: undefined,
  key: undefined,
  labels: {},
  windowS: 60,
  intervalUs: 10000,
  stallMs: 200,
  spool: undefined,
  spoolMax: 1000,
  heap: true,
  heapIntervalBytes: 512 * 1024,
  // Heap sampling costs the application ~5-9 % CPU while it runs, whatever its interval
  // (bench/README.md): it runs for this part of a window, at its start, ...
  heapDuty: 0.1,
  // ... in one window of every `heapEvery` (the first, then every heapEvery-th): 1/40 of the
  // time at the defaults, a heap profile every 4 minutes with 60 s windows.
  heapEvery: 4,
  ring: 16,
};

let agent = null;

function warn(message) {
  try {
    process.stderr.write(`${PREFIX} ${message}\n`);
  } catch {
    // stderr closed: nothing else to tell.
  }
}

/// `service=shop,version=1.4` → { service: 'shop', version: '1.4' }.
function parseLabels(text) {
  const labels = {};
  for (const term of String(text || '').split(',')) {
    if (!term.trim()) continue;
    const eq = term.indexOf('=');
    if (eq <= 0) throw new Error(`JSPROF_AGENT_LABELS: "${term}" is not NAME=VALUE`);
    labels[term.slice(0, eq).trim()] = term.slice(eq + 1).trim();
  }
  return labels;
}

function number(name, text, min) {
  if (text === undefined || text === '') return undefined;
  const v = Number(text);
  if (!Number.isFinite(v) || v < min) throw new Error(`${name}: "${text}" is not a number >= ${min}`);
  return v;
}

/// The options from the environment (`JSPROF_AGENT_*`), each undefined when unset.
function fromEnv(env) {
  const heap = env.JSPROF_AGENT_HEAP;
  return {
    url: env.JSPROF_AGENT_URL || undefined,
    key: env.JSPROF_AGENT_KEY || undefined,
    labels: env.JSPROF_AGENT_LABELS ? parseLabels(env.JSPROF_AGENT_LABELS) : undefined,
    windowS: number('JSPROF_AGENT_WINDOW_S', env.JSPROF_AGENT_WINDOW_S, 0.1),
    intervalUs: number('JSPROF_AGENT_INTERVAL_US', env.JSPROF_AGENT_INTERVAL_US, 50),
    stallMs: number('JSPROF_AGENT_STALL_MS', env.JSPROF_AGENT_STALL_MS, 0),
    spool: env.JSPROF_AGENT_SPOOL || undefined,
    spoolMax: number('JSPROF_AGENT_SPOOL_MAX', env.JSPROF_AGENT_SPOOL_MAX, 0),
    heap: heap === undefined || heap === '' ? undefined : !/^(0|false|off|no)$/i.test(heap),
    heapIntervalBytes: number('JSPROF_AGENT_HEAP_INTERVAL', env.JSPROF_AGENT_HEAP_INTERVAL, 1024),
    heapDuty: number('JSPROF_AGENT_HEAP_DUTY', env.JSPROF_AGENT_HEAP_DUTY, 0),
    heapEvery: number('JSPROF_AGENT_HEAP_EVERY', env.JSPROF_AGENT_HEAP_EVERY, 1),
    ring: number('JSPROF_AGENT_RING', env.JSPROF_AGENT_RING, 1),
  };
}

function resolve(options) {
  const out = { ...DEFAULTS };
  for (const [k, v] of Object.entries(options || {})) {
    if (v === undefined) continue;
    if (!(k in DEFAULTS)) throw new Error(`unknown option "${k}"`);
    out[k] = k === 'labels' && typeof v === 'string' ? parseLabels(v) : v;
  }
  if (!out.url) throw new Error('no sink: set JSPROF_AGENT_URL (or start({ url }))');
  for (const name of Object.keys(out.labels)) {
    if (RESERVED.has(name)) throw new Error(`label "${name}": the agent sets it, or the lake keeps it as a column`);
  }
  const url = new URL(INGEST_PATH, out.url.endsWith('/') ? out.url : `${out.url}/`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`JSPROF_AGENT_URL: ${url.protocol} is not http: or https:`);
  }
  out.endpoint = url;
  out.ring = Math.max(1, Math.floor(out.ring));
  out.heapEvery = Math.max(1, Math.floor(out.heapEvery));
  return out;
}

/// Microseconds of the monotonic clock: the clock of a profile's `startTime`.
function hrUs() {
  return Number(process.hrtime.bigint() / 1000n);
}

/// The query string of one post: the window's labels.
function queryOf(options, extra) {
  const q = new URLSearchParams();
  const labels = {
    service: path.basename(process.argv[1] || 'node').replace(/\.[cm]?js$/, '') || 'node',
    host: os.hostname(),
    pid: String(process.pid),
    ...options.labels,
  };
  for (const [k, v] of Object.entries(labels)) {
    q.append(KNOWN.has(k) ? k : `label.${k}`, String(v));
  }
  for (const [k, v] of Object.entries(extra)) q.append(k, String(v));
  return q.toString();
}

/// The watchdog's code: a Worker polling the heartbeat. slot 0: the main thread's last beat (µs);
/// it posts { start, end } (µs) once a beat older than the threshold is followed by a new one.
const WATCHDOG_CODE = `
const { workerData, parentPort } = require('node:worker_threads');
const beat = new BigInt64Array(workerData.sab);
const threshold = BigInt(Math.round(workerData.stallMs * 1000));
let stalledSince = null;
let previous = process.hrtime.bigint() / 1000n;
setInterval(() => {
  const last = Atomics.load(beat, 0);
  const now = process.hrtime.bigint() / 1000n;
  // The watchdog itself late: the whole process went unscheduled (a busy machine, a paused VM),
  // which is not the loop being blocked; only a watchdog on time sees a stall.
  const late = now - previous > threshold / 2n;
  previous = now;
  if (stalledSince === null) {
    if (now - last > threshold && !late) stalledSince = last;
  } else if (last !== stalledSince) {
    parentPort.postMessage({ start: Number(stalledSince), end: Number(last) });
    stalledSince = null;
  }
}, workerData.tickMs);
`;

class Agent {
  constructor(options) {
    this.options = options;
    this.thread = worker.isMainThread ? 'main' : `worker-${worker.threadId}`;
    this.counters = {
      windows: 0,
      posts: 0,
      sent: 0,
      dropped: 0,
      refused: 0,
      failures: 0,
      spooled: 0,
      replayed: 0,
      stalls: 0,
      ringHigh: 0,
    };
    this.ring = []; // { query, profile until gzipped, body (gzip) }, oldest first
    this.closing = []; // closed windows waiting for a stall report before they are queued
    this.stalls = [];
    this.sending = false;
    this.backoffMs = 0;
    this.warned = new Map();
    this.stopped = false;
    this.session = new inspector.Session();
    this.session.connect();
    this.call('Profiler.enable');
    this.call('Profiler.setSamplingInterval', { interval: Math.round(options.intervalUs) });
    if (options.heap) this.call('HeapProfiler.enable');
    this.opened = 0; // windows opened so far: which of them sample the heap
    this.open();
    this.timer = setInterval(() => this.guard('window', () => this.rotate()), options.windowS * 1000);
    this.timer.unref();
    // Every thread's loop has its watchdog: a worker's is a Worker of that worker's own.
    if (options.stallMs > 0) this.guard('watchdog', () => this.watch());
    if (options.spool) this.guard('spool', () => this.startSpool());
    this.hooks();
  }

  /// A synchronous inspector call (the in-process session answers before `post` returns).
  call(method, params) {
    let answer;
    let failure;
    this.session.post(method, params, (err, value) => {
      failure = err;
      answer = value;
    });
    if (failure) throw failure;
    return answer;
  }

  guard(what, f) {
    try {
      return f();
    } catch (e) {
      this.fail(what, e);
      return undefined;
    }
  }

  fail(what, e) {
    this.counters.failures++;
    const last = this.warned.get(what) || 0;
    const now = Date.now();
    if (now - last >= 60000) {
      this.warned.set(what, now);
      warn(`${what}: ${e && e.message ? e.message : e}`);
    }
  }

  open() {
    const { heap, heapDuty, heapEvery, heapIntervalBytes, windowS } = this.options;
    const n = this.opened++;
    if (heap && heapDuty > 0 && n % heapEvery === 0) {
      this.call('HeapProfiler.startSampling', { samplingInterval: heapIntervalBytes });
      this.heapOn = true;
      if (heapDuty < 1) {
        const ms = heapDuty * windowS * 1000;
        this.heapTimer = setTimeout(() => this.guard('heap', () => this.heapStop()), ms);
        this.heapTimer.unref();
      }
    }
    this.call('Profiler.start');
    this.startWall = Date.now();
  }

  /// Ends the window's heap sampling (at its duty's end, or with the window); keeps the profile.
  heapStop() {
    if (!this.heapOn) return;
    this.heapOn = false;
    this.heapProfile = this.call('HeapProfiler.stopSampling').profile;
  }

  /// Ends the current window and, unless `last`, starts the next one. Returns the window.
  close(last) {
    const memory = process.memoryUsage();
    const cpu = this.call('Profiler.stop').profile;
    clearTimeout(this.heapTimer);
    this.heapStop();
    let heap = this.heapProfile || null;
    this.heapProfile = null;
    // A window that allocated less than the sampling interval has no sample: nothing to send.
    if (heap && !(heap.samples && heap.samples.length)) heap = null;
    const startWall = this.startWall;
    if (!last) {
      this.open();
      // A beat now: a stall that starts before the next beat is dated from the last beat, which
      // must not fall in the window just closed (it would get a sliver of the stall).
      if (this.bump) this.bump();
    }
    this.counters.windows++;
    // The profile's start on the wall clock: its monotonic start moved by the wall clock's
    // distance to now.
    const startMs = Math.round(Date.now() - (hrUs() - cpu.startTime) / 1000);
    return {
      cpu,
      heap,
      startUs: cpu.startTime,
      endUs: cpu.endTime,
      labels: {
        thread: this.thread,
        start_ms: Number.isFinite(startMs) ? startMs : startWall,
        heap_used: memory.heapUsed,
        heap_total: memory.heapTotal,
        rss: memory.rss,
        external: memory.external,
      },
    };
  }

  rotate() {
    const w = this.close(false);
    this.closing.push(w);
    // A stall that ended just before the rotation is reported by the watchdog a tick later, and
    // on a busy machine its message can take far longer to arrive: hold the window a second
    // (whatever the tick) before its labels are final.
    const t = setTimeout(() => this.guard('window', () => this.release()), this.holdMs());
    t.unref();
  }

  holdMs() {
    return this.watchdog ? Math.max(1000, 3 * this.tickMs + 10) : 0;
  }

  release(all) {
    const cutoff = hrUs() - this.holdMs() * 1000;
    while (this.closing.length && (all || this.closing[0].endUs <= cutoff)) {
      this.enqueue(this.closing.shift());
    }
  }

  /// The window's query string: its labels, and its stall when the watchdog reported one in it.
  queryFor(w) {
    const extra = { ...w.labels };
    const stall = this.stalls.find((s) => s.start >= w.startUs && s.start < w.endUs);
    if (stall) {
      const from = (stall.start - w.startUs) / 1000;
      const to = (Math.min(stall.end, w.endUs) - w.startUs) / 1000;
      Object.assign(extra, {
        stall: 1,
        stall_start_ms: from.toFixed(3),
        stall_end_ms: to.toFixed(3),
        stall_ms: (to - from).toFixed(3),
      });
    }
    this.stalls = this.stalls.filter((s) => s.start >= w.endUs);
    return queryOf(this.options, extra);
  }

  /// The window's posts (its CPU profile, then its heap profile) into the ring. Each is gzipped
  /// off the main thread (zlib's pool); until then the item holds the profile, which `exit`
  /// can still gzip synchronously.
  enqueue(w) {
    const query = this.queryFor(w);
    for (const profile of [w.cpu, w.heap].filter(Boolean)) {
      this.counters.posts++;
      const item = { query, profile, body: null };
      zlib.gzip(JSON.stringify(profile), (err, body) => {
        item.profile = null;
        if (err) return this.fail('gzip', err);
        item.body = body;
        this.pump();
      });
      this.push(item);
    }
  }

  push(item) {
    this.ring.push(item);
    while (this.ring.length > this.options.ring) {
      // Never the post in flight: it may yet be accepted, and then it must not also be spooled.
      const at = this.ring[0] === this.inFlight ? 1 : 0;
      this.evict(this.ring.splice(at, 1)[0]);
    }
    this.counters.ringHigh = Math.max(this.counters.ringHigh, this.ring.length);
    this.pump();
  }

  evict(item) {
    if (this.options.spool && item.body && this.spoolCount() < this.options.spoolMax) {
      this.spoolAsync(item);
    } else {
      this.counters.dropped++;
    }
  }

  // ---- sending

  pump() {
    if (this.sending || this.backoffTimer) return;
    const item = this.ring[0];
    if (!item) return this.replay();
    if (!item.body) return; // still being gzipped: its callback pumps again
    this.sending = true;
    this.inFlight = item;
    this.send(item, (outcome) => {
      this.sending = false;
      this.inFlight = null;
      if (outcome === 'retry') {
        this.retryLater();
        return;
      }
      // Sent or refused: either way it leaves the ring (a refused window would be refused again).
      const at = this.ring.indexOf(item);
      if (at >= 0) this.ring.splice(at, 1);
      this.pump();
    });
  }

  retryLater() {
    this.backoffMs = Math.min(30000, Math.max(500, this.backoffMs * 2));
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = null;
      this.pump();
    }, this.backoffMs);
    this.backoffTimer.unref();
  }

  /// Posts one item; `done('sent' | 'refused' | 'retry')`.
  send(item, done) {
    const url = new URL(this.options.endpoint);
    url.search = item.query;
    const client = url.protocol === 'https:' ? require('node:https') : require('node:http');
    const headers = {
      'Content-Type': 'application/json',
      'Content-Encoding': 'gzip',
      'Content-Length': item.body.length,
    };
    if (this.options.key) headers.Authorization = `Bearer ${this.options.key}`;
    let finished = false;
    const finish = (outcome, why) => {
      if (finished) return;
      finished = true;
      if (outcome === 'sent') {
        this.counters.sent++;
        this.backoffMs = 0;
      } else if (outcome === 'refused') {
        this.counters.refused++;
        this.fail('refused', why);
      } else {
        this.fail('send', why);
      }
      done(outcome);
    };
    try {
      const req = client.request(
        url,
        { method: 'POST', headers, timeout: SEND_TIMEOUT_MS, agent: false },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.length < 16 && chunks.push(c));
          res.on('error', (e) => finish('retry', e));
          res.on('end', () => {
            const status = res.statusCode;
            const text = Buffer.concat(chunks).toString('utf8').slice(0, 300);
            if (status >= 200 && status < 300) finish('sent');
            else if (status === 429 || status >= 500) finish('retry', `${status} ${text}`);
            else finish('refused', `the sink answered ${status}: ${text}`);
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${SEND_TIMEOUT_MS} ms`)));
      req.on('error', (e) => finish('retry', `${url.origin}: ${e.message}`));
      req.end(item.body);
    } catch (e) {
      finish('retry', e);
    }
  }

  // ---- the disk spool: one file per post, `QUERY\n` then the gzipped body

  startSpool() {
    fs.mkdirSync(this.options.spool, { recursive: true, mode: 0o700 });
    this.seq = 0;
    this.pendingSpool = new Set();
    this.spoolFiles = fs.readdirSync(this.options.spool).filter((f) => f.endsWith('.window')).length;
    // Windows an earlier run left: sent from the first turn of the loop.
    if (this.spoolFiles) setImmediate(() => this.pump());
  }

  spoolCount() {
    return (this.spoolFiles || 0) + (this.pendingSpool ? this.pendingSpool.size : 0);
  }

  spoolName() {
    return path.join(
      this.options.spool,
      `${Date.now()}-${process.pid}-${worker.threadId}-${this.seq++}.window`,
    );
  }

  spoolBytes(item) {
    return Buffer.concat([Buffer.from(`${item.query}\n`), item.body]);
  }

  /// Written under a temporary name, renamed once complete: the replay never reads half a file.
  spoolAsync(item) {
    const file = this.spoolName();
    const tmp = `${file}.tmp`;
    this.pendingSpool.add(tmp);
    fs.writeFile(tmp, this.spoolBytes(item), { mode: 0o600 }, (err) => {
      if (err) {
        this.pendingSpool.delete(tmp);
        this.counters.dropped++;
        return this.fail('spool', err);
      }
      fs.rename(tmp, file, (e) => {
        this.pendingSpool.delete(tmp);
        if (e) {
          this.counters.dropped++;
          return this.fail('spool', e);
        }
        this.spoolFiles++;
        this.counters.spooled++;
      });
    });
  }

  spoolSync(item) {
    const file = this.spoolName();
    fs.writeFileSync(`${file}.tmp`, this.spoolBytes(item), { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
    this.spoolFiles++;
    this.counters.spooled++;
  }

  /// Sends the spool's files, one at a time, while the ring is empty. A file is claimed by a
  /// rename (two processes sharing a spool never send one file twice), deleted after the sink's
  /// 2xx (or a refusal), and given back under its name when the sink cannot be reached.
  replay() {
    if (!this.options.spool || this.replaying || this.stopped) return;
    this.replaying = true;
    const dir = this.options.spool;
    const again = () => {
      this.replaying = false;
      if (!this.backoffTimer) this.pump();
    };
    fs.readdir(dir, (err, names) => {
      const name = !err && names.filter((n) => n.endsWith('.window')).sort()[0];
      if (!name) {
        if (err) this.fail('spool', err);
        this.replaying = false;
        return;
      }
      const file = path.join(dir, name);
      const claimed = `${file}.sending-${process.pid}-${worker.threadId}`;
      fs.rename(file, claimed, (e) => {
        if (e) return again(); // another process took it
        this.spoolFiles = Math.max(0, this.spoolFiles - 1);
        fs.readFile(claimed, (e2, bytes) => {
          const nl = e2 ? -1 : bytes.indexOf(10);
          if (nl < 0) {
            this.fail('spool', e2 || new Error(`${claimed}: no query line`));
            return fs.unlink(claimed, again);
          }
          const item = { query: bytes.subarray(0, nl).toString('utf8'), body: bytes.subarray(nl + 1) };
          this.sending = true;
          this.send(item, (outcome) => {
            this.sending = false;
            if (outcome === 'retry') {
              fs.rename(claimed, file, () => {
                this.spoolFiles++;
                this.replaying = false;
                this.retryLater();
              });
              return;
            }
            if (outcome === 'sent') this.counters.replayed++;
            fs.unlink(claimed, again);
          });
        });
      });
    });
  }

  // ---- the stall watchdog

  watch() {
    this.tickMs = Math.max(5, Math.min(50, Math.floor(this.options.stallMs / 4)));
    const sab = new SharedArrayBuffer(8);
    const beat = new BigInt64Array(sab);
    const bump = () => Atomics.store(beat, 0, process.hrtime.bigint() / 1000n);
    bump();
    this.bump = bump;
    this.beat = setInterval(bump, this.tickMs);
    this.beat.unref();
    this.watchdog = new worker.Worker(WATCHDOG_CODE, {
      eval: true,
      execArgv: [],
      workerData: { sab, stallMs: this.options.stallMs, tickMs: this.tickMs, [WATCHDOG]: true },
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    this.watchdog.on('message', (m) => {
      this.counters.stalls++;
      this.stalls.push(m);
    });
    this.watchdog.on('error', (e) => this.fail('watchdog', e));
    // After the listeners: adding a 'message' listener refs the worker again.
    this.watchdog.unref();
  }

  // ---- the end

  /// Closes the current window and posts everything; `done` once nothing is left to send or after
  /// `limitMs`.
  flush(limitMs, done) {
    if (!this.stopped) {
      this.stopped = true;
      this.shutdown();
      this.guard('window', () => {
        this.closing.push(this.close(true));
        this.release(true);
      });
    }
    const deadline = Date.now() + limitMs;
    const check = () => {
      // A sink that is down is not waited for: what is left goes to the `exit` hook.
      const idle = (this.ring.length === 0 && !this.sending) || this.backoffTimer;
      if (idle || Date.now() >= deadline) return done();
      setTimeout(check, 20);
    };
    check();
  }

  shutdown() {
    clearInterval(this.timer);
    if (this.beat) clearInterval(this.beat);
    if (this.watchdog) this.watchdog.terminate().catch(() => {});
  }

  /// At `exit`: only synchronous work. The unsent posts go to the spool, or to a child process
  /// that posts them while the exit waits.
  exitSync() {
    if (!this.stopped) {
      this.stopped = true;
      this.shutdown();
      this.closing.push(this.close(true));
    }
    for (const w of this.closing.splice(0)) {
      const query = this.queryFor(w);
      for (const profile of [w.cpu, w.heap].filter(Boolean)) {
        this.counters.posts++;
        this.ring.push({ query, profile, body: null });
      }
    }
    const items = this.ring.splice(0);
    if (!items.length) return;
    for (const item of items) {
      if (!item.body) item.body = zlib.gzipSync(JSON.stringify(item.profile));
      item.profile = null;
    }
    if (this.options.spool) {
      for (const item of items) this.spoolSync(item);
      return;
    }
    const lines = items.map((i) => JSON.stringify({ query: i.query, body: i.body.toString('base64') }));
    const r = require('node:child_process').spawnSync(process.execPath, ['-e', EXIT_SENDER], {
      input: lines.join('\n'),
      timeout: EXIT_SEND_TIMEOUT_MS,
      env: {
        JSPROF_AGENT_ENDPOINT: this.options.endpoint.href,
        JSPROF_AGENT_KEY: this.options.key || '',
      },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    const sent = r.status === 0 ? items.length : 0;
    this.counters.sent += sent;
    this.counters.dropped += items.length - sent;
  }

  hooks() {
    process.on('beforeExit', () => {
      if (this.stopped) return;
      this.flush(EXIT_SEND_TIMEOUT_MS, () => {});
    });
    process.on('exit', () => this.guard('exit', () => this.exitSync()));
    if (!worker.isMainThread) return;
    for (const signal of ['SIGINT', 'SIGTERM']) {
      const handler = () => {
        // Other listeners are the application's: it decides how the process ends (and our
        // `exit` hook sends what is left). Alone, we flush, then end as Node would have.
        const alone = process.listenerCount(signal) === 1;
        this.flush(EXIT_SEND_TIMEOUT_MS, () => {
          if (!alone) return;
          process.removeListener(signal, handler);
          process.kill(process.pid, signal);
        });
      };
      process.on(signal, handler);
    }
  }

  stats() {
    return {
      ...this.counters,
      ring: this.ring.length,
      ringCapacity: this.options.ring,
      spoolFiles: this.options.spool ? this.spoolCount() : 0,
      thread: this.thread,
    };
  }
}

/// The exit sender (run by `node -e`): posts each stdin line's { query, body } synchronously one
/// after another and exits 0 only when every post got a 2xx.
const EXIT_SENDER = `
const url = new URL(process.env.JSPROF_AGENT_ENDPOINT);
const client = require(url.protocol === 'https:' ? 'node:https' : 'node:http');
const items = require('node:fs').readFileSync(0, 'utf8').split('\\n').filter(Boolean).map(JSON.parse);
let failed = 0;
(async () => {
  for (const item of items) {
    const body = Buffer.from(item.body, 'base64');
    const headers = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': body.length };
    if (process.env.JSPROF_AGENT_KEY) headers.Authorization = 'Bearer ' + process.env.JSPROF_AGENT_KEY;
    const target = new URL(url);
    target.search = item.query;
    const ok = await new Promise((done) => {
      const req = client.request(target, { method: 'POST', headers, agent: false, timeout: 4000 }, (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode >= 200 && res.statusCode < 300));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => done(false));
      req.end(body);
    });
    if (!ok) failed++;
  }
  process.exitCode = failed ? 1 : 0;
})();
`;

/// Starts the agent (once per thread); returns `stats`. Options as `JSPROF_AGENT_*` (see
/// index.d.ts). Never throws: a bad option is reported on stderr and the agent stays off.
function start(options) {
  if (agent) return stats();
  try {
    agent = new Agent(resolve({ ...fromEnvSafe(), ...(options || {}) }));
  } catch (e) {
    warn(`not started: ${e && e.message ? e.message : e}`);
    agent = null;
  }
  return stats();
}

function fromEnvSafe() {
  return Object.fromEntries(Object.entries(fromEnv(process.env)).filter(([, v]) => v !== undefined));
}

/// Closes the current window and posts everything pending; resolves with the final `stats()`.
function stop(limitMs = EXIT_SEND_TIMEOUT_MS) {
  return new Promise((done) => {
    if (!agent) return done(stats());
    try {
      agent.flush(limitMs, () => done(stats()));
    } catch (e) {
      warn(`stop: ${e && e.message ? e.message : e}`);
      done(stats());
    }
  });
}

/// The agent's counters (all zero when it is not running).
function stats() {
  return agent ? { running: true, ...agent.stats() } : { running: false };
}

module.exports = { start, stop, stats };

// Preloaded (`node --require jsprof/agent`): start from the environment, in every thread but the
// agent's own watchdog.
if (
  module.parent &&
  module.parent.id === 'internal/preload' &&
  !(worker.workerData && worker.workerData[WATCHDOG])
) {
  start();
}
