//! The Statistics view (DevTools 134 and later): every byte of the heap in one category.
//!
//! Native nodes (and `extra_native_bytes`) are native memory, typed-array backing stores among them; the
//! rest of the total is the V8 heap, split into code, strings, JS arrays (an `Array` plus its `elements`
//! store when nothing else points at it) and system (hidden) objects. Sizes are the adjusted ones.

use crate::snapshot::{HeapSnapshot, Types};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Statistics {
    pub total: u64,
    pub native_total: u64,
    pub native_typed_arrays: u64,
    /// `total - native_total`; negative only for inconsistent files.
    pub v8heap_total: i64,
    pub code: u64,
    pub js_arrays: u64,
    pub strings: u64,
    pub system: u64,
}

pub(crate) fn compute(
    s: &HeapSnapshot,
    types: &Types,
    retainer_counts: &[u32],
    total: u64,
) -> Statistics {
    let mut st = Statistics {
        native_total: s.extra_native_bytes.unwrap_or(0),
        ..Statistics::default()
    };
    for i in s.nodes.ordinals() {
        let size = s.nodes.self_size(i) as u64;
        let kind = s.nodes.kind(i);
        let name = s.strings.bytes(s.nodes.name(i));
        if kind == types.hidden {
            st.system += size;
        } else if kind == types.native {
            st.native_total += size;
            if name == b"system / JSArrayBufferData" {
                st.native_typed_arrays += size;
            }
        } else if kind == types.code {
            st.code += size;
        } else if kind == types.cons_string || kind == types.sliced_string || kind == types.string {
            st.strings += size;
        } else if name == b"Array" {
            st.js_arrays += size;
            for e in s.nodes.edges(i) {
                if s.edges.kind(e) != types.edge_internal
                    || s.strings.bytes(s.edges.name_or_index(e)) != b"elements"
                {
                    continue;
                }
                let elements = s.edges.to_node(e);
                if retainer_counts[elements.index()] == 1 {
                    st.js_arrays += s.nodes.self_size(elements) as u64;
                }
                break;
            }
        }
    }
    st.with_total(total)
}

impl Statistics {
    /// These statistics with the snapshot's total size (the root's retained size plus the
    /// native bytes), which the dominators give after the rest is counted.
    pub(crate) fn with_total(mut self, total: u64) -> Statistics {
        self.total = total;
        self.v8heap_total = total as i64 - self.native_total as i64;
        self
    }
}
