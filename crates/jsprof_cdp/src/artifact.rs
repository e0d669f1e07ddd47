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
}

impl ArtifactKind {
    pub fn extension(self) -> &'static str {
        match self {
            ArtifactKind::CpuProfile => "cpuprofile",
            ArtifactKind::HeapProfile => "heapprofile",
            ArtifactKind::HeapSnapshot => "heapsnapshot",
            ArtifactKind::Trace => "trace.json",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::CpuProfile => "cpu",
            ArtifactKind::HeapProfile => "heap-sampling",
            ArtifactKind::HeapSnapshot => "heap-snapshot",
            ArtifactKind::Trace => "trace",
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

/// A file being written: `DIR/.NAME.partial` until [`PartialFile::commit`].
pub struct PartialFile {
    kind: ArtifactKind,
    tmp: PathBuf,
    target: PathBuf,
    out: Option<BufWriter<File>>,
    bytes: u64,
}

/// A path in `dir` named `stem.ext` that does not exist yet (`stem-2.ext`, … otherwise).
pub fn unused_path(dir: &Path, stem: &str, ext: &str) -> PathBuf {
    let mut path = dir.join(format!("{stem}.{ext}"));
    let mut n = 2;
    while path.exists()
        || dir
            .join(format!(
                ".{}.partial",
                path.file_name().unwrap_or_default().to_string_lossy()
            ))
            .exists()
    {
        path = dir.join(format!("{stem}-{n}.{ext}"));
        n += 1;
    }
    path
}

impl PartialFile {
    pub fn create(dir: &Path, stem: &str, kind: ArtifactKind) -> Result<PartialFile> {
        std::fs::create_dir_all(dir)
            .map_err(|e| CdpError::io(format!("cannot create {}", dir.display()), e))?;
        let target = unused_path(dir, stem, kind.extension());
        let name = target
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let tmp = dir.join(format!(".{name}.partial"));
        let file = File::create(&tmp)
            .map_err(|e| CdpError::io(format!("cannot create {}", tmp.display()), e))?;
        Ok(PartialFile {
            kind,
            tmp,
            target,
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            bytes: 0,
        })
    }

    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        let out = self.out.as_mut().expect("not committed");
        out.write_all(data)
            .map_err(|e| CdpError::io(format!("cannot write {}", self.tmp.display()), e))?;
        self.bytes += data.len() as u64;
        Ok(())
    }

    /// Flushes, syncs and renames into place.
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
        std::fs::rename(&self.tmp, &self.target).map_err(|e| {
            CdpError::io(
                format!("cannot rename {} into place", self.tmp.display()),
                e,
            )
        })?;
        Ok(Artifact {
            kind: self.kind,
            path: self.target.clone(),
            bytes: self.bytes,
        })
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if self.out.is_some() {
            // Never committed: remove the partial file rather than leave it behind.
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
