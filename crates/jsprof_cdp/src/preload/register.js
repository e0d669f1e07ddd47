// Loaded by `jsprof record -- CMD` into every Node process the command starts (NODE_OPTIONS
// --require): records this process through an in-process inspector session, with no inspector
// port open. A relay worker thread connects a session to this (main) thread's inspector
// (`connectToMainThread`, Node >= 12.11) and carries CDP messages, one JSON object per line,
// over a Unix socket in jsprof's private registry directory (mode 0700: only the recording user
// can reach it). The main thread waits, before the program's first line, until jsprof has
// started recording (its `Runtime.runIfWaitingForDebugger`); at exit it waits until jsprof has
// collected. Node's inspector dispatches a session's messages by interrupting the main thread,
// so a program busy in JavaScript (or waiting here in `Atomics.wait`) still answers.
//
// Why not `inspector.open()`: the port it opens has no authentication, and any local user can
// find it in /proc/net/tcp and run code in the process (issue 33).
'use strict';
(function register() {
  const dir = process.env.JSPROF_RECORD_REGISTRY;
  if (!dir) return;
  const fs = require('node:fs');
  const path = require('node:path');
  // The recorder takes no more processes (`Registry::close`): run unrecorded.
  if (fs.existsSync(path.join(dir, 'closed'))) return;
  const wt = require('node:worker_threads');
  // Worker threads are recorded through their process's session (the NodeWorker domain).
  if (!wt.isMainThread) return;
  // Package managers only launch the scripts that matter; recording them would only add noise.
  const script = process.argv[1] || '';
  const base = script.split(/[\\/]/).pop();
  if (/^(npm|npx|yarn|yarnpkg|pnpm|pnpx|corepack)(-cli)?(\.c?js|\.mjs)?$/.test(base) ||
      /[\\/]node_modules[\\/](npm|yarn|pnpm|corepack)[\\/]/.test(script)) return;
  const inspector = require('node:inspector');
  if (inspector.url()) return; // opened by the program's own --inspect: not ours to take over
  if (typeof inspector.Session !== 'function' ||
      typeof inspector.Session.prototype.connectToMainThread !== 'function') return;
  // The registry must be this user's private directory, as jsprof made it.
  try {
    const st = fs.lstatSync(dir);
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
    if (!st.isDirectory() || !mine || (st.mode & 0o077) !== 0) return;
  } catch (_) {
    return; // jsprof is gone: run unrecorded
  }
  // state[0]: 0 while waiting for jsprof, 1 recording, 2 not recorded (run anyway).
  // state[1]: 1 once nothing needs collecting at exit (jsprof collected, or is gone).
  const state = new Int32Array(new SharedArrayBuffer(8));
  let relay;
  try {
    relay = new wt.Worker(`(${relayMain.toString()})()`, {
      eval: true,
      workerData: {
        state: state.buffer,
        socket: path.join(dir, 'sock'),
        hello: { pid: process.pid, ppid: process.ppid, argv: process.argv },
      },
      stdout: true, // its output, if any, never reaches the program's
      stderr: true,
    });
  } catch (_) {
    return;
  }
  relay.on('error', () => {}); // a relay that fails leaves the program running unrecorded
  relay.unref();
  // Until jsprof has started recording, or 30 s should the relay never answer: then the program
  // runs, and is not waited for at its exit (a late start is still recorded). Named as Node's
  // own wait was, so that a profile shows the wait for what it is.
  (function waitForDebugger() { Atomics.wait(state, 0, 0, 30000); })();
  Atomics.compareExchange(state, 0, 0, 2);
  if (Atomics.load(state, 0) !== 1) {
    Atomics.store(state, 1, 1);
    return;
  }
  process.on('exit', () => {
    if (Atomics.load(state, 1) !== 0) return;
    try {
      relay.postMessage('exit');
    } catch (_) {
      return;
    }
    // jsprof collects (Profiler.stop, …: dispatched while we wait) and disconnects.
    (function waitForDisconnect() { Atomics.wait(state, 1, 0, 600000); })();
  });

  // The relay, run in a worker thread (its source is sent as text: nothing here is shared).
  function relayMain() {
    const wt = require('node:worker_threads');
    const net = require('node:net');
    const inspector = require('node:inspector');
    const data = wt.workerData;
    const state = new Int32Array(data.state);
    const release = (how) => {
      if (Atomics.compareExchange(state, 0, 0, how) === 0) Atomics.notify(state, 0);
    };
    const collected = () => {
      Atomics.store(state, 1, 1);
      Atomics.notify(state, 1);
    };
    let session = null;
    let ended = false;
    const sock = net.createConnection(data.socket);
    const send = (message) => {
      if (!ended) sock.write(JSON.stringify(message) + '\n');
    };
    const end = () => {
      if (ended) return;
      ended = true;
      release(2);
      collected();
      try { if (session) session.disconnect(); } catch (_) { /* already gone */ }
      sock.destroy();
      wt.parentPort.unref();
    };
    process.on('uncaughtException', end);
    sock.on('error', end);
    sock.on('close', end);
    // This relay is a worker too: NodeWorker must not offer it to jsprof.
    const own = new Set();
    sock.on('connect', () => {
      session = new inspector.Session();
      session.connectToMainThread();
      session.on('inspectorNotification', (m) => {
        const p = m.params || {};
        if (m.method === 'NodeWorker.attachedToWorker' && p.workerInfo &&
            String(p.workerInfo.workerId) === String(wt.threadId)) {
          own.add(p.sessionId);
          return;
        }
        if (m.method.startsWith('NodeWorker.') && own.has(p.sessionId)) return;
        send(m);
      });
      send(data.hello);
    });
    const handle = (line) => {
      let m;
      try { m = JSON.parse(line); } catch (_) { return; }
      if (!m || typeof m.method !== 'string' || !session) return;
      // The first release lets the main thread run; later ones (a program that calls
      // `inspector.waitForDebugger()` itself) go to the session as well.
      if (m.method === 'Runtime.runIfWaitingForDebugger') release(1);
      // The relay itself tells jsprof when the program is about to exit.
      if (m.method === 'NodeRuntime.notifyWhenWaitingForDisconnect') {
        send({ id: m.id, result: {} });
        return;
      }
      session.post(m.method, m.params || {}, (err, result) => {
        if (!err) {
          send({ id: m.id, result: result || {} });
          return;
        }
        const found = /^Inspector error (-?\d+): ([\s\S]*)$/.exec(err.message || '');
        send({
          id: m.id,
          error: found ? { code: Number(found[1]), message: found[2] }
            : { code: -32000, message: String(err.message || err) },
        });
      });
    };
    let buffer = '';
    sock.setEncoding('utf8');
    sock.on('data', (chunk) => {
      buffer += chunk;
      let at;
      while ((at = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        handle(line);
      }
    });
    wt.parentPort.on('message', (m) => {
      if (m !== 'exit') return;
      if (ended) collected();
      else send({ method: 'NodeRuntime.waitingForDisconnect', params: {} });
    });
  }
})();
