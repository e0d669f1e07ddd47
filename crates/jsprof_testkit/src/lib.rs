//! Test support shared by jsprof's crates, for their tests only (a dev-dependency): where the
//! repository's fixtures and goldens are, DevTools' oracle run over a file, and small in-memory profiles built from lists of stacks, so that a
//! unit test can say "two samples in `main;old`, two in `main;kept`" in one line.
//!
//! ```
//! use jsprof_testkit::{fixture, profile_from_stacks};
//!
//! let p = profile_from_stacks(&[&["main", "old"], &["main", "kept"]]);
//! assert_eq!(p.threads[0].samples().len(), 2);
//! assert!(fixture("cpu/tsc.cpuprofile.gz").exists());
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

use jsprof_profile::{FrameId, Profile, ProfileKind, StackId, Thread, WeightUnit};

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A file under `fixtures/`, by its path there (`cpu/tsc.cpuprofile.gz`).
pub fn fixture(rel: &str) -> PathBuf {
    fixtures().join(rel)
}

/// Reads a `.json.gz` golden.
pub fn golden(path: &Path) -> serde_json::Value {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("golden is JSON")
}

/// A gzipped text fixture (`trace/pageload.trace.json.gz`), as text: for tests that edit a
/// recording (rename its URLs, break a part) before reading it.
pub fn fixture_text(rel: &str) -> String {
    let path = fixtures().join(rel);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

/// A test that cannot run here because a tool is missing. With `CI` set that is a failure
/// (`.ci/run` installs everything). Otherwise one line goes to the real stderr: libtest captures
/// `eprintln!` from passing tests, so a skip said that way is invisible and a green local run
/// would hide that nothing was checked.
pub fn skip_without(missing: &str, how: &str) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    assert!(
        std::env::var_os("CI").is_none(),
        "CI: {test} needs {missing}: {how}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {missing} is missing ({how}); with CI set this fails"
    );
}

/// DevTools' own code run over a file (`target/oracle/NAME.mjs`: cpu, heap, trace, insights,
/// lines), its JSON answer; `None` (a skip, a failure under `CI`) when the oracles are not built.
pub fn run_oracle(name: &str, file: &Path) -> Option<serde_json::Value> {
    run_oracle_with(name, &[], file)
}

/// [`run_oracle`] in one of the oracle's modes: `args` (`--contexts`) before the file.
pub fn run_oracle_with(name: &str, args: &[&str], file: &Path) -> Option<serde_json::Value> {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/oracle/{name}.mjs"));
    if !script.exists() {
        skip_without(
            &format!("the oracle {}", script.display()),
            "bash tools/oracle/build.sh target/oracle",
        );
        return None;
    }
    let out = Command::new("node")
        .arg("--max-old-space-size=8000")
        .arg(&script)
        .args(args)
        .arg(file)
        .output()
        .expect("run node");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{name} on {}: its answer is not JSON ({e}): {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        out.status.success() && v.get("error").is_none(),
        "{name} failed on {}: {v} {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(v)
}

/// A child process the test started (a Node app, a server, a browser, a recorder), killed and
/// reaped when this guard is dropped: a test that fails (panics) half-way never leaves it running
/// behind, holding a port or the test runner's output pipe open. It derefs to the [`Child`].
#[derive(Debug)]
pub struct KillOnDrop(Option<Child>);

impl KillOnDrop {
    /// Starts `cmd`; a program that cannot start panics, naming `what`.
    pub fn spawn(cmd: &mut Command, what: &str) -> KillOnDrop {
        KillOnDrop::from(cmd.spawn().unwrap_or_else(|e| panic!("start {what}: {e}")))
    }

    /// [`Child::wait_with_output`]: waits for the child to end, all of its piped output read.
    pub fn wait_with_output(mut self) -> std::io::Result<Output> {
        self.0.take().expect("a child").wait_with_output()
    }
}

impl From<Child> for KillOnDrop {
    fn from(child: Child) -> KillOnDrop {
        KillOnDrop(Some(child))
    }
}

impl std::ops::Deref for KillOnDrop {
    type Target = Child;
    fn deref(&self) -> &Child {
        self.0.as_ref().expect("a child")
    }
}

impl std::ops::DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        self.0.as_mut().expect("a child")
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One sample every 10 ns on each of `stacks` (names, root first), every frame at `x.js:1:1`
/// (script 1), each sample its own chain of stack nodes; the thread ends 10 ns after its last
/// sample.
pub fn profile_from_stacks(stacks: &[&[&str]]) -> Profile {
    profile_from_stacks_in("x.js", stacks)
}

/// [`profile_from_stacks`] with every frame in script `url` (line 1, column 1).
pub fn profile_from_stacks_in(url: &str, stacks: &[&[&str]]) -> Profile {
    let mut p = Profile::new(ProfileKind::CpuProfile);
    let mut t = Thread::new(WeightUnit::Nanoseconds);
    for (i, stack) in stacks.iter().enumerate() {
        let mut parent = None;
        for name in *stack {
            let f = p.intern_frame(name, url, Some(1), Some(1), "1");
            parent = Some(p.stacks.push(parent, f, 0));
        }
        t.samples_mut().push(i as i64 * 10, parent);
    }
    t.set_samples_end(Some(stacks.len() as i64 * 10));
    p.threads.push(t);
    p
}

/// One sample every 10 ns on each of `stacks` of `(name, url)` frames, root first: a frame with a
/// URL is at line 1, column 1, one without has no position (DevTools' pseudo-frames). Equal
/// prefixes share their stack nodes, as a profile's call tree does; node ids count from 2.
pub fn profile_from_frames(stacks: &[&[(&str, &str)]]) -> Profile {
    let mut p = Profile::new(ProfileKind::CpuProfile);
    let mut t = Thread::new(WeightUnit::Nanoseconds);
    t.set_samples_end(Some(stacks.len() as i64 * 10));
    let mut index: HashMap<(Option<StackId>, FrameId), StackId> = HashMap::new();
    for (i, stack) in stacks.iter().enumerate() {
        let mut cur = None;
        for &(name, url) in stack.iter() {
            let line = (!url.is_empty()).then_some(1);
            let f = p.intern_frame(name, url, line, line, "");
            let n = p.stacks.len() as u64 + 2;
            cur = Some(
                *index
                    .entry((cur, f))
                    .or_insert_with(|| p.stacks.push(cur, f, n)),
            );
        }
        t.samples_mut().push(i as i64 * 10, cur);
    }
    p.threads.push(t);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_are_chains_of_their_own() {
        let p = profile_from_stacks(&[&["main", "a"], &["main", "a"]]);
        assert_eq!(p.stacks.len(), 4);
        assert_eq!(p.threads[0].samples().len(), 2);
        assert_eq!(p.threads[0].samples_end(), Some(20));
    }

    #[test]
    fn stacks_take_their_script() {
        let p = profile_from_stacks_in("app.js", &[&["main"]]);
        let stack = p.threads[0].samples().stack()[0].unwrap();
        let frame = p.frames.get(p.stacks.frame(stack));
        assert_eq!(p.strings.get(frame.url), "app.js");
    }

    #[test]
    fn frames_share_equal_prefixes() {
        let p = profile_from_frames(&[
            &[("main", "a.js"), ("f", "a.js")],
            &[("main", "a.js"), ("g", "a.js")],
            &[("(garbage collector)", "")],
        ]);
        assert_eq!(p.stacks.len(), 4);
        assert_eq!(p.threads[0].samples().len(), 3);
        assert_eq!(p.threads[0].samples_end(), Some(30));
    }

    #[test]
    fn a_dropped_child_is_killed_and_reaped() {
        let child = KillOnDrop::spawn(Command::new("sleep").arg("60"), "sleep");
        let pid = child.id();
        let result = std::panic::catch_unwind(move || {
            let _child = child;
            panic!("a test that fails half-way");
        });
        assert!(result.is_err());
        // Reaped: the pid is no process of ours any more (`kill -0` fails).
        let alive = Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(!alive.success(), "sleep ({pid}) still runs");
    }

    #[test]
    fn fixtures_are_the_repositorys() {
        assert!(fixture("cpu/tsc.cpuprofile.gz").is_file());
    }
}
