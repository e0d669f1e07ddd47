//! Source maps on heap snapshots: the original name and position of a located class (the
//! Summary's `script,line,column,Name` rows) or closure, found with the CPU side's maps and
//! rules ([`crate::source_maps::MapFinder`], the same policy object, `--sourcemap` and
//! `--no-sourcemaps`). DevTools' keys, names and numbers are never changed: the original goes
//! beside them (`source_name`, `source_location`).
//!
//! The snapshot says where a constructor or function is (V8's `locations`: script id, 0-based
//! line and column, at the function's `(`, or at `class` for a class without a constructor) and
//! which script an id is ([`jsprof_heap::scripts`]: its URL and the start of its text). The
//! original name is, in this order (docs/heap.md, "Source maps"):
//! 1. the CPU side's rule: the map's name of the segment that starts exactly where the generated
//!    name ends before the `(` (`function t(` → `t`'s segment);
//! 2. for a class, whose constructor sits at `constructor(` or at `class`: the map's name of the
//!    segment at the class's binding, found in the generated text as `G=class` or `class G`
//!    (`G` the generated name) at the nearest `class` keyword at or before the position — the
//!    nearest only, so a nested class never lends its name;
//! 3. the name of the segment covering the position, as the CPU side falls back to.
//!
//! The generated text is the script read on disk (when discovery is allowed) — checked against
//! the snapshot's copy of its start, so a script rebuilt since the snapshot is refused rather
//! than mapped wrong — or the snapshot's copy itself when V8 kept it whole.

use std::collections::HashMap;

use jsprof_analysis::ScriptMap;
use jsprof_heap::scripts::{Script, SNAPSHOT_STRING_LIMIT};
use jsprof_heap::HeapSnapshot;
use jsprof_profile::display::fmt_location;

use crate::heap::{
    ClassJson, InSource, LeakGroupJson, LeakStepJson, LeaksReport, NodeJson, NodesReport,
    ObjectJson, PathJson, RetainersReport, StepJson, SummaryReport,
};
use crate::heap_allocations::{AllocationsReport, StackJson};
use crate::heap_class::ClassObjectsReport;
use crate::heap_edges::{EdgeJson, EdgesReport};
use crate::heap_pages::{
    ClassObjects, DetachedJson, DominatedJson, HeapDoc, ObjectWithPaths, ObjectsPage,
};
use crate::leak_series::{LeakSeriesGroupJson, LeakSeriesReport};
use crate::source_maps::{local_path, MapFinder, SourceMaps, MAX_SCRIPT};
use crate::{JsonWarning, Result};

/// How far before a constructor its class's `class` keyword is looked for (UTF-16 units).
const CLASS_HEAD_SPAN: usize = 256 << 10;

/// A generated position's original: the name the rules above give (when one does) and
/// `url:line:column` (1-based) of the mapping that covers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Original {
    pub name: Option<String>,
    pub location: String,
}

impl From<Original> for InSource {
    fn from(o: Original) -> InSource {
        InSource {
            source_name: o.name,
            source_location: Some(o.location),
        }
    }
}

/// One script with its map and, when it could be had, its generated text.
struct Mapped {
    map: ScriptMap,
    /// The text as UTF-16 units (V8's and the maps' columns count them) and each line's start.
    text: Option<(Vec<u16>, Vec<usize>)>,
    /// How many positions the map covered and did not.
    covered: usize,
    uncovered: usize,
}

/// The maps of a snapshot's scripts, as `policy` allows, and what became of each script.
pub struct HeapMaps<'s> {
    scripts: &'s [Script],
    mapped: HashMap<u32, Mapped>,
    /// Scripts that name a map that could not be had, or whose file is not the one that ran.
    notes: Vec<JsonWarning>,
}

impl<'s> HeapMaps<'s> {
    /// Finds the maps of the scripts `ids` names (each once) among `scripts`.
    pub fn find(
        scripts: &'s [Script],
        ids: impl IntoIterator<Item = u32>,
        policy: &SourceMaps,
    ) -> Result<HeapMaps<'s>> {
        let mut out = HeapMaps {
            scripts,
            mapped: HashMap::new(),
            notes: Vec::new(),
        };
        if !policy.enabled {
            return Ok(out);
        }
        let finder = MapFinder::new(policy)?;
        let mut seen = std::collections::HashSet::new();
        for id in ids {
            if !seen.insert(id) {
                continue;
            }
            let Some(script) = scripts.iter().find(|s| s.id == id) else {
                continue;
            };
            if script.url.is_empty() {
                continue;
            }
            let found = finder
                .find(&script.url)
                .map_err(|why| format!("source map missing: {why}"))
                .and_then(|map| match map {
                    Some(map) => generated_text(script, policy)
                        .map(|text| Some((map, text)))
                        .map_err(|why| format!("source map not applied: {why}")),
                    None => Ok(None),
                });
            match found {
                Ok(None) => {}
                Ok(Some((map, text))) => {
                    let text = text.map(|t| {
                        let starts = line_starts(&t);
                        (t, starts)
                    });
                    out.mapped.insert(
                        id,
                        Mapped {
                            map,
                            text,
                            covered: 0,
                            uncovered: 0,
                        },
                    );
                }
                Err(message) => out.notes.push(JsonWarning {
                    at: script.url.clone(),
                    message,
                }),
            }
        }
        Ok(out)
    }

    /// The original of the function or constructor named `generated` at 0-based (`line`,
    /// `column`) of script `id`; `None` when the script has no map or the map does not cover it.
    pub fn original(
        &mut self,
        id: u32,
        line: u32,
        column: u32,
        generated: &str,
    ) -> Option<Original> {
        let m = self.mapped.get_mut(&id)?;
        let Some(at) = m.map.map.lookup(line, column) else {
            m.uncovered += 1;
            return None;
        };
        m.covered += 1;
        let map = &m.map.map;
        let name_len = generated.encode_utf16().count() as u32;
        // The CPU side's rule (jsprof_analysis::apply_source_maps), then the class's binding,
        // then the covering segment's name.
        let name = (!generated.is_empty() && column >= name_len)
            .then(|| map.name_at(line, column - name_len))
            .flatten()
            .or_else(|| {
                let (text, starts) = m.text.as_ref()?;
                let (l, c) = class_binding(text, starts, line, column, generated)?;
                map.name_at(l, c)
            })
            .or(at.name)
            .map(|n| map.name(n))
            .filter(|n| !n.is_empty() && !generated.is_empty())
            .map(str::to_string);
        let source = m
            .map
            .sources
            .get(at.source as usize)
            .map_or("", String::as_str);
        Some(Original {
            name,
            location: fmt_location(source, Some(at.line + 1), Some(at.column + 1)),
        })
    }

    /// What became of each script, as the CPU side reports its maps: the maps applied (how many
    /// positions they covered) and those that could not be had.
    pub fn warnings(&self) -> Vec<JsonWarning> {
        let mut out: Vec<JsonWarning> = Vec::new();
        for s in self.scripts {
            let Some(m) = self.mapped.get(&s.id) else {
                continue;
            };
            let mut message = format!("source map applied: {} positions mapped", m.covered);
            if m.uncovered > 0 {
                message.push_str(&format!(
                    ", {} not covered by the map (kept as they were)",
                    m.uncovered
                ));
            }
            if m.text.is_none() {
                message.push_str(
                    "; the script's text could not be read, so classes are named only where the \
                     map names their constructor's position",
                );
            }
            out.push(JsonWarning {
                at: s.url.clone(),
                message,
            });
        }
        out.extend(self.notes.iter().cloned());
        out
    }
}

/// The Summary's located rows with their originals (`source_name`, `source_location`), and the
/// maps' warnings after the snapshot's: every front door's one way of mapping a Summary.
pub fn map_summary(
    report: &mut SummaryReport,
    scripts: &[Script],
    policy: &SourceMaps,
) -> Result<()> {
    let ids: Vec<u32> = report
        .classes
        .iter()
        .filter_map(|c| located(&c.key).map(|l| l.0))
        .collect();
    let mut maps = HeapMaps::find(scripts, ids, policy)?;
    for row in &mut report.classes {
        map_row(row, &mut maps);
    }
    report.warnings.extend(maps.warnings());
    Ok(())
}

/// The allocation stacks' functions with their originals, as [`map_summary`] maps classes. A
/// trace function names its script by id and URL: scripts that no located closure names any
/// more (their functions all collected) come from the trace's own table, without a copy of
/// their text to check the file against.
pub fn map_allocations(
    report: &mut AllocationsReport,
    s: &HeapSnapshot,
    scripts: &[Script],
    policy: &SourceMaps,
) -> Result<()> {
    let mut all = scripts.to_vec();
    let mut ids: HashMap<String, u32> = HashMap::new();
    for f in &s.trace_function_infos {
        let url = s.strings.get(f.script_name);
        if url.is_empty() || ids.contains_key(&url) {
            continue;
        }
        if !all.iter().any(|x| x.id == f.script_id) {
            all.push(Script {
                id: f.script_id,
                url: url.clone(),
                source: String::new(),
            });
        }
        ids.insert(url, f.script_id);
    }
    let mut maps = HeapMaps::find(&all, ids.values().copied(), policy)?;
    for stack in &mut report.stacks {
        map_stack(stack, &ids, &mut maps);
    }
    report.warnings.extend(maps.warnings());
    Ok(())
}

fn map_stack(stack: &mut StackJson, ids: &HashMap<String, u32>, maps: &mut HeapMaps<'_>) {
    if let (Some(&id), Some(line)) = (ids.get(&stack.url), stack.line) {
        // Trace positions are 1-based.
        let column = stack.column.map_or(0, |c| c.saturating_sub(1));
        if let Some(o) = maps.original(id, line.saturating_sub(1), column, &stack.name) {
            stack.original = o.into();
        }
    }
    let next = stack.children.iter_mut().chain(stack.callers.iter_mut());
    for child in next.flatten() {
        map_stack(child, ids, maps);
    }
}

/// Something a source map can place: V8's location of a function (script id, 0-based line and
/// column) with the name it has there, and where to put the original.
pub trait Placed {
    fn place(&self) -> Option<(u32, u32, u32, &str)>;
    /// Where the original goes.
    fn in_source(&mut self) -> &mut InSource;
}

impl Placed for ObjectJson {
    /// A closure by its function's name, an object by its class (its constructor's name).
    fn place(&self) -> Option<(u32, u32, u32, &str)> {
        let (id, line, column) = self.at?;
        let name = if self.node_type == "closure" {
            &self.name
        } else {
            &self.class
        };
        Some((id, line, column, name))
    }

    fn in_source(&mut self) -> &mut InSource {
        &mut self.original
    }
}

impl Placed for NodeJson {
    /// By its name: a closure's function name, an object's constructor's.
    fn place(&self) -> Option<(u32, u32, u32, &str)> {
        let (id, line, column) = self.at?;
        Some((id, line, column, &self.name))
    }

    fn in_source(&mut self) -> &mut InSource {
        &mut self.original
    }
}

impl ListsObjects for NodesReport {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
        for n in &mut self.nodes {
            f(n);
        }
    }
}

/// `impl Placed` for leak groups and their steps: `place` is a [`jsprof_heap::Place`].
macro_rules! placed_by_place {
    ($($t:ty),+) => {$(
        impl Placed for $t {
            fn place(&self) -> Option<(u32, u32, u32, &str)> {
                let p = self.place.as_ref()?;
                Some((p.script_id, p.line, p.column, &p.name))
            }

            fn in_source(&mut self) -> &mut InSource {
                &mut self.original
            }
        }
    )+};
}

placed_by_place!(LeakGroupJson, LeakStepJson, LeakSeriesGroupJson);

/// A document that lists heap objects (or groups of them): each place in it, for
/// [`map_objects`].
pub trait ListsObjects {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed));
}

impl ListsObjects for ObjectJson {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
        f(self)
    }
}

impl<T: ListsObjects> ListsObjects for Vec<T> {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
        for x in self {
            x.each_object(f);
        }
    }
}

impl<T: ListsObjects> ListsObjects for Option<T> {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
        if let Some(x) = self {
            x.each_object(f);
        }
    }
}

impl<A: ListsObjects, B: ListsObjects> ListsObjects for (A, B) {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
        self.0.each_object(f);
        self.1.each_object(f);
    }
}

/// `impl ListsObjects` for documents: the fields that hold objects.
macro_rules! lists_objects {
    ($($doc:ty => $($field:ident),+;)+) => {$(
        impl ListsObjects for $doc {
            fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
                $(self.$field.each_object(f);)+
            }
        }
    )+};
}

/// `impl ListsObjects` for a leak group: itself (placed by its sample), then its path's steps.
macro_rules! lists_leak_group {
    ($($t:ty),+) => {$(
        impl ListsObjects for $t {
            fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
                f(self);
                self.path.each_object(f);
            }
        }
    )+};
}

lists_leak_group!(LeakGroupJson, LeakSeriesGroupJson);

lists_objects! {
    StepJson => retainer;
    PathJson => steps;
    RetainersReport => object, paths;
    ClassObjectsReport => objects;
    EdgeJson => object;
    EdgesReport => object, edges;
    ObjectsPage => objects;
    DetachedJson => root;
    ObjectWithPaths => object, paths;
    ClassObjects => objects;
    DominatedJson => objects;
    HeapDoc => objects, detached, dominators, dominated;
    LeaksReport => groups;
    LeakSeriesReport => groups;
}

impl ListsObjects for LeakStepJson {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
        f(self)
    }
}

/// Every listed object's original (`source_name`, `source_location`) where its location's
/// script has a map, as [`map_summary`] maps the Summary's rows (an object's name is its
/// constructor's, so an instance gets its class's original; a leak group is placed by its
/// sample); the maps' notes for the document's warnings.
pub fn map_objects(
    doc: &mut impl ListsObjects,
    scripts: &[Script],
    policy: &SourceMaps,
) -> Result<Vec<JsonWarning>> {
    let mut ids = Vec::new();
    doc.each_object(&mut |o| ids.extend(o.place().map(|(id, ..)| id)));
    if ids.is_empty() || !policy.enabled {
        return Ok(Vec::new());
    }
    let mut maps = HeapMaps::find(scripts, ids, policy)?;
    // A page of one class's objects asks for one position many times.
    let mut seen: HashMap<(u32, u32, u32, String), Option<Original>> = HashMap::new();
    doc.each_object(&mut |o| {
        let Some((id, line, column, generated)) = o.place() else {
            return;
        };
        let found = seen
            .entry((id, line, column, generated.to_string()))
            .or_insert_with_key(|k| maps.original(id, line, column, &k.3))
            .clone();
        if let Some(found) = found {
            *o.in_source() = found.into();
        }
    });
    Ok(maps.warnings())
}

fn map_row(row: &mut ClassJson, maps: &mut HeapMaps<'_>) {
    let Some((id, line, column, name)) = located(&row.key) else {
        return;
    };
    if let Some(o) = maps.original(id, line, column, name) {
        row.original = o.into();
    }
}

/// The script id, 0-based line and column and name of a located key (`script,line,column,Name`).
fn located(key: &str) -> Option<(u32, u32, u32, &str)> {
    let mut parts = key.splitn(4, ',');
    let id = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let column = parts.next()?.parse().ok()?;
    Some((id, line, column, parts.next()?))
}

/// The script's text to look for class bindings in: the file on disk when discovery allows
/// reading it and it starts as the snapshot's copy does (`Err` when it does not: positions in
/// another text would be mapped wrong), else the snapshot's copy when V8 kept it whole.
fn generated_text(script: &Script, policy: &SourceMaps) -> Result<Option<Vec<u16>>, String> {
    let head: Vec<u16> = script.source.encode_utf16().collect();
    let whole = head.len() < SNAPSHOT_STRING_LIMIT;
    let on_disk = policy
        .discover
        .then(|| local_path(&script.url))
        .flatten()
        .and_then(|path| {
            crate::local_file::read_bounded(&path, MAX_SCRIPT, &policy.roots)
                .ok()
                .map(|bytes| (path, bytes))
        });
    let Some((path, bytes)) = on_disk else {
        return Ok(whole.then_some(head).filter(|h| !h.is_empty()));
    };
    let text: Vec<u16> = String::from_utf8_lossy(&bytes).encode_utf16().collect();
    // A string cut at the limit may end inside a surrogate pair: leave its last unit out.
    let same = if whole {
        head.is_empty() || text == head
    } else {
        text.starts_with(&head[..head.len() - 1])
    };
    if !same {
        return Err(format!(
            "{} is not the script the snapshot ran (its text differs from the snapshot's copy): \
             its positions would be another text's",
            path.display()
        ));
    }
    Ok(Some(text))
}

/// Where each line starts (V8's line terminators: LF, CR not before LF, U+2028, U+2029).
fn line_starts(text: &[u16]) -> Vec<usize> {
    let mut starts = vec![0];
    for (i, &u) in text.iter().enumerate() {
        let ends = match u {
            0x0A | 0x2028 | 0x2029 => true,
            0x0D => text.get(i + 1) != Some(&0x0A),
            _ => false,
        };
        if ends {
            starts.push(i + 1);
        }
    }
    starts
}

fn is_ident(u: u16) -> bool {
    matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x24 | 0x5F) || u >= 0x80
}

fn is_space(u: u16) -> bool {
    matches!(u, 0x09..=0x0D | 0x20 | 0xA0 | 0x2028 | 0x2029 | 0xFEFF)
}

/// The 0-based line and column of the class binding `generated` of the class whose constructor
/// is at (`line`, `column`): the nearest `class` keyword at or before it, written `G=class` or
/// `class G`. `None` when that keyword binds another name (or none).
fn class_binding(
    text: &[u16],
    starts: &[usize],
    line: u32,
    column: u32,
    generated: &str,
) -> Option<(u32, u32)> {
    let name: Vec<u16> = generated.encode_utf16().collect();
    let at = starts.get(line as usize)? + column as usize;
    let keyword: Vec<u16> = "class".encode_utf16().collect();
    let word_at = |i: usize, w: &[u16]| {
        text.get(i..i + w.len()) == Some(w)
            && (i == 0 || !is_ident(text[i - 1]))
            && text.get(i + w.len()).is_none_or(|&u| !is_ident(u))
    };
    let from = at.min(text.len().saturating_sub(keyword.len()));
    let class = (from.saturating_sub(CLASS_HEAD_SPAN)..=from)
        .rev()
        .find(|&i| word_at(i, &keyword))?;
    // `class G`
    let mut after = class + keyword.len();
    while after < text.len() && is_space(text[after]) {
        after += 1;
    }
    let binding = if after > class + keyword.len() && word_at(after, &name) {
        after
    } else {
        // `G=class`, white space allowed, not `==`, `!=`, `<=`, `>=` or `=>`.
        let mut i = class;
        while i > 0 && is_space(text[i - 1]) {
            i -= 1;
        }
        if i == 0 || text[i - 1] != u16::from(b'=') {
            return None;
        }
        i -= 1;
        if i > 0 && matches!(text[i - 1], 0x3D | 0x21 | 0x3C | 0x3E) {
            return None;
        }
        while i > 0 && is_space(text[i - 1]) {
            i -= 1;
        }
        let start = i.checked_sub(name.len())?;
        if !word_at(start, &name) {
            return None;
        }
        start
    };
    let l = starts.partition_point(|&s| s <= binding) - 1;
    Some((l as u32, (binding - starts[l]) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(text: &str, at: &str, generated: &str) -> Option<(u32, u32)> {
        let t: Vec<u16> = text.encode_utf16().collect();
        let starts = line_starts(&t);
        let i = text.find(at).unwrap();
        let line = text[..i].matches('\n').count();
        let column = i - text[..i].rfind('\n').map_or(0, |n| n + 1);
        class_binding(&t, &starts, line as u32, column as u32, generated)
    }

    #[test]
    fn finds_the_binding_of_the_nearest_class() {
        let minified = "var t=class{x(){}},r=class extends t{constructor(n){super()}};";
        // A constructor's `(` and a default constructor's `class`.
        assert_eq!(binding(minified, "(n)", "r"), Some((0, 19)));
        assert_eq!(binding(minified, "class{", "t"), Some((0, 4)));
        assert_eq!(
            binding("class  Foo {\n  constructor() {}\n}", "() {", "Foo"),
            Some((0, 7))
        );
        assert_eq!(
            binding("var  Foo = class {\n  constructor() {}\n}", "() {", "Foo"),
            Some((0, 5))
        );
        // The nearest class binds another name: no answer rather than a wrong one.
        let nested = "var t=class{m(){return class{}}constructor(){}}";
        assert_eq!(binding(nested, "(){}}", "t"), None);
        assert_eq!(binding("a==class{constructor(){}}", "(){", "a"), None);
        assert_eq!(binding("function t(){}", "(){", "t"), None);
    }

    #[test]
    fn reads_located_keys() {
        assert_eq!(located("81,0,23,t"), Some((81, 0, 23, "t")));
        assert_eq!(located("81,0,23,a,b"), Some((81, 0, 23, "a,b")));
        assert_eq!(located(",Object"), None);
    }
}
