'use strict';
// A small node:http service for the agent's tests (crates/jsprof/tests/it/agent.rs) and
// bench/agent.sh, run as `node --require …/npm/jsprof/agent.js agent-app.cjs`. It prints
// `listening PORT` once it serves. Routes:
//   /hot    plantedHotHandler: ~0.3 ms of arithmetic
//   /stall  plantedStall: blocks the event loop for 300 ms
//   /stats  the agent's counters, the app's RSS and its CPU time so far (µs, every thread)
//   /quit   answers, then lets the process end by itself (server closed, worker told to stop),
//           so the agent's `beforeExit` sends the last window.
//   /exit   answers, then calls process.exit(3)
//   /worker-stall  the worker runs plantedWorkerStall: blocks the worker's loop for 600 ms
// AGENT_APP_REGRESSION=1 is a "version" with a regression: /hot also runs plantedRegression
// (about as much work again).
// AGENT_APP_WORKER=1 starts a worker thread that runs plantedWorkerFunction every few ms.
const http = require('node:http');
const { Worker } = require('node:worker_threads');

function agentStats() {
  try {
    return require(process.env.AGENT_APP_AGENT || 'jsprof/agent').stats();
  } catch {
    return { running: false };
  }
}

function plantedHotHandler() {
  let x = 0;
  for (let i = 1; i < 100000; i++) x += Math.sqrt(i) / i;
  return x;
}

function plantedRegression() {
  let x = 0;
  for (let i = 1; i < 100000; i++) x += Math.cbrt(i) / i;
  return x;
}

function plantedStall() {
  const end = Date.now() + 300;
  let x = 0;
  while (Date.now() < end) x += Math.random();
  return x;
}

const WORKER = `
const { parentPort } = require('node:worker_threads');
function plantedWorkerFunction() {
  let x = 0;
  for (let i = 1; i < 200000; i++) x += Math.sin(i) * Math.cos(i);
  return x;
}
function plantedWorkerStall() {
  // Longer than the main thread's: a watchdog tick that was itself late does not count, and on
  // a test machine running other tests a nested Worker's ticks are late more often.
  const end = Date.now() + 600;
  let x = 0;
  while (Date.now() < end) x += Math.random();
  return x;
}
let running = true;
parentPort.on('message', (m) => {
  if (m === 'stall') return plantedWorkerStall();
  running = false;
  parentPort.close();
});
(function loop() {
  if (!running) return;
  plantedWorkerFunction();
  setTimeout(loop, 2);
})();
`;

const REGRESSION = process.env.AGENT_APP_REGRESSION === '1';
const worker = process.env.AGENT_APP_WORKER === '1' ? new Worker(WORKER, { eval: true }) : null;

const server = http.createServer((req, res) => {
  let body = 'ok\n';
  if (req.url === '/hot') body = `${plantedHotHandler() + (REGRESSION ? plantedRegression() : 0)}\n`;
  else if (req.url === '/worker-stall' && worker) worker.postMessage('stall');
  else if (req.url === '/stall') body = `${plantedStall()}\n`;
  else if (req.url === '/stats') {
    const cpu = process.cpuUsage();
    body = JSON.stringify({ ...agentStats(), appRss: process.memoryUsage().rss, appCpuUs: cpu.user + cpu.system });
  } else if (req.url === '/exit') {
    res.setHeader('Connection', 'close');
    res.end('bye\n', () => process.exit(3));
    return;
  } else if (req.url === '/quit') {
    res.setHeader('Connection', 'close');
    res.end('bye\n', () => {
      server.close();
      server.closeAllConnections();
      if (worker) worker.postMessage('stop');
    });
    return;
  }
  res.end(body);
});
server.keepAliveTimeout = 1000;
server.listen(Number(process.env.AGENT_APP_PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
