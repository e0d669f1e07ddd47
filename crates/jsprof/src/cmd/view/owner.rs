//! `view`'s throwaway directories and who owns them. A view killed (`kill -9`, a closed terminal)
//! never removes its directory, which holds copies of the files it showed, so each view sweeps
//! the directories of earlier ones — but only those whose owner is provably gone. A pid alone
//! proves nothing: in another pid namespace (a container sharing `/tmp`) the same number is
//! another process, and a pid is reused. So each directory carries an `owner` file: the pid, the
//! pid namespace (`/proc/self/ns/pid`), the boot (`/proc/sys/kernel/random/boot_id`) and the
//! process's start time (`/proc/PID/stat`). A directory is removed only when it is this user's,
//! stamped in this pid namespace, and either from an earlier boot or its pid no longer names the
//! process that made it. Anything else stays: another namespace, no stamp (an older jsprof, or a
//! view still starting), a system without `/proc` (nothing is swept there).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const PREFIX: &str = "jsprof-view-";
const STAMP: &str = "owner";

/// What identifies a running process for as long as it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Owner {
    pub pid: u32,
    pub pid_ns: String,
    pub boot_id: String,
    /// Clock ticks after boot at which the process started (`/proc/PID/stat`, field 22).
    pub start: u64,
}

impl Owner {
    /// This process, where the system says all of it (Linux).
    pub fn current() -> Option<Owner> {
        let pid = std::process::id();
        Some(Owner {
            pid,
            pid_ns: pid_namespace()?,
            boot_id: boot_id()?,
            start: start_time(pid)?,
        })
    }

    fn to_text(&self) -> String {
        format!(
            "pid {}\npid_ns {}\nboot_id {}\nstart {}\n",
            self.pid, self.pid_ns, self.boot_id, self.start
        )
    }

    fn parse(text: &str) -> Option<Owner> {
        let mut fields = std::collections::HashMap::new();
        for line in text.lines() {
            let (key, value) = line.split_once(' ')?;
            fields.insert(key, value);
        }
        Some(Owner {
            pid: fields.get("pid")?.parse().ok()?,
            pid_ns: fields.get("pid_ns")?.to_string(),
            boot_id: fields.get("boot_id")?.to_string(),
            start: fields.get("start")?.parse().ok()?,
        })
    }

    /// True when the process `self` describes has certainly ended, judged by `here` (this
    /// process); `alive` says whether a pid of this namespace and boot names a process started at
    /// the given time.
    fn is_gone(&self, here: &Owner, alive: impl Fn(u32, u64) -> bool) -> bool {
        if self.pid_ns != here.pid_ns {
            // Another namespace's pid: not ours to judge.
            return false;
        }
        if self.boot_id != here.boot_id {
            // The machine has restarted since: no process of that boot runs.
            return true;
        }
        !alive(self.pid, self.start)
    }
}

fn pid_namespace() -> Option<String> {
    let link = fs::read_link("/proc/self/ns/pid").ok()?;
    Some(link.to_str()?.to_string())
}

fn boot_id() -> Option<String> {
    let id = fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_string()).filter(|id| !id.is_empty() && !id.contains(char::is_whitespace))
}

/// Field 22 of `/proc/PID/stat`; the name before it (in parentheses) may hold anything, so the
/// fields are counted from its closing parenthesis.
fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Whether `pid` (in this namespace) is the process that started at `start`: `false` only when
/// it certainly is not (no such process, or one started at another time).
fn is_alive(pid: u32, start: u64) -> bool {
    match start_time(pid) {
        Some(now) => now == start,
        None => {
            // No stat to read: gone, unless the process exists and /proc hides it (hidepid).
            #[cfg(unix)]
            {
                let Ok(pid) = i32::try_from(pid) else {
                    return false;
                };
                // SAFETY: signal 0 only asks whether the process exists.
                let missing = unsafe { libc::kill(pid, 0) } == -1
                    && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
                !missing
            }
            #[cfg(not(unix))]
            true
        }
    }
}

/// Makes this view's directory in `temp`: a new name (`mkdir`, never an existing one), mode 0700,
/// stamped with its owner where the system allows. Returns it and the server's data directory
/// inside it.
pub(super) fn create_view_dir(temp: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    let mut attempt = 0u32;
    let dir = loop {
        let dir = temp.join(format!(
            "{PREFIX}{}-{:016x}",
            std::process::id(),
            crate::output_file::random_u64()
        ));
        match builder.create(&dir) {
            Ok(()) => break dir,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    if let Some(owner) = Owner::current() {
        let mut file = fs::File::options()
            .write(true)
            .create_new(true)
            .open(dir.join(STAMP))?;
        file.write_all(owner.to_text().as_bytes())?;
    }
    let data = dir.join("data");
    builder.create(&data)?;
    Ok((dir, data))
}

/// Removes the directories of earlier views in `temp` whose owner is gone (see the module's
/// documentation).
pub(super) fn remove_stale_dirs(temp: &Path) {
    let Some(here) = Owner::current() else {
        return;
    };
    let Ok(entries) = fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || !is_mine(&meta) {
            continue;
        }
        let Some(owner) = fs::read_to_string(path.join(STAMP))
            .ok()
            .and_then(|text| Owner::parse(&text))
        else {
            continue;
        };
        if owner != here && owner.is_gone(&here, is_alive) {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

#[cfg(unix)]
fn is_mine(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    meta.uid() == unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn is_mine(_meta: &fs::Metadata) -> bool {
    true
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn stamped(temp: &Path, name: &str, owner: Option<&Owner>) -> PathBuf {
        let dir = temp.join(name);
        fs::create_dir_all(dir.join("data/sub")).unwrap();
        if let Some(owner) = owner {
            fs::write(dir.join(STAMP), owner.to_text()).unwrap();
        }
        dir
    }

    /// Issue 33: the sweep judged a directory by the pid in its name, across pid namespaces.
    #[test]
    fn only_directories_whose_owner_is_provably_gone_are_swept() {
        let temp = std::env::temp_dir().join(format!("jsprof-view-owner-{}", std::process::id()));
        let _ = fs::remove_dir_all(&temp);
        fs::create_dir_all(&temp).unwrap();
        let here = Owner::current().expect("Linux says who we are");
        assert_eq!(Owner::parse(&here.to_text()), Some(here.clone()));
        // A child that has exited and been reaped: its pid names no process.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let ours_dead = Owner {
            pid: dead,
            ..here.clone()
        };
        let other_ns = Owner {
            pid_ns: "pid:[1]".into(),
            ..ours_dead.clone()
        };
        let reused = Owner {
            start: here.start + 1,
            ..here.clone()
        };
        let earlier_boot = Owner {
            boot_id: "00000000-0000-0000-0000-000000000000".into(),
            ..here.clone()
        };
        let live_other = Owner {
            pid: 1,
            start: start_time(1).unwrap(),
            ..here.clone()
        };
        let dirs = [
            (stamped(&temp, "jsprof-view-1-a", Some(&other_ns)), true),
            (stamped(&temp, "jsprof-view-2-b", Some(&ours_dead)), false),
            (stamped(&temp, "jsprof-view-3-c", Some(&reused)), false),
            (
                stamped(&temp, "jsprof-view-4-d", Some(&earlier_boot)),
                false,
            ),
            (stamped(&temp, "jsprof-view-5-e", Some(&here)), true),
            (stamped(&temp, "jsprof-view-6-f", Some(&live_other)), true),
            (stamped(&temp, &format!("jsprof-view-{dead}-g"), None), true),
            (stamped(&temp, "other", Some(&ours_dead)), true),
        ];
        remove_stale_dirs(&temp);
        for (dir, kept) in &dirs {
            assert_eq!(dir.exists(), *kept, "{}", dir.display());
        }
        fs::remove_dir_all(&temp).unwrap();
    }

    #[test]
    fn a_view_directory_is_new_private_and_stamped() {
        use std::os::unix::fs::PermissionsExt;
        let temp = std::env::temp_dir().join(format!("jsprof-view-new-{}", std::process::id()));
        let _ = fs::remove_dir_all(&temp);
        fs::create_dir_all(&temp).unwrap();
        let (dir, data) = create_view_dir(&temp).unwrap();
        assert_eq!(data, dir.join("data"));
        assert_eq!(
            fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let owner = Owner::parse(&fs::read_to_string(dir.join(STAMP)).unwrap());
        assert_eq!(owner, Owner::current());
        // Our own directory survives our sweep.
        remove_stale_dirs(&temp);
        assert!(data.exists());
        fs::remove_dir_all(&temp).unwrap();
    }
}
