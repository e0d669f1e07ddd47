//! Launching a command whose Node processes are all recorded: `NODE_OPTIONS=--require
//! register.js` makes every Node process it starts (the command itself, `npm run`'s script,
//! `child_process.fork`ed children…) open its inspector on a free loopback port, announce it in
//! a registry directory ([`Registry`]) and wait until its recording has started. Worker threads
//! are found through their process's inspector instead (see [`crate::Client::attach_worker`]).
//!
//! Why not `--inspect-brk=127.0.0.1:0`: children inherit it through `NODE_OPTIONS`/`execArgv`
//! and wait for a debugger nobody knows to attach, and the URL is only printed on stderr, where
//! the processes' lines mix. Node has no inspector mechanism of its own that reports child
//! processes to the parent's debugger, and `inspector.open(0)` + `waitForDebugger()` work on
//! every Node from 12 on (the release of a process that waits before jsprof's first
//! `Runtime.runIfWaitingForDebugger` needs `NodeRuntime.waitingForDebugger`, Node ≥ 20.12).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::error::{CdpError, Result};

/// The preload script every Node process of a launched command runs.
const REGISTER_JS: &str = include_str!("preload/register.js");

/// The environment variable that tells the preload script where to announce a process.
pub const REGISTRY_ENV: &str = "JSPROF_RECORD_REGISTRY";
/// The file whose presence in the registry tells the preload script to let a new process run
/// unrecorded ([`Registry::close`]).
pub const CLOSED: &str = "closed";

/// A launched command.
pub struct Launched {
    pub child: Child,
    /// Its pid, which is also its process group's id: everything it starts (unless it leaves
    /// the group) is signalled together.
    pub pid: u32,
    pub registry: Registry,
}

/// One Node process that announced itself and waits to be recorded.
#[derive(Clone, Debug, Deserialize)]
pub struct Registration {
    pub pid: u32,
    pub ppid: u32,
    /// Its inspector's WebSocket URL.
    pub url: String,
    /// `process.argv`: the node binary, the script, its arguments.
    #[serde(default)]
    pub argv: Vec<String>,
}

impl Registration {
    /// `node app.js a b` in short: the script's file name and its arguments.
    pub fn title(&self) -> String {
        let mut parts = self.argv.iter().skip(1);
        let script = parts.next().map_or("node".to_string(), |s| {
            Path::new(s)
                .file_name()
                .map_or(s.clone(), |n| n.to_string_lossy().into_owned())
        });
        let args: Vec<&str> = parts.map(String::as_str).collect();
        let mut title = script;
        if !args.is_empty() {
            title.push(' ');
            title.push_str(&args.join(" "));
        }
        title.chars().take(80).collect()
    }
}

/// The directory the preload script announces processes in, private to this user, removed
/// (with the script) when dropped.
pub struct Registry {
    dir: PathBuf,
    seen: HashSet<u32>,
}

impl Registry {
    fn create() -> Result<Registry> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("jsprof-record-{}-{nanos}", std::process::id()));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            // Only this user may announce a process to be attached to.
            builder.mode(0o700);
        }
        builder
            .create(&dir)
            .map_err(|e| CdpError::io(format!("cannot create {}", dir.display()), e))?;
        let registry = Registry {
            dir,
            seen: HashSet::new(),
        };
        std::fs::write(registry.script(), REGISTER_JS).map_err(|e| {
            CdpError::io(format!("cannot write {}", registry.script().display()), e)
        })?;
        Ok(registry)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn script(&self) -> PathBuf {
        self.dir.join("register.js")
    }

    /// The processes announced since the last call. An entry that cannot be read is skipped
    /// (the preload script renames complete files into place, so none is half-written).
    pub fn poll(&mut self) -> Vec<Registration> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut new = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if self.seen.contains(&pid) {
                continue;
            }
            let Ok(text) = std::fs::read(entry.path()) else {
                continue;
            };
            if let Ok(registration) = serde_json::from_slice::<Registration>(&text) {
                self.seen.insert(pid);
                new.push(registration);
            }
        }
        new.sort_by_key(|r| r.pid);
        new
    }

    /// Takes no more processes: those the command starts from now on run unrecorded instead
    /// of announcing themselves and waiting (the preload script looks for [`CLOSED`]).
    pub fn close(&self) -> std::io::Result<()> {
        std::fs::write(self.dir.join(CLOSED), b"")
    }

    /// Every process announced so far.
    pub fn pids(&self) -> impl Iterator<Item = u32> + '_ {
        self.seen.iter().copied()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Lines Node prints about the inspector itself, not the program's output.
fn is_inspector_chatter(line: &str) -> bool {
    line.starts_with("Debugger listening on ")
        || line.starts_with("Debugger ending on ")
        || line.starts_with("For help, see: https://nodejs.org")
        || line == "Debugger attached."
        || line == "Waiting for the debugger to disconnect..."
}

/// Starts `command` with every Node process in it announcing itself to a new [`Registry`].
/// With `stdout_to_stderr` the program's standard output goes to our standard error, keeping
/// our own standard output clean for JSON.
pub fn launch(command: &[String], stdout_to_stderr: bool) -> Result<Launched> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| CdpError::Target("no command to run".to_string()))?;
    let registry = Registry::create()?;
    let script = registry.script();
    let script = script
        .to_str()
        .filter(|s| !s.contains([' ', '"', '\\']))
        .ok_or_else(|| {
            CdpError::Target(format!(
                "the temporary directory {} has a name NODE_OPTIONS cannot carry; set TMPDIR",
                registry.dir.display()
            ))
        })?
        .to_string();
    let options = std::env::var("NODE_OPTIONS").unwrap_or_default();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env(
            "NODE_OPTIONS",
            format!("{options} --require {script}").trim(),
        )
        .env(REGISTRY_ENV, &registry.dir);
    let stdout = if stdout_to_stderr {
        use std::os::fd::AsFd;
        std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null())
    } else {
        Stdio::inherit()
    };
    cmd.stdin(Stdio::inherit())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group: Ctrl-C stops the recording (we collect first), not the program
    // under it; the recorder then interrupts the whole group itself.
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| CdpError::io(format!("cannot run {program}"), e))?;
    let pid = child.id().unwrap_or(0);
    let stderr = child.stderr.take().expect("stderr is piped");
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        let mut err = tokio::io::stderr();
        while let Ok(Some(line)) = lines.next_line().await {
            if !is_inspector_chatter(&line) {
                let _ = err.write_all(format!("{line}\n").as_bytes()).await;
            }
        }
    });
    Ok(Launched {
        child,
        pid,
        registry,
    })
}

impl Launched {
    /// Sends `signal` to the command's process group and to every announced process (one that
    /// left the group, `setsid`, is still reached). Only processes this command started.
    pub fn signal_tree(&self, signal: i32) {
        if self.pid != 0 {
            // SAFETY: signalling the process group we created for our own child.
            unsafe { libc::kill(-(self.pid as libc::pid_t), signal) };
        }
        for pid in self.registry.pids() {
            // SAFETY: a pid that announced itself in our private registry, i.e. one of the
            // command's Node processes (it may have exited: then ESRCH, ignored).
            unsafe { libc::kill(pid as libc::pid_t, signal) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_reads_complete_entries_once() {
        let mut registry = Registry::create().unwrap();
        let dir = registry.dir().to_path_buf();
        assert!(dir.join("register.js").exists());
        std::fs::write(
            dir.join("42.json"),
            r#"{"pid":42,"ppid":1,"url":"ws://127.0.0.1:1/x","argv":["/usr/bin/node","/app/server.js","--port","80"]}"#,
        )
        .unwrap();
        // Not an announcement: a temporary file, a damaged entry, another name.
        std::fs::write(dir.join(".43.tmp"), "{").unwrap();
        std::fs::write(dir.join("44.json"), "{\"pid\":").unwrap();
        std::fs::write(dir.join("notes.json"), "{}").unwrap();
        let found = registry.poll();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].pid, 42);
        assert_eq!(found[0].title(), "server.js --port 80");
        assert!(registry.poll().is_empty(), "each process is announced once");
        drop(registry);
        assert!(!dir.exists(), "the registry is removed with its script");
    }

    #[test]
    fn title_of_an_eval() {
        let r = Registration {
            pid: 1,
            ppid: 0,
            url: String::new(),
            argv: vec!["/usr/bin/node".into()],
        };
        assert_eq!(r.title(), "node");
    }
}
