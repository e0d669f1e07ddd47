//! Finding the WebSocket URL of what to record: a Node inspector by address, a running Node
//! process by pid (switched on with SIGUSR1), or a page of a Chromium started with
//! `--remote-debugging-port`.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::endpoint::{self, Reach};
use crate::error::{CdpError, Result};
use crate::http::get_json;

/// What kind of endpoint a target is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Node,
    ChromePage,
}

/// A target ready to connect to.
#[derive(Clone, Debug)]
pub struct Target {
    pub ws_url: String,
    pub kind: TargetKind,
    /// A short human description (`node[1234]`, a page title).
    pub title: String,
    pub pid: Option<u32>,
}

const HTTP_TIMEOUT: Duration = Duration::from_secs(5);

/// The port SIGUSR1 opens Node's inspector on.
pub const NODE_DEFAULT_PORT: u16 = 9229;

fn ws_of(entry: &Value, addr: &str) -> Option<String> {
    entry
        .get("webSocketDebuggerUrl")
        .and_then(Value::as_str)
        .map(str::to_string)
        // Chrome omits the URL while another client is attached; the id still works.
        .or_else(|| {
            entry
                .get("id")
                .and_then(Value::as_str)
                .map(|id| format!("ws://{addr}/{id}"))
        })
}

/// Refuses a WebSocket URL whose host `reach` does not allow: a URL given by the caller, or one
/// that an inspector's `/json/list` answered (it could name any host).
async fn check_ws_url(url: &str, reach: Reach) -> Result<()> {
    let endpoint = endpoint::ws_endpoint(url)?;
    endpoint::resolve(&endpoint, reach).await.map(|_| ())
}

/// `HOST:PORT` of a Node inspector, or a `ws://` URL as is; only on addresses `reach` allows.
pub async fn resolve_inspect(spec: &str, reach: Reach) -> Result<Target> {
    let target = resolve_inspect_unchecked(spec, reach).await?;
    check_ws_url(&target.ws_url, reach).await?;
    Ok(target)
}

async fn resolve_inspect_unchecked(spec: &str, reach: Reach) -> Result<Target> {
    if spec.starts_with("ws://") || spec.starts_with("wss://") {
        let kind = if spec.contains("/devtools/page/") {
            TargetKind::ChromePage
        } else {
            TargetKind::Node
        };
        return Ok(Target {
            ws_url: spec.to_string(),
            kind,
            title: spec.to_string(),
            pid: None,
        });
    }
    let list = get_json(spec, "/json/list", "GET", HTTP_TIMEOUT, reach).await?;
    let entries = list.as_array().cloned().unwrap_or_default();
    let pick = entries
        .iter()
        .find(|e| e.get("type").and_then(Value::as_str) == Some("node"))
        .or_else(|| {
            entries
                .iter()
                .find(|e| e.get("type").and_then(Value::as_str) == Some("page"))
        })
        .ok_or_else(|| {
            CdpError::Target(format!(
                "{spec}: the inspector lists no Node or page target"
            ))
        })?;
    let kind = if pick.get("type").and_then(Value::as_str) == Some("page") {
        TargetKind::ChromePage
    } else {
        TargetKind::Node
    };
    let title = pick
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let pid = title
        .strip_prefix("node[")
        .and_then(|t| t.strip_suffix(']'))
        .and_then(|p| p.parse().ok());
    let ws_url = ws_of(pick, spec)
        .ok_or_else(|| CdpError::Target(format!("{spec}: no WebSocket URL for the target")))?;
    Ok(Target {
        ws_url,
        kind,
        title,
        pid,
    })
}

/// A page of a Chromium started with `--remote-debugging-port`: the first ordinary page, or a new
/// blank one; only on addresses `reach` allows.
pub async fn resolve_chrome(addr: &str, reach: Reach) -> Result<Target> {
    let list = get_json(addr, "/json/list", "GET", HTTP_TIMEOUT, reach).await?;
    let entries = list.as_array().cloned().unwrap_or_default();
    let page = entries.iter().find(|e| {
        e.get("type").and_then(Value::as_str) == Some("page")
            && !e
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or("")
                .starts_with("devtools://")
    });
    let page = match page {
        Some(p) => p.clone(),
        None => new_tab(addr, reach).await?,
    };
    page_target(addr, &page, reach).await
}

/// A new tab (on `about:blank`) of a Chromium started with `--remote-debugging-port`, for a
/// recording of its own: a page load recorded there leaves the user's pages alone.
pub async fn open_chrome_tab(addr: &str, reach: Reach) -> Result<Target> {
    let page = new_tab(addr, reach).await?;
    page_target(addr, &page, reach).await
}

async fn new_tab(addr: &str, reach: Reach) -> Result<Value> {
    // Chrome ≥ 111 wants PUT for /json/new.
    get_json(addr, "/json/new?about:blank", "PUT", HTTP_TIMEOUT, reach).await
}

async fn page_target(addr: &str, page: &Value, reach: Reach) -> Result<Target> {
    let ws_url = ws_of(page, addr)
        .ok_or_else(|| CdpError::Target(format!("{addr}: no WebSocket URL for the page")))?;
    let title = page
        .get("url")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    check_ws_url(&ws_url, reach).await?;
    Ok(Target {
        ws_url,
        kind: TargetKind::ChromePage,
        title,
        pid: None,
    })
}

/// Whether a process with this pid exists (and may be signalled by us).
fn process_exists(pid: u32) -> bool {
    // SAFETY: kill with signal 0 only checks for existence and permission.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
}

/// Whether an executable's path names Node (`node`, `nodejs`, `node20`, `node-v20…`).
fn is_node_path(path: &str) -> bool {
    let path = path.strip_suffix(" (deleted)").unwrap_or(path);
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "nodejs"
        || name.strip_prefix("node").is_some_and(|rest| {
            rest.is_empty()
                || rest.starts_with(['-', '.'])
                || rest.starts_with(|c: char| c.is_ascii_digit())
        })
}

/// Refuses a pid that is not a Node process of this user. SIGUSR1's default action terminates a
/// process, so it goes only to a process whose executable is Node (`/proc/PID/exe`; its
/// `cmdline` only when the link cannot be read) and whose owner is our effective uid.
pub fn check_node_process(pid: u32) -> Result<()> {
    if pid == 0 || pid > i32::MAX as u32 {
        return Err(CdpError::NotAllowed(format!(
            "pid {pid} is not a process id"
        )));
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
        let meta = std::fs::metadata(&proc)
            .map_err(|_| CdpError::Target(format!("no process with pid {pid}")))?;
        // SAFETY: geteuid has no preconditions.
        let euid = unsafe { libc::geteuid() };
        if meta.uid() != euid {
            return Err(CdpError::NotAllowed(format!(
                "pid {pid} belongs to another user (uid {}); only processes of uid {euid} are signalled",
                meta.uid()
            )));
        }
        let exe = std::fs::read_link(proc.join("exe"))
            .ok()
            .map(|p| p.to_string_lossy().into_owned());
        let program = match exe {
            Some(exe) => exe,
            None => std::fs::read(proc.join("cmdline"))
                .ok()
                .and_then(|c| {
                    c.split(|&b| b == 0)
                        .next()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                })
                .unwrap_or_default(),
        };
        if !is_node_path(&program) {
            return Err(CdpError::NotAllowed(format!(
                "pid {pid} is not a Node process (it runs `{}`); SIGUSR1 would terminate it",
                program.escape_default()
            )));
        }
    }
    #[cfg(not(target_os = "linux"))]
    if !process_exists(pid) {
        // Without /proc the executable cannot be checked here; the signal still needs our
        // permission to send.
        return Err(CdpError::Target(format!(
            "no process with pid {pid} (or not ours to signal)"
        )));
    }
    Ok(())
}

/// A running Node process: SIGUSR1 turns on its inspector on 127.0.0.1:9229; wait for it. Refuses
/// a process that is not Node or not ours ([`check_node_process`]), and a port that already
/// serves another process.
pub async fn resolve_pid(pid: u32, wait: Duration) -> Result<Target> {
    check_node_process(pid)?;
    let addr = format!("127.0.0.1:{NODE_DEFAULT_PORT}");
    // Something already on the port: it must be this very process's inspector.
    if let Ok(target) = resolve_inspect(&addr, Reach::Loopback).await {
        return match inspector_pid(&target).await {
            Some(p) if p == pid => Ok(Target { pid: Some(pid), ..target }),
            other => Err(CdpError::Target(format!(
                "port {NODE_DEFAULT_PORT} is taken by another inspector ({}{}); cannot open pid {pid}'s",
                target.title,
                other.map(|p| format!(", pid {p}")).unwrap_or_default()
            ))),
        };
    }
    if std::net::TcpStream::connect_timeout(
        &addr.parse().expect("valid address"),
        Duration::from_millis(300),
    )
    .is_ok()
    {
        return Err(CdpError::Target(format!(
            "port {NODE_DEFAULT_PORT} is taken by another process that is not a Node inspector; pid {pid}'s inspector cannot open there"
        )));
    }
    // SAFETY: sending SIGUSR1 to a pid that exists; Node installs a handler that opens the inspector.
    if unsafe { libc::kill(pid as libc::pid_t, libc::SIGUSR1) } != 0 {
        return Err(CdpError::Target(format!(
            "cannot signal pid {pid}: {}",
            std::io::Error::last_os_error()
        )));
    }
    let deadline = Instant::now() + wait;
    loop {
        if let Ok(target) = resolve_inspect(&addr, Reach::Loopback).await {
            return match target.pid {
                Some(p) if p != pid => Err(CdpError::Target(format!(
                    "port {NODE_DEFAULT_PORT} answered for {}, not pid {pid}",
                    target.title
                ))),
                _ => Ok(Target {
                    pid: Some(pid),
                    ..target
                }),
            };
        }
        if !process_exists(pid) {
            return Err(CdpError::Target(format!(
                "pid {pid} exited after SIGUSR1 (was it a Node process?)"
            )));
        }
        if Instant::now() > deadline {
            return Err(CdpError::Timeout {
                what: format!("pid {pid}'s inspector on {addr} after SIGUSR1"),
                after: wait,
            });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The pid behind a Node inspector: from its title (`node[1234]`), else asked over CDP.
async fn inspector_pid(target: &Target) -> Option<u32> {
    if target.pid.is_some() {
        return target.pid;
    }
    let (client, _events) =
        crate::client::Client::connect(&target.ws_url, HTTP_TIMEOUT, Reach::Loopback)
            .await
            .ok()?;
    let reply = client
        .call(
            "Runtime.evaluate",
            serde_json::json!({"expression": "process.pid", "returnByValue": true}),
            HTTP_TIMEOUT,
        )
        .await
        .ok();
    client.close();
    reply?
        .get("result")?
        .get("value")?
        .as_u64()
        .map(|p| p as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_executables() {
        for p in [
            "/usr/bin/node",
            "/opt/node-v20.11.0/bin/node",
            "/usr/bin/nodejs",
            "node20",
            "/usr/bin/node (deleted)",
        ] {
            assert!(is_node_path(p), "{p}");
        }
        for p in [
            "/usr/bin/sleep",
            "/usr/bin/python3",
            "/bin/nodemon",
            "/x/node/bin/deno",
            "",
        ] {
            assert!(!is_node_path(p), "{p}");
        }
    }

    #[test]
    fn other_programs_are_never_signalled() {
        let mut sleep = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let err = check_node_process(sleep.id()).unwrap_err();
        assert!(matches!(err, CdpError::NotAllowed(_)), "{err}");
        assert!(sleep.try_wait().unwrap().is_none(), "sleep must still run");
        let _ = sleep.kill();
        let _ = sleep.wait();
    }
}
