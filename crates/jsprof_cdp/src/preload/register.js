// Loaded by `jsprof record -- CMD` into every Node process the command starts (NODE_OPTIONS
// --require): opens this process's inspector on a free loopback port, announces it in the
// registry directory jsprof watches, and waits until jsprof has started recording it. Node's own
// --inspect-brk cannot do this: its fixed port is inherited by every child, which then waits for
// a debugger that never comes.
'use strict';
(function register() {
  const dir = process.env.JSPROF_RECORD_REGISTRY;
  if (!dir) return;
  // The recorder takes no more processes (`Registry::close`): run unrecorded.
  if (require('node:fs').existsSync(require('node:path').join(dir, 'closed'))) return;
  // Worker threads are recorded through their process's inspector (the NodeWorker domain).
  if (!require('node:worker_threads').isMainThread) return;
  // Package managers only launch the scripts that matter; recording them would only add noise.
  const script = process.argv[1] || '';
  const base = script.split(/[\\/]/).pop();
  if (/^(npm|npx|yarn|yarnpkg|pnpm|pnpx|corepack)(-cli)?(\.c?js|\.mjs)?$/.test(base) ||
      /[\\/]node_modules[\\/](npm|yarn|pnpm|corepack)[\\/]/.test(script)) return;
  const inspector = require('node:inspector');
  const fs = require('node:fs');
  const path = require('node:path');
  if (inspector.url()) return; // opened by the program's own --inspect: not ours to take over
  try {
    inspector.open(0, '127.0.0.1', false);
    const entry = JSON.stringify({
      pid: process.pid,
      ppid: process.ppid,
      url: inspector.url(),
      argv: process.argv,
    });
    const tmp = path.join(dir, `.${process.pid}.tmp`);
    fs.writeFileSync(tmp, entry, { mode: 0o600 });
    fs.renameSync(tmp, path.join(dir, `${process.pid}.json`));
  } catch (e) {
    // jsprof is gone (its registry with it) or the inspector cannot open: run unrecorded
    // rather than wait for a debugger that will not come.
    try { inspector.close(); } catch (_) { /* not open */ }
    return;
  }
  inspector.waitForDebugger();
})();
