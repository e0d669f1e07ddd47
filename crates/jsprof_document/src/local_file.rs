//! Reading the files a profile points at: the scripts whose `sourceMappingURL` comments name
//! their maps, the maps, and the source text of the per-line view.
//!
//! A profile is input, so the paths it names are chosen by whoever wrote it. One reader serves
//! them all, and it
//! - reads regular files only: the file is opened without blocking (`O_NONBLOCK`, so a FIFO
//!   never hangs the reader) and its type is taken from the open handle, so a FIFO, a device
//!   (`/dev/zero`), a terminal or a pipe (`/dev/stdin`, the MCP channel) is refused at once;
//! - reads at most a stated number of bytes, whatever the file claims;
//! - when the caller confines reads to roots (MCP's `--root`), reads only below them, judged on
//!   the file actually opened (`/proc/self/fd`), so a link or a swapped directory leads nowhere.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// An open regular file a profile pointed at, and its length.
pub struct Pointed {
    pub file: File,
    pub len: u64,
    /// The path it was opened by: canonical when roots were given, else as given.
    pub path: PathBuf,
}

/// Why a file a profile (or an agent) pointed at is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PointedError {
    /// Outside the roots: judged on the path as written before the file system is asked, then on
    /// where its links lead (followed as far as they exist), so the words are the same whether or
    /// not the file exists.
    Outside(String),
    /// Inside the roots (or no roots) but not readable: missing, not a regular file, an I/O error.
    Unreadable(String),
}

impl std::fmt::Display for PointedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PointedError::Outside(m) | PointedError::Unreadable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PointedError {}

impl From<PointedError> for String {
    fn from(e: PointedError) -> String {
        e.to_string()
    }
}

/// Opens `path` if it is a regular file (below one of `roots`, when any are given).
pub fn open_regular(path: &Path, roots: &[PathBuf]) -> Result<Pointed, PointedError> {
    let shown = path.display();
    let outside =
        || PointedError::Outside(format!("{shown} is outside the roots this server may read"));
    let unreadable = |e: &dyn std::fmt::Display| PointedError::Unreadable(format!("{shown}: {e}"));
    let path = if roots.is_empty() {
        path.to_path_buf()
    } else {
        // Judged first on the path as written, so that whether a file outside the roots exists
        // is never told; then on where its links lead.
        let written = std::path::absolute(path).map_err(|e| unreadable(&e))?;
        if !lexically_under(&written, roots) {
            return Err(outside());
        }
        let canon = match std::fs::canonicalize(path) {
            Ok(canon) => canon,
            // A missing file behind a link that leads out is outside too, not "missing".
            Err(e) => {
                return Err(match leads_to(&written, MAX_HOPS) {
                    Some(to) if !under(&to, roots) => outside(),
                    _ => unreadable(&e),
                })
            }
        };
        if !under(&canon, roots) {
            return Err(outside());
        }
        canon
    };
    let file = open_nonblocking(&path).map_err(|e| unreadable(&e))?;
    let meta = file.metadata().map_err(|e| unreadable(&e))?;
    if !meta.is_file() {
        return Err(PointedError::Unreadable(format!(
            "{shown} is not a regular file (a FIFO, device, socket or directory is never read)"
        )));
    }
    if !roots.is_empty() {
        if let Some(opened) = opened_path(&file) {
            if !under(&opened, roots) {
                return Err(outside());
            }
        }
    }
    Ok(Pointed {
        len: meta.len(),
        file,
        path,
    })
}

/// Whether `path` (absolute) lies below one of `roots` as written: `.` and `..` resolved, links
/// not followed. Asks nothing of the file system, so it cannot tell whether the file exists.
pub fn lexically_under(path: &Path, roots: &[PathBuf]) -> bool {
    under(&lexical(path), roots)
}

/// Links followed at most when judging where a missing path leads (the kernel's own limit).
const MAX_HOPS: u32 = 40;

/// Where `path` leads when it does not exist: its links followed as far as they exist, the
/// missing rest appended. `None` when that cannot be told (a loop, an unreadable link).
fn leads_to(path: &Path, hops: u32) -> Option<PathBuf> {
    if let Ok(canon) = std::fs::canonicalize(path) {
        return Some(canon);
    }
    let hops = hops.checked_sub(1)?;
    let parent = leads_to(path.parent()?, hops)?;
    let meta = std::fs::symlink_metadata(path);
    if meta.is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::read_link(path).ok()?;
        return leads_to(&parent.join(target), hops);
    }
    Some(lexical(&parent.join(path.file_name()?)))
}

/// The whole of a regular file no larger than `max` bytes; a larger one is refused, never read.
pub fn read_bounded(path: &Path, max: u64, roots: &[PathBuf]) -> Result<Vec<u8>, String> {
    let pointed = open_regular(path, roots)?;
    if pointed.len > max {
        return Err(format!(
            "{} is {} bytes, more than the {max} read for it",
            path.display(),
            pointed.len
        ));
    }
    let mut bytes = Vec::with_capacity(pointed.len as usize);
    pointed
        .file
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "{} grew past the {max} bytes read for it",
            path.display()
        ));
    }
    Ok(bytes)
}

/// The first `max` bytes of a regular file (the rest is not read).
pub fn read_prefix(path: &Path, max: u64, roots: &[PathBuf]) -> Result<Vec<u8>, String> {
    read_part(path, max, roots, |_| 0).map(|(bytes, _)| bytes)
}

/// The last `max` bytes of a regular file, and whether they are the whole file (the rest is not
/// read).
pub fn read_suffix(path: &Path, max: u64, roots: &[PathBuf]) -> Result<(Vec<u8>, bool), String> {
    read_part(path, max, roots, |len| len.saturating_sub(max))
        .map(|(bytes, from)| (bytes, from == 0))
}

/// At most `max` bytes of a regular file from the offset `start` gives for its length, and that
/// offset.
fn read_part(
    path: &Path,
    max: u64,
    roots: &[PathBuf],
    start: impl FnOnce(u64) -> u64,
) -> Result<(Vec<u8>, u64), String> {
    use std::io::{Seek, SeekFrom};
    let failed = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut pointed = open_regular(path, roots)?;
    let from = start(pointed.len);
    if from > 0 {
        pointed.file.seek(SeekFrom::Start(from)).map_err(failed)?;
    }
    let mut bytes = Vec::with_capacity(pointed.len.saturating_sub(from).min(max) as usize);
    pointed
        .file
        .take(max)
        .read_to_end(&mut bytes)
        .map_err(failed)?;
    Ok((bytes, from))
}

fn under(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| path.starts_with(root))
}

/// `path` with `.` and `..` resolved as written (links are not followed), without touching
/// the disk: `a/b/../c` → `a/c`.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// The path the kernel has for an open file, where it says (Linux).
#[cfg(target_os = "linux")]
fn opened_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

#[cfg(not(target_os = "linux"))]
fn opened_path(_file: &File) -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("jsprof-local-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn reads_a_regular_file_within_its_bound_and_refuses_a_larger_one() {
        let dir = scratch("bound");
        let f = dir.join("a.map");
        std::fs::write(&f, b"0123456789").unwrap();
        assert_eq!(read_bounded(&f, 10, &[]).unwrap(), b"0123456789");
        let err = read_bounded(&f, 9, &[]).unwrap_err();
        assert!(err.contains("10 bytes, more than the 9"), "{err}");
        assert_eq!(read_prefix(&f, 4, &[]).unwrap(), b"0123");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_a_device_and_stdin_are_refused_at_once() {
        let dir = scratch("special");
        let fifo = dir.join("fifo.map");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let started = Instant::now();
        for path in [
            fifo.as_path(),
            Path::new("/dev/zero"),
            Path::new("/dev/stdin"),
        ] {
            let err = read_bounded(path, 1 << 20, &[]).unwrap_err();
            assert!(
                err.contains("not a regular file") || err.contains("No such"),
                "{}: {err}",
                path.display()
            );
            assert!(read_prefix(path, 1 << 20, &[]).is_err());
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "a special file blocked the reader"
        );
        assert!(read_bounded(&dir, 10, &[])
            .unwrap_err()
            .contains("not a regular file"));
    }

    #[cfg(unix)]
    #[test]
    fn roots_confine_reads_through_links() {
        let dir = scratch("roots");
        let root = dir.join("root");
        let outside = dir.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.map"), b"{}").unwrap();
        std::fs::write(root.join("ok.map"), b"{}").unwrap();
        std::os::unix::fs::symlink(outside.join("secret.map"), root.join("link.map")).unwrap();
        let roots = [std::fs::canonicalize(&root).unwrap()];
        assert_eq!(
            read_bounded(&root.join("ok.map"), 10, &roots).unwrap(),
            b"{}"
        );
        for p in [
            outside.join("secret.map"),
            outside.join("missing.map"),
            root.join("link.map"),
            root.join("../outside/secret.map"),
        ] {
            let err = read_bounded(&p, 10, &roots).unwrap_err();
            assert!(err.contains("outside the roots"), "{}: {err}", p.display());
        }
        // Existing or not, a path outside gets the same words: as written, through a link to a
        // directory outside, and through a dangling link.
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
        std::os::unix::fs::symlink(outside.join("missing.map"), root.join("dangling.map")).unwrap();
        let refusal = |p: PathBuf| match open_regular(&p, &roots) {
            Err(PointedError::Outside(m)) => m.replace(&p.display().to_string(), "PATH"),
            other => panic!("{}: {:?}", p.display(), other.map(|_| ())),
        };
        let told = refusal(outside.join("secret.map"));
        for p in [
            outside.join("missing.map"),
            root.join("out/secret.map"),
            root.join("out/missing.map"),
            root.join("dangling.map"),
            root.join("../outside/missing.map"),
        ] {
            assert_eq!(refusal(p), told);
        }
        // Inside the roots, a missing file is said to be missing.
        assert!(matches!(
            open_regular(&root.join("missing.map"), &roots),
            Err(PointedError::Unreadable(_))
        ));
        // No roots: the user's own files, links followed.
        assert_eq!(
            read_bounded(&root.join("link.map"), 10, &[]).unwrap(),
            b"{}"
        );
    }
}
