//! Where a lake's files lie: one directory per table, Hive partitions below it
//! (`day=YYYY-MM-DD/LABEL=VALUE/`), and the encoding of a partition's value in its name. A leaf:
//! the writer, the reader, compaction and the selection's pruning all read it, and it reads none of
//! them.

use std::path::{Path, PathBuf};

use crate::{io_err, Result};

/// Every `*.parquet` file of a table (recursively, in name order), leaving out names starting with `.`.
pub fn table_files(root: &Path, table: &str) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let dir = root.join(table);
    if !dir.exists() {
        return Ok(out);
    }
    let mut todo = vec![dir];
    while let Some(d) = todo.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            // A partition directory removed meanwhile (compaction) holds nothing to read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_err(&d)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(io_err(&d))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir {
                todo.push(path);
            } else if name.ends_with(".parquet") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The `day` and partition label (key, encoded value) of a file under `root/table/`.
pub fn partition_of(
    root: &Path,
    table: &str,
    file: &Path,
) -> (Option<String>, Option<(String, String)>) {
    let rel = file.strip_prefix(root.join(table)).unwrap_or(file);
    let mut day = None;
    let mut label = None;
    for part in rel.iter().map(|p| p.to_string_lossy()) {
        if let Some((k, v)) = part.split_once('=') {
            if k == "day" {
                day = Some(v.to_string());
            } else {
                label = Some((k.to_string(), v.to_string()));
            }
        }
    }
    (day, label)
}

/// Percent-encodes a partition value (anything but letters, digits, `.`, `-`, `_`).
pub fn encode_partition_value(value: &str) -> String {
    if value.is_empty() {
        return "_".into();
    }
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The longest file name most file systems take (ext4, XFS, APFS, NTFS: 255 bytes). A partition
/// directory `LABEL=VALUE` past it cannot be created, so the writer refuses it before writing
/// anything and the ingest endpoint refuses it at the door.
pub const MAX_NAME_BYTES: usize = 255;

/// The partition directory of `label` with `value` (`LABEL=ENCODED`; `_` for no value), or a
/// message naming the label and the limit when the name would pass [`MAX_NAME_BYTES`].
pub fn partition_dir(label: &str, value: Option<&str>) -> std::result::Result<String, String> {
    let value = value.map_or_else(|| "_".to_string(), encode_partition_value);
    let name = format!("{label}={value}");
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "label `{label}`: its partition directory name would be {} bytes once \
             percent-encoded, past the limit of {MAX_NAME_BYTES} bytes",
            name.len()
        ));
    }
    Ok(name)
}

/// `YYYY-MM-DD` of µs since the epoch (UTC).
pub fn day_of(us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(us)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "1970-01-01".into())
}

/// Whether `key` may name a label: letters, digits, `_`, `-` and `.` (a partition label's name
/// is a directory name, `NAME=VALUE`).
pub fn is_label_name(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_name_past_the_file_name_limit_is_refused_with_the_label_and_limit() {
        assert_eq!(
            partition_dir("release", Some("1.2")).unwrap(),
            "release=1.2"
        );
        assert_eq!(partition_dir("release", None).unwrap(), "release=_");
        // 85 bytes that each encode to 3: `release=` + 255 bytes is past the limit.
        let long = "/".repeat(85);
        let e = partition_dir("release", Some(&long)).unwrap_err();
        assert!(e.contains("label `release`"), "{e}");
        assert!(e.contains("255 bytes"), "{e}");
        // Exactly at the limit is fine: `r=` + 253 plain bytes.
        let at = "a".repeat(MAX_NAME_BYTES - 2);
        assert_eq!(partition_dir("r", Some(&at)).unwrap().len(), MAX_NAME_BYTES);
    }
}
