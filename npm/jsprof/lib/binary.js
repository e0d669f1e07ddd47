'use strict';
// Which jsprof binary to run: JSPROF_BINARY when set, else the one in the platform package
// npm installed for this machine (an optional dependency of `jsprof`). Shared by the `jsprof`
// command (bin/jsprof.js), the API (index.cjs) and npm/build.sh (which asks for the host's key).

const fs = require('node:fs');
const path = require('node:path');
const { packages } = require('../platforms.json');

/** `glibc` or `musl` on Linux (detected as Biome and esbuild do), else null. */
function libc() {
  if (process.platform !== 'linux') return null;
  // Node's diagnostic report names the glibc it runs on; a musl build of Node has none.
  try {
    const report = process.report;
    const exclude = report.excludeNetwork;
    report.excludeNetwork = true; // skips the slow lookups of network interfaces
    let header;
    try {
      header = report.getReport().header;
    } finally {
      report.excludeNetwork = exclude;
    }
    if (header) return header.glibcVersionRuntime ? 'glibc' : 'musl';
  } catch {
    // fall through
  }
  try {
    return fs.readFileSync('/usr/bin/ldd', 'latin1').includes('musl') ? 'musl' : 'glibc';
  } catch {
    return 'glibc';
  }
}

/**
 * This machine as the platform packages name it: `linux-x64-gnu`, `darwin-arm64`,
 * `win32-x64-msvc`, … (also for machines no package is built for: `linux-riscv64-gnu`).
 */
function hostKey() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') return `${base}-${libc() === 'musl' ? 'musl' : 'gnu'}`;
  if (process.platform === 'win32') return `${base}-msvc`;
  return base;
}

/** The platform package entry for `key` (platforms.json), or undefined. */
function platformPackage(key) {
  return packages.find((p) => p.key === key);
}

/** The error for a machine without a binary; `code` is `NO_BINARY`. */
function noBinary(message) {
  const err = new Error(message);
  err.code = 'NO_BINARY';
  return err;
}

const FROM_SOURCE =
  'Build it from source (Rust from rustup.rs): in a checkout of jsprof run\n' +
  '  cargo install --locked --path crates/jsprof --features lake\n' +
  'then point JSPROF_BINARY at the binary:\n' +
  '  JSPROF_BINARY=~/.cargo/bin/jsprof npx jsprof …';

/**
 * The path of the binary to run. Throws an error with `code` `NO_BINARY` (and a message saying
 * which platform this is and how to get a binary) when there is none.
 */
function findBinary(env = process.env) {
  const override = env.JSPROF_BINARY;
  if (override) {
    const file = path.resolve(override);
    if (!fs.existsSync(file)) {
      throw noBinary(`jsprof: JSPROF_BINARY is ${override}, which does not exist`);
    }
    return file;
  }
  const key = hostKey();
  const pkg = platformPackage(key);
  if (!pkg) {
    throw noBinary(
      `jsprof: this machine is ${key} (${process.platform} on ${process.arch}${
        process.platform === 'linux' ? `, ${libc()}` : ''
      }), and no prebuilt binary exists for it: the npm package has binaries for ${packages
        .map((p) => p.key)
        .join(', ')}.\n${FROM_SOURCE}`,
    );
  }
  const name = `@jsprof/${key}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw noBinary(
      `jsprof: this machine is ${key}, but ${name}, the package with its prebuilt binary, is not ` +
        `installed (an optional dependency of jsprof: was it installed with --omit=optional or ` +
        `--no-optional, or on another machine?). Reinstall jsprof here with optional ` +
        `dependencies, or use a binary of your own.\n${FROM_SOURCE}`,
    );
  }
  const file = path.join(dir, 'bin', pkg.binary);
  if (!fs.existsSync(file)) {
    throw noBinary(`jsprof: ${name} is installed at ${dir} but has no ${path.join('bin', pkg.binary)}`);
  }
  return file;
}

module.exports = { findBinary, hostKey, libc, platformPackage, packages };
