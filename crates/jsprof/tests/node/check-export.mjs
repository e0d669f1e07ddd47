// Independent readers for jsprof's exports, run by the CLI tests (crates/jsprof/tests/it/export.rs).
//   node check-export.mjs pprof FILE.pb.gz       -> {sample_types, totals, functions: [{name, filename, start_line, self}]}
//   node check-export.mjs speedscope FILE.json   -> {valid, errors, profiles: [{name, unit, samples, total}]}
// `self` sums each sample's values on its first (leaf) location's function, so it is only right when
// locations are leaf-first.
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import {createRequire} from 'node:module';
import {Profile} from 'pprof-format';
import Ajv from 'ajv';

const require = createRequire(import.meta.url);
const [kind, file] = process.argv.slice(2);
const out = (v) => process.stdout.write(JSON.stringify(v) + '\n');

if (kind === 'pprof') {
  const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(file)));
  const str = (i) => p.stringTable.strings[Number(i)];
  const fns = new Map(p.function.map((f) => [Number(f.id), f]));
  const locs = new Map(p.location.map((l) => [Number(l.id), l]));
  const totals = p.sampleType.map(() => 0);
  const self = new Map();
  for (const s of p.sample) {
    s.value.forEach((v, i) => { totals[i] += Number(v); });
    const leaf = locs.get(Number(s.locationId[0]));
    const f = fns.get(Number(leaf.line[0].functionId));
    const key = JSON.stringify([str(f.name), str(f.filename), Number(f.startLine)]);
    const acc = self.get(key) || p.sampleType.map(() => 0);
    s.value.forEach((v, i) => { acc[i] += Number(v); });
    self.set(key, acc);
  }
  out({
    sample_types: p.sampleType.map((t) => [str(t.type), str(t.unit)]),
    default_sample_type: str(p.defaultSampleType),
    duration_nanos: Number(p.durationNanos),
    totals,
    functions: [...self.entries()].map(([k, v]) => {
      const [name, filename, start_line] = JSON.parse(k);
      return {name, filename, start_line, self: v};
    }),
  });
} else if (kind === 'speedscope') {
  const schema = require('speedscope/dist/release/file-format-schema.json');
  const ajv = new Ajv({allErrors: true, strict: false});
  const validate = ajv.compile(schema);
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const valid = validate(doc);
  out({
    valid,
    errors: validate.errors || [],
    profiles: doc.profiles.map((p) => ({
      name: p.name, unit: p.unit, samples: p.samples.length,
      total: p.weights.reduce((a, b) => a + b, 0),
      frames_in_range: p.samples.every((s) => s.every((f) => f >= 0 && f < doc.shared.frames.length)),
    })),
  });
} else {
  console.error('usage: check-export.mjs pprof|speedscope FILE');
  process.exit(2);
}
