//! Launching a Node command under the inspector: `--inspect-brk=127.0.0.1:0` (a free port, and
//! nothing runs before we start recording), the URL read from its stderr, its own output kept
//! flowing to the terminal.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

use crate::error::{CdpError, Result};

/// A launched command waiting for the recorder.
pub struct Launched {
    pub child: Child,
    pub ws_url: String,
    pub pid: u32,
}

/// Lines Node prints about the inspector itself, not the program's output.
fn is_inspector_chatter(line: &str) -> bool {
    line.starts_with("Debugger listening on ")
        || line.starts_with("For help, see: https://nodejs.org")
        || line == "Debugger attached."
        || line == "Waiting for the debugger to disconnect..."
        || line == "Debugger ending on ws://"
}

/// Starts `command` (`node app.js …`; other commands get the flag through `NODE_OPTIONS`). With
/// `stdout_to_stderr` the program's standard output goes to our standard error, keeping our own
/// standard output clean for JSON.
pub async fn launch(
    command: &[String],
    timeout: Duration,
    stdout_to_stderr: bool,
) -> Result<Launched> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| CdpError::Target("no command to run".to_string()))?;
    let flag = "--inspect-brk=127.0.0.1:0";
    let is_node = std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "node" || n.starts_with("node-") || n == "nodejs");
    let mut cmd = Command::new(program);
    if is_node {
        cmd.arg(flag).args(args);
    } else {
        let options = std::env::var("NODE_OPTIONS").unwrap_or_default();
        cmd.args(args)
            .env("NODE_OPTIONS", format!("{options} {flag}").trim());
    }
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
    // under it; the recorder then interrupts the program itself.
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| CdpError::io(format!("cannot run {program}"), e))?;
    let pid = child.id().unwrap_or(0);
    let stderr = child.stderr.take().expect("stderr is piped");
    let (url_tx, url_rx) = oneshot::channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        let mut url_tx = Some(url_tx);
        let mut err = tokio::io::stderr();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(rest) = line.strip_prefix("Debugger listening on ") {
                if let Some(tx) = url_tx.take() {
                    let _ = tx.send(rest.trim().to_string());
                }
            }
            if !is_inspector_chatter(&line) && !line.starts_with("Debugger ending on ") {
                let _ = err.write_all(format!("{line}\n").as_bytes()).await;
            }
        }
    });
    let ws_url = match tokio::time::timeout(timeout, url_rx).await {
        Ok(Ok(url)) => url,
        Ok(Err(_)) => {
            let status = child.wait().await.ok();
            return Err(CdpError::Target(format!(
                "{program} exited before its inspector started{}",
                status.map(|s| format!(" ({s})")).unwrap_or_default()
            )));
        }
        Err(_) => {
            let _ = child.kill().await;
            return Err(CdpError::Timeout {
                what: format!("{program} to print its inspector URL"),
                after: timeout,
            });
        }
    };
    Ok(Launched { child, ws_url, pid })
}
