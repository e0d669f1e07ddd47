//! `lake compact`: merge each partition's small files into one, with the dictionaries'
//! repeated rows removed.
//!
//! Atomic for readers: the merged file is written (temporary name, fsync, rename) before any old
//! file is removed, and it names the files it replaces in its key-value metadata
//! (`jsprof.replaces`). A reader that lists the directory between the rename and the removals
//! sees both and drops the replaced ones ([`crate::read`]); one that listed before the rename and
//! finds a file gone lists again (the CLI retries once). A compaction killed after the rename
//! leaves replaced files that readers already ignore and the next compaction removes.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow::array::{Array, BooleanArray, RecordBatch, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::layout;
use crate::read::{self, REPLACES_KEY};
use crate::selection::Selection;
use crate::write::{self, Lake};
use crate::{io_err, LakeError, Result};

/// What a compaction did.
#[derive(Debug, Default)]
pub struct CompactOutcome {
    pub files_before: usize,
    pub files_after: usize,
    pub rows_before: u64,
    pub rows_after: u64,
    /// Files skipped as unreadable (left in place).
    pub skipped: Vec<String>,
}

fn read_batches(path: &Path) -> Result<Vec<RecordBatch>> {
    let file = File::open(path).map_err(io_err(path))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)?
        .with_batch_size(64 * 1024)
        .build()?;
    let mut out = Vec::new();
    for b in reader {
        out.push(b.map_err(|e| LakeError::Parquet(format!("{}: {e}", path.display())))?);
    }
    Ok(out)
}

/// Keeps the first row of each id in column 0 (a dictionary's `function_id` or `stack_id`).
fn dedupe(batches: Vec<RecordBatch>, seen: &mut HashSet<u64>) -> Result<Vec<RecordBatch>> {
    let mut out = Vec::new();
    for b in batches {
        let ids = arrow::compute::cast(b.column(0), &arrow::datatypes::DataType::UInt64)?;
        let ids = ids.as_any().downcast_ref::<UInt64Array>().expect("cast");
        let keep: BooleanArray = (0..ids.len())
            .map(|i| Some(seen.insert(ids.value(i))))
            .collect();
        out.push(arrow::compute::filter_record_batch(&b, &keep)?);
    }
    Ok(out)
}

/// Compacts every table's partitions holding more than one file (dictionaries always, to drop
/// repeated rows).
pub fn compact(lake: &Lake) -> Result<CompactOutcome> {
    let mut outcome = CompactOutcome::default();
    let (valid, warnings) = read::valid_files(lake, &Selection::default())?;
    let skipped: HashSet<PathBuf> = warnings.iter().map(|w| w.path.clone()).collect();
    outcome.skipped = warnings.iter().map(|w| w.to_string()).collect();
    for (table, files) in &valid {
        // Files already replaced by a merged file (a compaction killed before its removals).
        let keep: HashSet<&PathBuf> = files.iter().collect();
        for f in layout::table_files(&lake.root, table)? {
            if !keep.contains(&f) && !skipped.contains(&f) {
                std::fs::remove_file(&f).map_err(io_err(&f))?;
            }
        }
        let mut by_dir: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
        for f in files {
            let dir = f.parent().unwrap_or(Path::new(".")).to_path_buf();
            by_dir.entry(dir).or_default().push(f.clone());
        }
        let dictionary = *table == "functions" || *table == "stacks";
        for (dir, group) in by_dir {
            outcome.files_before += group.len();
            if group.len() < 2 && !dictionary {
                outcome.files_after += group.len();
                for f in &group {
                    let rows: u64 = read_batches(f)?.iter().map(|b| b.num_rows() as u64).sum();
                    outcome.rows_before += rows;
                    outcome.rows_after += rows;
                }
                continue;
            }
            let mut batches = Vec::new();
            for f in &group {
                let b = read_batches(f)?;
                outcome.rows_before += b.iter().map(|b| b.num_rows() as u64).sum::<u64>();
                batches.extend(b);
            }
            if dictionary {
                batches = dedupe(batches, &mut HashSet::new())?;
            }
            let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
            outcome.rows_after += rows;
            if group.len() < 2 && rows == outcome_rows_of(&group)? {
                // One dictionary file without repeats: nothing to do.
                outcome.files_after += 1;
                continue;
            }
            let schema = crate::schema::of(table);
            let merged = arrow::compute::concat_batches(&schema, &batches)?;
            let relative: Vec<String> = group
                .iter()
                .map(|f| {
                    f.strip_prefix(&lake.root)
                        .unwrap_or(f)
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            let writer = lake.writer();
            let path = dir.join(format!("part-{}-000001.parquet", writer.id()));
            write::write_parquet(
                &path,
                &[merged],
                &[(REPLACES_KEY.to_string(), relative.join("\n"))],
            )?;
            for f in &group {
                std::fs::remove_file(f).map_err(io_err(f))?;
            }
            write::sync_dir(&dir).map_err(io_err(&dir))?;
            outcome.files_after += 1;
        }
    }
    Ok(outcome)
}

fn outcome_rows_of(files: &[PathBuf]) -> Result<u64> {
    let mut n = 0;
    for f in files {
        n += read_batches(f)?
            .iter()
            .map(|b| b.num_rows() as u64)
            .sum::<u64>();
    }
    Ok(n)
}
