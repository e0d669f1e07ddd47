//! The loaded snapshot: the node and edge tables as struct-of-arrays, the string arena, and the optional
//! sections (locations, samples, allocation traces).

use crate::strings::{StringIndex, Strings};

/// A node's ordinal: its row in [`Nodes`] (V8's "node index" divided by the node field count).
///
/// A type of its own so that the compiler tells it from the other `u32`s about a node: its V8
/// object id ([`Nodes::id`]), a string index, an edge ordinal, a position in some sorted list.
/// The table and the analyses mint them ([`Nodes::ordinals`], [`Edges::to_node`], the reader);
/// [`NodeOrdinal::from_raw`] reads back one that was stored as a number. The default is node 0,
/// where V8 puts the root.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeOrdinal(u32);

/// An edge's ordinal: its row in [`Edges`]. Node `n`'s edges are [`Nodes::edges`]`(n)`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EdgeOrdinal(u32);

macro_rules! ordinal {
    ($name:ident, $table:literal) => {
        impl $name {
            /// The ordinal of row `row`, which the crate has read from a table or checked
            /// against one.
            #[inline]
            pub(crate) const fn new(row: u32) -> $name {
                $name(row)
            }

            /// The ordinal of the row at `index` of a table of fewer than 2^32 rows.
            #[inline]
            pub(crate) const fn from_index(index: usize) -> $name {
                $name(index as u32)
            }

            #[doc = concat!("The ordinal whose [`raw`](Self::raw) value is `raw`: for an ordinal that was stored as a number (a sort's packed key, a test's expected row) and is read back. Nothing checks that it names a row of the ", $table, " table; an accessor given one past the end panics, as indexing does.")]
            #[inline]
            pub const fn from_raw(raw: u32) -> $name {
                $name(raw)
            }

            /// The row as a number, for packing into a key or counting.
            #[inline]
            pub const fn raw(self) -> u32 {
                self.0
            }

            /// The row, to index a per-row array (an analysis's results).
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
ordinal!(NodeOrdinal, "node");
ordinal!(EdgeOrdinal, "edge");

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

/// `len`, `is_empty` and `reserved_bytes` of a table of columns: its rows are its first column's
/// (every column has as many, or none when it is optional), its reserved bytes every column's
/// capacity.
macro_rules! column_table {
    ($table:ident { $first:ident $(, $column:ident)* }) => {
        impl $table {
            #[inline]
            pub fn len(&self) -> usize {
                self.$first.len()
            }

            #[inline]
            pub fn is_empty(&self) -> bool {
                self.$first.is_empty()
            }

            /// The bytes the columns have reserved (their capacity, not their length).
            pub fn reserved_bytes(&self) -> usize {
                reserved(&self.$first) $(+ reserved(&self.$column))*
            }
        }
    };
}

/// The bytes `column` has reserved.
fn reserved<T>(column: &Vec<T>) -> usize {
    column.capacity() * std::mem::size_of::<T>()
}

/// The node table, one column a field. Sizes are V8's `size_t` reduced mod 2^32, as DevTools
/// stores them.
///
/// The columns are private to the crate: other crates read a node through the accessors, by a
/// [`NodeOrdinal`]; the reader fills them, the analysis rewrites names and sizes, the cache and
/// the spill write and read them whole as slices. Ordinal-valued columns (`first_edge`) hold raw
/// `u32`s, so those passes and the dominators' loops see plain words.
#[derive(Clone, Debug, Default)]
pub struct Nodes {
    pub(crate) kind: Vec<u8>,
    pub(crate) name: Vec<StringIndex>,
    pub(crate) id: Vec<u32>,
    /// After [`crate::analyze`] this holds DevTools' adjusted sizes (array/hidden sizes moved to owners).
    pub(crate) self_size: Vec<u32>,
    /// `first_edge[n]..first_edge[n + 1]` are node `n`'s edges (edge ordinals); one entry more
    /// than there are nodes.
    pub(crate) first_edge: Vec<u32>,
    /// Empty when the file has no `trace_node_id` field or no `trace_tree` (nothing to point at).
    pub(crate) trace_node_id: Vec<u32>,
    /// Low two bits of the `detachedness` field (0 unknown, 1 attached, 2 detached); empty when absent.
    pub(crate) detachedness: Vec<u8>,
}

column_table!(Nodes {
    kind,
    name,
    id,
    self_size,
    first_edge,
    trace_node_id,
    detachedness
});

impl Nodes {
    /// Every node's ordinal, in table order.
    #[inline]
    pub fn ordinals(
        &self,
    ) -> impl DoubleEndedIterator<Item = NodeOrdinal> + ExactSizeIterator + Clone {
        (0..self.len() as u32).map(NodeOrdinal)
    }

    /// Node `n`'s edges, in the file's order.
    #[inline]
    pub fn edges(
        &self,
        n: NodeOrdinal,
    ) -> impl DoubleEndedIterator<Item = EdgeOrdinal> + ExactSizeIterator + Clone {
        let (start, end) = self.edge_bounds(n);
        (start..end).map(EdgeOrdinal)
    }

    /// Node `n`'s edges as the range of rows they take in the edge columns.
    #[inline]
    pub(crate) fn edge_range(&self, n: NodeOrdinal) -> std::ops::Range<usize> {
        let (start, end) = self.edge_bounds(n);
        start as usize..end as usize
    }

    #[inline]
    fn edge_bounds(&self, n: NodeOrdinal) -> (u32, u32) {
        (self.first_edge[n.index()], self.first_edge[n.index() + 1])
    }

    /// The node's type, an index into `meta.node_types` ([`HeapSnapshot::node_type_name`]).
    #[inline]
    pub fn kind(&self, n: NodeOrdinal) -> u8 {
        self.kind[n.index()]
    }

    /// The node's name in the string table (after [`crate::analyze`], `Detached ` names too).
    #[inline]
    pub fn name(&self, n: NodeOrdinal) -> StringIndex {
        self.name[n.index()]
    }

    /// V8's object id, the `@123` DevTools shows: stable across snapshots of one process.
    #[inline]
    pub fn id(&self, n: NodeOrdinal) -> u32 {
        self.id[n.index()]
    }

    /// The node's self size; after [`crate::analyze`], DevTools' adjusted one.
    #[inline]
    pub fn self_size(&self, n: NodeOrdinal) -> u32 {
        self.self_size[n.index()]
    }

    /// The allocation trace node that allocated it, when the file records them.
    #[inline]
    pub fn trace_node_id(&self, n: NodeOrdinal) -> Option<u32> {
        self.trace_node_id.get(n.index()).copied()
    }

    /// 0 unknown, 1 attached, 2 detached; 0 when the file has no `detachedness` field.
    #[inline]
    pub fn detachedness(&self, n: NodeOrdinal) -> u8 {
        self.detachedness.get(n.index()).copied().unwrap_or(0)
    }

    /// Every node with its id, in table order (a scan for several ids at once).
    #[inline]
    pub fn ids(&self) -> impl Iterator<Item = (NodeOrdinal, u32)> + '_ {
        self.id
            .iter()
            .enumerate()
            .map(|(i, &id)| (NodeOrdinal::from_index(i), id))
    }
}

/// The edge table, grouped by source node in node order; its columns private to the crate as
/// [`Nodes`]' are. `to_node` holds raw node ordinals.
#[derive(Clone, Debug, Default)]
pub struct Edges {
    pub(crate) kind: Vec<u8>,
    /// A string index, or an integer for `element` and `hidden` edges.
    pub(crate) name_or_index: Vec<u32>,
    pub(crate) to_node: Vec<u32>,
}

column_table!(Edges {
    kind,
    name_or_index,
    to_node
});

impl Edges {
    /// The edge's type, an index into `meta.edge_types` (or DevTools' `invisible` after them).
    #[inline]
    pub fn kind(&self, e: EdgeOrdinal) -> u8 {
        self.kind[e.index()]
    }

    /// A string index, or an integer for `element` and `hidden` edges
    /// ([`Types::edge_has_string_name`]).
    #[inline]
    pub fn name_or_index(&self, e: EdgeOrdinal) -> u32 {
        self.name_or_index[e.index()]
    }

    /// The node the edge points at.
    #[inline]
    pub fn to_node(&self, e: EdgeOrdinal) -> NodeOrdinal {
        NodeOrdinal(self.to_node[e.index()])
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
            .get(self.nodes.kind(n) as usize)
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
            .map(NodeOrdinal::from_index)
    }
}
