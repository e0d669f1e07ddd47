//! Filters as one transform of the model: `--focus`, `--exclude`, `--hide-idle`,
//! `--drop`, `--collapse-packages` and `--collapse-recursion` rewrite the stack table once, and every view,
//! export and the diff run on the result — the same place and the same way as `--range`
//! ([`crate::clip`]).
//!
//! Samples are never moved in time and never lose weight: a sample a filter removes (outside the
//! focus, or on `(idle)`) stays where it was with no stack, a gap on the bare root, so the
//! profile's duration, its timelines' gaps and every exporter stay consistent. What each filter
//! does to a sample's stack, applied root to leaf in this order:
//!
//! 1. `hide_idle`: a sample on `(idle)` becomes a gap.
//! 2. `drop` (any of the patterns): a sample whose stack passes through a matching frame becomes
//!    a gap (Firefox Profiler's "drop samples with this function"). The weight that leaves the
//!    views is exactly the matching functions' total.
//! 3. `focus` (any of the patterns): only samples whose stack passes through a matching frame are
//!    kept, re-rooted at the outermost match; the rest become gaps. The kept weight is exactly the
//!    matching function's total.
//! 4. `exclude` (any of the patterns): matching frames are dropped, their self time charged to the
//!    caller (to the bare root when there is none). Total weight is unchanged.
//! 5. `collapse_packages`: every frame under `node_modules/<package>/` becomes one frame named
//!    after the package; consecutive frames of one package merge.
//! 6. `collapse_recursion`: a function already on the stack is not pushed again — the stack goes
//!    back to its outer frame (A→B→A→C becomes A→C), so each function appears once per stack.
//!    Self times and the recursive functions' totals are unchanged.
//!
//! A pattern matches a frame when it matches the function name or the URL (after source maps).
//!
//! Then, on the stacks the steps above made, the subtree focuses (Firefox Profiler's "focus on
//! subtree only"), each in the order given. They come last because their path is read off a tree
//! the user sees, which has every other filter applied:
//!
//! 7. `focus_stack` (a path, root first): only the samples whose stack starts with exactly this
//!    call path are kept, re-rooted at its last frame. The kept weight is exactly the Call tree
//!    node's total, and the new root's children are the node's children.
//! 8. `focus_stack_inverted` (a path, leaf first): only the samples whose stack ends with this
//!    path read from the leaf are kept, cut below its last (outermost) frame, which becomes
//!    their leaf. The kept weight is exactly the Bottom-up node's self.
//!
//! A path's frames are [`folded_label`]s (`name url:line:column`, `;` written `:`), so a line of
//! `export --folded` less its count is a path. A path that keeps no sample leaves an empty
//! profile and a warning saying how far it matched.

use std::collections::HashMap;

use jsprof_profile::export::folded::folded_label;
use jsprof_profile::{
    Frame, FrameId, FrameKind, MappedStack, Profile, StackId, StackTable, StringTable, Warning,
    IDLE_NAME,
};
use regex::Regex;

/// Which filters to apply; `Default` applies none.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    /// Keep only stacks through a frame matching one of these, re-rooted there.
    pub focus: Vec<Regex>,
    /// Drop frames matching one of these, charging their time to the caller.
    pub exclude: Vec<Regex>,
    /// Drop `(idle)` samples.
    pub hide_idle: bool,
    /// Drop the samples whose stack passes through a frame matching one of these.
    pub drop: Vec<Regex>,
    /// One frame per `node_modules` package.
    pub collapse_packages: bool,
    /// One frame per function per stack.
    pub collapse_recursion: bool,
    /// Keep only the samples whose stack starts with this path (frame labels, root first),
    /// re-rooted at its last frame; after every other filter, in order.
    pub focus_stack: Vec<Vec<String>>,
    /// Keep only the samples whose stack ends with this path (frame labels, leaf first), cut
    /// below its last frame; after every other filter, in order.
    pub focus_stack_inverted: Vec<Vec<String>>,
}

impl Filters {
    /// True when no filter is set (the transform would copy the profile).
    pub fn is_empty(&self) -> bool {
        !self.rewrites_frames()
            && self.focus_stack.is_empty()
            && self.focus_stack_inverted.is_empty()
    }

    /// These filters for a trace's CPU samples, whose subtree paths were read off the tree of
    /// its entries (JS calls nested in engine events: `RunTask;…;evaluate`): each path keeps the
    /// frames the samples have, so the JS under the node stays focused in the samples' views
    /// (the flame chart's calls). Where the same JS path runs under other engine events, those
    /// samples stay too; a path of engine events alone leaves the samples unfocused. A path read
    /// off the samples' own tree (`--samples`) is unchanged.
    pub fn for_samples_of(&self, profile: &Profile) -> Filters {
        let known: std::collections::HashSet<String> = profile
            .frames
            .iter()
            .map(|(id, _)| folded_label(profile, id))
            .collect();
        let project = |paths: &[Vec<String>]| -> Vec<Vec<String>> {
            paths
                .iter()
                .map(|p| p.iter().filter(|l| known.contains(*l)).cloned().collect())
                .filter(|p: &Vec<String>| !p.is_empty())
                .collect()
        };
        Filters {
            focus_stack: project(&self.focus_stack),
            focus_stack_inverted: project(&self.focus_stack_inverted),
            ..self.clone()
        }
    }

    /// True when a filter of steps 1–6 is set (one that rewrites stacks frame by frame).
    fn rewrites_frames(&self) -> bool {
        !self.focus.is_empty()
            || !self.exclude.is_empty()
            || self.hide_idle
            || !self.drop.is_empty()
            || self.collapse_packages
            || self.collapse_recursion
    }

    /// What is applied, in words for subtitles (`focus ^render$, idle hidden`); `None` without
    /// filters.
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        parts.extend(self.focus.iter().map(|re| format!("focus {re}")));
        parts.extend(self.exclude.iter().map(|re| format!("exclude {re}")));
        parts.extend(self.drop.iter().map(|re| format!("drop samples with {re}")));
        for (on, words) in [
            (self.hide_idle, "idle hidden"),
            (self.collapse_packages, "packages collapsed"),
            (self.collapse_recursion, "recursion collapsed"),
        ] {
            if on {
                parts.push(words.to_string());
            }
        }
        let subtree = |path: &[String], words: &str| {
            let last = path.last().map_or("", String::as_str);
            match path.len() {
                1 => format!("{words} {last}"),
                n => format!("{words} …;{last} ({n} frames)"),
            }
        };
        parts.extend(self.focus_stack.iter().map(|p| subtree(p, "subtree")));
        parts.extend(
            self.focus_stack_inverted
                .iter()
                .map(|p| subtree(p, "inverted subtree")),
        );
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// Where a stack of the input went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// Its samples become gaps (idle, or below an idle frame).
    Dropped,
    /// No focus match on the way from the root yet: its samples become gaps.
    Unfocused,
    /// Its samples land on this stack (`None`: the bare root).
    At(Option<StackId>),
}

/// The profile with `filters` applied (a copy when none is set).
pub fn filter(profile: &Profile, filters: &Filters) -> Profile {
    let mut out = if filters.rewrites_frames() {
        filter_frames(profile, filters)
    } else {
        profile.clone()
    };
    for path in &filters.focus_stack {
        out = focus_stack(&out, path);
    }
    for path in &filters.focus_stack_inverted {
        out = focus_stack_inverted(&out, path);
    }
    out
}

/// Steps 1–6: every stack rewritten root to leaf in one pass.
fn filter_frames(profile: &Profile, filters: &Filters) -> Profile {
    let mut strings = profile.strings.clone();
    let mut frames = profile.frames.clone();
    let matches = |res: &[Regex], f: &Frame| {
        res.iter().any(|re| {
            re.is_match(profile.strings.get(f.name)) || re.is_match(profile.strings.get(f.url))
        })
    };
    // Per input frame: focus match, exclusion, and the frame it becomes.
    let mut focus_of = Vec::with_capacity(profile.frames.len());
    let mut excluded = Vec::with_capacity(profile.frames.len());
    let mut dropped = Vec::with_capacity(profile.frames.len());
    let mut becomes = Vec::with_capacity(profile.frames.len());
    let mut is_package = Vec::with_capacity(profile.frames.len());
    for (id, f) in profile.frames.iter() {
        focus_of.push(matches(&filters.focus, f));
        excluded.push(matches(&filters.exclude, f));
        dropped.push(matches(&filters.drop, f));
        let package = filters
            .collapse_packages
            .then(|| package_of(profile.strings.get(f.url)))
            .flatten();
        match package {
            Some((name, root)) => {
                let frame = Frame {
                    name: strings.intern(name),
                    url: strings.intern(root),
                    line: None,
                    column: None,
                    script_id: StringTable::EMPTY,
                    kind: FrameKind::Js,
                    original: None,
                };
                becomes.push(frames.intern(frame));
                is_package.push(true);
            }
            None => {
                becomes.push(id);
                is_package.push(false);
            }
        }
    }
    let key = |frames: &jsprof_profile::FrameTable, id: FrameId| {
        let f = frames.get(id);
        (f.name, f.url, f.line, f.column)
    };

    let mut stacks = StackTable::default();
    let mut index: HashMap<(Option<StackId>, FrameId), StackId> = HashMap::new();
    let start = if filters.focus.is_empty() {
        Path::At(None)
    } else {
        Path::Unfocused
    };
    let mut path = Vec::with_capacity(profile.stacks.len());
    for s in profile.stacks.ids() {
        let parent = profile.stacks.parent(s).map_or(start, |p| path[p.index()]);
        let frame = profile.stacks.frame(s);
        let fi = frame.index();
        let f = profile.frames.get(frame);
        let idle = f.kind == FrameKind::Meta && profile.strings.get(f.name) == IDLE_NAME;
        let cur = match parent {
            Path::Dropped => None,
            _ if filters.hide_idle && idle => None,
            _ if dropped[fi] => None,
            Path::Unfocused if focus_of[fi] => Some(None),
            Path::Unfocused => {
                path.push(Path::Unfocused);
                continue;
            }
            Path::At(cur) => Some(cur),
        };
        let Some(cur) = cur else {
            path.push(Path::Dropped);
            continue;
        };
        if excluded[fi] {
            path.push(Path::At(cur));
            continue;
        }
        let new_frame = becomes[fi];
        let new_key = key(&frames, new_frame);
        // A package frame on top of the same package merges into it.
        if is_package[fi] {
            if let Some(c) = cur {
                if key(&frames, stacks.frame(c)) == new_key {
                    path.push(Path::At(cur));
                    continue;
                }
            }
        }
        if filters.collapse_recursion {
            let mut up = cur;
            let mut found = None;
            while let Some(c) = up {
                if key(&frames, stacks.frame(c)) == new_key {
                    found = Some(c);
                    break;
                }
                up = stacks.parent(c);
            }
            if let Some(c) = found {
                path.push(Path::At(Some(c)));
                continue;
            }
        }
        let node_id = profile.stacks.node_id(s);
        let id = *index
            .entry((cur, new_frame))
            .or_insert_with(|| stacks.push(cur, new_frame, node_id));
        path.push(Path::At(Some(id)));
    }

    // Line ticks and deopt reasons stay with a stack only when it still ends in the same frame.
    let threads = profile
        .threads
        .iter()
        .map(|t| {
            t.map_stacks(|s| match path[s.index()] {
                Path::At(Some(n))
                    if stacks.frame(n) == becomes[profile.stacks.frame(s).index()] =>
                {
                    MappedStack::SameLeaf(n)
                }
                Path::At(Some(n)) => MappedStack::OtherLeaf(n),
                Path::At(None) | Path::Dropped | Path::Unfocused => MappedStack::Gone,
            })
        })
        .collect();
    Profile {
        kind: profile.kind,
        strings,
        frames,
        stacks,
        threads,
        warnings: profile.warnings.clone(),
    }
}

/// A path's frames as small integers: per frame of the profile, the index of the path element
/// its folded label equals (if any), and per element of the path, that index. Labels are made
/// once per frame; matching is then a comparison of integers.
fn path_matcher(profile: &Profile, path: &[String]) -> (Vec<Option<u32>>, Vec<u32>) {
    let mut distinct: HashMap<&str, u32> = HashMap::new();
    let want: Vec<u32> = path
        .iter()
        .map(|label| {
            let next = distinct.len() as u32;
            *distinct.entry(label.as_str()).or_insert(next)
        })
        .collect();
    let of_frame = profile
        .frames
        .iter()
        .map(|(id, _)| distinct.get(folded_label(profile, id).as_str()).copied())
        .collect();
    (of_frame, want)
}

/// Samples left on a stack (not on the bare root), over every thread.
fn kept_samples(profile: &Profile) -> usize {
    profile
        .threads
        .iter()
        .map(|t| t.samples().stack().iter().filter(|s| s.is_some()).count())
        .sum()
}

/// The warning for a path that kept no sample: how far it matched, and what did not.
fn no_match(path: &[String], matched: usize, inverted: bool) -> Warning {
    let (param, from, end) = if inverted {
        ("focus_stack_inverted", "ends, read from the leaf,", "ends")
    } else {
        ("focus_stack", "starts", "starts")
    };
    let text = path.join(";");
    let why = if matched == path.len() {
        "the stack is in the profile but no sample is on it or under it".to_string()
    } else if matched == 0 {
        format!("no stack {end} with `{}`", path[0])
    } else {
        format!(
            "its first {matched} of {} frames match, then no stack has `{}`",
            path.len(),
            path[matched]
        )
    };
    // A folded line pasted whole ends with its count.
    let count = path
        .last()
        .and_then(|l| l.rsplit_once(' '))
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && matched + 1 == path.len();
    let hint = if count {
        " (a folded line's count is not part of the path)"
    } else {
        ""
    };
    Warning::new(
        param,
        format!("no sampled stack {from} with `{text}`: nothing is left ({why}){hint}"),
    )
}

/// Step 7: the samples whose stack starts with `path` (root first), re-rooted at its last frame.
pub fn focus_stack(profile: &Profile, path: &[String]) -> Profile {
    #[derive(Clone, Copy)]
    enum At {
        /// The first `k` frames of the path match so far.
        Matching(usize),
        /// Off the path: the samples become gaps.
        Off,
        /// At or under the path's last frame: the samples land on this stack.
        Kept(StackId),
    }
    if path.is_empty() {
        return profile.clone();
    }
    let (label, want) = path_matcher(profile, path);
    let mut stacks = StackTable::default();
    let mut index: HashMap<(Option<StackId>, FrameId), StackId> = HashMap::new();
    let mut at: Vec<At> = Vec::with_capacity(profile.stacks.len());
    let mut deepest = 0;
    for s in profile.stacks.ids() {
        let frame = profile.stacks.frame(s);
        let parent = profile
            .stacks
            .parent(s)
            .map_or(At::Matching(0), |p| at[p.index()]);
        let mut keep = |parent: Option<StackId>| {
            let node_id = profile.stacks.node_id(s);
            At::Kept(
                *index
                    .entry((parent, frame))
                    .or_insert_with(|| stacks.push(parent, frame, node_id)),
            )
        };
        let next = match parent {
            At::Off => At::Off,
            At::Kept(p) => keep(Some(p)),
            At::Matching(k) if label[frame.index()] == Some(want[k]) => {
                deepest = deepest.max(k + 1);
                if k + 1 == want.len() {
                    keep(None)
                } else {
                    At::Matching(k + 1)
                }
            }
            At::Matching(_) => At::Off,
        };
        at.push(next);
    }
    let threads = profile
        .threads
        .iter()
        .map(|t| {
            t.map_stacks(|s| match at[s.index()] {
                At::Kept(n) => MappedStack::SameLeaf(n),
                At::Matching(_) | At::Off => MappedStack::Gone,
            })
        })
        .collect();
    let mut out = Profile {
        kind: profile.kind,
        strings: profile.strings.clone(),
        frames: profile.frames.clone(),
        stacks,
        threads,
        warnings: profile.warnings.clone(),
    };
    if kept_samples(&out) == 0 && kept_samples(profile) > 0 {
        out.warnings.push(no_match(path, deepest, false));
    }
    out
}

/// Step 8: the samples whose stack ends with `path` read from the leaf, each moved to the stack
/// of the path's last (outermost) frame. The stack table is unchanged: only samples move.
pub fn focus_stack_inverted(profile: &Profile, path: &[String]) -> Profile {
    if path.is_empty() {
        return profile.clone();
    }
    let (label, want) = path_matcher(profile, path);
    let mut deepest = 0;
    let target: Vec<Option<StackId>> = profile
        .stacks
        .ids()
        .map(|s| {
            let mut at = Some(s);
            for (k, w) in want.iter().enumerate() {
                let cur = at?;
                if label[profile.stacks.frame(cur).index()] != Some(*w) {
                    return None;
                }
                deepest = deepest.max(k + 1);
                if k + 1 == want.len() {
                    return Some(cur);
                }
                at = profile.stacks.parent(cur);
            }
            None
        })
        .collect();
    let threads = profile
        .threads
        .iter()
        .map(|t| {
            t.map_stacks(|s| match target[s.index()] {
                Some(a) if a == s => MappedStack::SameLeaf(a),
                Some(a) => MappedStack::OtherLeaf(a),
                None => MappedStack::Gone,
            })
        })
        .collect();
    let mut out = Profile {
        kind: profile.kind,
        strings: profile.strings.clone(),
        frames: profile.frames.clone(),
        stacks: profile.stacks.clone(),
        threads,
        warnings: profile.warnings.clone(),
    };
    if kept_samples(&out) == 0 && kept_samples(profile) > 0 {
        out.warnings.push(no_match(path, deepest, true));
    }
    out
}

/// The package a `node_modules` URL belongs to: its name (`react`, `@babel/core`) and the URL up
/// to the package's folder. The innermost `node_modules` wins (a dependency's own dependency).
pub fn package_of(url: &str) -> Option<(&str, &str)> {
    const DIR: &str = "node_modules/";
    let at = url.rfind(DIR)?;
    if at > 0 && !matches!(url.as_bytes()[at - 1], b'/' | b'\\') {
        return None;
    }
    let rest = &url[at + DIR.len()..];
    let mut end = rest.find('/')?;
    if rest.starts_with('@') {
        end = end + 1 + rest[end + 1..].find('/')?;
    }
    let name = &rest[..end];
    if name.is_empty() {
        return None;
    }
    Some((name, &url[..at + DIR.len() + end]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function_table;
    // Samples 10 ns apart on stacks of `(name, url)` frames, root first.
    use jsprof_testkit::profile_from_frames as profile;

    fn self_total(p: &Profile, name: &str) -> (i64, i64) {
        let t = function_table(p, &p.threads[0]);
        t.rows
            .iter()
            .filter(|r| p.strings.get(r.key.name) == name)
            .fold((0, 0), |(s, to), r| {
                (s + r.self_weight, to + r.total_weight)
            })
    }

    fn stacks_of(p: &Profile) -> Vec<String> {
        p.threads[0]
            .samples()
            .stack()
            .iter()
            .map(|s| {
                let mut names: Vec<&str> = p
                    .stacks
                    .frames_leaf_first(*s)
                    .map(|f| p.frame_name(f))
                    .collect();
                names.reverse();
                names.join(";")
            })
            .collect()
    }

    /// Filters with one pattern, `^b$`, in the list `list` picks.
    fn only_b(list: fn(&mut Filters) -> &mut Vec<Regex>) -> Filters {
        let mut f = Filters::default();
        list(&mut f).push(Regex::new("^b$").unwrap());
        f
    }

    const A: (&str, &str) = ("a", "app.js");
    const B: (&str, &str) = ("b", "app.js");
    const C: (&str, &str) = ("c", "app.js");
    const IDLE: (&str, &str) = ("(idle)", "");

    #[test]
    fn focus_keeps_the_functions_total_rerooted() {
        let p = profile(&[&[A, B, C], &[A, C], &[A, B], &[B], &[IDLE], &[]]);
        let f = only_b(|f| &mut f.focus);
        let q = filter(&p, &f);
        // b is on the stack in samples 0, 2 and 3: 30 ns.
        assert_eq!(self_total(&p, "b").1, 30);
        assert_eq!(stacks_of(&q), ["b;c", "", "b", "b", "", ""]);
        let kept: i64 = q.threads[0]
            .samples()
            .stack()
            .iter()
            .zip(q.threads[0].weights())
            .filter(|(s, _)| s.is_some())
            .map(|(_, w)| w)
            .sum();
        assert_eq!(kept, 30);
        assert_eq!(self_total(&q, "b"), (20, 30));
        assert_eq!(self_total(&q, "a"), (0, 0));
        // Times are untouched.
        assert_eq!(q.threads[0].samples().time(), p.threads[0].samples().time());
    }

    #[test]
    fn exclude_charges_the_caller_and_keeps_the_total() {
        let p = profile(&[&[A, B, C], &[A, B], &[B], &[A]]);
        let f = only_b(|f| &mut f.exclude);
        let q = filter(&p, &f);
        assert_eq!(stacks_of(&q), ["a;c", "a", "", "a"]);
        assert_eq!(
            function_table(&q, &q.threads[0]).total_weight,
            function_table(&p, &p.threads[0]).total_weight
        );
        assert_eq!(self_total(&q, "a"), (20, 30));
        assert_eq!(self_total(&q, "b"), (0, 0));
    }

    #[test]
    fn drop_removes_every_sample_through_the_function() {
        let p = profile(&[&[A, B, C], &[A, C], &[B, A], &[B], &[IDLE], &[]]);
        let f = only_b(|f| &mut f.drop);
        let q = filter(&p, &f);
        assert_eq!(stacks_of(&q), ["", "a;c", "", "", "(idle)", ""]);
        // What leaves is b's total (30 ns); the rest keeps its self and total.
        let before = function_table(&p, &p.threads[0]);
        let after = function_table(&q, &q.threads[0]);
        assert_eq!(before.total_weight, after.total_weight);
        assert_eq!(self_total(&p, "b").1, 30);
        assert_eq!(self_total(&q, "b"), (0, 0));
        assert_eq!(self_total(&q, "a"), (0, 10));
        assert_eq!(self_total(&q, "c"), (10, 10));
        // Focus and drop together: b's samples are gone before the focus re-roots at a.
        let g = Filters {
            focus: vec![Regex::new("^a$").unwrap()],
            drop: vec![Regex::new("^b$").unwrap()],
            ..Default::default()
        };
        assert_eq!(stacks_of(&filter(&p, &g)), ["", "a;c", "", "", "", ""]);
    }

    #[test]
    fn hide_idle_turns_idle_into_gaps() {
        let p = profile(&[&[IDLE], &[A], &[IDLE]]);
        let f = Filters {
            hide_idle: true,
            ..Default::default()
        };
        let q = filter(&p, &f);
        assert_eq!(stacks_of(&q), ["", "a", ""]);
        assert_eq!(self_total(&q, "(idle)"), (0, 0));
        assert_eq!(self_total(&q, "a"), (10, 10));
    }

    #[test]
    fn collapse_recursion_keeps_self_and_totals() {
        let p = profile(&[&[A, B, A, C], &[A, A, A], &[A, B, A], &[A, B]]);
        let f = Filters {
            collapse_recursion: true,
            ..Default::default()
        };
        let q = filter(&p, &f);
        assert_eq!(stacks_of(&q), ["a;c", "a", "a", "a;b"]);
        for name in ["a", "c"] {
            assert_eq!(self_total(&q, name), self_total(&p, name), "{name}");
        }
        assert_eq!(self_total(&q, "b").0, self_total(&p, "b").0);
        assert_eq!(
            function_table(&q, &q.threads[0]).total_weight,
            function_table(&p, &p.threads[0]).total_weight
        );
    }

    #[test]
    fn collapse_packages_merges_consecutive_frames_of_a_package() {
        let lib1 = ("parse", "file:///app/node_modules/acorn/dist/acorn.js");
        let lib2 = ("next", "file:///app/node_modules/acorn/dist/acorn.js");
        let scoped = ("run", "/app/node_modules/@babel/core/lib/index.js");
        let p = profile(&[&[A, lib1, lib2], &[A, lib1, B, lib2], &[scoped, A], &[A]]);
        let f = Filters {
            collapse_packages: true,
            ..Default::default()
        };
        let q = filter(&p, &f);
        assert_eq!(
            stacks_of(&q),
            ["a;acorn", "a;acorn;b;acorn", "@babel/core;a", "a"]
        );
        assert_eq!(self_total(&q, "acorn").0, 20);
        assert_eq!(self_total(&q, "a"), self_total(&p, "a"));
    }

    fn path(frames: &[(&str, &str)]) -> Vec<String> {
        frames.iter().map(|(n, u)| format!("{n} {u}:1:1")).collect()
    }

    #[test]
    fn focus_stack_keeps_the_call_paths_samples_rerooted() {
        let p = profile(&[&[A, B, C], &[A, C], &[A, B], &[B], &[A, B, B], &[A]]);
        let f = Filters {
            focus_stack: vec![path(&[A, B])],
            ..Default::default()
        };
        let q = filter(&p, &f);
        // Only the stacks that start a→b; a's own sample (the path's caller) is left out.
        assert_eq!(stacks_of(&q), ["b;c", "", "b", "", "b;b", ""]);
        assert_eq!(self_total(&q, "b"), (20, 30));
        assert_eq!(self_total(&q, "c"), (10, 10));
        assert!(q.warnings.is_empty());
        assert_eq!(q.threads[0].samples().time(), p.threads[0].samples().time());
        // Repeated, each path is read in the tree the previous one left.
        let g = Filters {
            focus_stack: vec![path(&[A, B]), path(&[B, C])],
            ..Default::default()
        };
        assert_eq!(stacks_of(&filter(&p, &g)), ["c", "", "", "", "", ""]);
    }

    #[test]
    fn focus_stack_inverted_keeps_the_stacks_ending_with_the_path() {
        let p = profile(&[&[A, B, C], &[A, C], &[B, C], &[A, B], &[C, B, C]]);
        // Leaf c called by b: those samples, cut below b.
        let f = Filters {
            focus_stack_inverted: vec![path(&[C, B])],
            ..Default::default()
        };
        let q = filter(&p, &f);
        assert_eq!(stacks_of(&q), ["a;b", "", "b", "", "c;b"]);
        assert_eq!(self_total(&q, "b"), (30, 30));
        assert!(q.warnings.is_empty());
    }

    #[test]
    fn focus_stack_applies_after_the_other_filters() {
        let p = profile(&[&[A, B, C], &[A, C], &[A, B]]);
        // With b merged into a, a→c is the path of both the first two samples.
        let f = Filters {
            exclude: vec![Regex::new("^b$").unwrap()],
            focus_stack: vec![path(&[A, C])],
            ..Default::default()
        };
        assert_eq!(stacks_of(&filter(&p, &f)), ["c", "c", ""]);
    }

    #[test]
    fn a_path_that_matches_nothing_leaves_nothing_and_says_why() {
        let p = profile(&[&[A, B, C], &[A, C]]);
        for (paths, inverted, says) in [
            (
                vec![path(&[A, C, B])],
                false,
                "its first 2 of 3 frames match, then no stack has `b app.js:1:1`",
            ),
            (
                vec![vec!["nope".to_string()]],
                false,
                "no stack starts with `nope`",
            ),
            (
                vec![path(&[A, B])],
                true,
                "its first 1 of 2 frames match, then no stack has `b app.js:1:1`",
            ),
            (
                vec![vec!["a app.js:1:1".into(), "c app.js:1:1 10".into()]],
                false,
                "a folded line's count",
            ),
        ] {
            let f = Filters {
                focus_stack: if inverted { Vec::new() } else { paths.clone() },
                focus_stack_inverted: if inverted { paths.clone() } else { Vec::new() },
                ..Default::default()
            };
            let q = filter(&p, &f);
            assert_eq!(stacks_of(&q), ["", ""], "{paths:?}");
            assert_eq!(q.warnings.len(), 1, "{paths:?}");
            let w = &q.warnings[0];
            assert_eq!(
                w.at,
                if inverted {
                    "focus_stack_inverted"
                } else {
                    "focus_stack"
                }
            );
            assert!(w.message.contains(says), "{}", w.message);
        }
    }

    #[test]
    fn samples_of_a_trace_take_the_paths_frames_they_have() {
        let p = profile(&[&[A, B, C], &[A, C]]);
        let mut entries = path(&[A, B]);
        entries.insert(0, "RunTask".to_string());
        let f = Filters {
            focus_stack: vec![entries, vec!["Layout".to_string()]],
            focus_stack_inverted: vec![path(&[C])],
            ..Default::default()
        };
        let g = f.for_samples_of(&p);
        assert_eq!(g.focus_stack, [path(&[A, B])]);
        assert_eq!(g.focus_stack_inverted, [path(&[C])]);
        assert_eq!(stacks_of(&filter(&p, &g)), ["b;c", ""]);
    }

    #[test]
    fn finds_packages() {
        assert_eq!(
            package_of("file:///x/node_modules/a/node_modules/@s/b/i.js"),
            Some(("@s/b", "file:///x/node_modules/a/node_modules/@s/b"))
        );
        assert_eq!(
            package_of("/x/node_modules/react/index.js").unwrap().0,
            "react"
        );
        assert_eq!(package_of("/x/my_node_modules/r/i.js"), None);
        assert_eq!(package_of("/x/node_modules/r"), None);
        assert_eq!(package_of("app.js"), None);
    }
}
