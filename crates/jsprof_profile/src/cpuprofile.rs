//! `.cpuprofile` (CDP `Profiler.Profile`): the modern form (`nodes`, `samples`, `timeDeltas` in
//! µs) and the legacy form (`head` tree, `startTime`/`endTime` in seconds, `timestamps` in µs).

use std::io::Read;

use serde::de::{IgnoredAny, MapAccess};
use serde::Deserialize;

use crate::call_frame::{HeadSeed, NodesSeed, TreeSink};
use crate::error::ReadError;
use crate::json::{self, seed_visitor, JsonPath, Keys, MicrosToNanos, NodeIds, Source};
use crate::model::{clamp_time, Profile, ProfileKind, Thread, WeightUnit};
use crate::node_tree::NodeTarget;

/// Reads a `.cpuprofile` from decompressed JSON text.
pub fn read_cpuprofile<R: Read>(reader: R) -> Result<Profile, ReadError> {
    read_cpuprofile_from(Source::Reader(reader))
}

/// Like [`read_cpuprofile`], over text already in memory (faster).
pub fn read_cpuprofile_from<R: Read>(source: Source<'_, R>) -> Result<Profile, ReadError> {
    if let Source::Slice(text) = source {
        if let Some(profile) = read_common_form(text) {
            return Ok(profile);
        }
    }
    let mut profile = Profile::new(ProfileKind::CpuProfile);
    let path = JsonPath::default();
    let seed = TopSeed(TreeSink::new(&mut profile, &path));
    let (raw, trailing) = json::deserialize(source, seed, &path)?;
    json::warn_trailing(&mut profile, trailing);
    raw.lower_into(profile)
}

/// The profile of `text` when [`fast`] reads it (the form V8 writes), lowered as the serde
/// reader's is.
fn read_common_form(text: &[u8]) -> Option<Profile> {
    let mut profile = Profile::new(ProfileKind::CpuProfile);
    let path = JsonPath::default();
    let mut sink = TreeSink::new(&mut profile, &path);
    let mut raw = fast::read(text, &mut sink)?;
    raw.tree = sink.tree;
    // A lowering that fails fails again on serde's reading, which the caller then gives.
    raw.lower_into(profile).ok()
}

mod fast;

/// Everything of the top-level object, before lowering.
#[derive(Default)]
pub(crate) struct RawCpuProfile {
    tree: crate::node_tree::RawTree,
    has_nodes: bool,
    legacy: bool,
    start_time: Option<f64>,
    end_time: Option<f64>,
    samples: Option<Vec<u32>>,
    /// Nanoseconds: deltas (modern) or absolute timestamps (legacy).
    times: Option<Vec<i64>>,
}

/// The top-level object, read into a tree sink over the profile.
struct TopSeed<'a>(TreeSink<'a>);

#[derive(Clone, Copy, Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum TopField {
    Nodes,
    Head,
    StartTime,
    EndTime,
    Samples,
    TimeDeltas,
    Timestamps,
    #[serde(other)]
    Other,
}

impl TopField {
    /// The key as written; `None` for the keys not read.
    fn key(self) -> Option<&'static str> {
        Some(match self {
            TopField::Nodes => "nodes",
            TopField::Head => "head",
            TopField::StartTime => "startTime",
            TopField::EndTime => "endTime",
            TopField::Samples => "samples",
            TopField::TimeDeltas => "timeDeltas",
            TopField::Timestamps => "timestamps",
            TopField::Other => return None,
        })
    }
}

seed_visitor! {
    TopSeed<'_> => RawCpuProfile, deserialize_map, "a CPU profile object";
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawCpuProfile, A::Error> {
        let mut sink = self.0;
        let path = sink.path;
        let mut raw = RawCpuProfile::default();
        let mut deltas = None;
        let mut timestamps = None;
        let mut keys = Keys::default();
        while let Some(field) = map.next_key::<TopField>()? {
            let key = field.key();
            // A repeated `nodes` or `head` starts the tree again.
            if key.is_some_and(|key| !keys.first(key))
                && matches!(field, TopField::Nodes | TopField::Head)
            {
                sink.tree = Default::default();
            }
            path.set(key.unwrap_or(""));
            match field {
                TopField::Nodes => {
                    map.next_value_seed(NodesSeed(&mut sink))?;
                    raw.has_nodes = true;
                }
                TopField::Head => {
                    map.next_value_seed(HeadSeed(&mut sink))?;
                    raw.legacy = true;
                }
                TopField::StartTime => raw.start_time = json::next_f64(&mut map)?,
                TopField::EndTime => raw.end_time = json::next_f64(&mut map)?,
                TopField::Samples => {
                    map.next_value_seed(NodeIds(raw.samples.insert(Vec::new())))?;
                }
                TopField::TimeDeltas => {
                    map.next_value_seed(MicrosToNanos(deltas.insert(Vec::new())))?;
                }
                TopField::Timestamps => {
                    map.next_value_seed(MicrosToNanos(timestamps.insert(Vec::new())))?;
                }
                TopField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        path.set("");
        keys.warn(sink.profile, "");
        if raw.legacy && !raw.has_nodes {
            // The head was flattened post-order: it is the last node.
            sink.tree.root = Some(sink.tree.nodes.len().saturating_sub(1));
        }
        raw.times = if raw.legacy && !raw.has_nodes {
            timestamps
        } else {
            deltas.or(timestamps)
        };
        raw.tree = sink.tree;
        Ok(raw)
    }
}

/// Stands for "no sample at this time" among the raw sample ids (ids are read as u32 < MAX).
const ROOT_PLACEHOLDER: u32 = u32::MAX;

const SECONDS_TO_NS: f64 = 1e9;
const MICROS_TO_NS: f64 = 1e3;

impl RawCpuProfile {
    /// `profile` with this profile's thread: lowered, and its clamped times said.
    fn lower_into(self, mut profile: Profile) -> Result<Profile, ReadError> {
        let thread = self.lower(&mut profile)?;
        profile.threads.push(thread);
        json::warn_clamped(&mut profile, "timeDeltas", []);
        Ok(profile)
    }

    pub(crate) fn lower(self, profile: &mut Profile) -> Result<Thread, ReadError> {
        if !self.has_nodes && !self.legacy {
            return Err(ReadError::invalid(
                "",
                "not a CPU profile: neither `nodes` nor `head` is present",
            ));
        }
        let legacy = self.legacy && !self.has_nodes;
        let mut thread = Thread {
            name: "main".to_string(),
            weight_unit: Some(WeightUnit::Samples),
            ..Default::default()
        };
        let at = if legacy { "head" } else { "nodes" };
        let lowered = self.tree.lower(profile, &mut thread, at);

        // Legacy start/end are seconds, modern ones microseconds.
        let scale = if legacy { SECONDS_TO_NS } else { MICROS_TO_NS };
        let start = self
            .start_time
            .map(|t| clamp_time((t * scale).round() as i64));
        let end = self
            .end_time
            .map(|t| clamp_time((t * scale).round() as i64));
        thread.declared_start = start;
        thread.declared_end = end;

        let samples = self.samples.unwrap_or_default();
        let mut times = match self.times {
            Some(mut t) => {
                if !legacy {
                    // Deltas: the first is relative to startTime; negative ones are allowed.
                    let mut acc = start.unwrap_or(0);
                    for x in t.iter_mut() {
                        acc = clamp_time(acc.saturating_add(*x));
                        *x = acc;
                    }
                }
                t
            }
            None => Vec::new(),
        };
        if !samples.is_empty() && times.is_empty() {
            // No timing at all: spread the samples evenly over the declared span, as DevTools does.
            let (s, e) = (start.unwrap_or(0), end.unwrap_or(start.unwrap_or(0)));
            let n = samples.len() as i64;
            times = (0..n)
                .map(|i| s + ((e - s) as f64 * i as f64 / n as f64).round() as i64)
                .collect();
            thread.samples_end = Some(e);
            profile.warn("timeDeltas", "the profile has no sample times; samples are spread evenly between startTime and endTime");
        }
        let mut samples = samples;
        if times.len() > samples.len() {
            // DevTools pairs the extra times with missing samples, which close every frame:
            // they are gaps (samples on the bare root), and the last one sets the end.
            let field = if legacy { "timestamps" } else { "timeDeltas" };
            profile.warn(
                field,
                format!(
                    "{} times but only {} samples; the extra times are kept as gaps",
                    times.len(),
                    samples.len()
                ),
            );
            samples.resize(times.len(), ROOT_PLACEHOLDER);
        } else if times.len() < samples.len() {
            let field = if legacy { "timestamps" } else { "timeDeltas" };
            profile.warn(
                field,
                format!(
                    "{} samples but only {} times; the samples without a time are ignored",
                    samples.len(),
                    times.len()
                ),
            );
            samples.truncate(times.len());
        }
        let n = times.len();
        thread.samples.time = times;
        thread.samples.stack.reserve_exact(n);
        let mut unknown = 0usize;
        let mut first_unknown = None;
        let mut keep = vec![true; 0];
        for (i, &id) in samples.iter().take(n).enumerate() {
            if id == ROOT_PLACEHOLDER {
                thread.samples.stack.push(None);
                continue;
            }
            match lowered.map.get(id as u64) {
                Some(NodeTarget::Stack(s)) => thread.samples.stack.push(Some(s)),
                Some(NodeTarget::Root) => thread.samples.stack.push(None),
                None => {
                    if unknown == 0 {
                        first_unknown = Some((i, id));
                        keep = vec![true; n];
                    }
                    unknown += 1;
                    keep[i] = false;
                    thread.samples.stack.push(None);
                }
            }
        }
        if unknown > 0 {
            let (i, id) = first_unknown.unwrap_or_default();
            profile.warn(
                format!("samples[{i}]"),
                format!("{unknown} samples name a node that is not in the tree (first: id {id}); they were dropped"),
            );
            let mut k = 0;
            thread.samples.time.retain(|_| {
                k += 1;
                keep[k - 1]
            });
            let mut k = 0;
            thread.samples.stack.retain(|_| {
                k += 1;
                keep[k - 1]
            });
        }
        Ok(thread)
    }
}
