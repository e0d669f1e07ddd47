// Reference per-line times: DevTools' own LineLevelProfile (the Sources panel's gutter after a
// profile is loaded or a trace recorded) over its own CPUProfileDataModel.
//   node lines-oracle.mjs FILE  -> JSON on stdout (plain or gzip).
// A .cpuprofile: the model's start/end (ms), totalHitCount, and per script URL its lines
//   [[line (1-based), ms]] as the gutter holds them (column 1: positionTicks have no column),
//   lines sorted.
// A Chromium trace (an event array or {traceEvents}): the trace engine's SamplesHandler gathers
//   the ProfileChunks into one CPUProfileDataModel per thread, as the Performance panel does, and
//   `threads: [{pid, tid, samples, scripts, no_url_ms}]` gives each thread's gutter on its own
//   (the panel adds every thread's into one). The gutter keys a sample by `Number(scriptId) ||
//   url`; here a script id is turned back into its nodes' URL so that the lines are by URL, its
//   columns summed per line; `no_url_ms` is the time of scripts without a URL (eval'd code).
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import {CPUProfileDataModel} from 'DEVTOOLS/models/cpu_profile/CPUProfileDataModel.js';
import * as SamplesHandler from 'DEVTOOLS/models/trace/handlers/SamplesHandler.js';
import * as LineLevelProfile from 'DEVTOOLS/ui/legacy/components/perf_ui/LineLevelProfile.js';

const file = process.argv[2];
let buf = fs.readFileSync(file);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const json = JSON.parse(buf.toString('utf8'));
const isTrace = Array.isArray(json) || Array.isArray(json.traceEvents);

// `initialize` would also decorate the Workspace's source files, which needs a running front end;
// `appendCPUProfile` is the part that computes the numbers (private in TypeScript only).
function gutter(model: any): Map<string|number, Map<number, Map<number, number>>> {
  const perf: any = LineLevelProfile.Performance.instance({forceNew: true});
  perf.appendCPUProfile(model, null);
  return perf.helper.locationData.get(null) || new Map();
}

if (!isTrace) {
  const model = new (CPUProfileDataModel as any)(json);
  const scripts: Record<string, Array<[number, number]>> = {};
  for (const [script, lines] of gutter(model)) {
    const rows: Array<[number, number]> = [];
    for (const [line, columns] of lines) for (const [_column, ms] of columns) rows.push([line, ms]);
    scripts[String(script)] = rows.sort((a, b) => a[0] - b[0]);
  }
  process.stdout.write(JSON.stringify({
    tool: 'chrome-devtools-frontend LineLevelProfile.Performance',
    file: file.split('/').pop(),
    profile_start_ms: model.profileStartTime, profile_end_ms: model.profileEndTime,
    total_hit_count: model.totalHitCount,
    scripts,
  }));
} else {
  const events = Array.isArray(json) ? json : json.traceEvents;
  const handler: any = SamplesHandler;
  handler.reset();
  for (const event of events) handler.handleEvent(event);
  await handler.finalize({});
  const threads = [];
  for (const [pid, byThread] of handler.data().profilesInProcess) {
    for (const [tid, data] of byThread) {
      const model = data.parsedProfile;
      const urlOf = new Map<number, string>();
      for (const node of data.rawProfile.nodes) {
        const id = Number(node.callFrame.scriptId);
        if (id && node.callFrame.url) urlOf.set(id, node.callFrame.url);
      }
      const byUrl = new Map<string, Map<number, number>>();
      let noUrl = 0;
      for (const [script, lines] of gutter(model)) {
        const url = typeof script === 'number' ? (urlOf.get(script) || '') : script;
        for (const [line, columns] of lines) {
          for (const [_column, ms] of columns) {
            if (!url) {
              noUrl += ms;
              continue;
            }
            const rows = byUrl.get(url) || new Map<number, number>();
            rows.set(line, (rows.get(line) || 0) + ms);
            byUrl.set(url, rows);
          }
        }
      }
      const scripts: Record<string, Array<[number, number]>> = {};
      for (const [url, rows] of byUrl) scripts[url] = [...rows].sort((a, b) => a[0] - b[0]);
      threads.push({pid, tid, samples: model.samples?.length ?? 0, scripts, no_url_ms: noUrl});
    }
  }
  process.stdout.write(JSON.stringify({
    tool: 'chrome-devtools-frontend SamplesHandler + LineLevelProfile.Performance',
    file: file.split('/').pop(),
    threads,
  }));
}
