//! Private directories and files: everything a lake holds (its Parquet files, `lake.json`, the
//! ingest spool and the traces it set aside) is its owner's only — directories 0700, files 0600 —
//! whatever the umask. Profiles carry function names, script URLs and labels; traces posted from
//! the field carry pages' code paths. Modes are set on creation, never loosened or tightened on
//! what already exists, so a lake made by an older jsprof (or shared on purpose) keeps working
//! with the modes it has.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Creates `dir` and its missing parents, each mode 0700 (set explicitly: a umask that removes
/// the owner's bits does not make it unusable). Existing directories are left as they are.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dir_all(parent)?;
    }
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Ok(()) => set_mode(dir, 0o700),
        // Made meanwhile by another writer: theirs, with the mode they gave it.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates (or truncates) `path` for writing, mode 0600, without following a symbolic link at
/// `path`. A file that existed with another mode is given 0600 too: its old content is gone.
pub fn create_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// Creates `path`, which must not exist, for appending, mode 0600.
pub fn create_new_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn directories_and_files_are_private_and_existing_ones_are_left_alone() {
        let root = std::env::temp_dir().join(format!("jsprof-private-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        set_mode(&root, 0o755).unwrap();
        let deep = root.join("a/b/c");
        create_dir_all(&deep).unwrap();
        for d in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&root.join(d)), 0o700, "{d}");
        }
        assert_eq!(mode(&root), 0o755, "an existing directory keeps its mode");
        let f = deep.join("f");
        std::fs::write(&f, b"old").unwrap();
        set_mode(&f, 0o644).unwrap();
        drop(create_file(&f).unwrap());
        assert_eq!(mode(&f), 0o600);
        assert_eq!(std::fs::read(&f).unwrap(), b"");
        let link = deep.join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(create_file(&link).is_err(), "a link is not written through");
        let g = deep.join("g");
        drop(create_new_append(&g).unwrap());
        assert_eq!(mode(&g), 0o600);
        assert!(create_new_append(&g).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
