'use strict';
// The JavaScript API: one function per jsprof command that prints JSON. Each runs the native
// binary (no addon) with `--json` and resolves to the parsed document; types in index.d.ts.
// The documents are described field by field in types.d.ts (generated from jsprof's schemas).

const { spawn } = require('node:child_process');
const { PassThrough, Readable } = require('node:stream');
const { findBinary } = require('./lib/binary.js');

// ---------------------------------------------------------------------------------------------
// Errors

/** A jsprof run that failed: `message` is jsprof's own message (its stderr, trimmed). */
class JsprofError extends Error {
  constructor(message, { code, exitCode = null, signal = null, stderr = '', args = [], stdout = null } = {}) {
    super(message);
    this.name = 'JsprofError';
    /** `USAGE` (exit 2), `CHECK_FAILED` (exit 1), `NO_BINARY`, `SPAWN`, `CRASHED`, `BAD_OUTPUT`. */
    this.code = code;
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderr = stderr;
    this.args = args;
    /** The output of `run()` and `stream()` callers, when it was collected. */
    this.stdout = stdout;
  }
}

/** Exit 2: bad usage, or an input jsprof cannot read (the message names the file and offset). */
class JsprofUsageError extends JsprofError {
  constructor(message, fields) {
    super(message, { ...fields, code: 'USAGE' });
    this.name = 'JsprofUsageError';
  }
}

/** Exit 1: a budget of `check` failed. `report` is its document, when jsprof printed one. */
class JsprofCheckError extends JsprofError {
  constructor(message, fields, report) {
    super(message, { ...fields, code: 'CHECK_FAILED' });
    this.name = 'JsprofCheckError';
    this.report = report;
  }
}

/** No binary for this machine (or JSPROF_BINARY names none); the message says how to get one. */
class JsprofBinaryError extends JsprofError {
  constructor(message, fields) {
    super(message, { ...fields, code: 'NO_BINARY' });
    this.name = 'JsprofBinaryError';
  }
}

function failure(args, exitCode, signal, stderr, stdout) {
  const text = stderr.trim();
  const fields = { exitCode, signal, stderr, args, stdout };
  if (exitCode === 2) return new JsprofUsageError(text || 'jsprof: bad usage (exit 2)', fields);
  if (exitCode === 1) {
    let report;
    if (stdout) {
      try {
        report = JSON.parse(stdout.toString('utf8'));
      } catch {
        report = undefined;
      }
    }
    return new JsprofCheckError(text || 'jsprof: a check failed (exit 1)', fields, report);
  }
  const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
  return new JsprofError(text || `jsprof ${how}`, { ...fields, code: 'CRASHED' });
}

// ---------------------------------------------------------------------------------------------
// Running the binary

const PROCESS_OPTIONS = ['cwd', 'env', 'signal', 'binary', 'input'];

function binaryFor(options, args) {
  if (options.binary) return options.binary;
  try {
    return findBinary(options.env ? { ...process.env, ...options.env } : process.env);
  } catch (err) {
    if (err.code === 'NO_BINARY') throw new JsprofBinaryError(err.message, { args });
    throw err;
  }
}

/**
 * Starts jsprof with `args`. `sink(child)` consumes its stdout; resolves to
 * `{ exitCode, signal, stderr }` when it has exited and its output is read.
 */
function start(args, options, sink) {
  return new Promise((resolve, reject) => {
    let binary;
    try {
      binary = binaryFor(options, args);
    } catch (err) {
      reject(err);
      return;
    }
    const child = spawn(binary, args, {
      cwd: options.cwd,
      env: options.env ? { ...process.env, ...options.env } : process.env,
      signal: options.signal,
      stdio: [options.input == null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stderr = [];
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    let failed = false;
    child.on('error', (err) => {
      if (failed) return;
      failed = true;
      if (err.name === 'AbortError') reject(err);
      else reject(new JsprofError(`jsprof: cannot run ${binary}: ${err.message}`, { code: 'SPAWN', args }));
    });
    if (options.input != null) {
      child.stdin.on('error', () => {}); // jsprof may stop reading early; its exit says why
      const input = options.input;
      if (typeof input === 'string' || input instanceof Uint8Array) child.stdin.end(input);
      else Readable.from(input).pipe(child.stdin);
    }
    sink(child);
    child.on('close', (exitCode, signal) => {
      if (failed) return;
      resolve({ exitCode, signal, stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
}

/** Collects stdout as Buffers (no maxBuffer: documents of hundreds of MB are read whole). */
function collect(args, options) {
  const chunks = [];
  return start(args, options, (child) => child.stdout.on('data', (chunk) => chunks.push(chunk))).then((r) => ({
    ...r,
    stdout: Buffer.concat(chunks),
  }));
}

/**
 * Runs jsprof with `args` as given (no `--json` added). Its output is collected into `stdout`
 * (a Buffer), or written to `options.stdout` as it comes (then `stdout` is null). Rejects with a
 * JsprofError when jsprof exits with anything but 0.
 */
async function run(args, options = {}) {
  args = args.map(String);
  let result;
  if (options.stdout) {
    const out = options.stdout;
    result = await start(args, options, (child) => child.stdout.pipe(out, { end: false }));
    result.stdout = null;
  } else {
    result = await collect(args, options);
  }
  if (result.exitCode !== 0) {
    throw failure(args, result.exitCode, result.signal, result.stderr, result.stdout);
  }
  return result;
}

/**
 * jsprof's output as a stream (an async iterable of Buffers) for output too large to hold:
 * `for await (const chunk of stream(['export', f, '--format', 'folded', '-o', '-']))`. The stream ends
 * when jsprof exits with 0 and fails with a JsprofError otherwise.
 */
function stream(args, options = {}) {
  args = args.map(String);
  const out = new PassThrough();
  start(args, options, (child) => child.stdout.pipe(out, { end: false })).then(
    (r) => {
      if (r.exitCode === 0) out.end();
      else out.destroy(failure(args, r.exitCode, r.signal, r.stderr, null));
    },
    (err) => out.destroy(err),
  );
  return out;
}

/**
 * Runs jsprof with `args` and `--json`; resolves to the parsed document. `record` also
 * resolves when jsprof exits with 1 (the recording is saved; the program it launched failed).
 */
async function json(args, options = {}) {
  args = args.map(String);
  if (!args.includes('--json')) {
    const dashes = args.indexOf('--');
    if (dashes < 0) args.push('--json');
    else args.splice(dashes, 0, '--json');
  }
  const r = await collect(args, options);
  const recorded = args[0] === 'record' && r.exitCode === 1 && r.stdout.length > 0;
  if (r.exitCode !== 0 && !recorded) throw failure(args, r.exitCode, r.signal, r.stderr, r.stdout);
  try {
    return JSON.parse(r.stdout.toString('utf8'));
  } catch (err) {
    throw new JsprofError(`jsprof: its output is not JSON (${err.message})`, {
      code: 'BAD_OUTPUT',
      exitCode: 0,
      stderr: r.stderr,
      args,
      stdout: r.stdout,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The commands: their positional arguments and flags (the CLI's clap arguments, camelCase).
// Kinds: `bool` (a bare flag when true), `string`, `number`, `strings` (repeated; a single
// value is one), `pair` (two values after one flag).

const VIEW = { thread: 'string', range: 'string', samples: 'bool' };
// `--sourcemap` and `--no-sourcemaps`: the CPU commands' and the heap views' (`heap summary`,
// `node`, `class`, `retainers`, `dominators`, `edges`, `leaks`, `allocations`).
const SOURCE_MAPS = { sourcemap: 'strings', noSourcemaps: 'bool' };
const TRANSFORM = {
  focus: 'strings',
  exclude: 'strings',
  drop: 'strings',
  hideIdle: 'bool',
  collapsePackages: 'bool',
  collapseRecursion: 'bool',
  focusStack: 'strings',
  focusStackInverted: 'strings',
  ...SOURCE_MAPS,
};
const WHERE = { where: 'strings', since: 'string', until: 'string' };
const GLOBAL = { noCache: 'bool' };
// The A/B test's two groups and its thresholds: `diff --base … --target …` and `lake diff` ask alike.
const GROUPS = {
  base: 'strings',
  target: 'strings',
  alpha: 'number',
  noiseFloor: 'number',
  minProfiles: 'number',
  flamegraph: 'string',
};

/** Every command with `--json`: its words, positional parameters and flags. */
const COMMANDS = {
  summary: { words: ['summary'], positionals: ['file'], flags: { limit: 'number', thread: 'string', range: 'string', categories: 'bool' } },
  top: { words: ['top'], positionals: ['file'], flags: { by: 'string', limit: 'number', ...VIEW, ...TRANSFORM } },
  tree: {
    words: ['tree'],
    positionals: ['file'],
    flags: { bottomUp: 'bool', sandwich: 'string', maxDepth: 'number', minPercent: 'number', ...VIEW, ...TRANSFORM },
  },
  lines: {
    words: ['lines'],
    positionals: ['file'],
    flags: { function: 'string', limit: 'number', context: 'number', noSource: 'bool', thread: 'string', ...TRANSFORM },
  },
  check: {
    words: ['check'],
    positionals: ['file', 'snapshots'],
    flags: { base: 'strings', target: 'strings', lake: 'string', budget: 'string', thread: 'string' },
  },
  diff: {
    words: ['diff'],
    positionals: ['before', 'after'],
    flags: {
      ...GROUPS,
      key: 'string',
      normalize: 'bool',
      functions: 'bool',
      limit: 'number',
      ...VIEW,
      ...TRANSFORM,
    },
  },
  threads: { words: ['threads'], positionals: ['file'], flags: {} },
  events: {
    words: ['events'],
    positionals: ['file'],
    flags: {
      thread: 'string',
      mode: 'string',
      range: 'string',
      event: 'number',
      maxDepth: 'number',
      type: 'strings',
      limit: 'number',
      ...TRANSFORM,
    },
  },
  insights: { words: ['insights'], positionals: ['file'], flags: {} },
  network: { words: ['network'], positionals: ['file'], flags: {} },
  filmstrip: { words: ['filmstrip'], positionals: ['file'], flags: { out: 'string' } },
  timings: { words: ['timings'], positionals: ['file'], flags: {} },
  record: {
    words: ['record'],
    positionals: [],
    trailing: 'command',
    flags: {
      inspect: 'string',
      pid: 'number',
      chrome: 'string',
      cpu: 'bool',
      interval: 'number',
      heapSampling: 'bool',
      heapSnapshot: 'bool',
      atEnd: 'bool',
      every: 'number',
      trace: 'bool',
      url: 'string',
      loadTimeout: 'number',
      settle: 'number',
      runs: 'number',
      warm: 'bool',
      cpuSlowdown: 'number',
      network: 'string',
      duration: 'number',
      out: 'string',
      name: 'string',
      open: 'bool',
    },
  },
  heapSummary: {
    words: ['heap', 'summary'],
    positionals: ['file'],
    flags: { sort: 'string', limit: 'number', between: 'pair', context: 'string', ...SOURCE_MAPS },
  },
  heapStats: { words: ['heap', 'stats'], positionals: ['file'], flags: {} },
  heapContexts: { words: ['heap', 'contexts'], positionals: ['file'], flags: {} },
  heapNode: { words: ['heap', 'node'], positionals: ['file', 'ids'], flags: { ...SOURCE_MAPS } },
  heapClass: {
    words: ['heap', 'class'],
    positionals: ['file', 'class'],
    flags: { sort: 'string', ascending: 'bool', offset: 'number', limit: 'number', ...SOURCE_MAPS },
  },
  heapDiff: {
    words: ['heap', 'diff'],
    positionals: ['base', 'target'],
    flags: { limit: 'number', class: 'string', offset: 'number' },
  },
  heapRetainers: {
    words: ['heap', 'retainers'],
    positionals: ['file', 'id'],
    flags: { paths: 'number', maxDepth: 'number', ...SOURCE_MAPS },
  },
  heapDominators: {
    words: ['heap', 'dominators'],
    positionals: ['file'],
    flags: { id: 'string', depth: 'number', minSize: 'number', limit: 'number', ...SOURCE_MAPS },
  },
  heapEdges: {
    words: ['heap', 'edges'],
    positionals: ['file', 'id'],
    flags: { retainers: 'bool', offset: 'number', limit: 'number', ...SOURCE_MAPS },
  },
  heapStrings: { words: ['heap', 'strings'], positionals: ['file'], flags: { limit: 'number' } },
  heapDetached: { words: ['heap', 'detached'], positionals: ['file'], flags: { limit: 'number' } },
  heapLeaks: {
    words: ['heap', 'leaks'],
    // Three snapshots, or a series (an array of 4 to 50, or a directory) as the first.
    positionals: ['base', 'target', 'last', 'more'],
    flags: { series: 'bool', all: 'bool', alpha: 'number', minRetained: 'number', limit: 'number', ...SOURCE_MAPS },
  },
  heapAdvisors: {
    words: ['heap', 'advisors'],
    positionals: ['file'],
    flags: { limit: 'number', minSaving: 'number' },
  },
  // A process's snapshots (an array, or a directory): each isolate's memory and the RSS.
  heapProcess: { words: ['heap', 'process'], positionals: ['snapshots'], flags: { limit: 'number' } },
  heapRedact: {
    words: ['heap', 'redact'],
    positionals: ['file'],
    flags: { output: 'string', numbers: 'bool' },
  },
  heapAllocations: {
    words: ['heap', 'allocations'],
    positionals: ['file'],
    flags: { bottomUp: 'bool', ...SOURCE_MAPS },
  },
  lakeAdd: {
    words: ['lake', 'add'],
    positionals: ['lake', 'inputs'],
    flags: { label: 'strings', labelsFromPath: 'bool', startTime: 'string', noSourcemaps: 'bool' },
  },
  lakeLs: { words: ['lake', 'ls'], positionals: ['lake'], flags: { ...WHERE } },
  lakeTop: {
    words: ['lake', 'top'],
    positionals: ['lake'],
    flags: { ...WHERE, by: 'string', limit: 'number', unit: 'string' },
  },
  lakeTree: {
    words: ['lake', 'tree'],
    positionals: ['lake'],
    flags: { ...WHERE, bottomUp: 'bool', maxDepth: 'number', minPercent: 'number', unit: 'string' },
  },
  lakeTrend: {
    words: ['lake', 'trend'],
    positionals: ['lake', 'function'],
    flags: { ...WHERE, by: 'string', url: 'string', unit: 'string', metric: 'string' },
  },
  lakeDiff: {
    words: ['lake', 'diff'],
    positionals: ['lake'],
    flags: {
      ...WHERE,
      ...GROUPS,
      unit: 'string',
      limit: 'number',
      pageLoads: 'bool',
    },
  },
  lakeSql: {
    words: ['lake', 'sql'],
    positionals: ['lake', 'sql'],
    flags: { maxMemory: 'string', timeout: 'number' },
  },
  lakeCompact: { words: ['lake', 'compact'], positionals: ['lake'], flags: {} },
};

const kebab = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function value(name, key, v) {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`jsprof ${name}: option ${key} is ${v}, not a finite number`);
    return String(v);
  }
  if (typeof v === 'string') return v;
  throw new TypeError(`jsprof ${name}: option ${key} must be a string or number, not ${typeof v}`);
}

/** The command line for `name` called with `params` (positionals, then an options object). */
function commandLine(name, params) {
  const spec = COMMANDS[name];
  let options = {};
  const values = params.slice();
  while (values.length > 0 && values[values.length - 1] === undefined) values.pop();
  const last = values[values.length - 1];
  if (values.length > 0 && last !== null && typeof last === 'object' && !Array.isArray(last)) {
    options = values.pop();
  }
  if (values.length > spec.positionals.length) {
    throw new TypeError(
      `jsprof ${name}: takes ${spec.positionals.join(', ') || 'no arguments'} and an options object; got ${values.length} arguments`,
    );
  }
  const flags = [];
  const processOptions = {};
  let trailing = [];
  for (const [key, v] of Object.entries(options)) {
    if (PROCESS_OPTIONS.includes(key)) {
      processOptions[key] = v;
      continue;
    }
    if (spec.trailing === key) {
      if (v != null) trailing = (Array.isArray(v) ? v : [v]).map((x) => value(name, key, x));
      continue;
    }
    const kind = spec.flags[key] ?? GLOBAL[key];
    if (!kind) {
      const known = [...Object.keys(spec.flags), ...Object.keys(GLOBAL), ...PROCESS_OPTIONS];
      throw new TypeError(`jsprof ${name}: unknown option ${key} (its options: ${known.join(', ')})`);
    }
    if (v == null || v === false) continue;
    const flag = `--${kebab(key)}`;
    if (kind === 'bool') {
      if (v !== true) throw new TypeError(`jsprof ${name}: option ${key} must be true or false`);
      flags.push(flag);
    } else if (kind === 'strings') {
      for (const x of Array.isArray(v) ? v : [v]) flags.push(`${flag}=${value(name, key, x)}`);
    } else if (kind === 'pair') {
      if (!Array.isArray(v) || v.length !== 2) throw new TypeError(`jsprof ${name}: option ${key} must be two values`);
      flags.push(flag, value(name, key, v[0]), value(name, key, v[1]));
    } else {
      if (Array.isArray(v)) throw new TypeError(`jsprof ${name}: option ${key} takes one value`);
      flags.push(`${flag}=${value(name, key, v)}`);
    }
  }
  const positionals = [];
  values.forEach((v, i) => {
    if (v == null) return;
    for (const x of Array.isArray(v) ? v : [v]) positionals.push(value(name, spec.positionals[i], x));
  });
  // Flags first, then `--`: a path that starts with `-` is still a path.
  const args = [...spec.words, ...flags, '--json'];
  if (spec.trailing) {
    if (trailing.length > 0) args.push('--', ...trailing);
  } else if (positionals.length > 0) {
    args.push('--', ...positionals);
  }
  return { args, processOptions };
}

const api = { JsprofError, JsprofUsageError, JsprofCheckError, JsprofBinaryError, run, stream, json, COMMANDS };
for (const name of Object.keys(COMMANDS)) {
  api[name] = {
    [name](...params) {
      let line;
      try {
        line = commandLine(name, params);
      } catch (err) {
        return Promise.reject(err);
      }
      return json(line.args, line.processOptions);
    },
  }[name];
}

module.exports = api;
