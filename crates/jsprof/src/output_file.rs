//! The one writer of the files commands are told to write (`export -o`, `flamegraph -o`,
//! `flamechart -o`, `report -o`, `diff --flamegraph`, `lake flamegraph -o`, `lake diff
//! --flamegraph`): the output goes to a new file beside the target — created with `O_CREAT |
//! O_EXCL` under a random name, so nothing already there is opened — and is renamed over the
//! target only once complete. So:
//!
//! - a symbolic link at the target (planted in a shared `/tmp`, or the user's own) is replaced by
//!   the file, never written through: the file it points to is untouched;
//! - a failed or interrupted write leaves the target as it was, and no temporary file;
//! - the new file's mode is what the user's umask gives a new file (0644 with the usual 022),
//!   except that a regular file replaced keeps its mode (a report made private stays private).
//!
//! Replacing a file breaks its hard links (they keep the old content). In a sticky directory
//! (`/tmp`) another user's file or link cannot be replaced: the rename fails with an error and
//! nothing is written. `-` is stdout.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Where a command's output goes: stdout, or a file that appears whole at [`Output::finish`].
pub enum Output {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    File(OutputFile),
}

/// A file to write, or stdout for `-`. Call [`Output::finish`] once written: without it a file is
/// not kept.
pub fn create_output(path: &Path) -> Result<Output> {
    if path.as_os_str() == "-" {
        return Ok(Output::Stdout(BufWriter::new(io::stdout().lock())));
    }
    Ok(Output::File(OutputFile::create(path)?))
}

impl Output {
    /// Flushes stdout, or puts the file in place.
    pub fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut out) => Ok(out.flush()?),
            Output::File(file) => file.finish(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.write_all(buf),
            Output::File(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(file) => file.flush(),
        }
    }
}

/// A file being written for `target` (see the module's documentation); removed when dropped
/// before [`OutputFile::finish`].
pub struct OutputFile {
    target: PathBuf,
    temp: PathBuf,
    out: Option<BufWriter<File>>,
}

impl OutputFile {
    pub fn create(target: &Path) -> Result<OutputFile> {
        let cannot = || format!("cannot create {}", target.display());
        let name = target
            .file_name()
            .filter(|_| !target.as_os_str().to_string_lossy().ends_with('/'))
            .with_context(|| format!("{}: not a file name", target.display()))?;
        if fs::metadata(target).is_ok_and(|m| m.is_dir()) {
            anyhow::bail!("{}: is a directory", target.display());
        }
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut last = None;
        for _ in 0..100 {
            let temp = dir.join(format!(
                ".{}.{:016x}.jsprof-tmp",
                name.to_string_lossy(),
                random_u64()
            ));
            match File::options().write(true).create_new(true).open(&temp) {
                Ok(file) => {
                    keep_mode_of(target, &file);
                    return Ok(OutputFile {
                        target: target.to_path_buf(),
                        temp,
                        out: Some(BufWriter::with_capacity(1 << 16, file)),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e).with_context(cannot),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free name"))).with_context(cannot)
    }

    /// Flushes the file and renames it over the target.
    pub fn finish(mut self) -> Result<()> {
        let out = self.out.take().expect("finished once");
        let file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("writing {}", self.target.display()))?;
        drop(file);
        fs::rename(&self.temp, &self.target)
            .with_context(|| format!("cannot replace {}", self.target.display()))?;
        // Renamed: nothing left to remove.
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.as_mut().expect("not finished").write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.as_mut().expect("not finished").write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().expect("not finished").flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            self.out = None;
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// A regular file being replaced keeps its permissions (not a link's target: a link is replaced,
/// and what it points to is none of the output's business).
fn keep_mode_of(target: &Path, file: &File) {
    if let Ok(meta) = fs::symlink_metadata(target) {
        if meta.is_file() {
            #[cfg(unix)]
            let permissions = {
                use std::os::unix::fs::PermissionsExt;
                fs::Permissions::from_mode(meta.permissions().mode() & 0o777)
            };
            #[cfg(not(unix))]
            let permissions = meta.permissions();
            let _ = file.set_permissions(permissions);
        }
    }
}

/// 64 bits no other user can guess (one definition, beside the heap's scratch files).
pub(crate) use jsprof_heap::random_u64;
