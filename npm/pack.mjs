#!/usr/bin/env node
// The one generator of the npm packages: writes the platform package for KEY around a built
// binary and packs it and the main package (npm/jsprof) with `npm pack`, printing the tarballs'
// paths. npm/build.sh calls it for the host; the release workflow for each target it builds.
//
//   node npm/pack.mjs --key linux-x64-gnu --binary target/dist/jsprof --version 0.1.0 --out target/npm
//   node npm/pack.mjs --main-only --version 0.1.0 --out target/npm
//
// Every platform package is described by npm/jsprof/platforms.json; the main package's
// version and optionalDependencies must match it and VERSION (checked here, so that a release
// never publishes a main package that points at other binaries' versions).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const mainDir = path.join(here, 'jsprof');

const { values: opts } = parseArgs({
  options: {
    key: { type: 'string' },
    binary: { type: 'string' },
    version: { type: 'string' },
    out: { type: 'string' },
    'main-only': { type: 'boolean', default: false },
    'no-main': { type: 'boolean', default: false },
  },
});

function fail(message) {
  process.stderr.write(`pack.mjs: ${message}\n`);
  process.exit(2);
}

if (!opts.version) fail('--version is required');
if (!opts.out) fail('--out is required');
if (!opts['main-only'] && (!opts.key || !opts.binary)) fail('--key and --binary are required (or --main-only)');

const { packages } = JSON.parse(fs.readFileSync(path.join(mainDir, 'platforms.json'), 'utf8'));
const main = JSON.parse(fs.readFileSync(path.join(mainDir, 'package.json'), 'utf8'));
const { version } = opts;

// The main package must be this version and depend on every platform package at it.
const want = Object.fromEntries(packages.map((p) => [`@jsprof/${p.key}`, version]));
const problems = [];
if (main.version !== version) problems.push(`its version is ${main.version}, not ${version}`);
if (JSON.stringify(main.optionalDependencies) !== JSON.stringify(want)) {
  problems.push(`its optionalDependencies should be ${JSON.stringify(want)}`);
}
if (problems.length > 0) {
  fail(`npm/jsprof/package.json is stale (${problems.join('; ')}): edit it to match Cargo.toml's version and platforms.json`);
}

/** The package.json of the platform package `p`. */
function platformManifest(p) {
  return {
    name: `@jsprof/${p.key}`,
    version,
    description: `The jsprof binary for ${p.key} (${p.target}). Installed by the jsprof package as an optional dependency; not meant to be installed by itself.`,
    license: main.license,
    repository: { ...main.repository, directory: 'npm' },
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    files: ['bin/'],
    preferUnplugged: true,
  };
}

function npmPack(dir, out) {
  const json = execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: process.platform === 'win32',
  });
  const [{ filename }] = JSON.parse(json);
  return path.join(out, filename);
}

const out = path.resolve(opts.out);
fs.mkdirSync(out, { recursive: true });
const tarballs = [];

if (!opts['main-only']) {
  const p = packages.find((x) => x.key === opts.key);
  if (!p) fail(`no platform package ${opts.key}; platforms.json has ${packages.map((x) => x.key).join(', ')}`);
  if (!fs.existsSync(opts.binary)) fail(`${opts.binary}: no such binary`);
  const stage = path.join(out, 'stage', p.key);
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(path.join(stage, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(platformManifest(p), null, 2)}\n`);
  fs.writeFileSync(
    path.join(stage, 'README.md'),
    `# @jsprof/${p.key}\n\nThe \`jsprof\` binary for ${p.key} (\`${p.target}\`). Install [jsprof](https://www.npmjs.com/package/jsprof) instead: it depends on this package on the machines it fits and runs the binary for you.\n`,
  );
  const binary = path.join(stage, 'bin', p.binary);
  fs.copyFileSync(opts.binary, binary);
  fs.chmodSync(binary, 0o755);
  tarballs.push(npmPack(stage, out));
  fs.rmSync(path.join(out, 'stage'), { recursive: true, force: true }); // a binary's copy
}
if (!opts['no-main']) tarballs.push(npmPack(mainDir, out));

for (const t of tarballs) process.stdout.write(`${t}\n`);
