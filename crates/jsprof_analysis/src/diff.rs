//! Comparing two profiles function by function (`jsprof diff`) and node by node (the
//! differential flame graph).
//!
//! Functions are matched by name across the two inputs, whatever their formats: by default by
//! `(name, url)`, since line numbers move between builds ([`DiffKey::NameUrl`]; functions of one
//! profile sharing a name and URL are one row, their total counting each sample once), or by
//! the whole function `(name, url, line, column)` ([`DiffKey::Function`]). Rows whose self and
//! total both changed by less than the noise floor — `max(0.5 ms, 0.5 %` of the larger total`)`
//! (0.5 % alone for bytes) — are counted, not listed.

use std::collections::HashMap;

use jsprof_profile::{Profile, Thread, WeightUnit};

use crate::call_tree::top_down;
use crate::function_table::{outermost, StackChildren, StackFunctions, StackWeights};
use crate::FunctionKey;

/// How functions of the two profiles are matched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffKey {
    /// `(name, url)`: survives line numbers moving between builds.
    #[default]
    NameUrl,
    /// `(name, url, line, column)`.
    Function,
}

/// `Default`: match by name and URL, no normalisation.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiffOptions {
    pub key: DiffKey,
    /// Scale AFTER so that its total equals BEFORE's.
    pub normalize: bool,
}

/// One function in both profiles. Weights are in the profiles' unit (ns or bytes); AFTER's are
/// scaled when normalising, hence floats.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffRow {
    pub name: String,
    pub url: String,
    /// AFTER's position when the function is there, else BEFORE's.
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub before_self: f64,
    pub after_self: f64,
    pub before_total: f64,
    pub after_total: f64,
}

impl DiffRow {
    pub fn delta_self(&self) -> f64 {
        self.after_self - self.before_self
    }

    pub fn delta_total(&self) -> f64 {
        self.after_total - self.before_total
    }

    /// Change of the total relative to BEFORE's (`None` for a function new in AFTER).
    pub fn delta_total_percent(&self) -> Option<f64> {
        (self.before_total > 0.0).then(|| self.delta_total() * 100.0 / self.before_total)
    }
}

/// The comparison.
#[derive(Clone, Debug, Default)]
pub struct ProfileDiff {
    /// Rows above the noise floor, largest change of self first (then of total).
    pub rows: Vec<DiffRow>,
    /// Sample weight on some function (gaps left out), before and (scaled) after.
    pub before_total: f64,
    pub after_total: f64,
    /// What AFTER was multiplied by (1 without normalisation).
    pub scale: f64,
    pub noise_floor: f64,
    /// Rows under the noise floor: how many, and the sum of their self changes.
    pub hidden: usize,
    pub hidden_delta_self: f64,
}

/// Why two profiles cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffError {
    /// One weighs time and the other bytes.
    Units,
}

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiffError::Units => {
                f.write_str("cannot compare a profile over time with one that weighs bytes")
            }
        }
    }
}

impl std::error::Error for DiffError {}

/// Time profiles: 0.5 ms; byte profiles have no absolute floor.
const FLOOR_NS: f64 = 0.5e6;
const FLOOR_SHARE: f64 = 0.005;

/// The matching key of each frame's function as strings.
fn key_text(
    profile: &Profile,
    key: FunctionKey,
    by: DiffKey,
) -> (String, String, Option<u32>, Option<u32>) {
    let (line, column) = match by {
        DiffKey::NameUrl => (None, None),
        DiffKey::Function => (key.line, key.column),
    };
    (
        profile.strings.get(key.name).to_string(),
        profile.strings.get(key.url).to_string(),
        line,
        column,
    )
}

pub(crate) type TextKey = (String, String, Option<u32>, Option<u32>);

/// Self, total, the shown line and column, and the self weight that chose them.
#[derive(Clone, Copy)]
pub(crate) struct KeyRow {
    pub(crate) self_weight: i64,
    pub(crate) total_weight: i64,
    line: Option<u32>,
    column: Option<u32>,
    top_self: i64,
}

/// Self and total per key of one thread, the total counting each sample once per key; plus
/// the weight on some function, and each key's heaviest position.
pub(crate) struct KeyTable {
    pub(crate) rows: HashMap<TextKey, KeyRow>,
    pub(crate) total: i64,
}

pub(crate) fn key_table(profile: &Profile, thread: &Thread, by: DiffKey) -> KeyTable {
    let functions = StackFunctions::new(profile);
    // Group functions by their text key.
    let mut group_of_text: HashMap<TextKey, u32> = HashMap::new();
    let mut texts: Vec<TextKey> = Vec::new();
    let group_of_function: Vec<u32> = functions
        .keys
        .iter()
        .map(|&(k, _)| {
            let t = key_text(profile, k, by);
            *group_of_text.entry(t.clone()).or_insert_with(|| {
                texts.push(t);
                texts.len() as u32 - 1
            })
        })
        .collect();
    let grouped = StackFunctions {
        of_stack: functions
            .of_stack
            .iter()
            .map(|&f| group_of_function[f as usize])
            .collect(),
        keys: texts.iter().map(|_| functions.keys[0]).collect(),
    };
    let children = StackChildren::new(profile);
    let weights = StackWeights::new(profile, thread);
    let (total, _) = weights.totals(profile);
    let outer = outermost(profile, &grouped, &children);
    let mut rows: HashMap<TextKey, KeyRow> = HashMap::new();
    let mut sum = 0;
    for s in profile.stacks.ids() {
        let i = s.index();
        let g = grouped.of_stack[i] as usize;
        if profile.stacks.parent(s).is_none() {
            sum += total[i];
        }
        if total[i] == 0 && weights.self_weight[i] == 0 {
            continue;
        }
        let f = functions.keys[functions.of_stack[i] as usize].0;
        let row = rows.entry(texts[g].clone()).or_insert(KeyRow {
            self_weight: 0,
            total_weight: 0,
            line: f.line,
            column: f.column,
            top_self: i64::MIN,
        });
        row.self_weight += weights.self_weight[i];
        if outer[i] {
            row.total_weight += total[i];
        }
        // The position shown is the one with the most time on top.
        if weights.self_weight[i] > row.top_self {
            row.line = f.line;
            row.column = f.column;
            row.top_self = weights.self_weight[i];
        }
    }
    KeyTable { rows, total: sum }
}

/// Compares `after` with `before` (each a profile and one of its threads).
pub fn diff_profiles(
    before: (&Profile, &Thread),
    after: (&Profile, &Thread),
    options: DiffOptions,
) -> Result<ProfileDiff, DiffError> {
    let bytes = |t: &Thread| t.weight_unit() == WeightUnit::Bytes;
    if bytes(before.1) != bytes(after.1) {
        return Err(DiffError::Units);
    }
    let a = key_table(before.0, before.1, options.key);
    let b = key_table(after.0, after.1, options.key);
    let scale = if options.normalize && b.total > 0 {
        a.total as f64 / b.total as f64
    } else {
        1.0
    };
    let before_total = a.total as f64;
    let after_total = b.total as f64 * scale;
    let absolute = if bytes(before.1) { 0.0 } else { FLOOR_NS };
    let noise_floor = absolute.max(FLOOR_SHARE * before_total.max(after_total));
    let mut all: Vec<DiffRow> = Vec::with_capacity(a.rows.len().max(b.rows.len()));
    for (k, r) in &b.rows {
        let old = a.rows.get(k);
        all.push(DiffRow {
            name: k.0.clone(),
            url: k.1.clone(),
            line: r.line,
            column: r.column,
            before_self: old.map_or(0.0, |o| o.self_weight as f64),
            after_self: r.self_weight as f64 * scale,
            before_total: old.map_or(0.0, |o| o.total_weight as f64),
            after_total: r.total_weight as f64 * scale,
        });
    }
    for (k, r) in &a.rows {
        if !b.rows.contains_key(k) {
            all.push(DiffRow {
                name: k.0.clone(),
                url: k.1.clone(),
                line: r.line,
                column: r.column,
                before_self: r.self_weight as f64,
                after_self: 0.0,
                before_total: r.total_weight as f64,
                after_total: 0.0,
            });
        }
    }
    let mut diff = ProfileDiff {
        before_total,
        after_total,
        scale,
        noise_floor,
        ..Default::default()
    };
    for row in all {
        if row.delta_self().abs() < noise_floor && row.delta_total().abs() < noise_floor {
            diff.hidden += 1;
            diff.hidden_delta_self += row.delta_self();
        } else {
            diff.rows.push(row);
        }
    }
    diff.rows.sort_by(|x, y| {
        y.delta_self()
            .abs()
            .total_cmp(&x.delta_self().abs())
            .then_with(|| y.delta_total().abs().total_cmp(&x.delta_total().abs()))
            .then_with(|| x.name.cmp(&y.name))
            .then_with(|| x.url.cmp(&y.url))
            .then_with(|| x.line.cmp(&y.line))
    });
    Ok(diff)
}

/// For each node of AFTER's top-down tree, BEFORE's total at the same call path (matched by
/// `key`), scaled by `scale`; `0` where BEFORE never took that path. Indexed like
/// `top_down(after).nodes`.
pub fn before_totals_on_after_tree(
    before: (&Profile, &Thread),
    after: (&Profile, &Thread),
    key: DiffKey,
) -> Vec<i64> {
    let tb = top_down(before.0, before.1);
    let ta = top_down(after.0, after.1);
    // BEFORE's paths: (parent path, key) → total.
    let mut paths: HashMap<(u32, TextKey), (u32, i64)> = HashMap::new();
    let mut todo: Vec<(u32, u32)> = tb.roots.iter().map(|&r| (r, u32::MAX)).collect();
    let mut next_path = 0u32;
    while let Some((n, parent_path)) = todo.pop() {
        let node = &tb.nodes[n as usize];
        let k = key_text(before.0, node.function, key);
        let e = paths.entry((parent_path, k)).or_insert_with(|| {
            next_path += 1;
            (next_path, 0)
        });
        e.1 += node.total_weight;
        let p = e.0;
        todo.extend(node.children.iter().map(|&c| (c, p)));
    }
    let mut out = vec![0i64; ta.nodes.len()];
    let mut todo: Vec<(u32, Option<u32>)> = ta.roots.iter().map(|&r| (r, Some(u32::MAX))).collect();
    while let Some((n, parent_path)) = todo.pop() {
        let node = &ta.nodes[n as usize];
        let path = parent_path.and_then(|pp| {
            let k = key_text(after.0, node.function, key);
            paths.get(&(pp, k)).copied()
        });
        out[n as usize] = path.map_or(0, |(_, w)| w);
        todo.extend(node.children.iter().map(|&c| (c, path.map(|(p, _)| p))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_profile::{ProfileKind, StackId};

    /// One sample per entry, each lasting `ms` milliseconds, on stacks of `(name, url, line)`
    /// root first.
    type Stack<'a> = &'a [(&'a str, &'a str, u32)];

    fn profile(samples: &[(Stack, i64)]) -> Profile {
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        let mut index: HashMap<(Option<StackId>, jsprof_profile::FrameId), StackId> =
            HashMap::new();
        let mut time = 0;
        for (stack, ms) in samples {
            let mut cur = None;
            for &(name, url, line) in stack.iter() {
                let f = p.intern_frame(name, url, Some(line), Some(1), "");
                let n = p.stacks.len() as u64 + 2;
                cur = Some(
                    *index
                        .entry((cur, f))
                        .or_insert_with(|| p.stacks.push(cur, f, n)),
                );
            }
            t.samples_mut().push(time, cur);
            time += ms * 1_000_000;
        }
        t.set_samples_end(Some(time));
        p.threads.push(t);
        p
    }

    const MAIN: (&str, &str, u32) = ("main", "a.js", 1);
    const HOT: (&str, &str, u32) = ("hot", "a.js", 10);
    const HOT_MOVED: (&str, &str, u32) = ("hot", "a.js", 12);
    const COLD: (&str, &str, u32) = ("cold", "a.js", 20);

    #[test]
    fn matches_by_name_and_url_and_sorts_by_change() {
        // hot: 10 ms → 30 ms (and its line moved); cold: 100 ms both times.
        let a = profile(&[(&[MAIN, HOT], 10), (&[MAIN, COLD], 100)]);
        let b = profile(&[(&[MAIN, HOT_MOVED], 30), (&[MAIN, COLD], 100)]);
        let d = diff_profiles(
            (&a, &a.threads[0]),
            (&b, &b.threads[0]),
            DiffOptions::default(),
        )
        .unwrap();
        // Floor: max(0.5 ms, 0.5 % of 130 ms = 0.65 ms).
        assert_eq!(d.noise_floor, 0.65e6);
        let names: Vec<&str> = d.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["hot", "main"]);
        let hot = &d.rows[0];
        assert_eq!((hot.before_self, hot.after_self), (10e6, 30e6));
        assert_eq!(hot.line, Some(12));
        assert_eq!(hot.delta_total_percent(), Some(200.0));
        assert_eq!(d.rows[1].delta_total(), 20e6);
        assert_eq!(d.rows[1].delta_self(), 0.0);
        assert_eq!((d.hidden, d.hidden_delta_self), (1, 0.0));

        // By the whole function the moved `hot` is one function gone and one new.
        let d = diff_profiles(
            (&a, &a.threads[0]),
            (&b, &b.threads[0]),
            DiffOptions {
                key: DiffKey::Function,
                ..Default::default()
            },
        )
        .unwrap();
        let hot: Vec<(f64, f64)> = d
            .rows
            .iter()
            .filter(|r| r.name == "hot")
            .map(|r| (r.before_self, r.after_self))
            .collect();
        assert_eq!(hot, [(0.0, 30e6), (10e6, 0.0)]);
    }

    #[test]
    fn normalize_scales_after_to_before() {
        // AFTER is the same program sampled twice as long: nothing changed once normalised.
        let a = profile(&[(&[MAIN, HOT], 10), (&[MAIN, COLD], 30)]);
        let b = profile(&[(&[MAIN, HOT], 20), (&[MAIN, COLD], 60)]);
        let opts = DiffOptions {
            normalize: true,
            ..Default::default()
        };
        let d = diff_profiles((&a, &a.threads[0]), (&b, &b.threads[0]), opts).unwrap();
        assert_eq!(d.scale, 0.5);
        assert!(d.rows.is_empty());
        assert_eq!(d.hidden, 3);
    }

    #[test]
    fn same_name_and_url_count_each_sample_once() {
        // Two anonymous functions of one file, one calling the other: one row, total 10 ms.
        let anon1 = ("", "a.js", 1);
        let anon2 = ("", "a.js", 5);
        let a = profile(&[(&[anon1, anon2], 10)]);
        let b = profile(&[(&[MAIN], 10)]);
        let d = diff_profiles(
            (&a, &a.threads[0]),
            (&b, &b.threads[0]),
            DiffOptions::default(),
        )
        .unwrap();
        let anon = d.rows.iter().find(|r| r.name.is_empty()).unwrap();
        assert_eq!((anon.before_self, anon.before_total), (10e6, 10e6));
    }

    #[test]
    fn before_totals_follow_call_paths() {
        let a = profile(&[(&[MAIN, HOT], 10), (&[COLD, HOT], 5)]);
        let b = profile(&[(&[MAIN, HOT_MOVED], 30), (&[MAIN], 1)]);
        let w =
            before_totals_on_after_tree((&a, &a.threads[0]), (&b, &b.threads[0]), DiffKey::NameUrl);
        let tb = top_down(&b, &b.threads[0]);
        let main = tb.roots[0];
        let hot = tb.nodes[main as usize].children[0];
        assert_eq!(w[main as usize], 10_000_000);
        assert_eq!(w[hot as usize], 10_000_000);
    }
}
