//! Two advisors for memory that code keeps alive without needing it:
//!
//! - **Unread context variables.** V8 puts a function's variable in a context object when any
//!   inner function reads it, and every closure made in that scope shares the one context. So a
//!   long-lived callback keeps alive a large object that only a sibling closure, long gone, read
//!   (the classic `const big = …; const unused = () => big; return () => 42;`). A finding is a
//!   context variable whose object — data, not a function the scope declares — the context alone
//!   keeps (the context dominates it), where the
//!   snapshot shows every live closure that can reach the context (its own and those of scopes
//!   nested in it) and the text of none of them names the variable. The text is read from the
//!   whole script where [`ScriptSources`] can read it and it begins with the snapshot's copy of
//!   it, else from that copy (V8 keeps a string's first 1,024 characters), for functions that
//!   end within it. Any doubt — a
//!   closure without a location, a script inline in a page (its positions count from the page),
//!   a text that cannot be cut ([`crate::js_text`]), an `eval` — and the variable is not
//!   reported. The saving is the objects' retained size.
//! - **Detached DOM kept by listeners.** A detached tree ([`crate::detached_trees`]) whose
//!   shortest retaining path passes through an event listener (a `…EventListener` native node,
//!   as Blink writes `V8EventListener`): a listener registered on a live target (`window`,
//!   `document`) whose handler's context holds the removed element. Removing the listener when
//!   the element is removed would give back the trees' retained size. Findings are grouped by
//!   the tree's class, the listener's target and the handler.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::advisors::{find_string, internal_edge, Advice, AdviceKind, Group};
use crate::analysis::Analysis;
use crate::detached_dom::is_detached;
use crate::js_text::{function_text, offset, words};
use crate::retaining_paths::{from_root, RetainerIndex};
use crate::snapshot::{HeapSnapshot, NodeOrdinal, Types};

/// Where the advisors read a script's whole text when the snapshot holds only its start.
pub trait ScriptSources {
    /// The whole text of the script named `url` (a path or `file://` URL in Node), or `None`
    /// when it cannot be read here. The caller keeps it only if it begins with the snapshot's
    /// copy, so a file changed since the snapshot is not read as its source.
    fn read(&mut self, url: &str) -> Option<Vec<u8>>;
}

/// Reads nothing: only what the snapshot itself holds.
pub struct SnapshotTextOnly;

impl ScriptSources for SnapshotTextOnly {
    fn read(&mut self, _: &str) -> Option<Vec<u8>> {
        None
    }
}

/// V8 writes at most this many characters of a string's text.
const SNAPSHOT_STRING_CHARS: usize = 1024;
/// The most closures one context may be shared by before the advisor stops reading them.
const MAX_READERS: usize = 10_000;
/// A context variable's object must retain at least this much to be looked at.
const MIN_VARIABLE_RETAINED: u64 = 64;

/// The names of the edges the advisors follow, as string indexes.
struct Names {
    context: Option<u32>,
    previous: Option<u32>,
    shared: Option<u32>,
    script: [Option<u32>; 2],
    source: Option<u32>,
    name: Option<u32>,
}

impl Names {
    fn of(s: &HeapSnapshot) -> Names {
        let f = |t: &str| find_string(s, t.as_bytes());
        Names {
            context: f("context"),
            previous: f("previous"),
            shared: f("shared"),
            script: [f("script_or_debug_info"), f("script")],
            source: f("source"),
            name: f("name"),
        }
    }
}

/// A function's text, as far as it could be read: the words in it, or `None` (unknown).
type FunctionWords = Option<Rc<FxHashSet<Vec<u8>>>>;
/// A script's text (the whole file, or the snapshot's cut copy) and whether it is whole.
type ScriptText = Option<(Rc<Vec<u8>>, bool)>;

struct Reader<'a> {
    s: &'a HeapSnapshot,
    types: &'a Types,
    names: Names,
    sources: &'a mut dyn ScriptSources,
    /// A script node's text (the whole file, or the snapshot's copy) and whether it is whole.
    scripts: FxHashMap<NodeOrdinal, ScriptText>,
    functions: FxHashMap<(u32, u32, u32), FunctionWords>,
}

impl Reader<'_> {
    fn internal(&self, n: NodeOrdinal, name: Option<u32>) -> Option<NodeOrdinal> {
        internal_edge(self.s, self.types, n, name)
    }

    /// The script node of a closure: `shared` → `script_or_debug_info` (`script` before V8 10).
    fn script_of(&self, closure: NodeOrdinal) -> Option<NodeOrdinal> {
        let shared = self.internal(closure, self.names.shared)?;
        self.names
            .script
            .iter()
            .find_map(|&name| self.internal(shared, name))
    }

    fn script_text(&mut self, script: NodeOrdinal) -> ScriptText {
        if let Some(t) = self.scripts.get(&script) {
            return t.clone();
        }
        let text = self
            .read_script(script)
            .map(|(text, whole)| (Rc::new(text), whole));
        self.scripts.insert(script, text.clone());
        text
    }

    /// The script's whole text, or the snapshot's cut copy of it (`false`): a function that
    /// ends within the copy can still be read there.
    fn read_script(&mut self, script: NodeOrdinal) -> Option<(Vec<u8>, bool)> {
        let s = self.s;
        let url = String::from_utf8_lossy(
            s.strings
                .bytes(s.nodes.name(self.internal(script, self.names.name)?)),
        )
        .into_owned();
        // An inline script's positions count from the page's start, its text from the script's:
        // they cannot be matched.
        let path = url.split(['?', '#']).next().unwrap_or("");
        if path.ends_with(".html") || path.ends_with(".htm") || path.ends_with('/') {
            return None;
        }
        let copy = s
            .strings
            .bytes(s.nodes.name(self.internal(script, self.names.source)?));
        let chars = String::from_utf8_lossy(copy).chars().count();
        if chars < SNAPSHOT_STRING_CHARS {
            return Some((copy.to_vec(), true));
        }
        Some(
            match self
                .sources
                .read(&url)
                .filter(|whole| whole.starts_with(copy))
            {
                Some(whole) => (whole, true),
                None => (copy.to_vec(), false),
            },
        )
    }

    /// The words of a closure's function text, when it can be read.
    fn function_words(&mut self, closure: NodeOrdinal) -> FunctionWords {
        let at = *self.s.location(closure)?;
        let key = (at.script_id, at.line, at.column);
        if let Some(w) = self.functions.get(&key) {
            return w.clone();
        }
        let words = self.script_of(closure).and_then(|script| {
            let (text, whole) = self.script_text(script)?;
            let start = offset(&text, at.line, at.column)?;
            let body = function_text(&text, start, whole)?;
            let set: FxHashSet<Vec<u8>> = words(body).into_iter().map(<[u8]>::to_vec).collect();
            Some(Rc::new(set))
        });
        self.functions.insert(key, words.clone());
        words
    }

    /// `name (url:line:column)` of a closure, 1-based, or its name alone.
    fn describe(&self, closure: NodeOrdinal) -> (String, Option<String>) {
        let s = self.s;
        let name = String::from_utf8_lossy(s.strings.bytes(s.nodes.name(closure))).into_owned();
        let name = if name.is_empty() {
            "(anonymous)".to_string()
        } else {
            name
        };
        let at = s.location(closure).and_then(|l| {
            let script = self.script_of(closure)?;
            let url = self.internal(script, self.names.name)?;
            Some(format!(
                "{}:{}:{}",
                String::from_utf8_lossy(s.strings.bytes(s.nodes.name(url))),
                l.line + 1,
                l.column + 1
            ))
        });
        (name, at)
    }
}

fn reachable(a: &Analysis, n: NodeOrdinal) -> bool {
    (0..crate::distances::BASE_SYSTEM_DISTANCE).contains(&a.distances[n.index()])
}

fn is_context(s: &HeapSnapshot, n: NodeOrdinal) -> bool {
    s.strings
        .bytes(s.nodes.name(n))
        .starts_with(b"system / Context")
}

/// A group of findings being summed: the advisors' [`Group`] with what these two advisors say
/// beside it.
struct Sum {
    group: Group,
    class: String,
    held_by: String,
    location: Option<String>,
    variable: Option<String>,
}

impl Sum {
    fn new(
        class: String,
        held_by: String,
        location: Option<String>,
        variable: Option<String>,
    ) -> Sum {
        Sum {
            group: Group::default(),
            class,
            held_by,
            location,
            variable,
        }
    }

    /// The finding: the objects' retained sizes are what freeing them gives back.
    fn advice(self, kind: AdviceKind) -> Option<Advice> {
        let saving = self.group.total;
        let mut advice = self
            .group
            .advice(kind, self.class, self.held_by, saving, false)?;
        advice.location = self.location;
        advice.variable = self.variable;
        Some(advice)
    }
}

/// Context variables no live closure that shares the context reads (see the module's text).
pub(crate) fn unread_context_variables(
    s: &HeapSnapshot,
    a: &Analysis,
    types: &Types,
    sources: &mut dyn ScriptSources,
) -> Vec<Advice> {
    let mut r = Reader {
        s,
        types,
        names: Names::of(s),
        sources,
        scripts: FxHashMap::default(),
        functions: FxHashMap::default(),
    };
    // The closures each context is the own context of, and each context's inner contexts.
    let mut closures: FxHashMap<NodeOrdinal, Vec<NodeOrdinal>> = FxHashMap::default();
    let mut inner: FxHashMap<NodeOrdinal, Vec<NodeOrdinal>> = FxHashMap::default();
    for n in s.nodes.ordinals() {
        if !reachable(a, n) {
            continue;
        }
        if s.nodes.kind(n) == types.closure {
            if let Some(c) = r.internal(n, r.names.context) {
                closures.entry(c).or_default().push(n);
            }
        } else if is_context(s, n) {
            if let Some(p) = r.internal(n, r.names.previous) {
                inner.entry(p).or_default().push(n);
            }
        }
    }
    let mut groups: FxHashMap<(u32, String, Option<String>), Sum> = FxHashMap::default();
    for c in s.nodes.ordinals() {
        if !is_context(s, c) || !reachable(a, c) {
            continue;
        }
        let variables: Vec<(u32, NodeOrdinal)> = s
            .nodes
            .edges(c)
            .filter(|&e| s.edges.kind(e) == types.edge_context)
            .map(|e| (s.edges.name_or_index(e), s.edges.to_node(e)))
            .filter(|&(name, t)| {
                a.idom[t.index()] == c
                    && a.retained[t.index()] >= MIN_VARIABLE_RETAINED
                    // A function a scope declares is code its scope keeps, not data.
                    && s.nodes.kind(t) != types.closure
                    && s.nodes.kind(t) != types.code
                    && !s.strings.bytes(name).starts_with(b".")
            })
            .collect();
        if variables.is_empty() {
            continue;
        }
        let Some(readers) = readers_of(c, &closures, &inner) else {
            continue;
        };
        let mut texts = Vec::with_capacity(readers.len());
        for &f in &readers {
            match r.function_words(f) {
                Some(w) if !w.contains(&b"eval"[..]) => texts.push(w),
                _ => break,
            }
        }
        if texts.len() < readers.len() {
            continue;
        }
        let keeper = *readers
            .iter()
            .min_by_key(|&&f| (s.location(f).map(|l| (l.script_id, l.line, l.column)), f))
            .expect("a context with readers");
        for (name, t) in variables {
            let var = s.strings.bytes(name);
            if texts.iter().any(|w| w.contains(var)) {
                continue;
            }
            let (function, location) = r.describe(keeper);
            let variable = String::from_utf8_lossy(var).into_owned();
            let class = a.class_name(s, t);
            groups
                .entry((name, class.clone(), location.clone()))
                .or_insert_with(|| {
                    let held_by = format!("{function}()->{variable}");
                    Sum::new(class, held_by, location, Some(variable))
                })
                .group
                .add(t, a.retained[t.index()]);
        }
    }
    groups
        .into_values()
        .filter_map(|g| g.advice(AdviceKind::UnreadContextVariables))
        .collect()
}

/// Every live closure whose scope chain reaches context `c`, or `None` when there are none (the
/// context is kept by something else: a generator, a bound function) or too many to read.
fn readers_of(
    c: NodeOrdinal,
    closures: &FxHashMap<NodeOrdinal, Vec<NodeOrdinal>>,
    inner: &FxHashMap<NodeOrdinal, Vec<NodeOrdinal>>,
) -> Option<Vec<NodeOrdinal>> {
    let mut out = Vec::new();
    let mut seen = FxHashSet::default();
    let mut stack = vec![c];
    while let Some(ctx) = stack.pop() {
        if !seen.insert(ctx) {
            continue;
        }
        out.extend(closures.get(&ctx).into_iter().flatten().copied());
        if out.len() > MAX_READERS {
            return None;
        }
        stack.extend(inner.get(&ctx).into_iter().flatten().copied());
    }
    (!out.is_empty()).then_some(out)
}

/// Detached DOM trees kept alive through an event listener (see the module's text).
pub(crate) fn detached_by_listeners(
    s: &HeapSnapshot,
    a: &Analysis,
    types: &Types,
    index: &RetainerIndex,
) -> Vec<Advice> {
    let r = Reader {
        s,
        types,
        names: Names::of(s),
        sources: &mut SnapshotTextOnly,
        scripts: FxHashMap::default(),
        functions: FxHashMap::default(),
    };
    let mut groups: FxHashMap<(String, String, Option<String>), Sum> = FxHashMap::default();
    for n in s.nodes.ordinals() {
        if n == s.root
            || !is_detached(s, types.native, n)
            || is_detached(s, types.native, a.idom[n.index()])
        {
            continue;
        }
        let Some((handler, target)) = listener_on_path(s, a, index, n) else {
            continue;
        };
        let (function, location) = if s.nodes.kind(handler) == types.closure {
            r.describe(handler)
        } else {
            (a.class_name(s, handler), None)
        };
        let class = a.class_name(s, n);
        let target = target.map_or("a target".to_string(), |t| a.class_name(s, t));
        groups
            .entry((
                class.clone(),
                format!("{target}/{function}"),
                location.clone(),
            ))
            .or_insert_with(|| {
                Sum::new(
                    class,
                    format!("{target} listener {function}()"),
                    location,
                    None,
                )
            })
            .group
            .add(n, a.retained[n.index()]);
    }
    groups
        .into_values()
        .filter_map(|g| g.advice(AdviceKind::DetachedByListeners))
        .collect()
}

/// The most steps the walk up a shortest retaining path takes.
const MAX_PATH_STEPS: usize = 200;

/// Walks `n`'s shortest retaining path towards the root; at the first event listener on it,
/// the node below the listener (its handler) and the event target holding the listener (the
/// retainer of Blink's `EventTargetData`, when the path shows one).
fn listener_on_path(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    n: NodeOrdinal,
) -> Option<(NodeOrdinal, Option<NodeOrdinal>)> {
    let types = s.types();
    let closest = |m: NodeOrdinal| {
        index
            .edges_of(m)
            .iter()
            .copied()
            .filter(|&e| {
                let k = s.edges.kind(e);
                k != types.edge_weak
                    && k != types.edge_invisible
                    && k != types.edge_shortcut
                    && !from_root(s, e)
            })
            .map(|e| index.source(s, e))
            .filter(|&src| src != m)
            .min_by_key(|&src| {
                let d = a.distances[src.index()];
                (d < 0, d, src)
            })
    };
    let mut below = n;
    let mut at = closest(n)?;
    let mut handler = None;
    for _ in 0..MAX_PATH_STEPS {
        let name = s.strings.bytes(s.nodes.name(at));
        if handler.is_none() && name.ends_with(b"EventListener") {
            handler = Some(below);
        } else if handler.is_some() && name == b"blink::EventTargetData" {
            return Some((handler?, closest(at)));
        }
        if a.distances[at.index()] <= 1 {
            break;
        }
        below = at;
        at = closest(at)?;
    }
    handler.map(|h| (h, None))
}
