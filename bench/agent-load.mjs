// The load generator of bench/agent.sh (no autocannon): CONNECTIONS keep-alive connections, each
// sending GET PATH as soon as its last answer came, for SECONDS; prints one JSON line with the
// requests per second and the latency percentiles (ms) of the answered requests.
//   node bench/agent-load.mjs HOST:PORT SECONDS CONNECTIONS PATH
import http from 'node:http';

const [target, seconds = '10', connections = '16', path = '/hot'] = process.argv.slice(2);
const [host, port] = target.split(':');
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const latencies = [];
let errors = 0;
const end = performance.now() + Number(seconds) * 1000;

function one() {
  return new Promise((done) => {
    const t0 = performance.now();
    const req = http.get({ host, port: Number(port), path, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(performance.now() - t0);
        else errors++;
        done();
      });
    });
    req.on('error', () => {
      errors++;
      done();
    });
  });
}

async function client() {
  while (performance.now() < end) await one();
}

const t0 = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, client));
const elapsed = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(
  JSON.stringify({
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsed,
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  }),
);
agent.destroy();
