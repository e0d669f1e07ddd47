// The trace an oracle reads (trace-oracle.mjs, insights-oracle.mjs, lantern-oracle.mjs; build.sh
// copies this file beside them): the file its first argument names, gunzipped when gzipped, parsed.
import fs from 'node:fs';
import zlib from 'node:zlib';

// {file, json, events, metadata} of the trace named by the first argument; without one, the
// usage of `oracle` (its file name) on stderr and exit 2. `events` is the array, whether the file
// is one or an object with `traceEvents`; `metadata` the object's, else {}.
export function readTrace(oracle) {
  const file = process.argv[2];
  if (!file) { console.error(`usage: node ${oracle} TRACE.json[.gz]`); process.exit(2); }
  let buf = fs.readFileSync(file);
  if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
  const json = JSON.parse(buf.toString('utf8'));
  const events = Array.isArray(json) ? json : json.traceEvents;
  const metadata = Array.isArray(json) ? {} : (json.metadata ?? {});
  return {file, json, events, metadata};
}
