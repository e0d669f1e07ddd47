//! The Summary view: objects grouped by class key, with count, self size, retained size and distance.
//!
//! A class's retained size counts each instance's retained size once, skipping instances that an
//! instance of the same class already dominates, so nested objects are not counted twice. Nodes whose
//! (adjusted) self size is 0 are left out, as in DevTools. Objects with a known allocation site are
//! split by it: their key is `script,line,column,Class`; other keys are `,Class`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::analysis::Analysis;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};
use crate::strings::{cmp_utf16, wtf8_to_string};

/// One Summary row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassRow {
    /// DevTools' public class key (`,Name` or `script,line,column,Name`).
    pub key: String,
    pub name: String,
    pub count: u64,
    pub self_size: u64,
    pub retained_size: u64,
    /// The smallest distance among the instances.
    pub distance: i32,
}

/// The order of [`summary`]'s rows, largest first; ties by key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortBy {
    #[default]
    Retained,
    SelfSize,
    Count,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum InternalKey {
    Class(u32),
    Located {
        script: u32,
        line: u32,
        column: u32,
        class: u32,
    },
}

struct Aggregate {
    key: InternalKey,
    count: u64,
    self_size: u64,
    retained: u64,
    distance: i32,
    members: Vec<NodeOrdinal>,
}

const NO_KEY: u32 = u32::MAX;

/// All Summary rows, sorted.
pub fn summary(s: &HeapSnapshot, a: &Analysis, sort: SortBy) -> Vec<ClassRow> {
    summary_of(s, a, sort, None)
}

/// The Summary of the objects whose ids are in `ids` (after its start, up to its end), as
/// DevTools' Summary filter "Objects allocated between Snapshot 1 and Snapshot 2" shows it
/// (`createNodeIdFilter`, with the two snapshots' largest JS object ids): each row counts,
/// sizes and retains only those objects.
pub fn summary_between(
    s: &HeapSnapshot,
    a: &Analysis,
    sort: SortBy,
    ids: std::ops::RangeInclusive<u32>,
) -> Vec<ClassRow> {
    summary_of(s, a, sort, Some(&|i| ids.contains(&s.nodes.id[i])))
}

/// The Summary of the objects `filter` keeps by their native context, as DevTools' Summary
/// filter "JavaScript context" shows it (`nativeContext_<n>`, `sharedNativeContext`,
/// `noNativeContext`): as [`summary_between`], each row counts, sizes and retains only those
/// objects (a class's retained size adds those not dominated by another of them), and its
/// distance is the smallest among them.
pub fn summary_in_context(
    s: &HeapSnapshot,
    a: &Analysis,
    sort: SortBy,
    contexts: &crate::NativeContexts,
    filter: crate::ContextFilter,
) -> Vec<ClassRow> {
    let owner = filter.owner();
    summary_of(s, a, sort, Some(&|i| contexts.owner[i] == owner))
}

/// Which nodes (by index) a filtered Summary keeps.
type Keep<'a> = &'a dyn Fn(usize) -> bool;

fn summary_of(s: &HeapSnapshot, a: &Analysis, sort: SortBy, keep: Option<Keep>) -> Vec<ClassRow> {
    // The dominator tree's child lists do not depend on the classes: build them meanwhile (on
    // graphs big enough to pay for a thread).
    let ((mut aggregates, key_of), tree) = if s.nodes.len() < crate::PARALLEL_MIN_NODES {
        (aggregate(s, a, false, keep), DominatedLists::of(s, a))
    } else {
        std::thread::scope(|scope| {
            let tree = scope.spawn(|| DominatedLists::of(s, a));
            let groups = aggregate(s, a, false, keep);
            let tree = tree
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (groups, tree)
        })
    };
    add_class_retained_sizes(s, a, &tree, &key_of, &mut aggregates);
    let mut rows: Vec<ClassRow> = public_rows(s, aggregates)
        .into_iter()
        .map(|(row, _)| row)
        .collect();
    sort_rows(&mut rows, sort);
    rows
}

/// The Summary's classes with their members (ordinals in node order), in DevTools' order of first
/// appearance; retained sizes are left at 0.
pub fn class_members(s: &HeapSnapshot, a: &Analysis) -> Vec<(ClassRow, Vec<NodeOrdinal>)> {
    let (aggregates, _) = aggregate(s, a, true, None);
    public_rows(s, aggregates)
}

/// Groups the nodes with a non-zero self size (that `keep` keeps, when given) by internal class
/// key; returns the groups and each node's group ([`NO_KEY`] for none).
#[allow(clippy::needless_range_loop)] // several columns are read per node
fn aggregate(
    s: &HeapSnapshot,
    a: &Analysis,
    with_members: bool,
    keep: Option<Keep>,
) -> (Vec<Aggregate>, Vec<u32>) {
    let types = s.types();
    let n = s.nodes.len();
    let mut aggregates: Vec<Aggregate> = Vec::new();
    let mut by_class: Vec<u32> = vec![NO_KEY; s.strings.len()];
    // Millions of located objects share a few thousand keys: a cheap hash instead of SipHash.
    let mut by_location: HashMap<InternalKey, u32, BuildHasherDefault<FxHasher>> =
        HashMap::default();
    let mut key_of: Vec<u32> = vec![NO_KEY; n];
    // `locations` is sorted by node: walk it alongside the nodes instead of searching it.
    let locations = &s.locations;
    let mut next_location = 0;
    for i in 0..n {
        let size = s.nodes.self_size[i];
        if size == 0 || keep.is_some_and(|keep| !keep(i)) {
            continue;
        }
        let class = a.classes[i];
        let located = if s.nodes.kind[i] == types.object {
            while next_location < locations.len() && locations[next_location].node.index() < i {
                next_location += 1;
            }
            locations.get(next_location).filter(|l| l.node.index() == i)
        } else {
            None
        };
        let (key, slot) = match located {
            Some(l) => {
                let key = InternalKey::Located {
                    script: l.script_id,
                    line: l.line,
                    column: l.column,
                    class,
                };
                (key, by_location.entry(key).or_insert(NO_KEY))
            }
            None => (InternalKey::Class(class), &mut by_class[class as usize]),
        };
        if *slot == NO_KEY {
            *slot = aggregates.len() as u32;
            aggregates.push(Aggregate {
                key,
                count: 0,
                self_size: 0,
                retained: 0,
                distance: i32::MAX,
                members: Vec::new(),
            });
        }
        let agg = &mut aggregates[*slot as usize];
        key_of[i] = *slot;
        agg.count += 1;
        agg.self_size += size as u64;
        agg.distance = agg.distance.min(a.distances[i]);
        if with_members {
            agg.members.push(NodeOrdinal::from_index(i));
        }
    }
    (aggregates, key_of)
}

/// Rows under DevTools' public keys. Different internal keys can share a public key (two string
/// entries with one text); DevTools' object assignment keeps the first position and the last value.
fn public_rows(s: &HeapSnapshot, aggregates: Vec<Aggregate>) -> Vec<(ClassRow, Vec<NodeOrdinal>)> {
    let mut rows: Vec<(ClassRow, Vec<NodeOrdinal>)> = Vec::with_capacity(aggregates.len());
    let mut row_of: HashMap<String, usize> = HashMap::new();
    for agg in aggregates {
        let (key, name) = match agg.key {
            InternalKey::Class(class) => {
                let name = wtf8_to_string(s.strings.bytes(class));
                (format!(",{name}"), name)
            }
            InternalKey::Located {
                script,
                line,
                column,
                class,
            } => {
                let name = wtf8_to_string(s.strings.bytes(class));
                (format!("{script},{line},{column},{name}"), name)
            }
        };
        let row = ClassRow {
            key,
            name,
            count: agg.count,
            self_size: agg.self_size,
            retained_size: agg.retained,
            distance: agg.distance,
        };
        match row_of.get(&row.key) {
            Some(&i) => rows[i] = (row, agg.members),
            None => {
                row_of.insert(row.key.clone(), rows.len());
                rows.push((row, agg.members));
            }
        }
    }
    rows
}

pub fn sort_rows(rows: &mut [ClassRow], sort: SortBy) {
    rows.sort_by(|x, y| {
        let primary = match sort {
            SortBy::Retained => y.retained_size.cmp(&x.retained_size),
            SortBy::SelfSize => y.self_size.cmp(&x.self_size),
            SortBy::Count => y.count.cmp(&x.count),
        };
        primary.then_with(|| cmp_utf16(x.key.as_bytes(), y.key.as_bytes()))
    });
}

/// The dominator tree as child lists (CSR): `children[first[n]..first[n + 1]]` are dominated by `n`.
struct DominatedLists {
    first: Vec<u32>,
    children: Vec<NodeOrdinal>,
}

impl DominatedLists {
    fn of(s: &HeapSnapshot, a: &Analysis) -> DominatedLists {
        let (first, children) = crate::dominator_tree::child_lists(s, a);
        DominatedLists { first, children }
    }
}

/// Walks the dominator tree from the root, adding a node's retained size to its class unless an
/// ancestor of the same class was already added.
fn add_class_retained_sizes(
    s: &HeapSnapshot,
    a: &Analysis,
    tree: &DominatedLists,
    key_of: &[u32],
    aggregates: &mut [Aggregate],
) {
    let (first, children) = (&tree.first, &tree.children);
    const EXIT: u32 = 1 << 31;
    let mut active = vec![false; aggregates.len()];
    // Raw ordinals, with `EXIT` set on a node's second visit.
    let mut stack: Vec<u32> = vec![s.root.raw()];
    while let Some(entry) = stack.pop() {
        if entry & EXIT != 0 {
            active[key_of[(entry & !EXIT) as usize] as usize] = false;
            continue;
        }
        let node = entry as usize;
        let key = key_of[node];
        if key != NO_KEY && !active[key as usize] {
            aggregates[key as usize].retained += a.retained[node];
            if first[node] != first[node + 1] {
                active[key as usize] = true;
                stack.push(entry | EXIT);
            }
        }
        stack.extend(
            children[first[node] as usize..first[node + 1] as usize]
                .iter()
                .map(|c| c.raw()),
        );
    }
}

/// FxHash (rustc's): one multiply per word, plenty for small integer keys.
#[derive(Default)]
struct FxHasher {
    hash: u64,
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }

    fn write_u64(&mut self, v: u64) {
        self.hash = (self.hash.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
