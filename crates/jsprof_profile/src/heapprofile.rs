//! `.heapprofile` (CDP `HeapProfiler.SamplingHeapProfile`): a `head` tree whose nodes carry the
//! bytes allocated there (`selfSize`), plus the individual allocation `samples`.
//!
//! As DevTools' heap profile view does, the tree is weighted by each node's `selfSize`: the model
//! gets one weighted sample per node that allocated anything. The allocation samples are kept for
//! counts and ordering.

use std::io::Read;

use serde::de::{IgnoredAny, MapAccess};
use serde::Deserialize;

use crate::call_frame::{HeadSeed, TreeSink};
use crate::error::ReadError;
use crate::json::{self, seed_visitor, Float, JsonPath, Keys, NodeId, Source};
use crate::model::{AllocationSample, Profile, ProfileKind, Thread, WeightUnit};
use crate::node_tree::{NodeTarget, RawTree};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SampleIn {
    #[serde(default)]
    size: Option<Float>,
    node_id: NodeId,
    #[serde(default)]
    ordinal: Option<Float>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum TopField {
    Head,
    Samples,
    #[serde(other)]
    Other,
}

/// The top-level object, read into a tree sink over the profile.
struct TopSeed<'a>(TreeSink<'a>);

seed_visitor! {
    TopSeed<'_> => (Option<RawTree>, Vec<SampleIn>), deserialize_map,
        "a sampling heap profile object";
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut sink = self.0;
        let path = sink.path;
        let mut has_head = false;
        let mut samples = Vec::new();
        let mut keys = Keys::default();
        while let Some(field) = map.next_key::<TopField>()? {
            match field {
                TopField::Head => {
                    if !keys.first("head") {
                        sink.tree = Default::default();
                    }
                    path.set("head");
                    map.next_value_seed(HeadSeed(&mut sink))?;
                    has_head = true;
                }
                TopField::Samples => {
                    keys.first("samples");
                    path.set("samples");
                    samples = json::next_list(&mut map)?;
                }
                TopField::Other => {
                    path.set("");
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        path.set("");
        keys.warn(sink.profile, "");
        let mut tree = sink.tree;
        tree.root = Some(tree.nodes.len().saturating_sub(1));
        Ok((has_head.then_some(tree), samples))
    }
}

/// Reads a `.heapprofile` from decompressed JSON text.
pub fn read_heapprofile<R: Read>(reader: R) -> Result<Profile, ReadError> {
    read_heapprofile_from(Source::Reader(reader))
}

/// Like [`read_heapprofile`], over text already in memory (faster).
pub fn read_heapprofile_from<R: Read>(source: Source<'_, R>) -> Result<Profile, ReadError> {
    let mut profile = Profile::new(ProfileKind::HeapProfile);
    let path = JsonPath::default();
    let seed = TopSeed(TreeSink::new(&mut profile, &path));
    let ((tree, samples), trailing) = json::deserialize(source, seed, &path)?;
    json::warn_trailing(&mut profile, trailing);
    let tree = tree
        .ok_or_else(|| ReadError::invalid("head", "a sampling heap profile needs a `head` tree"))?;
    let mut thread = Thread {
        name: "main".to_string(),
        weight_unit: Some(WeightUnit::Bytes),
        ..Default::default()
    };
    let lowered = tree.lower(&mut profile, &mut thread, "head");
    let mut weights = Vec::with_capacity(lowered.self_size.len());
    for &(stack, size) in &lowered.self_size {
        thread.samples.push(0, Some(stack));
        weights.push(size as i64);
    }
    thread.samples.weight = Some(weights);
    let mut unknown = 0;
    for s in &samples {
        match lowered.map.get(s.node_id.0) {
            Some(NodeTarget::Stack(stack)) => thread.allocation_samples.push(AllocationSample {
                stack,
                size: s.size.as_ref().map_or(0, |f| f.0.clamp(0.0, 1e15) as u64),
                ordinal: s.ordinal.as_ref().map_or(0, |f| f.0.max(0.0) as u64),
            }),
            _ => unknown += 1,
        }
    }
    if unknown > 0 {
        profile.warn(
            "samples",
            format!("{unknown} allocation samples name a node that is not in the tree; skipped"),
        );
    }
    thread.allocation_samples.sort_by_key(|s| s.ordinal);
    profile.threads.push(thread);
    Ok(profile)
}
