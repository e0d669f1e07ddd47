//! CDP call frames and the tree nodes that carry them, in the modern (`nodes` + ids) and the
//! nested (`head` + children objects) forms shared by legacy `.cpuprofile` and `.heapprofile`.

use std::borrow::Cow;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess};
use serde::Deserialize;

use crate::json::{opt_cow_str, seed_visitor, Float, IdString, JsonPath, NodeId};
use crate::model::{one_based, FrameId, Profile};
use crate::node_tree::{RawNode, RawTree};

/// `Runtime.CallFrame`: 0-based positions, `-1` unknown.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct CallFrameIn<'a> {
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    pub function_name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub script_id: Option<IdString<'a>>,
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    pub url: Option<Cow<'a, str>>,
    pub line_number: Option<Float>,
    pub column_number: Option<Float>,
}

fn position(zero_based: Option<&Float>) -> Option<u32> {
    zero_based.and_then(|f| {
        if f.0.is_finite() {
            one_based(f.0 as i64)
        } else {
            None
        }
    })
}

impl CallFrameIn<'_> {
    pub fn intern(&self, profile: &mut Profile) -> FrameId {
        profile.intern_frame(
            self.function_name.as_deref().unwrap_or(""),
            self.url.as_deref().unwrap_or(""),
            position(self.line_number.as_ref()),
            position(self.column_number.as_ref()),
            self.script_id.as_ref().map_or("", |s| &*s.0),
        )
    }
}

#[derive(Deserialize)]
pub(crate) struct TickIn {
    pub line: Float,
    pub ticks: Float,
}

/// The fields of a node that both forms share; `children` is handled by the caller.
#[derive(Default)]
pub(crate) struct NodeFields<'de> {
    pub id: Option<u64>,
    pub call_frame: Option<CallFrameIn<'de>>,
    /// Legacy flat form: these sit on the node itself, 1-based (0 = unknown).
    pub legacy: CallFrameIn<'de>,
    pub parent: Option<u64>,
    pub ticks: Vec<TickIn>,
    pub deopt_reason: Option<Cow<'de, str>>,
    pub self_size: Option<f64>,
    pub hit_count: Option<f64>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
pub(crate) enum NodeField {
    Id,
    CallFrame,
    FunctionName,
    ScriptId,
    Url,
    LineNumber,
    ColumnNumber,
    Children,
    Parent,
    PositionTicks,
    DeoptReason,
    SelfSize,
    HitCount,
    #[serde(other)]
    Other,
}

impl<'de> NodeFields<'de> {
    /// Reads one non-`children` field's value.
    pub fn read<A: MapAccess<'de>>(
        &mut self,
        field: NodeField,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match field {
            NodeField::Id => self.id = map.next_value::<Option<NodeId>>()?.map(|n| n.0),
            NodeField::CallFrame => self.call_frame = map.next_value()?,
            NodeField::FunctionName => self.legacy.function_name = map.next_value()?,
            NodeField::ScriptId => self.legacy.script_id = map.next_value()?,
            NodeField::Url => self.legacy.url = map.next_value()?,
            NodeField::LineNumber => self.legacy.line_number = map.next_value()?,
            NodeField::ColumnNumber => self.legacy.column_number = map.next_value()?,
            NodeField::Parent => self.parent = map.next_value::<Option<NodeId>>()?.map(|n| n.0),
            NodeField::PositionTicks => {
                self.ticks = map.next_value::<Option<Vec<TickIn>>>()?.unwrap_or_default()
            }
            NodeField::DeoptReason => self.deopt_reason = map.next_value()?,
            NodeField::SelfSize => self.self_size = crate::json::next_f64(map)?,
            NodeField::HitCount => self.hit_count = crate::json::next_f64(map)?,
            NodeField::Children | NodeField::Other => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    /// Lowers the fields into a raw node of `tree` with the given children range.
    pub fn finish(
        self,
        tree: &mut RawTree,
        profile: &mut Profile,
        children: Option<std::ops::Range<u32>>,
        fallback_id: u64,
    ) {
        let frame = match &self.call_frame {
            Some(cf) => cf.intern(profile),
            None => {
                // Legacy flat fields are 1-based with 0 for unknown; DevTools subtracts one.
                let shift = |f: &Option<Float>| f.as_ref().map(|f| Float(f.0 - 1.0));
                let cf = CallFrameIn {
                    function_name: self.legacy.function_name.clone(),
                    script_id: self
                        .legacy
                        .script_id
                        .as_ref()
                        .map(|s| IdString(Cow::Borrowed(&*s.0))),
                    url: self.legacy.url.clone(),
                    line_number: shift(&self.legacy.line_number),
                    column_number: shift(&self.legacy.column_number),
                };
                cf.intern(profile)
            }
        };
        let ticks_start = tree.ticks.len() as u32;
        for t in &self.ticks {
            if t.line.0 >= 1.0 && t.ticks.0 >= 0.0 {
                tree.ticks.push((t.line.0 as u32, t.ticks.0 as u32));
            }
        }
        let deopt_reason = self
            .deopt_reason
            .as_deref()
            .filter(|r| !r.is_empty() && *r != "no reason")
            .map(|r| profile.strings.intern(r));
        tree.nodes.push(RawNode {
            id: self.id.unwrap_or(fallback_id),
            frame,
            parent: self.parent,
            children,
            ticks: ticks_start..tree.ticks.len() as u32,
            deopt_reason,
            self_size: self
                .self_size
                .filter(|s| s.is_finite() && *s > 0.0)
                // Capped so that sums over millions of nodes still fit an i64.
                .map_or(0, |s| s.min(MAX_SIZE) as u64),
            hit_count: self.hit_count.map(|h| {
                if h.is_finite() && h > 0.0 {
                    h.min(MAX_SIZE) as u64
                } else {
                    0
                }
            }),
        });
    }
}

/// The largest `selfSize` believed (2^40 bytes, a terabyte).
const MAX_SIZE: f64 = (1u64 << 40) as f64;

/// Context shared by the node visitors.
pub(crate) struct TreeSink<'a> {
    pub tree: RawTree,
    pub profile: &'a mut Profile,
    pub path: &'a JsonPath,
    /// Ids for nodes that lack one (very old files), counted down from the top of the id space.
    pub next_fallback_id: u64,
}

impl<'a> TreeSink<'a> {
    pub fn new(profile: &'a mut Profile, path: &'a JsonPath) -> TreeSink<'a> {
        TreeSink {
            tree: RawTree::default(),
            profile,
            path,
            next_fallback_id: u64::MAX,
        }
    }

    pub fn fallback_id(&mut self) -> u64 {
        self.next_fallback_id -= 1;
        self.next_fallback_id
    }
}

/// The modern `nodes` array: flat nodes linked by `children` ids and/or `parent`.
pub(crate) struct NodesSeed<'s, 'a>(pub &'s mut TreeSink<'a>);

seed_visitor! {
    NodesSeed<'_, '_> => (), deserialize_seq, "an array of profile nodes";
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let sink = self.0;
        let mut index = 0;
        loop {
            sink.path.set_indexed("nodes", index);
            if seq.next_element_seed(FlatNodeSeed(sink))?.is_none() {
                break;
            }
            index += 1;
        }
        Ok(())
    }
}

struct FlatNodeSeed<'s, 'a>(&'s mut TreeSink<'a>);

seed_visitor! {
    FlatNodeSeed<'_, '_> => (), deserialize_map, "a profile node object";
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let sink = self.0;
        let mut fields = NodeFields::default();
        let mut children = None;
        while let Some(field) = map.next_key::<NodeField>()? {
            if let NodeField::Children = field {
                let ids: Option<Vec<NodeId>> = map.next_value()?;
                if let Some(ids) = ids {
                    let start = sink.tree.children.len() as u32;
                    sink.tree.children.extend(ids.into_iter().map(|n| n.0));
                    children = Some(start..sink.tree.children.len() as u32);
                }
            } else {
                fields.read(field, &mut map)?;
            }
        }
        if fields.id.is_none() {
            return Err(de::Error::missing_field("id"));
        }
        let fallback = sink.fallback_id();
        fields.finish(&mut sink.tree, sink.profile, children, fallback);
        Ok(())
    }
}

/// A nested `head` tree: each node's `children` are node objects. Nodes are flattened as they
/// are read (post-order), so a deep tree never becomes a deep Rust value. Returns the node's id.
pub(crate) struct HeadSeed<'s, 'a>(pub &'s mut TreeSink<'a>);

seed_visitor! {
    HeadSeed<'_, '_> => u64, deserialize_map, "a profile node object";
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let sink = self.0;
        let mut fields = NodeFields::default();
        let mut child_ids: Vec<u64> = Vec::new();
        let mut has_children = false;
        while let Some(field) = map.next_key::<NodeField>()? {
            if let NodeField::Children = field {
                has_children = true;
                map.next_value_seed(HeadChildrenSeed {
                    sink: &mut *sink,
                    out: &mut child_ids,
                })?;
            } else {
                fields.read(field, &mut map)?;
            }
        }
        let fallback = sink.fallback_id();
        let id = fields.id.unwrap_or(fallback);
        fields.id = Some(id);
        let start = sink.tree.children.len() as u32;
        sink.tree.children.extend_from_slice(&child_ids);
        let children = has_children.then_some(start..sink.tree.children.len() as u32);
        fields.finish(
            &mut sink.tree,
            sink.profile,
            children.or(Some(start..start)),
            fallback,
        );
        Ok(id)
    }
}

struct HeadChildrenSeed<'s, 'a, 'o> {
    sink: &'s mut TreeSink<'a>,
    out: &'o mut Vec<u64>,
}

seed_visitor! {
    HeadChildrenSeed<'_, '_, '_> => (), deserialize_any, "an array of child nodes";
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(id) = seq.next_element_seed(HeadSeed(&mut *self.sink))? {
            self.out.push(id);
        }
        Ok(())
    }
}
