// Run by tests/it/npm.rs inside a prefix where the packed `jsprof` npm package is installed
// (copied there, so that `jsprof` resolves to the installed package): the API's documents against
// the CLI's (the same binary, run directly), its errors, its streams, and the flags it knows
// against each command's --help.
//
//   node api.mjs CLI REPO NOT_A_PROFILE BUDGET
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import path from 'node:path';

import * as api from 'jsprof';
import {
  COMMANDS,
  JsprofBinaryError,
  JsprofCheckError,
  JsprofError,
  JsprofUsageError,
  check,
  heapSummary,
  insights,
  record,
  run,
  stream,
  top,
  tree,
} from 'jsprof';

const [cli, repo, notAProfile, budget] = process.argv.slice(2);
const tsc = path.join(repo, 'examples/tsc.cpuprofile.gz');
const snapshot = path.join(repo, 'fixtures/heap/detached.heapsnapshot.gz');
const trace = path.join(repo, 'fixtures/trace/pageload-anim.trace.json.gz');

function cliRun(args) {
  return spawnSync(cli, args, { maxBuffer: 1 << 30 });
}
function cliJson(args) {
  const r = cliRun(args);
  assert.equal(r.status, 0, `jsprof ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout.toString('utf8'));
}

let checks = 0;
async function the(what, body) {
  try {
    await body();
    checks += 1;
  } catch (err) {
    process.stderr.write(`FAILED: ${what}\n`);
    throw err;
  }
}

await the('top(file) is `jsprof top FILE --json`', async () => {
  assert.deepStrictEqual(await top(tsc), cliJson(['top', tsc, '--json']));
});

await the('options are the flags', async () => {
  assert.deepStrictEqual(
    await top(tsc, { limit: 5, by: 'total', hideIdle: true, exclude: ['^\\(program\\)$', 'node:internal'] }),
    cliJson(['top', tsc, '--limit', '5', '--by', 'total', '--hide-idle', '--exclude', '^\\(program\\)$', '--exclude', 'node:internal', '--json']),
  );
  assert.deepStrictEqual(
    await tree(tsc, { bottomUp: true, maxDepth: 2, minPercent: 1 }),
    cliJson(['tree', tsc, '--bottom-up', '--max-depth', '2', '--min-percent', '1', '--json']),
  );
  assert.deepStrictEqual(await heapSummary(snapshot, { limit: 5, sort: 'count' }), cliJson(['heap', 'summary', snapshot, '--limit', '5', '--sort', 'count', '--json']));
  assert.deepStrictEqual(await insights(trace), cliJson(['insights', trace, '--json']));
});

await the('an unreadable input is a JsprofUsageError with jsprof’s message', async () => {
  const direct = cliRun(['top', notAProfile, '--json']);
  assert.equal(direct.status, 2);
  await assert.rejects(top(notAProfile), (err) => {
    assert.ok(err instanceof JsprofError, `${err}`);
    assert.ok(err instanceof JsprofUsageError);
    assert.equal(err.code, 'USAGE');
    assert.equal(err.exitCode, 2);
    assert.equal(err.message, direct.stderr.toString('utf8').trim());
    assert.ok(err.message.includes(path.basename(notAProfile)), err.message);
    assert.ok(err.args.includes(notAProfile));
    return true;
  });
});

await the('a failed budget is a JsprofCheckError carrying the report', async () => {
  await assert.rejects(check(tsc, { budget }), (err) => {
    assert.ok(err instanceof JsprofCheckError, `${err}`);
    assert.equal(err.exitCode, 1);
    assert.equal(err.code, 'CHECK_FAILED');
    assert.equal(err.report.kind, 'cpuprofile');
    assert.equal(err.report.passed, false);
    assert.deepStrictEqual(err.report, JSON.parse(cliRun(['check', tsc, '--budget', budget, '--json']).stdout));
    return true;
  });
});

await the('record() resolves to the recording, also of a program that failed', async () => {
  const doc = await record({
    cpu: true,
    out: 'recorded',
    name: 'failing',
    command: [process.execPath, '-e', 'for (let i = 0; i < 1e6; i++); process.exit(3)'],
  });
  assert.equal(doc.kind, 'recording');
  assert.equal(doc.program.exit_code, 3);
  assert.equal(doc.artifacts.length, 1);
  assert.deepStrictEqual(await top(doc.artifacts[0].path, { limit: 3 }), cliJson(['top', doc.artifacts[0].path, '--limit', '3', '--json']));
});

await the('an unknown option is a TypeError before anything runs', async () => {
  await assert.rejects(top(tsc, { limt: 3 }), (err) => err instanceof TypeError && /unknown option limt/.test(err.message));
});

await the('run() and stream() give the output as it comes', async () => {
  const want = cliRun(['top', tsc, '--limit', '0']).stdout;
  const collected = await run(['top', tsc, '--limit', '0']);
  assert.equal(collected.exitCode, 0);
  assert.ok(Buffer.from(collected.stdout).equals(want));
  const chunks = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  const piped = await run(['top', tsc, '--limit', '0'], { stdout: sink });
  assert.equal(piped.stdout, null);
  assert.ok(Buffer.concat(chunks).equals(want));
  const streamed = [];
  for await (const chunk of stream(['top', tsc, '--limit', '0'])) streamed.push(chunk);
  assert.ok(Buffer.concat(streamed).equals(want));
  await assert.rejects(
    (async () => {
      for await (const _ of stream(['top', notAProfile]));
    })(),
    (err) => err instanceof JsprofUsageError && err.exitCode === 2,
  );
});

await the('require() and import give the same functions and classes', async () => {
  const cjs = createRequire(import.meta.url)('jsprof');
  assert.deepStrictEqual(Object.keys(api).sort(), Object.keys(cjs).sort());
  for (const key of Object.keys(cjs)) assert.equal(api[key], cjs[key], key);
});

await the('JSPROF_BINARY wins, and a missing one is a JsprofBinaryError', async () => {
  await assert.rejects(top(tsc, { env: { JSPROF_BINARY: path.join(repo, 'no-such-jsprof') } }), (err) => {
    assert.ok(err instanceof JsprofBinaryError, `${err}`);
    assert.equal(err.code, 'NO_BINARY');
    assert.match(err.message, /no-such-jsprof/);
    return true;
  });
  assert.deepStrictEqual(await top(tsc, { env: { JSPROF_BINARY: cli }, limit: 1 }), cliJson(['top', tsc, '--limit', '1', '--json']));
});

await the('on a platform without a package the API says which and how to build', async () => {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `Object.defineProperty(process, 'arch', { value: 'riscv64' });
       const { top } = await import('jsprof');
       try { await top('x.cpuprofile'); } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }`,
    ],
    { env: { ...process.env, JSPROF_BINARY: '' } },
  );
  const err = JSON.parse(r.stdout.toString());
  assert.equal(err.name, 'JsprofBinaryError');
  assert.equal(err.code, 'NO_BINARY');
  assert.match(err.message, new RegExp(`${process.platform}-riscv64`));
  assert.match(err.message, /cargo install --locked --path crates\/jsprof --features lake/);
  assert.match(err.message, /JSPROF_BINARY/);
});

await the('every function knows exactly its command’s flags (its --help)', async () => {
  // Flags every command has that the functions set themselves or that change no JSON.
  const implicit = new Set(['json', 'help', 'wide', 'no-cache', 'version']);
  const kebab = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  for (const [name, spec] of Object.entries(COMMANDS)) {
    const help = cliRun([...spec.words, '--help']);
    if (spec.words[0] === 'lake' && help.status !== 0) continue; // a build without the lake
    assert.equal(help.status, 0, `${spec.words.join(' ')} --help: ${help.stderr}`);
    const text = help.stdout.toString('utf8');
    assert.ok(text.includes('--json'), `jsprof ${spec.words.join(' ')} has no --json`);
    // Options start at column 2 (`-o, --out`) or 6 (`--out`); deeper lines are descriptions.
    const listed = new Set([...text.matchAll(/^ {2}(?:-\w, | {4})--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]));
    const known = new Set(Object.keys(spec.flags).map(kebab));
    for (const flag of known) assert.ok(listed.has(flag), `${name}: jsprof ${spec.words.join(' ')} has no --${flag}`);
    for (const flag of listed) {
      if (!implicit.has(flag)) assert.ok(known.has(flag), `${name} does not know jsprof ${spec.words.join(' ')}'s --${flag}`);
    }
  }
});

await the('every command with --json has its function', async () => {
  const subcommands = (words) => {
    const text = cliRun([...words, '--help']).stdout.toString('utf8');
    const section = text.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? '';
    return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]).filter((c) => c !== 'help');
  };
  const covered = new Set(Object.values(COMMANDS).map((s) => s.words.join(' ')));
  for (const command of subcommands([])) {
    const nested = subcommands([command]);
    for (const words of nested.length > 0 ? nested.map((s) => [command, s]) : [[command]]) {
      const help = cliRun([...words, '--help']).stdout.toString('utf8');
      if (/^ {2}(?:-\w, | {4})--json/m.test(help)) assert.ok(covered.has(words.join(' ')), `jsprof ${words.join(' ')} has --json but no function`);
    }
  }
});

process.stdout.write(`ok: ${checks} checks\n`);
