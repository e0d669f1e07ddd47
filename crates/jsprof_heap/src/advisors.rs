//! Advisors: memory a program could give back, each finding with the bytes it would save and the
//! objects that hold it (beside [`crate::duplicate_strings`]).
//!
//! - **Duplicated objects**: objects of one class and size whose content is the same — the same
//!   property and element names, each pointing at the same string text, the same number, or the
//!   very same object, and the same hidden class — down into their own property, element and
//!   hash-table stores. Keeping one copy would save every copy's retained size but the smallest.
//! - **Empty collections**: `Map`s and `Set`s whose hash table holds no entry, and `Array`s whose
//!   elements store holds no element, while the table or store takes room (an empty `Map` costs its
//!   table; a `new Array(n)` its `n` holes). Creating them on first use would save their retained
//!   size (DevTools counts a store held by one object in that object's own size, so the
//!   collection's retained size is what there is to save). They are not also duplicates.
//!
//! - **Low-cardinality maps**: `Map`s of at least [`MIN_MAP_ENTRIES`] entries whose values take
//!   at most [`MAX_DISTINCT_VALUES`] distinct values (and at most 1 % of the entries): a status
//!   per user, a flag per id. One `Set` of keys per value (or the value on the keyed object)
//!   would drop a value slot per entry: [`Advice::saving`] is the entries times 8 bytes (V8's
//!   tagged size in Node; Chrome compresses pointers to 4, so half there). The entries are read
//!   from the map's hash table: V8 lays an `OrderedHashMap` out as 3 header slots, B buckets and
//!   2B entries of 3 slots (key, value, chain), B a power of two; the snapshot numbers each
//!   visible slot, so B is the largest power of two below the first entry's slot and a slot's
//!   place in its entry is its offset from `3 + B`, modulo 3.
//!
//! - **Sparse arrays**: `Array`s whose elements store holds elements in at most a quarter of its
//!   slots (a `new Array(4096)` given a few values; holes have no edge), the rest of it taken.
//!   A store of just the elements would save the store's size less a header and a slot per
//!   element (V8's 16-byte `FixedArray` header and 8-byte slots in Node; Chrome's compressed
//!   pointers halve both, so the saving is the larger, Node's, figure there). Arrays with no
//!   element are empty collections. Small integers have no node unless the snapshot exposes
//!   numbers: without them, an array of small integers and one object looks sparse
//!   ([`Advice::smi_blind`]).
//! - **Unread context variables** and **detached DOM kept by listeners**: memory code keeps
//!   alive without needing it ([`crate::kept_alive`]).
//!
//! All see the heap as the snapshot shows it, and V8 writes no node for a small integer (a Smi):
//! a `Set` of small integers, an array filled with them, or objects that differ only in a
//! small-integer property look empty or alike. [`Advice::smi_blind`] says when that can matter.
//!
//! Findings are grouped: duplicates by content, empty collections by their class, the class of
//! the object that holds them and the edge it holds them by (`Session.listeners`), so ten thousand
//! empty `Map`s of one field are one finding.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_128;

use crate::analysis::Analysis;
use crate::distances::BASE_SYSTEM_DISTANCE;
use crate::edge_names::edge_label;
use crate::kept_alive::{detached_by_listeners, unread_context_variables, ScriptSources};
use crate::retaining_paths::{from_root, RetainerIndex};
use crate::snapshot::{EdgeOrdinal, HeapSnapshot, NodeOrdinal, Types};

/// Which advisor found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AdviceKind {
    DuplicateObjects,
    EmptyCollections,
    LowCardinalityMaps,
    SparseArrays,
    UnreadContextVariables,
    DetachedByListeners,
}

impl AdviceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AdviceKind::DuplicateObjects => "duplicate_objects",
            AdviceKind::EmptyCollections => "empty_collections",
            AdviceKind::LowCardinalityMaps => "low_cardinality_maps",
            AdviceKind::SparseArrays => "sparse_arrays",
            AdviceKind::UnreadContextVariables => "unread_context_variables",
            AdviceKind::DetachedByListeners => "detached_by_listeners",
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advice {
    pub kind: AdviceKind,
    /// The objects' class, as the Summary names it.
    pub class: String,
    /// How the objects are held: the class of their closest retainer and its edge
    /// (`Session.listeners`, `Array[]`), from the sample; empty when the root holds them.
    pub held_by: String,
    pub count: u64,
    /// The bytes the change would save.
    pub saving: u64,
    /// All the objects' retained sizes together.
    pub retained_size: u64,
    /// The largest object of the finding, for its retainers.
    pub sample: NodeOrdinal,
    /// The finding could include objects that differ (or hold entries) only in small integers,
    /// which snapshots do not show.
    pub smi_blind: bool,
    /// Low-cardinality maps: their entries together, and the most distinct values one holds.
    pub entries: Option<(u64, u64)>,
    /// Where the function that keeps the objects is (`url:line:column`, 1-based): the closure
    /// whose context holds an unread variable, a listener's handler.
    pub location: Option<String>,
    /// Unread context variables: the variable's name.
    pub variable: Option<String>,
}

/// The fewest entries a `Map` needs before its values' cardinality is worth a finding.
pub const MIN_MAP_ENTRIES: u64 = 1000;
/// The most distinct values a low-cardinality `Map` holds.
pub const MAX_DISTINCT_VALUES: usize = 16;
/// The bytes of a value slot (a tagged pointer without pointer compression, as in Node).
pub const TAGGED_SIZE: u64 = 8;

/// Tuning for [`advise`].
#[derive(Clone, Copy, Debug)]
pub struct AdviseOptions {
    /// Findings saving fewer bytes are left out.
    pub min_saving: u64,
}

impl Default for AdviseOptions {
    fn default() -> Self {
        AdviseOptions { min_saving: 1024 }
    }
}

/// Every advisor's findings, largest saving first. `index` is the snapshot's retainer index,
/// built once by the caller, who also walks it for the findings' retaining paths. `sources`
/// reads whole scripts where the snapshot holds only their start (the unread-context advisor).
pub fn advise(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    options: AdviseOptions,
    sources: &mut dyn ScriptSources,
) -> Vec<Advice> {
    let types = s.types();
    let mut view = View {
        s,
        a,
        types: &types,
        index,
        value_name: find_string(s, b"value"),
        map_name: find_string(s, b"map"),
        table_name: find_string(s, b"table"),
        elements_name: find_string(s, b"elements"),
        stores: ["elements", "properties", "table"]
            .iter()
            .filter_map(|n| find_string(s, n.as_bytes()))
            .collect(),
        numbers_shown: false,
    };
    let number = s.meta.node_types.iter().position(|t| t == "number");
    view.numbers_shown = s
        .nodes
        .ordinals()
        .any(|n| Some(s.nodes.kind(n) as usize) == number && view.number_value(n).is_some());
    let mut all = duplicate_objects(&view);
    all.extend(empty_collections(&view));
    all.extend(low_cardinality_maps(&view));
    all.extend(sparse_arrays(&view));
    all.extend(unread_context_variables(s, a, &types, sources));
    all.extend(detached_by_listeners(s, a, &types, index));
    all.retain(|f| f.saving >= options.min_saving.max(1));
    all.sort_by(|x, y| {
        y.saving
            .cmp(&x.saving)
            .then(x.kind.cmp(&y.kind))
            .then(x.class.cmp(&y.class))
            .then(s.nodes.id(x.sample).cmp(&s.nodes.id(y.sample)))
    });
    all
}

struct View<'a> {
    s: &'a HeapSnapshot,
    a: &'a Analysis,
    types: &'a Types,
    index: &'a RetainerIndex,
    /// String indexes of the edge names the advisors look for (absent when no edge has them).
    value_name: Option<u32>,
    map_name: Option<u32>,
    table_name: Option<u32>,
    elements_name: Option<u32>,
    stores: Vec<u32>,
    /// The snapshot was taken with numeric values exposed: in-object small integers are nodes.
    numbers_shown: bool,
}

/// The target of `n`'s internal edge named by string index `name`.
pub(crate) fn internal_edge(
    s: &HeapSnapshot,
    types: &Types,
    n: NodeOrdinal,
    name: Option<u32>,
) -> Option<NodeOrdinal> {
    let name = name?;
    s.nodes.edges(n).find_map(|e| {
        (s.edges.kind(e) == types.edge_internal && s.edges.name_or_index(e) == name)
            .then(|| s.edges.to_node(e))
    })
}

/// The index of a string in the table, when present.
pub(crate) fn find_string(s: &HeapSnapshot, text: &[u8]) -> Option<u32> {
    (0..s.strings.len() as u32).find(|&i| s.strings.bytes(i) == text)
}

impl View<'_> {
    fn reachable(&self, n: NodeOrdinal) -> bool {
        let d = self.a.distances[n.index()];
        (0..BASE_SYSTEM_DISTANCE).contains(&d)
    }

    fn internal_named(&self, n: NodeOrdinal, name: Option<u32>) -> Option<NodeOrdinal> {
        internal_edge(self.s, self.types, n, name)
    }

    /// The hash table of an empty `Map` or `Set`, or the elements store of an `Array` with no
    /// element in it.
    fn empty_store(&self, n: NodeOrdinal) -> Option<NodeOrdinal> {
        let s = self.s;
        let store = match s.strings.bytes(s.nodes.name(n)) {
            b"Map" | b"Set" => self.internal_named(n, self.table_name)?,
            b"Array" => self
                .internal_named(n, self.elements_name)
                .filter(|&e| s.nodes.kind(e) == self.types.array)?,
            _ => return None,
        };
        s.nodes
            .edges(store)
            .all(|e| self.ignored(e) || self.is_map_edge(e))
            .then_some(store)
    }

    fn is_store_edge(&self, e: EdgeOrdinal) -> bool {
        self.s.edges.kind(e) == self.types.edge_internal
            && self.stores.contains(&self.s.edges.name_or_index(e))
    }

    fn is_map_edge(&self, e: EdgeOrdinal) -> bool {
        self.s.edges.kind(e) == self.types.edge_internal
            && Some(self.s.edges.name_or_index(e)) == self.map_name
    }

    /// Edges that carry no content: weak ones and DevTools' invisible and shortcut ones.
    fn ignored(&self, e: EdgeOrdinal) -> bool {
        let k = self.s.edges.kind(e);
        k == self.types.edge_weak || k == self.types.edge_invisible || k == self.types.edge_shortcut
    }

    /// What an edge's target contributes to its owner's content: a string's text (V8 writes each
    /// text once, so its index is the text), a number's value, or the object itself.
    fn value_key(&self, t: NodeOrdinal, h: &mut impl Hasher) {
        let kind = self.s.nodes.kind(t);
        if kind == self.types.string {
            (1u8, self.s.nodes.name(t)).hash(h);
        } else if let Some(v) = self.number_value(t) {
            (2u8, self.s.nodes.name(v)).hash(h);
        } else {
            (3u8, t.index()).hash(h);
        }
    }

    fn number_value(&self, t: NodeOrdinal) -> Option<NodeOrdinal> {
        let v = self.internal_named(t, self.value_name)?;
        (self.s.nodes.kind(v) == self.types.string).then_some(v)
    }

    /// Hashes `n`'s content; stores (properties, elements, hash tables) by their own content.
    fn content(&self, n: NodeOrdinal, h: &mut impl Hasher, depth: u8) {
        let s = self.s;
        (s.nodes.kind(n), s.nodes.name(n), s.nodes.self_size(n)).hash(h);
        for e in s.nodes.edges(n) {
            if self.ignored(e) {
                continue;
            }
            (s.edges.kind(e), s.edges.name_or_index(e)).hash(h);
            let t = s.edges.to_node(e);
            if depth == 0 && self.is_store_edge(e) {
                self.content(t, h, 1);
            } else {
                self.value_key(t, h);
            }
        }
    }

    /// The closest retainer of `n` (smallest distance; weak edges aside) as `Class.edge`.
    fn held_by(&self, n: NodeOrdinal) -> String {
        let s = self.s;
        let best = self
            .index
            .edges_of(n)
            .iter()
            .copied()
            .filter(|&e| !self.ignored(e) && !from_root(s, e))
            .min_by_key(|&e| {
                let d = self.a.distances[self.index.source(s, e).index()];
                (d < 0, d)
            });
        match best {
            Some(e) => format!(
                "{}{}",
                self.a.class_name(s, self.index.source(s, e)),
                edge_label(s, e)
            ),
            None => String::new(),
        }
    }
}

#[derive(Default)]
pub(crate) struct Group {
    count: u64,
    pub(crate) total: u64,
    smallest: u64,
    sample: Option<(u64, NodeOrdinal)>,
}

impl Group {
    pub(crate) fn add(&mut self, n: NodeOrdinal, retained: u64) {
        if self.count == 0 {
            self.smallest = retained;
        }
        self.count += 1;
        self.total += retained;
        self.smallest = self.smallest.min(retained);
        if self.sample.is_none_or(|(r, _)| retained > r) {
            self.sample = Some((retained, n));
        }
    }
}

impl Group {
    /// The finding of a group: its count and retained size, its largest object as the sample.
    pub(crate) fn advice(
        &self,
        kind: AdviceKind,
        class: String,
        held_by: String,
        saving: u64,
        smi_blind: bool,
    ) -> Option<Advice> {
        let (_, sample) = self.sample?;
        Some(Advice {
            kind,
            class,
            held_by,
            count: self.count,
            saving,
            retained_size: self.total,
            sample,
            smi_blind,
            entries: None,
            location: None,
            variable: None,
        })
    }
}

/// An object's content as bytes ([`View::content`] writes it, each value at its fixed width),
/// hashed once by [`fingerprint`]; one buffer serves every object.
#[derive(Default)]
struct Content(Vec<u8>);

impl Hasher for Content {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn finish(&self) -> u64 {
        xxh3_128(&self.0) as u64
    }
}

/// A 128-bit fingerprint of `n`'s content (XXH3-128: collisions out of reach). Before, two
/// SipHash passes over the content took 14 % of `heap advisors` on a 440 MB snapshot.
fn fingerprint(v: &View<'_>, n: NodeOrdinal, content: &mut Content) -> u128 {
    content.0.clear();
    v.content(n, content, 0);
    xxh3_128(&content.0)
}

fn duplicate_objects(v: &View<'_>) -> Vec<Advice> {
    let s = v.s;
    let mut groups: FxHashMap<u128, Group> = FxHashMap::default();
    let mut content = Content::default();
    for n in s.nodes.ordinals() {
        if s.nodes.kind(n) != v.types.object || !v.reachable(n) {
            continue;
        }
        // An object with nothing but its hidden class has no content to compare; an empty
        // collection is the other advisor's.
        if s.nodes.edges(n).all(|e| v.ignored(e) || v.is_map_edge(e)) || v.empty_store(n).is_some()
        {
            continue;
        }
        let g = groups.entry(fingerprint(v, n, &mut content)).or_default();
        g.add(n, v.a.retained[n.index()]);
    }
    groups
        .into_values()
        .filter(|g| g.count > 1)
        .filter_map(|g| {
            let (_, sample) = g.sample?;
            g.advice(
                AdviceKind::DuplicateObjects,
                v.a.class_name(s, sample),
                v.held_by(sample),
                g.total - g.smallest,
                !v.numbers_shown,
            )
        })
        .collect()
}

fn empty_collections(v: &View<'_>) -> Vec<Advice> {
    let s = v.s;
    let mut groups: HashMap<(String, String), Group> = HashMap::new();
    for n in s.nodes.ordinals() {
        if s.nodes.kind(n) != v.types.object || !v.reachable(n) || v.empty_store(n).is_none() {
            continue;
        }
        let key = (v.a.class_name(s, n), v.held_by(n));
        groups
            .entry(key)
            .or_default()
            .add(n, v.a.retained[n.index()]);
    }
    groups
        .into_iter()
        // V8 writes no node for a small integer in a store, exposed numbers or not.
        .filter_map(|((class, held_by), g)| {
            g.advice(AdviceKind::EmptyCollections, class, held_by, g.total, true)
        })
        .collect()
}

/// A `FixedArray`'s header (map and length) in Node.
pub const FIXED_ARRAY_HEADER: u64 = 16;
/// A `JSArray` (map, properties, elements, length) in Node.
pub const JS_ARRAY_SIZE: u64 = 32;

fn sparse_arrays(v: &View<'_>) -> Vec<Advice> {
    let s = v.s;
    let mut groups: HashMap<(String, String), (Group, u64)> = HashMap::new();
    for n in s.nodes.ordinals() {
        if s.nodes.kind(n) != v.types.object
            || s.strings.bytes(s.nodes.name(n)) != b"Array"
            || !v.reachable(n)
        {
            continue;
        }
        let Some(store) = v
            .internal_named(n, v.elements_name)
            .filter(|&e| s.nodes.kind(e) == v.types.array)
        else {
            continue;
        };
        // V8 writes an array's elements as the array's own `element` edges (the store repeats
        // them as internal ones).
        let elements = s
            .nodes
            .edges(n)
            .filter(|&e| s.edges.kind(e) == v.types.edge_element)
            .count() as u64;
        // DevTools' shallow-size transfer moves a store held by one array into the array's own
        // size (`shallow.rs`): then the store is the array's size less the `JSArray` itself.
        let size = match s.nodes.self_size(store) as u64 {
            0 => (s.nodes.self_size(n) as u64).saturating_sub(JS_ARRAY_SIZE),
            size => size,
        };
        let slots = size.saturating_sub(FIXED_ARRAY_HEADER) / TAGGED_SIZE;
        if elements == 0 || elements * 4 > slots {
            continue;
        }
        let saving = size - FIXED_ARRAY_HEADER - elements * TAGGED_SIZE;
        // Arrays held by the elements of one array are one finding: `Array[]`, not `Array[7]`.
        let held_by = v.held_by(n);
        let held_by = match held_by.strip_suffix(']').and_then(|h| h.rsplit_once('[')) {
            Some((owner, index)) if index.bytes().all(|b| b.is_ascii_digit()) => {
                format!("{owner}[]")
            }
            _ => held_by,
        };
        let key = (v.a.class_name(s, n), held_by);
        let (g, total) = groups.entry(key).or_default();
        g.add(n, v.a.retained[n.index()]);
        *total += saving;
    }
    groups
        .into_iter()
        .filter_map(|((class, held_by), (g, saving))| {
            g.advice(
                AdviceKind::SparseArrays,
                class,
                held_by,
                saving,
                !v.numbers_shown,
            )
        })
        .collect()
}

/// A `Map`'s entries (visible value slots) and the keys of their values, from its hash table.
fn map_values(v: &View<'_>, table: NodeOrdinal) -> Option<(u64, Vec<u128>)> {
    let s = v.s;
    // The table's slots are internal edges named by their index ("1027"); `map` is its class.
    let slots: Vec<(u32, NodeOrdinal)> = s
        .nodes
        .edges(table)
        .filter(|&e| s.edges.kind(e) == v.types.edge_internal)
        .filter_map(|e| {
            let name = std::str::from_utf8(s.strings.bytes(s.edges.name_or_index(e))).ok()?;
            Some((name.parse().ok()?, s.edges.to_node(e)))
        })
        .collect();
    let first = slots.iter().map(|&(i, _)| i).min()?;
    // 3 header slots, then B buckets: the first entry starts at 3 + B, B a power of two.
    let buckets = 1u32 << (31 - first.checked_sub(3)?.max(1).leading_zeros());
    let start = 3 + buckets;
    let mut entries = 0;
    let mut values = Vec::new();
    let mut content = Content::default();
    for &(slot, target) in &slots {
        if slot < start || (slot - start) % 3 != 1 {
            continue;
        }
        entries += 1;
        content.0.clear();
        v.value_key(target, &mut content);
        values.push(xxh3_128(&content.0));
    }
    Some((entries, values))
}

fn low_cardinality_maps(v: &View<'_>) -> Vec<Advice> {
    let s = v.s;
    let mut groups: HashMap<(String, String), (Group, u64, u64)> = HashMap::new();
    for n in s.nodes.ordinals() {
        if s.nodes.kind(n) != v.types.object
            || s.strings.bytes(s.nodes.name(n)) != b"Map"
            || !v.reachable(n)
        {
            continue;
        }
        let Some(table) = v.internal_named(n, v.table_name) else {
            continue;
        };
        let Some((entries, mut values)) = map_values(v, table) else {
            continue;
        };
        if entries < MIN_MAP_ENTRIES {
            continue;
        }
        values.sort_unstable();
        values.dedup();
        let distinct = values.len() as u64;
        if values.len() > MAX_DISTINCT_VALUES || distinct * 100 > entries {
            continue;
        }
        let key = (v.a.class_name(s, n), v.held_by(n));
        let (g, total, most) = groups.entry(key).or_default();
        g.add(n, v.a.retained[n.index()]);
        *total += entries;
        *most = (*most).max(distinct);
    }
    groups
        .into_iter()
        .filter_map(|((class, held_by), (g, entries, distinct))| {
            let (_, sample) = g.sample?;
            Some(Advice {
                kind: AdviceKind::LowCardinalityMaps,
                class,
                held_by,
                count: g.count,
                saving: entries * TAGGED_SIZE,
                retained_size: g.total,
                sample,
                // Small-integer values have no node: such a map may hold more values than seen.
                smi_blind: true,
                entries: Some((entries, distinct)),
                location: None,
                variable: None,
            })
        })
        .collect()
}
