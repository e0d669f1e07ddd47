// A performance budget as a test: run it with `node --test budget.test.mjs` after recording a
// profile (`node --cpu-prof app.js`, `npx jsprof record --cpu -- node app.js`). The profile is
// JSPROF_PROFILE, else profile.cpuprofile; the limits are examples to adjust to your program.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { summary, top } from 'jsprof';

const profile = process.env.JSPROF_PROFILE ?? 'profile.cpuprofile';

// The budgets: no single function above this share of the time, nor this many ms of self time,
// and at most this share spent collecting garbage.
const MAX_FUNCTION_PERCENT = 10;
const MAX_FUNCTION_SELF_MS = 500;
const MAX_GC_PERCENT = 15;

test('no function takes more than its share of the time', async () => {
  // The hottest functions by self time, as DevTools' Bottom-up lists them; `(idle)` and
  // `(program)` are not the program's functions.
  const report = await top(profile, { limit: 10, hideIdle: true });
  assert.ok(report.functions.length > 0, `${profile} has no samples`);
  for (const f of report.functions) {
    if (f.name.startsWith('(')) continue;
    const where = `${f.name} ${f.url}:${f.line ?? '?'}`;
    assert.ok((f.self_percent ?? 0) <= MAX_FUNCTION_PERCENT, `${where} takes ${f.self_percent}% of the time`);
    assert.ok((f.self_ms ?? 0) <= MAX_FUNCTION_SELF_MS, `${where} runs ${f.self_ms} ms by itself`);
  }
});

test('garbage collection stays under budget', async () => {
  const s = await summary(profile);
  assert.ok((s.gc_percent ?? 0) <= MAX_GC_PERCENT, `GC takes ${s.gc_percent}% of ${s.duration_ms} ms`);
});
