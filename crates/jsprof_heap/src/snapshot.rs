//! The loaded snapshot: the node and edge tables as struct-of-arrays, the string arena, and the optional
//! sections (locations, samples, allocation traces).

use crate::strings::{StringIndex, Strings};

/// A node's ordinal (its row in the `nodes` table; V8's "node index" divided by the field count).
pub type NodeOrdinal = u32;
/// An edge's ordinal (its row in the `edges` table).
pub type EdgeOrdinal = u32;

/// Marks an absent node or edge type in [`Types`]; no real type index has this value.
pub const NO_TYPE: u8 = u8::MAX;

/// The type and field names from `snapshot.meta`, read by name.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub node_fields: Vec<String>,
    pub node_types: Vec<String>,
    pub edge_fields: Vec<String>,
    /// As in the file, without DevTools' local `invisible` type.
    pub edge_types: Vec<String>,
    pub location_fields: Vec<String>,
    pub sample_fields: Vec<String>,
    pub trace_function_info_fields: Vec<String>,
}

/// Node columns. Sizes are V8's `size_t` reduced mod 2^32, as DevTools stores them.
#[derive(Clone, Debug, Default)]
pub struct Nodes {
    pub kind: Vec<u8>,
    pub name: Vec<StringIndex>,
    pub id: Vec<u32>,
    /// After [`crate::analyze`] this holds DevTools' adjusted sizes (array/hidden sizes moved to owners).
    pub self_size: Vec<u32>,
    /// `first_edge[n]..first_edge[n + 1]` are node `n`'s edges; one entry more than there are nodes.
    pub first_edge: Vec<EdgeOrdinal>,
    /// Empty when the file has no `trace_node_id` field or no `trace_tree` (nothing to point at).
    pub trace_node_id: Vec<u32>,
    /// Low two bits of the `detachedness` field (0 unknown, 1 attached, 2 detached); empty when absent.
    pub detachedness: Vec<u8>,
}

impl Nodes {
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// Node `n`'s edges.
    #[inline]
    pub fn edges(&self, n: NodeOrdinal) -> std::ops::Range<usize> {
        self.first_edge[n as usize] as usize..self.first_edge[n as usize + 1] as usize
    }
}

/// Edge columns, grouped by source node in node order.
#[derive(Clone, Debug, Default)]
pub struct Edges {
    pub kind: Vec<u8>,
    /// A string index, or an integer for `element` and `hidden` edges.
    pub name_or_index: Vec<u32>,
    pub to_node: Vec<NodeOrdinal>,
}

impl Edges {
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }
}

/// Where the constructor or function of an object was defined (`locations` section).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub node: NodeOrdinal,
    pub script_id: u32,
    /// 0-based, as V8 writes it.
    pub line: u32,
    /// 0-based, as V8 writes it.
    pub column: u32,
}

/// A `samples` entry of a `.heaptimeline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub timestamp_us: u64,
    pub last_assigned_id: u64,
}

/// A `trace_function_infos` entry; `line` and `column` are 1-based, 0 meaning unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceFunctionInfo {
    pub function_id: u32,
    pub name: StringIndex,
    pub script_name: StringIndex,
    pub script_id: u32,
    pub line: u32,
    pub column: u32,
}

/// A node of the allocation `trace_tree`, flattened in pre-order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceNode {
    pub id: u32,
    pub function_info_index: u32,
    pub count: u32,
    pub size: u64,
    /// Index of the parent in the flattened tree; `u32::MAX` for top-level nodes.
    pub parent: u32,
}

/// Something the reader recovered from; `at` is a JSON path or a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub at: String,
    pub message: String,
}

/// Type indexes resolved by name, [`NO_TYPE`] where the file lacks a type.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    pub hidden: u8,
    pub array: u8,
    pub string: u8,
    pub object: u8,
    pub code: u8,
    pub closure: u8,
    pub regexp: u8,
    pub native: u8,
    pub synthetic: u8,
    pub cons_string: u8,
    pub sliced_string: u8,
    pub edge_context: u8,
    pub edge_element: u8,
    pub edge_property: u8,
    pub edge_internal: u8,
    pub edge_hidden: u8,
    pub edge_shortcut: u8,
    pub edge_weak: u8,
    /// DevTools appends `invisible` after the file's edge types.
    pub edge_invisible: u8,
}

impl Types {
    pub fn new(meta: &Meta) -> Types {
        let find = |list: &[String], name: &str| {
            list.iter()
                .position(|t| t == name)
                .filter(|&i| i < NO_TYPE as usize)
                .map_or(NO_TYPE, |i| i as u8)
        };
        let n = |name| find(&meta.node_types, name);
        let e = |name| find(&meta.edge_types, name);
        Types {
            hidden: n("hidden"),
            array: n("array"),
            string: n("string"),
            object: n("object"),
            code: n("code"),
            closure: n("closure"),
            regexp: n("regexp"),
            native: n("native"),
            synthetic: n("synthetic"),
            cons_string: n("concatenated string"),
            sliced_string: n("sliced string"),
            edge_context: e("context"),
            edge_element: e("element"),
            edge_property: e("property"),
            edge_internal: e("internal"),
            edge_hidden: e("hidden"),
            edge_shortcut: e("shortcut"),
            edge_weak: e("weak"),
            edge_invisible: meta.edge_types.len().min(NO_TYPE as usize - 1) as u8,
        }
    }

    /// True when the edge's `name_or_index` is a string index.
    #[inline]
    pub fn edge_has_string_name(&self, kind: u8) -> bool {
        kind != self.edge_element && kind != self.edge_hidden
    }
}

/// A loaded `.heapsnapshot` or `.heaptimeline`.
#[derive(Clone, Debug, Default)]
pub struct HeapSnapshot {
    pub meta: Meta,
    pub nodes: Nodes,
    pub edges: Edges,
    pub strings: Strings,
    /// Sorted by node; one per node (the last one in the file wins, as in DevTools' map).
    pub locations: Vec<Location>,
    pub samples: Vec<Sample>,
    pub trace_function_infos: Vec<TraceFunctionInfo>,
    pub trace_tree: Vec<TraceNode>,
    pub root: NodeOrdinal,
    pub extra_native_bytes: Option<u64>,
    /// `trace_function_count` as the header states it.
    pub header_trace_function_count: u64,
    pub warnings: Vec<Warning>,
}

impl HeapSnapshot {
    /// `heaptimeline` when allocation tracking data is present, otherwise `heapsnapshot`.
    pub fn kind(&self) -> &'static str {
        if self.header_trace_function_count > 0 || !self.trace_function_infos.is_empty() {
            "heaptimeline"
        } else {
            "heapsnapshot"
        }
    }

    pub fn types(&self) -> Types {
        Types::new(&self.meta)
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The node's type name (`"object"`, `"native"`, …); unknown indexes read as `"undefined"`, as in DevTools.
    pub fn node_type_name(&self, n: NodeOrdinal) -> &str {
        self.meta
            .node_types
            .get(self.nodes.kind[n as usize] as usize)
            .map_or("undefined", |s| s.as_str())
    }

    /// The node's location, if the `locations` section has one.
    pub fn location(&self, n: NodeOrdinal) -> Option<&Location> {
        self.locations
            .binary_search_by_key(&n, |l| l.node)
            .ok()
            .map(|i| &self.locations[i])
    }

    /// Ordinal of the node with this id (a linear scan: ids are not indexed).
    pub fn find_id(&self, id: u32) -> Option<NodeOrdinal> {
        self.nodes
            .id
            .iter()
            .position(|&x| x == id)
            .map(|i| i as NodeOrdinal)
    }
}
