//! Launching a command whose Node processes are all recorded: `NODE_OPTIONS=--require
//! register.js` makes every Node process it starts (the command itself, `npm run`'s script,
//! `child_process.fork`ed children…) record itself through an in-process inspector session and
//! wait until its recording has started. The preload's relay thread carries the session's CDP
//! messages over a Unix socket in a [`Registry`]: a directory only this user can open, so no
//! other local user can reach a recorded process (no inspector port is opened; issue 33). Worker
//! threads are found through their process's session (see [`crate::Client::attach_worker`]).
//!
//! Why not `--inspect-brk=127.0.0.1:0` or `inspector.open(0)`: the inspector's port has no
//! authentication — any local user can find it in `/proc/net/tcp` and run code in the process —
//! and children inherit `--inspect-brk` and wait for a debugger nobody knows to attach.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::client::{Client, Event};
use crate::error::{CdpError, Result};

/// The preload script every Node process of a launched command runs.
const REGISTER_JS: &str = include_str!("preload/register.js");

/// The environment variable that tells the preload script where the registry is.
pub const REGISTRY_ENV: &str = "JSPROF_RECORD_REGISTRY";
/// The file whose presence in the registry tells the preload script to let a new process run
/// unrecorded ([`Registry::close`]).
pub const CLOSED: &str = "closed";
/// The socket the preload's relay connects to, in the registry.
const SOCKET: &str = "sock";
/// How long a relay may take to say which process it is.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest hello line read (a process's pid, ppid and argv).
const HELLO_MAX: u64 = 1 << 20;

/// A launched command.
pub struct Launched {
    pub child: Child,
    /// Its pid, which is also its process group's id: everything it starts (unless it leaves
    /// the group) is signalled together.
    pub pid: u32,
    pub registry: Registry,
}

/// What the preload's relay says first: which process it is.
#[derive(Clone, Debug, Deserialize)]
struct Hello {
    pid: u32,
    ppid: u32,
    #[serde(default)]
    argv: Vec<String>,
}

/// One Node process that connected and waits to be recorded: its CDP connection, through its
/// in-process session.
pub struct Registration {
    pub pid: u32,
    pub ppid: u32,
    /// `process.argv`: the node binary, the script, its arguments.
    pub argv: Vec<String>,
    pub client: Client,
    pub events: mpsc::UnboundedReceiver<Event>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("pid", &self.pid)
            .field("ppid", &self.ppid)
            .field("argv", &self.argv)
            .finish_non_exhaustive()
    }
}

/// `node app.js a b` in short: the script's file name and its arguments.
fn title_of(argv: &[String]) -> String {
    let mut parts = argv.iter().skip(1);
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

impl Registration {
    /// `node app.js a b` in short: the script's file name and its arguments.
    pub fn title(&self) -> String {
        title_of(&self.argv)
    }
}

/// The directory the preload script and its relays' socket live in: made by this user, mode
/// 0700, with an unpredictable name, so no other user can read the script, replace it, or
/// connect; removed (with everything in it) when dropped.
pub struct Registry {
    dir: PathBuf,
    seen: std::collections::HashSet<u32>,
    arrivals: mpsc::UnboundedReceiver<Registration>,
    accept: tokio::task::JoinHandle<()>,
}

/// 128 random bits in hex, from the kernel.
fn random_name() -> Result<String> {
    let mut bytes = [0u8; 16];
    let mut filled = 0;
    while filled < bytes.len() {
        // SAFETY: writing at most the rest of `bytes`, which we own.
        let n = unsafe {
            libc::getrandom(bytes[filled..].as_mut_ptr().cast(), bytes.len() - filled, 0)
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(CdpError::io("cannot draw random bytes", e));
        }
        filled += n as usize;
    }
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Creates a new directory `jsprof-record-<random>` under `parent`, mode 0700, and checks that
/// it is ours: a directory (not a link), owned by our effective uid, no access for others. An
/// existing name is never reused.
fn private_dir(parent: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    for _ in 0..16 {
        let dir = parent.join(format!("jsprof-record-{}", random_name()?));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(CdpError::io(format!("cannot create {}", dir.display()), e));
            }
        }
        let meta = std::fs::symlink_metadata(&dir)
            .map_err(|e| CdpError::io(format!("cannot inspect {}", dir.display()), e))?;
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
            return Err(CdpError::Target(format!(
                "{} is not a private directory of this user (owner {}, mode {:o}); refusing \
                 to put the recorder's preload there",
                dir.display(),
                meta.uid(),
                meta.mode() & 0o7777
            )));
        }
        return Ok(dir);
    }
    Err(CdpError::Target(format!(
        "cannot find a free name for the recorder's directory in {}",
        parent.display()
    )))
}

/// Reads a relay's hello and makes its connection a [`Client`]; `None` for a peer that is not
/// our user or does not say who it is in time.
async fn arrive(stream: tokio::net::UnixStream) -> Option<Registration> {
    // Only our own user could reach the socket (the directory is 0700); check anyway.
    let cred = stream.peer_cred().ok()?;
    // SAFETY: geteuid has no preconditions.
    if cred.uid() != unsafe { libc::geteuid() } {
        return None;
    }
    let (read, write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    let read_hello = async {
        let mut limited = (&mut reader).take(HELLO_MAX);
        limited.read_line(&mut line).await
    };
    tokio::time::timeout(HELLO_TIMEOUT, read_hello)
        .await
        .ok()?
        .ok()?;
    let hello: Hello = serde_json::from_str(line.trim_end()).ok()?;
    let name = format!("pid {} (in-process session)", hello.pid);
    let (client, events) = Client::over_lines(reader, write, name);
    Some(Registration {
        pid: hello.pid,
        ppid: hello.ppid,
        argv: hello.argv,
        client,
        events,
    })
}

impl Registry {
    /// A new registry in the temporary directory, its preload script written and its socket
    /// listening. Needs a tokio runtime.
    pub fn create() -> Result<Registry> {
        let dir = private_dir(&std::env::temp_dir())?;
        let cleanup = |e: CdpError| {
            let _ = std::fs::remove_dir_all(&dir);
            e
        };
        let script = dir.join("register.js");
        {
            use std::io::Write;
            use std::os::unix::fs::OpenOptionsExt;
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&script)
                .and_then(|mut f| f.write_all(REGISTER_JS.as_bytes()).map(|()| f))
                .map_err(|e| {
                    cleanup(CdpError::io(
                        format!("cannot write {}", script.display()),
                        e,
                    ))
                })?;
            let _ = file.flush();
        }
        let socket = dir.join(SOCKET);
        let listener = tokio::net::UnixListener::bind(&socket).map_err(|e| {
            cleanup(CdpError::io(
                format!(
                    "cannot listen on {} (a shorter TMPDIR may help)",
                    socket.display()
                ),
                e,
            ))
        })?;
        let (tx, arrivals) = mpsc::unbounded_channel();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let tx = tx.clone();
                tokio::spawn(async move {
                    if let Some(r) = arrive(stream).await {
                        let _ = tx.send(r);
                    }
                });
            }
        });
        Ok(Registry {
            dir,
            seen: std::collections::HashSet::new(),
            arrivals,
            accept,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn script(&self) -> PathBuf {
        self.dir.join("register.js")
    }

    /// The processes that connected since the last call, each once.
    pub fn poll(&mut self) -> Vec<Registration> {
        let mut new = Vec::new();
        while let Ok(r) = self.arrivals.try_recv() {
            if self.seen.insert(r.pid) {
                new.push(r);
            }
        }
        new.sort_by_key(|r| r.pid);
        new
    }

    /// Takes no more processes: those the command starts from now on run unrecorded instead
    /// of connecting and waiting (the preload script looks for [`CLOSED`]).
    pub fn close(&self) -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.dir.join(CLOSED))
            .map(drop)
    }

    /// Every process recorded so far.
    pub fn pids(&self) -> impl Iterator<Item = u32> + '_ {
        self.seen.iter().copied()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.accept.abort();
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

/// Where a launched program's standard streams and working directory come from.
#[derive(Clone, Debug, Default)]
pub struct LaunchOptions {
    /// The program's standard output goes to our standard error, keeping our own standard
    /// output clean for JSON (or a protocol).
    pub stdout_to_stderr: bool,
    /// The program reads an empty standard input (`/dev/null`) instead of ours: when ours is a
    /// protocol channel (MCP over stdio), the program must neither read nor hold it.
    pub stdin_null: bool,
    /// The program's working directory; ours when `None`.
    pub dir: Option<std::path::PathBuf>,
}

/// Starts `command` with every Node process in it announcing itself to a new [`Registry`].
/// With `stdout_to_stderr` the program's standard output goes to our standard error, keeping
/// our own standard output clean for JSON.
pub fn launch(command: &[String], stdout_to_stderr: bool) -> Result<Launched> {
    launch_with(
        command,
        &LaunchOptions {
            stdout_to_stderr,
            ..LaunchOptions::default()
        },
    )
}

/// [`launch`] with its streams and directory as `options` say.
pub fn launch_with(command: &[String], options: &LaunchOptions) -> Result<Launched> {
    let stdout_to_stderr = options.stdout_to_stderr;
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
    let node_options = std::env::var("NODE_OPTIONS").unwrap_or_default();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env(
            "NODE_OPTIONS",
            format!("{node_options} --require {script}").trim(),
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
    if let Some(dir) = &options.dir {
        cmd.current_dir(dir);
    }
    let stdin = if options.stdin_null {
        Stdio::null()
    } else {
        Stdio::inherit()
    };
    cmd.stdin(stdin)
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

    #[tokio::test]
    async fn a_registry_is_private_and_takes_each_process_once() {
        use std::os::unix::fs::MetadataExt;
        let mut registry = Registry::create().unwrap();
        let dir = registry.dir().to_path_buf();
        let meta = std::fs::symlink_metadata(&dir).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name.len(), "jsprof-record-".len() + 32, "{name}");
        let script = std::fs::symlink_metadata(dir.join("register.js")).unwrap();
        assert_eq!(script.mode() & 0o777, 0o600);
        // A relay says who it is, then speaks CDP; a second connection of the same pid and a
        // peer that never says who it is are not processes to record.
        let hello =
            r#"{"pid":42,"ppid":1,"argv":["/usr/bin/node","/app/server.js","--port","80"]}"#;
        for _ in 0..2 {
            let mut s = tokio::net::UnixStream::connect(dir.join(SOCKET))
                .await
                .unwrap();
            s.write_all(format!("{hello}\n").as_bytes()).await.unwrap();
            std::mem::forget(s);
        }
        let mut garbage = tokio::net::UnixStream::connect(dir.join(SOCKET))
            .await
            .unwrap();
        garbage.write_all(b"{\"pid\":\n").await.unwrap();
        let mut found = Vec::new();
        for _ in 0..100 {
            found.extend(registry.poll());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].pid, 42);
        assert_eq!(found[0].title(), "server.js --port 80");
        registry.close().unwrap();
        assert!(dir.join(CLOSED).exists());
        drop(registry);
        assert!(!dir.exists(), "the registry is removed with its script");
    }

    #[test]
    fn title_of_an_eval() {
        assert_eq!(title_of(&["/usr/bin/node".to_string()]), "node");
    }
}
