// Reference per-line times for a .cpuprofile (plain or gzip): DevTools' own LineLevelProfile (the
// Sources panel's gutter after a profile is loaded) over its own CPUProfileDataModel.
//   node lines-oracle.mjs FILE  -> JSON on stdout: the model's start/end (ms), totalHitCount, and per
//   script URL its lines [[line (1-based), ms]] as the gutter holds them (column 1: positionTicks
//   have no column), lines sorted.
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import {CPUProfileDataModel} from 'DEVTOOLS/models/cpu_profile/CPUProfileDataModel.js';
import * as LineLevelProfile from 'DEVTOOLS/ui/legacy/components/perf_ui/LineLevelProfile.js';

const file = process.argv[2];
let buf = fs.readFileSync(file);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const model = new (CPUProfileDataModel as any)(JSON.parse(buf.toString('utf8')));
// `initialize` would also decorate the Workspace's source files, which needs a running front end;
// `appendCPUProfile` is the part that computes the numbers (private in TypeScript only).
const perf: any = LineLevelProfile.Performance.instance({forceNew: true});
perf.appendCPUProfile(model, null);
const scripts: Record<string, Array<[number, number]>> = {};
for (const [script, lines] of perf.helper.locationData.get(null) || new Map()) {
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
