//! A synthetic V8 heap snapshot of any size whose Chrome DevTools numbers are known by construction,
//! so that files DevTools itself cannot load (over ~4 GB) can still be checked number for number.
//!
//! The graph is a forest of identical *clusters* hanging off the root. Every edge that is not a
//! tree edge goes *into* a node `v` from inside the subtree of `v`'s tree parent `p` (a sibling, a
//! descendant of a sibling, or a descendant of `v`). Then every path from the root to `v` enters the
//! subtree of `p` through `p`, so `p` dominates `v`, and no node strictly below `p` does (the tree edge
//! `p → v` bypasses them all): the dominator tree *is* the construction tree. The one exception is
//! deliberate: a `Shared` node has two tree-less parents `Mid[i]` and `Mid[i+1]`, so its dominator is
//! their common parent, the cluster head. Retained sizes are then subtree sums, a class's retained size
//! is the sum of its members' (no class is nested under itself), and distances are the BFS depths
//! (no extra edge is a shortcut: each one starts at a depth ≥ its target's parent's).
//!
//! Only types whose DevTools rules are simple appear: `object` (class = name), `native` (class = name,
//! Statistics' native and typed arrays for `system / JSArrayBufferData`), `code` (`(compiled code)`,
//! Statistics' code), `string` (`(string)`, Statistics' strings), and the `synthetic` root. No
//! `array`/`hidden` node (their sizes move to owners), no `Object` name (interface inference), no weak
//! or shortcut edge (not essential), no `Window` (page ownership), no `locations` (class keys stay
//! `,Name`).
//!
//! One cluster (`F` mids, `G` leaves per mid):
//! ```text
//! root ─element k─► Head[k] ─internal─► Native, Code; ─property next─► Head[k+1]
//!                   Head ─element i─► Mid[i] ─element j─► Leaf[i][j] ─next─► Leaf[i][j+1]
//!                                     Mid[i] ─name─► Text[i] ◄─label─ Leaf[i][j] ─parent─► Mid[i]
//!                                     Mid[i] ─shared─► Shared[i] ◄─prevShared─ Mid[i+1]
//! ```

use std::io::{self, Write};

/// Node type indexes in [`NODE_TYPES`].
const T_STRING: u8 = 2;
const T_OBJECT: u8 = 3;
const T_CODE: u8 = 4;
const T_NATIVE: u8 = 8;
const T_SYNTHETIC: u8 = 9;
const NODE_TYPES: &str = r#"["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape","wasm object"]"#;
/// Edge type indexes.
const E_ELEMENT: u8 = 1;
const E_PROPERTY: u8 = 2;
const E_INTERNAL: u8 = 3;
const NODE_FIELDS: u64 = 7;

/// The string table: fixed names first, then the texts `s0..s{F-1}` of the `Text` nodes.
const STRINGS: &[&str] = &[
    "",
    "Cluster",
    "system / JSArrayBufferData",
    "(code builtin)",
    "Mid0",
    "Mid1",
    "Mid2",
    "Shared",
    "Leaf",
    "native",
    "code",
    "next",
    "name",
    "shared",
    "prevShared",
    "parent",
    "label",
];
const S_EMPTY: u32 = 0;
const S_CLUSTER: u32 = 1;
const S_BUFFER: u32 = 2;
const S_CODE_NAME: u32 = 3;
const S_MID0: u32 = 4;
const S_SHARED: u32 = 7;
const S_LEAF: u32 = 8;
const S_NATIVE_EDGE: u32 = 9;
const S_CODE_EDGE: u32 = 10;
const S_NEXT: u32 = 11;
const S_NAME: u32 = 12;
const S_SHARED_EDGE: u32 = 13;
const S_PREV_SHARED: u32 = 14;
const S_PARENT: u32 = 15;
const S_LABEL: u32 = 16;
const S_TEXTS: u32 = STRINGS.len() as u32;

/// DevTools' distance of what only the GC roots reach (the synthetic root itself).
const BASE_SYSTEM_DISTANCE: i64 = 100_000_000;

/// The size of the generated graph.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub clusters: u64,
    /// `F`: mids per cluster (at least 2).
    pub mids: u64,
    /// `G`: leaves per mid (at least 1).
    pub leaves: u64,
}

/// What a node is in the construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Root,
    Head { k: u64 },
    Native { k: u64 },
    Code { k: u64 },
    Mid { k: u64, i: u64 },
    Text { k: u64, i: u64 },
    Shared { k: u64, i: u64 },
    Leaf { k: u64, i: u64, j: u64 },
}

/// One node's DevTools numbers, as the construction fixes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeTruth {
    pub ordinal: u64,
    pub id: u64,
    pub name: String,
    pub node_type: &'static str,
    pub self_size: u64,
    pub retained: u64,
    pub distance: i64,
    pub dominator_id: u64,
}

/// One Summary row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassTruth {
    pub name: &'static str,
    pub count: u64,
    pub self_size: u64,
    pub retained: u64,
    pub distance: i64,
}

/// Everything DevTools' Summary and Statistics show for the generated file.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    pub node_count: u64,
    pub edge_count: u64,
    pub total_size: u64,
    pub native_total: u64,
    pub typed_arrays: u64,
    pub code: u64,
    pub strings: u64,
    pub classes: Vec<ClassTruth>,
}

/// splitmix64: sizes vary per node without any state to keep.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Shape {
    /// A shape whose file is about `mb` megabytes (about 18 KB a cluster with the default fan-out).
    pub fn of_megabytes(mb: u64) -> Shape {
        let mut shape = Shape {
            clusters: 1,
            mids: 20,
            leaves: 10,
        };
        shape.clusters = (mb * 1_000_000 / shape.approx_cluster_bytes()).max(1);
        shape
    }

    fn approx_cluster_bytes(&self) -> u64 {
        // Measured on a generated 424 MB file: 23 bytes a node row and 14.4 an edge row.
        (self.nodes_per_cluster() * 230 + self.edges_per_cluster() * 144) / 10
    }

    pub fn nodes_per_cluster(&self) -> u64 {
        3 + 3 * self.mids - 1 + self.mids * self.leaves
    }

    fn head_edges(&self) -> u64 {
        self.mids + 2 + u64::from(self.clusters > 1)
    }

    pub fn edges_per_cluster(&self) -> u64 {
        let (f, g) = (self.mids, self.leaves);
        self.head_edges() + f * (g + 1) + 2 * (f - 1) + f * (3 * g - 1)
    }

    pub fn node_count(&self) -> u64 {
        1 + self.clusters * self.nodes_per_cluster()
    }

    pub fn edge_count(&self) -> u64 {
        self.clusters + self.clusters * self.edges_per_cluster()
    }

    fn mid0(&self) -> u64 {
        3
    }
    fn text0(&self) -> u64 {
        3 + self.mids
    }
    fn shared0(&self) -> u64 {
        3 + 2 * self.mids
    }
    fn leaf0(&self) -> u64 {
        3 + 3 * self.mids - 1
    }

    pub fn ordinal(&self, role: Role) -> u64 {
        let base = |k: u64| 1 + k * self.nodes_per_cluster();
        match role {
            Role::Root => 0,
            Role::Head { k } => base(k),
            Role::Native { k } => base(k) + 1,
            Role::Code { k } => base(k) + 2,
            Role::Mid { k, i } => base(k) + self.mid0() + i,
            Role::Text { k, i } => base(k) + self.text0() + i,
            Role::Shared { k, i } => base(k) + self.shared0() + i,
            Role::Leaf { k, i, j } => base(k) + self.leaf0() + i * self.leaves + j,
        }
    }

    pub fn role(&self, ordinal: u64) -> Role {
        if ordinal == 0 {
            return Role::Root;
        }
        let k = (ordinal - 1) / self.nodes_per_cluster();
        let local = (ordinal - 1) % self.nodes_per_cluster();
        match local {
            0 => Role::Head { k },
            1 => Role::Native { k },
            2 => Role::Code { k },
            l if l < self.text0() => Role::Mid {
                k,
                i: l - self.mid0(),
            },
            l if l < self.shared0() => Role::Text {
                k,
                i: l - self.text0(),
            },
            l if l < self.leaf0() => Role::Shared {
                k,
                i: l - self.shared0(),
            },
            l => {
                let l = l - self.leaf0();
                Role::Leaf {
                    k,
                    i: l / self.leaves,
                    j: l % self.leaves,
                }
            }
        }
    }

    pub fn id(ordinal: u64) -> u64 {
        2 * ordinal + 1
    }

    /// Self sizes: a few bytes of variation per node; `Native` is large so that the totals of a
    /// multi-GB file pass 2^32 (a `u32` sum anywhere shows).
    pub fn self_size(&self, ordinal: u64) -> u64 {
        let h = mix(ordinal);
        match self.role(ordinal) {
            Role::Root => 0,
            Role::Head { .. } => 40 + 8 * (h % 8),
            Role::Native { .. } => 100_000 + h % 100_000,
            Role::Code { .. } => 64 + 8 * (h % 32),
            Role::Mid { .. } => 32 + 8 * (h % 8),
            Role::Text { .. } => 16 + 8 * (h % 12),
            Role::Shared { .. } => 24 + 8 * (h % 4),
            Role::Leaf { .. } => 32 + 8 * (h % 16),
        }
    }

    fn name_index(&self, role: Role) -> u32 {
        match role {
            Role::Root => S_EMPTY,
            Role::Head { .. } => S_CLUSTER,
            Role::Native { .. } => S_BUFFER,
            Role::Code { .. } => S_CODE_NAME,
            Role::Mid { i, .. } => S_MID0 + (i % 3) as u32,
            Role::Text { i, .. } => S_TEXTS + i as u32,
            Role::Shared { .. } => S_SHARED,
            Role::Leaf { .. } => S_LEAF,
        }
    }

    fn type_of(role: Role) -> u8 {
        match role {
            Role::Root => T_SYNTHETIC,
            Role::Native { .. } => T_NATIVE,
            Role::Code { .. } => T_CODE,
            Role::Text { .. } => T_STRING,
            _ => T_OBJECT,
        }
    }

    /// The edges of a node in file order: `(type, name_or_index, target ordinal)`.
    fn edges_of(&self, role: Role, out: &mut Vec<(u8, u64, u64)>) {
        out.clear();
        let o = |r| self.ordinal(r);
        match role {
            Role::Root => {
                for k in 0..self.clusters {
                    out.push((E_ELEMENT, k, o(Role::Head { k })));
                }
            }
            Role::Head { k } => {
                for i in 0..self.mids {
                    out.push((E_ELEMENT, i, o(Role::Mid { k, i })));
                }
                out.push((E_INTERNAL, S_NATIVE_EDGE as u64, o(Role::Native { k })));
                out.push((E_INTERNAL, S_CODE_EDGE as u64, o(Role::Code { k })));
                if self.clusters > 1 {
                    let next = (k + 1) % self.clusters;
                    out.push((E_PROPERTY, S_NEXT as u64, o(Role::Head { k: next })));
                }
            }
            Role::Mid { k, i } => {
                for j in 0..self.leaves {
                    out.push((E_ELEMENT, j, o(Role::Leaf { k, i, j })));
                }
                out.push((E_PROPERTY, S_NAME as u64, o(Role::Text { k, i })));
                if i + 1 < self.mids {
                    out.push((E_PROPERTY, S_SHARED_EDGE as u64, o(Role::Shared { k, i })));
                }
                if i > 0 {
                    let prev = Role::Shared { k, i: i - 1 };
                    out.push((E_PROPERTY, S_PREV_SHARED as u64, o(prev)));
                }
            }
            Role::Leaf { k, i, j } => {
                if j + 1 < self.leaves {
                    let next = Role::Leaf { k, i, j: j + 1 };
                    out.push((E_PROPERTY, S_NEXT as u64, o(next)));
                }
                out.push((E_PROPERTY, S_PARENT as u64, o(Role::Mid { k, i })));
                out.push((E_PROPERTY, S_LABEL as u64, o(Role::Text { k, i })));
            }
            Role::Native { .. } | Role::Code { .. } | Role::Text { .. } | Role::Shared { .. } => {}
        }
    }

    fn mid_retained(&self, k: u64, i: u64) -> u64 {
        let mut r = self.self_size(self.ordinal(Role::Mid { k, i }));
        r += self.self_size(self.ordinal(Role::Text { k, i }));
        for j in 0..self.leaves {
            r += self.self_size(self.ordinal(Role::Leaf { k, i, j }));
        }
        r
    }

    fn head_retained(&self, k: u64) -> u64 {
        let base = self.ordinal(Role::Head { k });
        // Everything in the cluster is dominated by its head.
        (base..base + self.nodes_per_cluster())
            .map(|o| self.self_size(o))
            .sum()
    }

    fn total_size(&self) -> u64 {
        (0..self.clusters).map(|k| self.head_retained(k)).sum()
    }

    /// The dominator (by ordinal) and the distance, as the construction fixes them.
    fn dominator_and_distance(&self, role: Role) -> (u64, i64) {
        match role {
            Role::Root => (0, BASE_SYSTEM_DISTANCE),
            Role::Head { .. } => (0, 1),
            Role::Native { k } | Role::Code { k } | Role::Mid { k, .. } => {
                (self.ordinal(Role::Head { k }), 2)
            }
            // Two mids point at it: dominated by their common parent.
            Role::Shared { k, .. } => (self.ordinal(Role::Head { k }), 3),
            Role::Text { k, i } | Role::Leaf { k, i, .. } => (self.ordinal(Role::Mid { k, i }), 3),
        }
    }

    /// The DevTools node details of one node.
    pub fn node_truth(&self, ordinal: u64) -> NodeTruth {
        let role = self.role(ordinal);
        let retained = match role {
            Role::Root => self.total_size(),
            Role::Head { k } => self.head_retained(k),
            Role::Mid { k, i } => self.mid_retained(k, i),
            _ => self.self_size(ordinal),
        };
        let (dominator, distance) = self.dominator_and_distance(role);
        let name = match role {
            Role::Text { i, .. } => format!("s{i}"),
            _ => STRINGS[self.name_index(role) as usize].to_string(),
        };
        NodeTruth {
            ordinal,
            id: Self::id(ordinal),
            name,
            node_type: match Self::type_of(role) {
                T_SYNTHETIC => "synthetic",
                T_NATIVE => "native",
                T_CODE => "code",
                T_STRING => "string",
                _ => "object",
            },
            self_size: self.self_size(ordinal),
            retained,
            distance,
            dominator_id: Self::id(dominator),
        }
    }

    /// Writes the snapshot and returns DevTools' numbers for it, computed from the construction while
    /// writing (no graph algorithm runs here).
    pub fn write(&self, w: &mut impl Write) -> io::Result<Truth> {
        assert!(self.mids >= 2 && self.leaves >= 1 && self.clusters >= 1);
        let mut out = Out::new(w);
        out.raw(br#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":["#);
        out.raw(NODE_TYPES.as_bytes());
        out.raw(br#","string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"trace_node_fields":["id","function_info_index","count","size","children"],"sample_fields":["timestamp_us","last_assigned_id"],"location_fields":["object_index","script_id","line","column"]},"node_count":"#);
        out.num(self.node_count());
        out.raw(b",\"edge_count\":");
        out.num(self.edge_count());
        out.raw(b",\"trace_function_count\":0},\n\"nodes\":[");

        // Class rows in a fixed order: Cluster, buffer, code, Mid0..2, string, Shared, Leaf.
        let mut rows: Vec<ClassTruth> = [
            ("Cluster", 1),
            ("system / JSArrayBufferData", 2),
            ("(compiled code)", 2),
            ("Mid0", 2),
            ("Mid1", 2),
            ("Mid2", 2),
            ("(string)", 3),
            ("Shared", 3),
            ("Leaf", 3),
        ]
        .iter()
        .map(|&(name, distance)| ClassTruth {
            name,
            count: 0,
            self_size: 0,
            retained: 0,
            distance,
        })
        .collect();
        let mut truth = Truth {
            node_count: self.node_count(),
            edge_count: self.edge_count(),
            ..Truth::default()
        };
        let mut edges = Vec::new();
        for o in 0..self.node_count() {
            let role = self.role(o);
            let size = self.self_size(o);
            self.edges_of(role, &mut edges);
            if o > 0 {
                out.raw(b"\n,");
            }
            out.num(Self::type_of(role) as u64);
            out.comma();
            out.num(self.name_index(role) as u64);
            out.comma();
            out.num(Self::id(o));
            out.comma();
            out.num(size);
            out.comma();
            out.num(edges.len() as u64);
            out.raw(b",0,0");
            truth.total_size += size;
            let (row, retained) = match role {
                Role::Root => continue,
                Role::Head { k } => (0, self.head_retained(k)),
                Role::Native { .. } => {
                    truth.native_total += size;
                    truth.typed_arrays += size;
                    (1, size)
                }
                Role::Code { .. } => {
                    truth.code += size;
                    (2, size)
                }
                Role::Mid { k, i } => (3 + (i % 3) as usize, self.mid_retained(k, i)),
                Role::Text { .. } => {
                    truth.strings += size;
                    (6, size)
                }
                Role::Shared { .. } => (7, size),
                Role::Leaf { .. } => (8, size),
            };
            let r = &mut rows[row];
            r.count += 1;
            r.self_size += size;
            r.retained += retained;
        }
        out.raw(b"],\n\"edges\":[");
        let mut first = true;
        for o in 0..self.node_count() {
            self.edges_of(self.role(o), &mut edges);
            for &(kind, name, to) in &edges {
                if !first {
                    out.raw(b"\n,");
                }
                first = false;
                out.num(kind as u64);
                out.comma();
                out.num(name);
                out.comma();
                out.num(to * NODE_FIELDS);
            }
        }
        out.raw(b"],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":[],\n\"strings\":[");
        for (n, s) in STRINGS.iter().enumerate() {
            if n > 0 {
                out.raw(b",\n");
            }
            out.raw(b"\"");
            out.raw(s.as_bytes());
            out.raw(b"\"");
        }
        for i in 0..self.mids {
            out.raw(b",\n\"s");
            out.num(i);
            out.raw(b"\"");
        }
        out.raw(b"]}\n");
        out.flush()?;
        truth.classes = rows;
        Ok(truth)
    }
}

impl Truth {
    /// The expected numbers in the heap oracle's JSON shape (`target/oracle/heap-oracle.mjs`), with
    /// the node details of every `every`-th ordinal as its `sampled_nodes`.
    pub fn to_json(&self, shape: &Shape, every: u64) -> String {
        let mut s = String::new();
        let v8 = self.total_size - self.native_total;
        s.push_str(&format!(
            "{{\"tool\":\"bench/heapgen (by construction)\",\"node_count\":{},\"total_size\":{},\"statistics\":{{\"total\":{},\"native\":{{\"total\":{},\"typedArrays\":{}}},\"v8heap\":{{\"total\":{},\"code\":{},\"jsArrays\":0,\"strings\":{},\"system\":0}}}},\"class_count\":{},\"classes\":[",
            self.node_count, self.total_size, self.total_size, self.native_total, self.typed_arrays,
            v8, self.code, self.strings, self.classes.len()
        ));
        for (n, c) in self.classes.iter().enumerate() {
            if n > 0 {
                s.push(',');
            }
            s.push_str(&format!(
                "{{\"key\":\",{}\",\"name\":\"{}\",\"count\":{},\"self\":{},\"retained\":{},\"distance\":{}}}",
                c.name, c.name, c.count, c.self_size, c.retained, c.distance
            ));
        }
        s.push_str("],\"sampled_nodes\":[");
        let mut o = 0;
        while o < self.node_count {
            let t = shape.node_truth(o);
            if o > 0 {
                s.push(',');
            }
            s.push_str(&format!(
                "{{\"ordinal\":{},\"id\":{},\"name\":\"{}\",\"type\":\"{}\",\"self\":{},\"retained\":{},\"distance\":{},\"dominator_id\":{}}}",
                t.ordinal, t.id, t.name, t.node_type, t.self_size, t.retained, t.distance, t.dominator_id
            ));
            o += every.max(1);
        }
        s.push_str("]}\n");
        s
    }
}

/// A write buffer with hand-rolled integer formatting: the generator writes gigabytes.
struct Out<'a, W: Write> {
    w: &'a mut W,
    buf: Vec<u8>,
    /// The first write error; reported by `flush`.
    failed: Option<io::Error>,
}

impl<'a, W: Write> Out<'a, W> {
    fn new(w: &'a mut W) -> Self {
        Out {
            w,
            buf: Vec::with_capacity(1 << 20),
            failed: None,
        }
    }

    fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= 1 << 20 {
            self.spill();
        }
    }

    fn comma(&mut self) {
        self.buf.push(b',');
    }

    fn num(&mut self, mut n: u64) {
        let mut tmp = [0u8; 20];
        let mut at = tmp.len();
        loop {
            at -= 1;
            tmp[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.raw(&tmp[at..]);
    }

    fn spill(&mut self) {
        if self.failed.is_none() {
            if let Err(e) = self.w.write_all(&self.buf) {
                self.failed = Some(e);
            }
        }
        self.buf.clear();
    }

    fn flush(&mut self) -> io::Result<()> {
        self.spill();
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.w.flush(),
        }
    }
}
