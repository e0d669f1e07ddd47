//! The npm distribution (`npm/`): `npm/build.sh --binary` packs this test's jsprof into its
//! platform package and the main package `jsprof`, both installed OFFLINE into an empty prefix
//! (an unreachable registry, an empty cache: nothing may come from the network). Then, as a
//! JavaScript engineer would use it: `npx jsprof top` prints what the binary prints; the API's
//! documents are the CLI's `--json` (tests/node/npm/api.mjs, which also checks its errors and
//! that it knows every command's flags); the TypeScript declarations type-check a program and
//! reject a wrong one (tsc from tests/node); the package's example budget passes `node --test`;
//! and the shim on a platform without a binary says which and how to build one.
//!
//! Needs Node, npm and `npm ci` in tests/node (for tsc); with `CI` set, a missing one fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::support::{jsprof, skip_without};

fn repo() -> PathBuf {
    std::fs::canonicalize(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn node_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/node")
}

fn tsc() -> PathBuf {
    node_dir().join("node_modules/typescript/bin/tsc")
}

fn works(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Node, npm and (for the types) tsc, or a skip that fails under `CI`.
fn have_tools(need_tsc: bool) -> bool {
    for tool in ["node", "npm", "npx"] {
        if !works(tool) {
            skip_without(tool, "install Node 20 with npm");
            return false;
        }
    }
    if need_tsc && !tsc().exists() {
        skip_without(
            "typescript",
            &format!("run `npm ci` in {}", node_dir().display()),
        );
        return false;
    }
    true
}

fn text(out: &Output) -> String {
    format!(
        "{}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A command run inside the prefix, as a user's shell would run it there: no JSPROF_BINARY (the
/// platform package's binary must be the one found), npm kept offline and away from the
/// user's configuration and cache.
fn in_prefix(prefix: &Path, program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    c.current_dir(prefix)
        .env_remove("JSPROF_BINARY")
        .env_remove("COLUMNS")
        .env("JSPROF_CACHE", "0")
        .envs(npm_env(prefix));
    c
}

fn npm_env(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("npm_config_cache", dir.join(".npm-cache")),
        ("npm_config_userconfig", dir.join(".npmrc-none")),
        ("npm_config_offline", "true".into()),
        ("npm_config_registry", "http://127.0.0.1:9/".into()),
        ("npm_config_update_notifier", "false".into()),
        ("npm_config_audit", "false".into()),
        ("npm_config_fund", "false".into()),
    ]
}

/// The installed prefix, made once for all the tests here: the tarballs `npm/build.sh` packs
/// from this test's binary, installed with `npm install --offline`. `None` (a skip) without
/// Node and npm.
fn installed() -> Option<&'static Path> {
    static PREFIX: OnceLock<Option<PathBuf>> = OnceLock::new();
    PREFIX
        .get_or_init(|| {
            if !have_tools(false) {
                return None;
            }
            Some(install())
        })
        .as_deref()
}

fn install() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    // Each run's prefix holds a copy of the binary (a debug one is 200 MB): those of runs that
    // have ended go.
    for entry in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = name.strip_prefix("npm-") else {
            continue;
        };
        if cfg!(target_os = "linux") && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let dir = tmp.join(format!("npm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (out_dir, prefix) = (dir.join("tarballs"), dir.join("prefix"));
    std::fs::create_dir_all(&prefix).unwrap();

    let built = Command::new("bash")
        .arg(repo().join("npm/build.sh"))
        .arg("--binary")
        .arg(env!("CARGO_BIN_EXE_jsprof"))
        .arg("--out")
        .arg(&out_dir)
        .envs(npm_env(&dir))
        .output()
        .expect("run npm/build.sh");
    assert!(built.status.success(), "npm/build.sh: {}", text(&built));
    let tarballs: Vec<PathBuf> = String::from_utf8(built.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    assert_eq!(
        tarballs.len(),
        2,
        "the platform package and jsprof: {tarballs:?}"
    );
    for t in &tarballs {
        assert!(t.exists(), "{} was not written", t.display());
    }
    let platform = tarballs[0].file_name().unwrap().to_str().unwrap();
    let main = format!("jsprof-{}.tgz", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        tarballs[1].file_name().unwrap().to_str(),
        Some(main.as_str())
    );
    assert!(platform.starts_with("jsprof-") && platform != main);

    // Both tarballs at once: the platform package satisfies jsprof's optional dependency on it;
    // the other platforms' (unreachable offline) are left out, as npm leaves out optional ones.
    let installed = in_prefix(&prefix, "npm")
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(&prefix)
        .args(&tarballs)
        .output()
        .expect("run npm install");
    assert!(
        installed.status.success(),
        "npm install: {}",
        text(&installed)
    );
    // Everything came from the tarballs (npm's own lock of the prefix names where from).
    let lock = std::fs::read_to_string(prefix.join("package-lock.json")).unwrap();
    assert!(
        !lock.contains("http://") && !lock.contains("https://"),
        "something came from a registry:\n{lock}"
    );
    let platform_key = platform
        .trim_start_matches("jsprof-")
        .rsplit_once('-')
        .unwrap()
        .0
        .to_string();
    let binary = prefix
        .join("node_modules/@jsprof")
        .join(&platform_key)
        .join("bin")
        .join(if cfg!(windows) {
            "jsprof.exe"
        } else {
            "jsprof"
        });
    assert!(binary.exists(), "{} is not installed", binary.display());
    assert!(prefix.join("node_modules/jsprof/types.d.ts").exists());

    // The test programs, next to the installed package so that `jsprof` resolves to it.
    for file in [
        "api.mjs",
        "check.mts",
        "check.cts",
        "wrong.mts",
        "tsconfig.json",
        "tsconfig.wrong.json",
    ] {
        std::fs::copy(node_dir().join("npm").join(file), prefix.join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    std::fs::write(prefix.join("not-a-profile.txt"), "this is not a profile\n").unwrap();
    std::fs::write(
        prefix.join("budget.toml"),
        "[[function]]\nname = \"no-such-function\"\nmax_self_ms = 1\n",
    )
    .unwrap();
    prefix
}

fn tsc_profile() -> PathBuf {
    repo().join("examples/tsc.cpuprofile.gz")
}

#[test]
fn npx_jsprof_prints_what_the_binary_prints() {
    let Some(prefix) = installed() else { return };
    let out = in_prefix(prefix, "npx")
        .args(["--offline", "jsprof", "top"])
        .arg(tsc_profile())
        .output()
        .unwrap();
    assert!(out.status.success(), "npx jsprof top: {}", text(&out));
    let direct = jsprof(&["top", tsc_profile().to_str().unwrap()]);
    assert!(direct.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("Self"), "not the table:\n{table}");
    assert_eq!(
        out.stdout, direct.stdout,
        "npx jsprof top is not jsprof top"
    );

    // Exit codes pass through: 2 for an unreadable input, its message on stderr.
    let bad = in_prefix(prefix, "npx")
        .args(["--offline", "jsprof", "top", "not-a-profile.txt"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not-a-profile.txt"));
}

#[test]
fn npm_api_documents_are_the_cli_json() {
    let Some(prefix) = installed() else { return };
    let out = in_prefix(prefix, "node")
        .arg("api.mjs")
        .arg(env!("CARGO_BIN_EXE_jsprof"))
        .arg(repo())
        .arg(prefix.join("not-a-profile.txt"))
        .arg(prefix.join("budget.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "api.mjs: {}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: "));
}

#[test]
fn npm_types_check_a_program_and_reject_a_wrong_one() {
    if !have_tools(true) {
        return;
    }
    let Some(prefix) = installed() else { return };
    let tsc_on = |project: &str| {
        in_prefix(prefix, "node")
            .arg(tsc())
            .args(["-p", project])
            .output()
            .unwrap()
    };
    // check.mts (ESM) and check.cts (CommonJS) use TopReport, HeapSummaryReport and
    // InsightsReport from 'jsprof' as written.
    let ok = tsc_on("tsconfig.json");
    assert!(
        ok.status.success(),
        "tsc on check.mts and check.cts: {}",
        text(&ok)
    );

    // wrong.mts misuses them on every line marked `// error`: each must be an error, so the
    // types are not `any`.
    let wrong = tsc_on("tsconfig.wrong.json");
    assert!(
        !wrong.status.success(),
        "wrong.mts type-checks: {}",
        text(&wrong)
    );
    let report = String::from_utf8_lossy(&wrong.stdout);
    let source = std::fs::read_to_string(prefix.join("wrong.mts")).unwrap();
    let marked: Vec<usize> = (source.lines().enumerate())
        .filter(|(_, l)| l.ends_with("// error"))
        .map(|(i, _)| i + 1)
        .collect();
    assert!(marked.len() >= 3, "wrong.mts marks {marked:?}");
    for line in &marked {
        assert!(
            report.contains(&format!("wrong.mts({line},")),
            "line {line} of wrong.mts is no error:\n{report}"
        );
    }
    let errors = report.matches(": error TS").count();
    assert_eq!(
        errors,
        marked.len(),
        "errors beside the marked lines:\n{report}"
    );
}

#[test]
fn npm_example_budget_passes_node_test() {
    let Some(prefix) = installed() else { return };
    let out = in_prefix(prefix, "node")
        .args([
            "--test",
            "--test-reporter=tap",
            "node_modules/jsprof/examples/budget.test.mjs",
        ])
        .env("JSPROF_PROFILE", tsc_profile())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "node --test budget.test.mjs: {}",
        text(&out)
    );
    let tap = String::from_utf8_lossy(&out.stdout);
    assert!(
        tap.contains("# pass 2") && tap.contains("# fail 0"),
        "{tap}"
    );
}

#[test]
fn npm_shim_without_a_binary_says_how_to_build_one() {
    let Some(prefix) = installed() else { return };
    let shim = prefix.join("node_modules/jsprof/bin/jsprof.js");
    // As on a riscv64 machine (no package is built for it).
    let out = in_prefix(prefix, "node")
        .arg("-e")
        .arg(format!(
            "Object.defineProperty(process, 'arch', {{ value: 'riscv64' }}); require({:?})",
            shim.to_str().unwrap()
        ))
        .arg("top")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let message = String::from_utf8_lossy(&out.stderr);
    let platform = format!(
        "{}-riscv64",
        std::env::consts::OS
            .replace("macos", "darwin")
            .replace("windows", "win32")
    );
    for want in [
        platform.as_str(),
        "no prebuilt binary exists for it",
        "cargo install --locked --path crates/jsprof --features lake",
        "JSPROF_BINARY=",
    ] {
        assert!(message.contains(want), "{want:?} not in:\n{message}");
    }
    // JSPROF_BINARY naming nothing is said as such.
    let out = in_prefix(prefix, "npx")
        .args(["--offline", "jsprof", "--version"])
        .env("JSPROF_BINARY", prefix.join("no-such-jsprof"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-jsprof"));
}
