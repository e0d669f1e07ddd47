//! `jsprof heap process DIR|SNAPSHOT…`: a Node process's memory, isolate by isolate, reconciled
//! with its RSS.
//!
//! `jsprof record --heap-snapshot` snapshots every isolate of a Node process — the main thread
//! and each worker — and writes beside each snapshot its isolate's `process.memoryUsage()`,
//! taken right after it (`STEM.memory.json`, [`MemoryUsageFile`]). For each isolate this
//! document gives:
//! - its **JS heap** as the snapshot shows it: DevTools' Statistics "V8 heap", the live heap just
//!   after the snapshot's full GC (memoryUsage's `heapUsed` at the same moment, within V8's
//!   bookkeeping);
//! - its **external buffers**: the typed-array backing stores of the snapshot (DevTools'
//!   Statistics "Typed arrays"; memoryUsage's `arrayBuffers`), with the objects that own them
//!   ([`jsprof_heap::external_owners`]);
//! - its memoryUsage.
//!
//! And for the process: RSS (the latest reading), what the isolates explain — each one's V8
//! heap (`heapTotal`, the pages V8 holds, used or not) and external memory (`external`, which
//! includes `arrayBuffers`) — and what none of them explains: code, the allocator's free lists,
//! thread stacks, native addons.

use std::collections::BTreeMap;

use jsprof_heap::{external_owners, Analysis, HeapSnapshot};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::JsonWarning;

/// Node's `process.memoryUsage()`, in bytes (Node's names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemoryUsage {
    /// The process's resident set size.
    pub rss: u64,
    /// The isolate's V8 heap: the pages it holds, used or not.
    pub heap_total: u64,
    /// The isolate's live V8 heap.
    pub heap_used: u64,
    /// Memory outside V8's heap that the isolate's objects own (backing stores included).
    pub external: u64,
    /// Of `external`, the `ArrayBuffer`/`SharedArrayBuffer` backing stores (Buffers too).
    pub array_buffers: u64,
}

/// The file `record --heap-snapshot` writes beside a Node isolate's snapshot.
#[derive(Clone, Debug, Deserialize)]
pub struct MemoryUsageFile {
    pub memory_usage: MemoryUsage,
    pub pid: Option<u32>,
    /// When it was taken, ms since the epoch.
    pub time_ms: Option<f64>,
    /// The snapshot's file name.
    pub snapshot: Option<String>,
}

impl MemoryUsageFile {
    /// Reads one; `name` names it in the error.
    pub fn parse(name: &str, text: &[u8]) -> Result<MemoryUsageFile, String> {
        serde_json::from_slice(text).map_err(|e| {
            format!("{name}: not a memory-usage file (expected {{\"memory_usage\": {{\"rss\": …}}}}): {e}")
        })
    }
}

/// Where a snapshot file's isolate is, from its name: `record`'s (`STEM.heapsnapshot`,
/// `STEM-workerN.heapsnapshot`, and with `--every` `STEM-K…` / `STEM-workerN-K…`) or Node's
/// (`Heap.YYYYMMDD.HHMMSS.PID.TID.SEQ.heapsnapshot`, TID 0 for the main thread). With `record`'s
/// names the process key is what precedes `-workerN` (or, for a main thread, the name less a
/// trailing counter of up to five digits: `record`'s own stems end in six-digit times); with
/// Node's, `Heap.PID`. Any other name is a main thread of its own.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IsolateKey {
    pub process: String,
    /// `None`: the main thread.
    pub worker: Option<u32>,
}

impl IsolateKey {
    pub fn of(file_name: &str) -> IsolateKey {
        let stem = file_name.strip_suffix(".gz").unwrap_or(file_name);
        let stem = stem
            .strip_suffix(".heapsnapshot")
            .or_else(|| stem.strip_suffix(".heaptimeline"))
            .unwrap_or(stem);
        if let Some(key) = Self::node_name(stem) {
            return key;
        }
        if let Some(at) = stem.rfind("-worker") {
            let digits: String = stem[at + 7..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(worker) = digits.parse() {
                return IsolateKey {
                    process: stem[..at].to_string(),
                    worker: Some(worker),
                };
            }
        }
        let process = match stem.rsplit_once('-') {
            Some((head, tail))
                if !tail.is_empty()
                    && tail.len() <= 5
                    && tail.bytes().all(|b| b.is_ascii_digit()) =>
            {
                head
            }
            _ => stem,
        };
        IsolateKey {
            process: process.to_string(),
            worker: None,
        }
    }

    /// `Heap.YYYYMMDD.HHMMSS.PID.TID.SEQ`: Node's `writeHeapSnapshot()` names.
    fn node_name(stem: &str) -> Option<IsolateKey> {
        let parts: Vec<&str> = stem.split('.').collect();
        if parts.len() != 6 || parts[0] != "Heap" {
            return None;
        }
        let numbers: Option<Vec<u64>> = parts[1..].iter().map(|p| p.parse().ok()).collect();
        let n = numbers?;
        Some(IsolateKey {
            process: format!("Heap.{}", n[2]),
            worker: (n[3] != 0).then_some(n[3] as u32),
        })
    }

    /// `main` or `worker N`.
    pub fn label(&self) -> String {
        match self.worker {
            Some(w) => format!("worker {w}"),
            None => "main".to_string(),
        }
    }
}

/// The objects that own an isolate's backing stores, by class.
#[derive(Serialize, JsonSchema)]
pub struct ExternalOwnerJson {
    /// The owner's class (the first object up the dominator tree that is not an `ArrayBuffer`,
    /// a `Buffer`, a typed array or V8's own); `(GC roots)` when only roots hold them,
    /// `(unreachable)` for stores no root reaches.
    pub class: String,
    /// How many backing stores.
    pub count: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The owner of the largest one, by id (for `heap retainers`); `null` for the synthetic
    /// classes.
    pub sample_id: Option<u32>,
}

/// One isolate: the main thread or a worker.
#[derive(Serialize, JsonSchema)]
pub struct IsolateJson {
    /// `main` or `worker N`.
    pub isolate: String,
    /// The snapshot read (the isolate's latest).
    pub snapshot: String,
    /// How many of the given snapshots are of this isolate.
    pub snapshots: usize,
    /// The V8 heap as the snapshot shows it, DevTools' Statistics "V8 heap" (the Summary total
    /// less native memory): the live JS heap just after the snapshot's full GC, which
    /// memoryUsage's `heapUsed` measures at the same moment.
    pub js_heap: u64,
    /// DevTools' Summary total (the V8 heap and native memory, backing stores included).
    pub snapshot_total: u64,
    /// The snapshot's typed-array backing stores (DevTools' Statistics "Typed arrays").
    pub external_buffers: u64,
    /// Who owns those, largest first (at most `limit`).
    pub owners: Vec<ExternalOwnerJson>,
    /// `process.memoryUsage()` in this isolate right after the snapshot; `null` when no
    /// memory-usage file sits beside it.
    pub memory_usage: Option<MemoryUsage>,
}

/// One process.
#[derive(Serialize, JsonSchema)]
pub struct ProcessJson {
    /// The stem its files share (`node-4242-20261129-120000`).
    pub process: String,
    pub pid: Option<u32>,
    /// The latest RSS its isolates' memory-usage files read; `null` without them.
    pub rss: Option<u64>,
    /// The isolates' V8 heaps (`heapTotal`) together; `null` unless every isolate has its
    /// memory usage.
    pub js_heaps: Option<u64>,
    /// The isolates' `external` together (backing stores included).
    pub external: Option<u64>,
    /// `rss - js_heaps - external`: what no isolate's heap explains (code, thread stacks, the
    /// allocator's free lists, native addons).
    pub unexplained: Option<i64>,
    /// Main thread first, then the workers by id.
    pub isolates: Vec<IsolateJson>,
}

/// `heap process`.
#[derive(Serialize, JsonSchema)]
pub struct ProcessMemoryReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub processes: Vec<ProcessJson>,
}

/// One isolate's part, from its latest snapshot and the memory usage beside it.
pub fn isolate_json(
    key: &IsolateKey,
    snapshot: &str,
    snapshots: usize,
    s: &HeapSnapshot,
    a: &Analysis,
    memory_usage: Option<MemoryUsage>,
    limit: usize,
) -> IsolateJson {
    let mut owners = external_owners(s, a);
    if limit > 0 {
        owners.truncate(limit);
    }
    IsolateJson {
        isolate: key.label(),
        snapshot: snapshot.to_string(),
        snapshots,
        js_heap: a.statistics.v8heap_total.max(0) as u64,
        snapshot_total: a.total_size,
        external_buffers: a.statistics.native_typed_arrays,
        owners: owners
            .into_iter()
            .map(|o| ExternalOwnerJson {
                class: o.class,
                count: o.count,
                bytes: o.bytes,
                sample_id: o.sample.map(|n| s.nodes.id(n)),
            })
            .collect(),
        memory_usage,
    }
}

/// One isolate's snapshot files, as [`isolates`] groups them.
pub struct IsolateFiles<T> {
    pub key: IsolateKey,
    /// The files' names, in the order given.
    pub names: Vec<String>,
    /// What the caller holds for each file (a path, an artifact), in the same order.
    pub files: Vec<T>,
    /// The latest of them (`heap leaks`' order: the numbers in the names), the one read.
    pub last: usize,
}

impl<T> IsolateFiles<T> {
    /// The latest file and its name.
    pub fn latest(&self) -> (&T, &str) {
        (&self.files[self.last], &self.names[self.last])
    }
}

/// Groups snapshot files `(name, T)` by isolate ([`IsolateKey::of`] their names), each with its
/// latest file: the one `heap process` reads at every door.
pub fn isolates<T>(files: Vec<(String, T)>) -> Vec<IsolateFiles<T>> {
    let mut by_key: BTreeMap<IsolateKey, (Vec<String>, Vec<T>)> = BTreeMap::new();
    for (name, file) in files {
        let entry = by_key.entry(IsolateKey::of(&name)).or_default();
        entry.0.push(name);
        entry.1.push(file);
    }
    by_key
        .into_iter()
        .map(|(key, (names, files))| {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let order = crate::leak_series::series_order(&refs, &vec![None; names.len()]);
            let last = *order.order.last().expect("an isolate has a file");
            IsolateFiles {
                key,
                names,
                files,
                last,
            }
        })
        .collect()
}

/// `STEM.memory.json`, the name of the memory-usage file `record` writes beside `STEM.heapsnapshot`
/// (`.heaptimeline`, `.gz` too).
pub fn memory_file_name(snapshot_name: &str) -> String {
    let name = snapshot_name.strip_suffix(".gz").unwrap_or(snapshot_name);
    let stem = name
        .strip_suffix(".heapsnapshot")
        .or_else(|| name.strip_suffix(".heaptimeline"))
        .unwrap_or(name);
    format!("{stem}.memory.json")
}

/// The warning for a snapshot with no memory-usage file beside it.
pub fn no_memory_file(snapshot_name: &str) -> JsonWarning {
    JsonWarning {
        at: snapshot_name.to_string(),
        message: format!(
            "no {} beside it: its isolate's process.memoryUsage() is unknown (`jsprof record --heap-snapshot` writes one)",
            memory_file_name(snapshot_name)
        ),
    }
}

/// One isolate read, for [`report`].
pub struct ReadIsolate {
    pub key: IsolateKey,
    /// From its memory-usage file.
    pub pid: Option<u32>,
    /// When its memory usage was taken, ms since the epoch.
    pub time_ms: Option<f64>,
    pub json: IsolateJson,
}

impl ReadIsolate {
    /// An isolate's latest snapshot (`snapshot`, of its `snapshots`) read, with the memory usage
    /// found beside it: every door's one reading.
    pub fn new(
        key: &IsolateKey,
        snapshot: &str,
        snapshots: usize,
        s: &HeapSnapshot,
        a: &Analysis,
        memory: Option<&MemoryUsageFile>,
        limit: usize,
    ) -> ReadIsolate {
        ReadIsolate {
            key: key.clone(),
            pid: memory.and_then(|m| m.pid),
            time_ms: memory.and_then(|m| m.time_ms),
            json: isolate_json(
                key,
                snapshot,
                snapshots,
                s,
                a,
                memory.map(|m| m.memory_usage),
                limit,
            ),
        }
    }
}

/// The report over every isolate read, in any order.
pub fn report(isolates: Vec<ReadIsolate>, warnings: Vec<JsonWarning>) -> ProcessMemoryReport {
    let mut by_process: BTreeMap<String, Vec<ReadIsolate>> = BTreeMap::new();
    for i in isolates {
        by_process.entry(i.key.process.clone()).or_default().push(i);
    }
    let processes = by_process
        .into_iter()
        .map(|(process, mut isolates)| {
            isolates.sort_by(|x, y| x.key.cmp(&y.key));
            let pid = isolates.iter().find_map(|i| i.pid);
            // RSS is the process's: the latest reading of any isolate.
            let rss = isolates
                .iter()
                .filter_map(|i| Some((i.time_ms.unwrap_or(0.0), i.json.memory_usage?.rss)))
                .max_by(|x, y| x.0.total_cmp(&y.0))
                .map(|(_, rss)| rss);
            let usages: Option<Vec<MemoryUsage>> =
                isolates.iter().map(|i| i.json.memory_usage).collect();
            let js_heaps = usages
                .as_ref()
                .map(|u| u.iter().map(|m| m.heap_total).sum());
            let external = usages.as_ref().map(|u| u.iter().map(|m| m.external).sum());
            let unexplained = match (rss, js_heaps, external) {
                (Some(r), Some(h), Some(e)) => Some(r as i64 - h as i64 - e as i64),
                _ => None,
            };
            ProcessJson {
                process,
                pid,
                rss,
                js_heaps,
                external,
                unexplained,
                isolates: isolates.into_iter().map(|i| i.json).collect(),
            }
        })
        .collect();
    ProcessMemoryReport {
        kind: "process-memory",
        warnings,
        processes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isolates_from_record_names() {
        let k = |n| IsolateKey::of(n);
        let main = IsolateKey {
            process: "node-42-20261129-150143".into(),
            worker: None,
        };
        let w2 = IsolateKey {
            process: "node-42-20261129-150143".into(),
            worker: Some(2),
        };
        assert_eq!(k("node-42-20261129-150143.heapsnapshot"), main);
        assert_eq!(k("node-42-20261129-150143-07.heapsnapshot"), main);
        assert_eq!(k("node-42-20261129-150143-worker2.heapsnapshot"), w2);
        assert_eq!(k("node-42-20261129-150143-worker2-3.heapsnapshot.gz"), w2);
        assert_eq!(k("app.heapsnapshot").process, "app");
        let node = |name| IsolateKey::of(name);
        assert_eq!(
            node("Heap.20261129.150143.4242.0.001.heapsnapshot"),
            node("Heap.20261129.150150.4242.0.002.heapsnapshot")
        );
        assert_eq!(
            node("Heap.20261129.150143.4242.3.001.heapsnapshot").worker,
            Some(3)
        );
        assert_eq!(
            node("Heap.20261129.150143.4242.0.001.heapsnapshot").worker,
            None
        );
        assert_eq!(k("app-worker.heapsnapshot").process, "app-worker");
        assert_eq!(w2.label(), "worker 2");
    }
}
