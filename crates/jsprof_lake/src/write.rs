//! Writing: `lake.json`, then batches of prepared inputs as Parquet files.
//!
//! Writers never coordinate: each has a random 128-bit id and numbers its own files
//! (`part-WRITER-SEQ.parquet`). A file is written as `.tmp-part-…` in its directory, fsynced,
//! renamed, and the directory fsynced, so a file that has its final name is whole and durable; a
//! killed writer leaves at most a `.tmp-` file that readers ignore. One batch writes at most one
//! file per table and partition, dictionaries first and `profiles` last.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, File};
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

use arrow::array::{Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};

use crate::layout;
use crate::prepare::{self, FunctionRow, FunctionWeights, Prepared, PreparedProfile, StackRow};
use crate::private;
use crate::schema::{self, ProfileRecord};
use crate::{io_err, LakeError, Result};

/// `lake.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LakeMeta {
    pub format: String,
    pub version: u32,
    pub partition_label: Option<String>,
}

/// An open lake directory.
#[derive(Clone, Debug)]
pub struct Lake {
    pub root: PathBuf,
    pub meta: LakeMeta,
}

impl Lake {
    /// Makes `root` a lake (creating the directory). An existing lake with the same partition
    /// label is opened as is; one with another label is refused.
    pub fn init(root: &Path, partition_label: Option<&str>) -> Result<Lake> {
        if let Some(label) = partition_label {
            check_label_key(label)?;
        }
        let meta_path = root.join("lake.json");
        if meta_path.exists() {
            let lake = Lake::open(root)?;
            if lake.meta.partition_label.as_deref() != partition_label {
                return Err(LakeError::Usage(format!(
                    "{}: already a lake partitioned by {}",
                    root.display(),
                    lake.meta.partition_label.as_deref().unwrap_or("day only")
                )));
            }
            return Ok(lake);
        }
        private::create_dir_all(root).map_err(io_err(root))?;
        let meta = LakeMeta {
            format: "jsprof-lake".into(),
            version: schema::VERSION,
            partition_label: partition_label.map(str::to_string),
        };
        let text = serde_json::to_vec_pretty(&meta).expect("plain struct");
        write_durably(&meta_path, |f| {
            use std::io::Write;
            f.write_all(&text)
        })?;
        Ok(Lake {
            root: root.to_path_buf(),
            meta,
        })
    }

    /// Opens an existing lake.
    pub fn open(root: &Path) -> Result<Lake> {
        let meta_path = root.join("lake.json");
        let text = fs::read(&meta_path).map_err(|e| {
            LakeError::NotALake(format!(
                "{}: not a lake ({e}); make one with `jsprof lake init {}`",
                root.display(),
                root.display()
            ))
        })?;
        let meta: LakeMeta = serde_json::from_slice(&text).map_err(|e| {
            LakeError::NotALake(format!(
                "{}: not a lake's lake.json: {e}",
                meta_path.display()
            ))
        })?;
        if meta.format == "jsprof-lake" && meta.version == 1 {
            return Err(LakeError::NotALake(format!(
                "{}: a version-1 lake, which this jsprof no longer reads: version 1 stored, for \
                 every stack, the list of functions from the root (a deep stack cost the square \
                 of its depth). Make a new lake and add the same inputs again (`jsprof lake add \
                 NEW_LAKE FILES…`); see docs/lake.md",
                root.display()
            )));
        }
        if meta.format != "jsprof-lake" || meta.version != schema::VERSION {
            return Err(LakeError::NotALake(format!(
                "{}: format {:?} version {}; this jsprof reads jsprof-lake version {}",
                meta_path.display(),
                meta.format,
                meta.version,
                schema::VERSION
            )));
        }
        Ok(Lake {
            root: root.to_path_buf(),
            meta,
        })
    }

    /// A writer with a fresh id.
    pub fn writer(&self) -> Writer {
        Writer {
            lake: self.clone(),
            id: random_id(),
            seq: 0,
            known: None,
        }
    }

    /// The source hashes of every profile in the lake (for re-adds to be no-ops).
    pub fn source_hashes(&self) -> Result<HashSet<String>> {
        let mut out = HashSet::new();
        for file in layout::table_files(&self.root, "profiles")? {
            // A file that cannot be read is skipped here as readers skip it.
            let Ok(f) = File::open(&file) else { continue };
            let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(f) else {
                continue;
            };
            let Some(index) = builder
                .schema()
                .fields()
                .iter()
                .position(|f| f.name() == "source_hash")
            else {
                continue;
            };
            let mask = ProjectionMask::roots(builder.parquet_schema(), [index]);
            let Ok(reader) = builder.with_projection(mask).build() else {
                continue;
            };
            for batch in reader.flatten() {
                if let Some(col) = batch.column(0).as_any().downcast_ref::<StringArray>() {
                    for i in 0..col.len() {
                        out.insert(col.value(i).to_string());
                    }
                }
            }
        }
        Ok(out)
    }
}

/// A label name usable as a partition directory and in `--where`.
fn check_label_key(key: &str) -> Result<()> {
    if layout::is_label_name(key) {
        Ok(())
    } else {
        Err(LakeError::Usage(format!(
            "label name `{key}`: use letters, digits, `_`, `-` and `.`"
        )))
    }
}

/// Parses `k=v` labels (the CLI's `--label`).
pub fn parse_labels(args: &[String]) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for arg in args {
        let Some((k, v)) = arg.split_once('=') else {
            return Err(LakeError::Usage(format!(
                "--label `{arg}`: expected NAME=VALUE"
            )));
        };
        check_label_key(k)?;
        out.insert(k.to_string(), v.to_string());
    }
    Ok(out)
}

/// 128 random bits in hex, from the standard library's randomly seeded hasher (no extra crate).
fn random_id() -> String {
    let half = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u32(std::process::id());
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

/// What an append did.
#[derive(Debug, Default)]
pub struct AppendOutcome {
    /// Profiles written.
    pub profiles: usize,
    /// Inputs whose content was already in the lake (or earlier in the batch): source names.
    pub duplicates: Vec<String>,
    /// Files written (final names).
    pub files: Vec<PathBuf>,
}

/// Appends batches to one lake under one writer id.
pub struct Writer {
    lake: Lake,
    id: String,
    seq: u64,
    /// Source hashes in the lake, read on the first append.
    known: Option<HashSet<String>>,
}

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

impl Writer {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Writes `batch` durably: returns once every file is renamed into place and its directory
    /// fsynced. Inputs already in the lake (same content hash) are skipped and named in the
    /// outcome.
    ///
    /// On an error nothing of a trace is visible unless its `profiles` rows are (they are written
    /// last), and the content hashes are read again from the lake at the next call: a trace
    /// that failed is not taken for a duplicate when it is appended again.
    pub fn append(&mut self, batch: Vec<Prepared>) -> Result<AppendOutcome> {
        let result = self.append_inner(batch);
        if result.is_err() {
            self.known = None;
        }
        result
    }

    fn append_inner(&mut self, batch: Vec<Prepared>) -> Result<AppendOutcome> {
        if self.known.is_none() {
            self.known = Some(self.lake.source_hashes()?);
        }
        let known = self.known.as_mut().expect("just set");
        let mut outcome = AppendOutcome::default();
        let mut fresh = Vec::new();
        for p in batch {
            if !known.insert(p.source_hash.clone()) {
                outcome.duplicates.push(p.source_name.clone());
                continue;
            }
            if !p.profiles.is_empty() {
                fresh.push(p);
            }
        }
        if fresh.is_empty() {
            return Ok(outcome);
        }
        let added_at = now_us();
        // Partition → the profiles in it (with their input). A partition name too long for the
        // file system fails the batch here, before any file is written.
        let mut parts: BTreeMap<String, Vec<(&Prepared, &PreparedProfile)>> = BTreeMap::new();
        for p in &fresh {
            for profile in &p.profiles {
                let day = layout::day_of(profile.start_time_us.unwrap_or(added_at));
                let mut dir = format!("day={day}");
                if let Some(label) = &self.lake.meta.partition_label {
                    let name =
                        layout::partition_dir(label, p.labels.get(label).map(String::as_str))
                            .map_err(|e| LakeError::Input(format!("{}: {e}", p.source_name)))?;
                    dir.push('/');
                    dir.push_str(&name);
                }
                parts.entry(dir).or_default().push((p, profile));
            }
        }
        // Dictionaries, each function and stack once per batch.
        let mut functions: HashMap<u64, &FunctionRow> = HashMap::new();
        let mut stacks: HashMap<u64, &StackRow> = HashMap::new();
        for p in &fresh {
            for f in &p.functions {
                functions.entry(f.function_id).or_insert(f);
            }
            for s in &p.stacks {
                stacks.entry(s.stack_id).or_insert(s);
            }
        }
        let mut fs_sorted: Vec<&FunctionRow> = functions.into_values().collect();
        fs_sorted.sort_by_key(|f| f.function_id);
        let mut st_sorted: Vec<&StackRow> = stacks.values().copied().collect();
        st_sorted.sort_by_key(|s| s.stack_id);
        // Each profile's function weights, from its samples and the batch's stacks; computed
        // before anything is written, so a profile whose stacks are missing fails the batch
        // whole.
        let mut weights: Vec<Vec<(&str, Vec<FunctionWeights>)>> = Vec::new();
        for rows in parts.values() {
            let mut part = Vec::new();
            for (_, profile) in rows {
                if profile.samples.is_empty() {
                    continue;
                }
                let w = prepare::function_weights(&profile.samples, &stacks).map_err(|e| {
                    LakeError::Input(format!("profile {}: {e}", profile.profile_id))
                })?;
                part.push((profile.profile_id.as_str(), w));
            }
            weights.push(part);
        }
        if !fs_sorted.is_empty() {
            let b = schema::functions_batch(&fs_sorted)?;
            outcome.files.push(self.write_file("functions", "", &b)?);
        }
        if !st_sorted.is_empty() {
            let b = schema::stacks_batch(&st_sorted)?;
            outcome.files.push(self.write_file("stacks", "", &b)?);
        }
        for ((dir, rows), functions) in parts.iter().zip(&weights) {
            let profiles: Vec<&PreparedProfile> = rows.iter().map(|(_, p)| *p).collect();
            if profiles.iter().any(|p| !p.samples.is_empty()) {
                let b = schema::samples_batch(&profiles)?;
                outcome.files.push(self.write_file("samples", dir, &b)?);
            }
            if !functions.is_empty() {
                let b = schema::profile_functions_batch(functions)?;
                outcome
                    .files
                    .push(self.write_file("profile_functions", dir, &b)?);
            }
            if profiles.iter().any(|p| !p.classes.is_empty()) {
                let b = schema::classes_batch(&profiles)?;
                outcome.files.push(self.write_file("classes", dir, &b)?);
            }
            // A page load's metrics beside its first profile (every profile of one input is in
            // one partition: they share its labels and start).
            let pages: Vec<(&str, &[(String, f64)])> = rows
                .iter()
                .filter(|(input, profile)| {
                    !input.page_metrics.is_empty()
                        && input.profiles.first().map(|p| &p.profile_id)
                            == Some(&profile.profile_id)
                })
                .map(|(input, _)| (input.source_hash.as_str(), input.page_metrics.as_slice()))
                .collect();
            if !pages.is_empty() {
                let b = schema::page_metrics_batch(&pages)?;
                outcome
                    .files
                    .push(self.write_file("page_metrics", dir, &b)?);
            }
        }
        // `profiles` last: a profile's rows elsewhere are in place before it is visible.
        for (dir, rows) in &parts {
            let records: Vec<ProfileRecord> = rows
                .iter()
                .map(|(input, profile)| ProfileRecord {
                    profile,
                    source_name: &input.source_name,
                    source_hash: &input.source_hash,
                    labels: &input.labels,
                    added_at_us: added_at,
                })
                .collect();
            outcome.profiles += records.len();
            let b = schema::profiles_batch(&records)?;
            outcome.files.push(self.write_file("profiles", dir, &b)?);
        }
        Ok(outcome)
    }

    /// Writes one Parquet file under `table/dir/`, durably; returns its final path.
    fn write_file(&mut self, table: &str, dir: &str, batch: &RecordBatch) -> Result<PathBuf> {
        self.seq += 1;
        let name = format!("part-{}-{:06}.parquet", self.id, self.seq);
        let dir = if dir.is_empty() {
            self.lake.root.join(table)
        } else {
            self.lake.root.join(table).join(dir)
        };
        let path = dir.join(&name);
        write_parquet(&path, std::slice::from_ref(batch), &[])?;
        Ok(path)
    }
}

/// Writer properties of every lake file: zstd, statistics for pruning.
fn properties(metadata: &[(String, String)]) -> WriterProperties {
    let mut kv = Vec::new();
    for (k, v) in metadata {
        kv.push(parquet::file::metadata::KeyValue::new(k.clone(), v.clone()));
    }
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(3).expect("valid level"),
        ))
        .set_max_row_group_size(1 << 20)
        .set_key_value_metadata((!kv.is_empty()).then_some(kv))
        .build()
}

/// Writes `batches` to `path` via `.tmp-NAME` in the same directory, fsync, rename, directory
/// fsync. `metadata` goes into the file's key-value metadata (compaction's `jsprof.replaces`).
pub(crate) fn write_parquet(
    path: &Path,
    batches: &[RecordBatch],
    metadata: &[(String, String)],
) -> Result<()> {
    let schema = batches
        .first()
        .map(|b| b.schema())
        .ok_or_else(|| LakeError::Parquet("nothing to write".into()))?;
    write_durably(path, |file| {
        let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(properties(metadata)))
            .map_err(std::io::Error::other)?;
        for b in batches {
            writer.write(b).map_err(std::io::Error::other)?;
        }
        writer.close().map_err(std::io::Error::other)?;
        Ok(())
    })
}

/// Creates `path` through a `.tmp-` sibling: write, fsync, rename, fsync the directory. The
/// file is 0600 and any directory made for it 0700 ([`private`]).
fn write_durably(path: &Path, write: impl FnOnce(&mut File) -> std::io::Result<()>) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    private::create_dir_all(dir).map_err(io_err(dir))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".tmp-{name}"));
    let result = (|| {
        let mut file = private::create_file(&tmp)?;
        write(&mut file)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(LakeError::Io {
            path: path.to_path_buf(),
            source: e,
        });
    }
    Ok(())
}

/// fsyncs a directory so that a rename in it is durable (a no-op where directories cannot be
/// opened as files).
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match File::open(dir) {
        Ok(d) => d.sync_all().or(Ok(())),
        Err(_) => Ok(()),
    }
}
