//! Files a recording produces: written under a temporary name, synced, then renamed, so a partly
//! recorded file never sits under a final name, and never over an existing file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{CdpError, Result};

/// What a recorded file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArtifactKind {
    CpuProfile,
    HeapProfile,
    HeapSnapshot,
    Trace,
    /// `process.memoryUsage()` of a Node isolate, taken right after its heap snapshot
    /// ([`crate::RecordOptions::memory_usage`]).
    MemoryUsage,
}

impl ArtifactKind {
    pub fn extension(self) -> &'static str {
        match self {
            ArtifactKind::CpuProfile => "cpuprofile",
            ArtifactKind::HeapProfile => "heapprofile",
            ArtifactKind::HeapSnapshot => "heapsnapshot",
            ArtifactKind::Trace => "trace.json",
            ArtifactKind::MemoryUsage => "memory.json",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::CpuProfile => "cpu",
            ArtifactKind::HeapProfile => "heap-sampling",
            ArtifactKind::HeapSnapshot => "heap-snapshot",
            ArtifactKind::Trace => "trace",
            ArtifactKind::MemoryUsage => "memory-usage",
        }
    }
}

/// A finished file.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub kind: ArtifactKind,
    pub path: PathBuf,
    pub bytes: u64,
}

/// A file being written: `DIR/.NAME.partial` until [`PartialFile::commit`]. On any error, and
/// when dropped uncommitted, the partial file is removed.
pub struct PartialFile {
    kind: ArtifactKind,
    tmp: PathBuf,
    target: PathBuf,
    out: Option<BufWriter<File>>,
    bytes: u64,
    committed: bool,
}

/// Whether anything — a file, a directory, a link even dangling — has this name.
fn taken(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

fn partial_of(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.partial"))
}

/// A path in `dir` named `stem.ext` that does not exist yet (`stem-2.ext`, … otherwise). A
/// dangling link counts as taken: writing through it would create its target.
pub fn unused_path(dir: &Path, stem: &str, ext: &str) -> PathBuf {
    let mut path = dir.join(format!("{stem}.{ext}"));
    let mut n = 2;
    while taken(&path) || taken(&partial_of(&path)) {
        path = dir.join(format!("{stem}-{n}.{ext}"));
        n += 1;
    }
    path
}

/// Creates `path` for writing only if nothing has that name: never through a link, never over a
/// file; readable by its owner only (recordings hold process memory).
fn create_private(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

impl PartialFile {
    pub fn create(dir: &Path, stem: &str, kind: ArtifactKind) -> Result<PartialFile> {
        std::fs::create_dir_all(dir)
            .map_err(|e| CdpError::io(format!("cannot create {}", dir.display()), e))?;
        // A name can be taken between the check and the open (another writer, a planted link):
        // `create_new` refuses it, and the next name is tried.
        for _ in 0..1000 {
            let target = unused_path(dir, stem, kind.extension());
            let tmp = partial_of(&target);
            match create_private(&tmp) {
                Ok(file) => {
                    return Ok(PartialFile {
                        kind,
                        tmp,
                        target,
                        out: Some(BufWriter::with_capacity(1 << 20, file)),
                        bytes: 0,
                        committed: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(CdpError::io(format!("cannot create {}", tmp.display()), e)),
            }
        }
        Err(CdpError::Target(format!(
            "cannot find an unused file name for {stem}.{} in {}",
            kind.extension(),
            dir.display()
        )))
    }

    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        let out = self.out.as_mut().expect("not committed");
        out.write_all(data)
            .map_err(|e| CdpError::io(format!("cannot write {}", self.tmp.display()), e))?;
        self.bytes += data.len() as u64;
        Ok(())
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Flushes, syncs and links into place under a name nothing else has. On error the partial
    /// file is removed (by `Drop`): a full disk leaves nothing behind.
    pub fn commit(mut self) -> Result<Artifact> {
        let out = self.out.take().expect("not committed");
        let file = out.into_inner().map_err(|e| {
            CdpError::io(
                format!("cannot write {}", self.tmp.display()),
                e.into_error(),
            )
        })?;
        file.sync_all()
            .map_err(|e| CdpError::io(format!("cannot sync {}", self.tmp.display()), e))?;
        drop(file);
        // A hard link fails if the final name appeared meanwhile; rename would replace it.
        match std::fs::hard_link(&self.tmp, &self.target) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(CdpError::io(
                    format!("{} appeared while recording", self.target.display()),
                    e,
                ))
            }
            // A file system without hard links: rename, the name having been checked free.
            Err(_) if !taken(&self.target) => {
                std::fs::rename(&self.tmp, &self.target).map_err(|e| {
                    CdpError::io(
                        format!("cannot rename {} into place", self.tmp.display()),
                        e,
                    )
                })?
            }
            Err(e) => {
                return Err(CdpError::io(
                    format!("cannot move {} into place", self.tmp.display()),
                    e,
                ))
            }
        }
        self.committed = true;
        let _ = std::fs::remove_file(&self.tmp);
        if let Some(dir) = self.target.parent() {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(Artifact {
            kind: self.kind,
            path: self.target.clone(),
            bytes: self.bytes,
        })
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.committed {
            // Never committed (an error, or abandoned): remove the partial file.
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// `YYYYMMDD-HHMMSS` in UTC, for file names.
pub fn timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let t = utc(secs);
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        t.year, t.month, t.day, t.hour, t.minute, t.second
    )
}

/// A UTC calendar time (no time-zone database needed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UtcTime {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
}

/// The UTC calendar time of `secs` seconds since 1970-01-01.
pub fn utc(secs: i64) -> UtcTime {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    UtcTime {
        year: yoe + era * 400 + i64::from(month <= 2),
        month,
        day,
        hour: rem / 3600,
        minute: rem / 60 % 60,
        second: rem % 60,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("jsprof-artifact-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_never_written_through() {
        let dir = scratch("link");
        let victim = dir.join("victim");
        std::os::unix::fs::symlink(&victim, dir.join(".p.cpuprofile.partial")).unwrap();
        let mut f = PartialFile::create(&dir, "p", ArtifactKind::CpuProfile).unwrap();
        f.write(b"{}").unwrap();
        let a = f.commit().unwrap();
        assert_eq!(a.path, dir.join("p-2.cpuprofile"));
        assert!(!taken(&victim));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&a.path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_abandoned_file_leaves_nothing() {
        let dir = scratch("drop");
        let mut f = PartialFile::create(&dir, "p", ArtifactKind::HeapSnapshot).unwrap();
        f.write(b"x").unwrap();
        drop(f);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
