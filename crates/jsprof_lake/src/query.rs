//! The `lake` commands' questions as queries over the views.
//!
//! A function's self and total weight over a selection is the sum of its `profile_functions`
//! rows over the selected profiles: the writer computed each profile's totals from its stacks,
//! counting a sample once however often the function recurses, as DevTools does. Trees and
//! flame graphs sum `samples` per `stack_id` and walk the `stacks` dictionary by parent.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;

use arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Int64Array, MapArray, RecordBatch, StringArray,
    UInt64Array,
};
use arrow::datatypes::{DataType, Int64Type, UInt64Type};

use crate::prepare::{climb, Climb};
use crate::read::LakeReader;
use crate::selection::{quote, Selection};
use crate::{LakeError, Result};

/// Runs a future on a runtime sized for the lake's queries (the CLI's entry point).
pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(future)
}

fn cast(col: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    Ok(arrow::compute::cast(col, to)?)
}

/// Column `i` of every batch cast to `to`, read as the array type `A` with `value` (nulls as
/// `None`): the one extractor behind [`strings`], [`i64s`], [`u64s`] and [`f64s`].
fn column<A: Array + 'static, T>(
    batches: &[RecordBatch],
    i: usize,
    to: &DataType,
    value: impl Fn(&A, usize) -> T,
) -> Result<Vec<Option<T>>> {
    let mut out = Vec::with_capacity(batches.iter().map(RecordBatch::num_rows).sum());
    for b in batches {
        let col = cast(b.column(i), to)?;
        let a = col.as_any().downcast_ref::<A>().expect("cast");
        out.extend((0..a.len()).map(|j| a.is_valid(j).then(|| value(a, j))));
    }
    Ok(out)
}

/// Column `i` of every batch as optional strings.
pub fn strings(batches: &[RecordBatch], i: usize) -> Result<Vec<Option<String>>> {
    column(batches, i, &DataType::Utf8, |a: &StringArray, j| {
        a.value(j).to_string()
    })
}

/// Column `i` as optional i64 (integers, timestamps as their raw µs).
pub fn i64s(batches: &[RecordBatch], i: usize) -> Result<Vec<Option<i64>>> {
    column(batches, i, &DataType::Int64, Int64Array::value)
}

/// Column `i` as optional u64.
pub fn u64s(batches: &[RecordBatch], i: usize) -> Result<Vec<Option<u64>>> {
    column(batches, i, &DataType::UInt64, UInt64Array::value)
}

/// Column `i` as optional f64.
pub fn f64s(batches: &[RecordBatch], i: usize) -> Result<Vec<Option<f64>>> {
    column(batches, i, &DataType::Float64, Float64Array::value)
}

/// A map column (labels) as sorted maps.
pub fn maps(batches: &[RecordBatch], i: usize) -> Result<Vec<BTreeMap<String, String>>> {
    let mut out = Vec::new();
    for b in batches {
        let Some(m) = b.column(i).as_any().downcast_ref::<MapArray>() else {
            return Err(LakeError::Query(format!(
                "column {i} is {}, not a map",
                b.column(i).data_type()
            )));
        };
        let keys = cast(m.keys(), &DataType::Utf8)?;
        let values = cast(m.values(), &DataType::Utf8)?;
        let keys = keys.as_any().downcast_ref::<StringArray>().expect("cast");
        let values = values.as_any().downcast_ref::<StringArray>().expect("cast");
        let offsets = m.value_offsets();
        for j in 0..m.len() {
            let mut row = BTreeMap::new();
            for k in offsets[j] as usize..offsets[j + 1] as usize {
                if values.is_valid(k) {
                    row.insert(keys.value(k).to_string(), values.value(k).to_string());
                }
            }
            out.push(row);
        }
    }
    Ok(out)
}

/// The weight unit a query adds up: the selection's, when it names one; else the one unit of
/// the selected profiles (time when both are there: `note` says heap profiles were left out).
pub async fn choose_unit(
    reader: &LakeReader,
    sel: &Selection,
    asked: Option<&str>,
) -> Result<(String, Option<String>)> {
    if let Some(u) = asked {
        return Ok((u.to_string(), None));
    }
    let sql = format!(
        "SELECT DISTINCT weight_unit FROM profiles WHERE kind <> 'heapsnapshot' AND {}",
        sel.predicate("")
    );
    let units: Vec<String> = strings(&reader.query(&sql).await?, 0)?
        .into_iter()
        .flatten()
        .collect();
    Ok(match units.as_slice() {
        [one] => (one.clone(), None),
        [] => ("ns".into(), None),
        _ => (
            "ns".into(),
            Some("the selection holds heap profiles (bytes) too; they are left out (--unit bytes shows them)".into()),
        ),
    })
}

/// The samples of the selected profiles of one unit, as a SQL condition on `s.profile_id`.
/// Without any selection and with one unit in the lake it is `TRUE`: no join at all.
async fn sample_filter(reader: &LakeReader, sel: &Selection, unit: &str) -> Result<String> {
    if sel.is_empty() {
        let sql = "SELECT count(DISTINCT weight_unit) FROM profiles WHERE kind <> 'heapsnapshot'";
        if scalar(reader, sql).await? <= 1 {
            return Ok("TRUE".into());
        }
    }
    let ids = profile_ids(reader, &sel.clone().with_unit(unit)).await?;
    Ok(profile_filter(&ids))
}

/// The selected profiles' ids.
async fn profile_ids(reader: &LakeReader, sel: &Selection) -> Result<Vec<String>> {
    let sql = format!(
        "SELECT DISTINCT profile_id FROM profiles WHERE {}",
        sel.predicate("")
    );
    Ok(strings(&reader.query(&sql).await?, 0)?
        .into_iter()
        .flatten()
        .collect())
}

/// `s.profile_id IN ('…', …)`: the selected profiles' ids as a list of literals. The small
/// `profiles` table is read first; DataFusion then tests each sample row against a hash set of
/// constants, where `IN (SELECT …)` planned a semi join that took 6 s over 6 M rows.
fn profile_filter(ids: &[String]) -> String {
    if ids.is_empty() {
        return "FALSE".into();
    }
    let ids: Vec<String> = ids.iter().map(|id| quote(id)).collect();
    format!("s.profile_id IN ({})", ids.join(", "))
}

/// One function of a lake table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionWeights {
    pub function_id: u64,
    pub name: String,
    pub url: String,
    pub line: Option<i64>,
    pub column: Option<i64>,
    pub self_weight: i64,
    pub total_weight: i64,
}

/// `lake top`'s answer.
#[derive(Clone, Debug)]
pub struct TopAnswer {
    /// `ns` or `bytes`.
    pub unit: String,
    /// The selection's total weight (percentages are of it).
    pub total: i64,
    pub profiles: i64,
    /// In no particular order: `jsprof_document::lake::top_view` puts them in `jsprof top`'s.
    pub rows: Vec<FunctionWeights>,
    pub note: Option<String>,
}

/// The first value of a one-number query (0 when it is null or there is no row).
async fn scalar(reader: &LakeReader, sql: &str) -> Result<i64> {
    Ok(i64s(&reader.query(sql).await?, 0)?
        .first()
        .copied()
        .flatten()
        .unwrap_or(0))
}

/// How many selected profiles weigh in `unit`.
async fn profile_count(reader: &LakeReader, sel: &Selection, unit: &str) -> Result<i64> {
    let sql = format!(
        "SELECT count(*) FROM profiles WHERE {}",
        sel.clone().with_unit(unit).predicate("")
    );
    scalar(reader, &sql).await
}

/// The function table of the selection.
pub async fn top(reader: &LakeReader, sel: &Selection, unit: Option<&str>) -> Result<TopAnswer> {
    let (unit, note) = choose_unit(reader, sel, unit).await?;
    let filter = sample_filter(reader, sel, &unit).await?;
    let sql = format!(
        "WITH t AS (SELECT s.function_id, sum(s.self_weight) AS self_w, \
                           sum(s.total_weight) AS total_w \
                    FROM profile_functions s WHERE {filter} GROUP BY s.function_id) \
         SELECT t.function_id, fn.name, fn.url, fn.line, fn.\"column\", t.self_w, t.total_w \
         FROM t JOIN functions fn ON fn.function_id = t.function_id"
    );
    let batches = reader.query(&sql).await?;
    let rows = function_rows(&batches)?;
    // The selection's total weight (of the unit) and how many profiles weigh in it.
    let total_sql = format!("SELECT sum(s.self_weight) FROM samples s WHERE {filter}");
    let total = scalar(reader, &total_sql).await?;
    let profiles = profile_count(reader, sel, &unit).await?;
    Ok(TopAnswer {
        unit,
        total,
        profiles,
        rows,
        note,
    })
}

fn function_rows(batches: &[RecordBatch]) -> Result<Vec<FunctionWeights>> {
    let functions = function_columns(batches)?;
    let (selfs, totals) = (i64s(batches, 5)?, i64s(batches, 6)?);
    Ok(functions
        .into_iter()
        .zip(selfs.into_iter().zip(totals))
        .map(
            |((id, (name, url, line, column)), (s, t))| FunctionWeights {
                function_id: id.unwrap_or(0),
                name,
                url,
                line,
                column,
                self_weight: s.unwrap_or(0),
                total_weight: t.unwrap_or(0),
            },
        )
        .collect())
}

/// A function's name, url, line and column, as the `functions` table has them.
pub type FunctionName = (String, String, Option<i64>, Option<i64>);

/// The first five columns of `batches` as functions: `function_id, name, url, line, "column"`
/// (a missing name or url as the empty one).
fn function_columns(batches: &[RecordBatch]) -> Result<Vec<(Option<u64>, FunctionName)>> {
    let (ids, names, urls) = (
        u64s(batches, 0)?,
        strings(batches, 1)?,
        strings(batches, 2)?,
    );
    let (lines, columns) = (i64s(batches, 3)?, i64s(batches, 4)?);
    Ok((0..ids.len())
        .map(|i| {
            let name = names[i].clone().unwrap_or_default();
            let url = urls[i].clone().unwrap_or_default();
            (ids[i], (name, url, lines[i], columns[i]))
        })
        .collect())
}

/// One profile as `lake ls` lists it (`jsprof_document::lake::LakeProfileJson` in JSON).
#[derive(Clone, Debug)]
pub struct ProfileInfo {
    pub profile_id: String,
    pub kind: String,
    pub source_name: String,
    pub thread: Option<String>,
    /// RFC 3339, UTC.
    pub start_time: Option<String>,
    pub duration_us: f64,
    pub sample_count: i64,
    pub weight_unit: String,
    pub labels: BTreeMap<String, String>,
    pub added_at: String,
}

fn rfc3339(us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(us)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
        .unwrap_or_default()
}

/// The selected profiles, oldest first.
pub async fn ls(reader: &LakeReader, sel: &Selection) -> Result<Vec<ProfileInfo>> {
    let sql = format!(
        "SELECT profile_id, kind, source_name, thread, start_time, duration_us, sample_count, \
                weight_unit, labels, added_at FROM profiles WHERE {} \
         ORDER BY coalesce(start_time, added_at), source_name, profile_id",
        sel.predicate("")
    );
    let b = reader.query(&sql).await?;
    let (ids, kinds, names, threads) = (
        strings(&b, 0)?,
        strings(&b, 1)?,
        strings(&b, 2)?,
        strings(&b, 3)?,
    );
    let (starts, durations, counts) = (i64s(&b, 4)?, f64s(&b, 5)?, i64s(&b, 6)?);
    let (units, labels, added) = (strings(&b, 7)?, maps(&b, 8)?, i64s(&b, 9)?);
    Ok((0..ids.len())
        .map(|i| ProfileInfo {
            profile_id: ids[i].clone().unwrap_or_default(),
            kind: kinds[i].clone().unwrap_or_default(),
            source_name: names[i].clone().unwrap_or_default(),
            thread: threads[i].clone(),
            start_time: starts[i].map(rfc3339),
            duration_us: durations[i].unwrap_or(0.0),
            sample_count: counts[i].unwrap_or(0),
            weight_unit: units[i].clone().unwrap_or_default(),
            labels: labels[i].clone(),
            added_at: added[i].map(rfc3339).unwrap_or_default(),
        })
        .collect())
}

/// One value of `lake trend`: the weight of its profiles (`total`) and the function's in them
/// (the document layer, `jsprof_document::lake`, makes them shares).
#[derive(Clone, Debug)]
pub struct TrendPoint {
    /// The label's value (`null` for profiles without the label), or the day.
    pub value: Option<String>,
    pub profiles: i64,
    pub total: i64,
    pub self_weight: i64,
    pub total_weight: i64,
}

/// Compares version-like strings naturally: digit runs as numbers (1.2 < 1.10).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let run = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
                let (na, nb) = (run(a), run(b));
                let strip = |s: &[u8]| {
                    let z = s.iter().take_while(|&&c| c == b'0').count();
                    s[z..].to_vec()
                };
                let (da, db) = (strip(&a[..na]), strip(&b[..nb]));
                let o = da
                    .len()
                    .cmp(&db.len())
                    .then_with(|| da.cmp(&db))
                    .then(na.cmp(&nb));
                if o != Ordering::Equal {
                    return o;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

/// A function's share of the selection per label value (`day`: per start day), in natural order
/// of the values. `function` is a name; `url` narrows it to one script.
pub async fn trend(
    reader: &LakeReader,
    sel: &Selection,
    function: &str,
    url: Option<&str>,
    by: &str,
    unit: Option<&str>,
) -> Result<(String, Vec<TrendPoint>)> {
    let (unit, _) = choose_unit(reader, sel, unit).await?;
    let key = group_key(by);
    let url_term = url.map_or(String::new(), |u| format!(" AND url = {}", quote(u)));
    let pred = sel.clone().with_unit(&unit).predicate("");
    // The weight per (value, stack) and the profiles per value from DataFusion; whether a stack
    // holds one of the function's ids (one name may be several functions, a stack holding two
    // counts once) is worked out here, walking each sampled stack up the dictionary once.
    let sql = format!(
        "WITH p AS (SELECT profile_id, {key} AS k FROM profiles WHERE {pred}) \
         SELECT p.k, s.stack_id, sum(s.self_weight) FROM samples s \
         JOIN p ON s.profile_id = p.profile_id GROUP BY p.k, s.stack_id"
    );
    let b = reader.query(&sql).await?;
    let (keys, sids, ws) = (strings(&b, 0)?, u64s(&b, 1)?, i64s(&b, 2)?);
    let sql = format!(
        "SELECT k, count(*) FROM (SELECT {key} AS k FROM profiles WHERE {pred}) GROUP BY k"
    );
    let b = reader.query(&sql).await?;
    let counted: HashMap<Option<String>, i64> = strings(&b, 0)?
        .into_iter()
        .zip(i64s(&b, 1)?)
        .map(|(k, n)| (k, n.unwrap_or(0)))
        .collect();
    let sql = format!(
        "SELECT function_id FROM functions WHERE name = {name}{url_term}",
        name = quote(function)
    );
    let matching: std::collections::HashSet<u64> = u64s(&reader.query(&sql).await?, 0)?
        .into_iter()
        .flatten()
        .collect();
    let on_stack = if matching.is_empty() {
        HashMap::new()
    } else {
        let sampled: std::collections::HashSet<u64> = sids.iter().flatten().copied().collect();
        holding(reader, &sampled, &matching).await?
    };
    // value → (total, self, function total)
    let mut sums: BTreeMap<Option<String>, (i64, i64, i64)> = BTreeMap::new();
    for i in 0..keys.len() {
        let (w, sid) = (ws[i].unwrap_or(0), sids[i].unwrap_or(0));
        let e = sums.entry(keys[i].clone()).or_default();
        e.0 += w;
        if let Some(&(top, anywhere)) = on_stack.get(&sid) {
            if top {
                e.1 += w;
            }
            if anywhere {
                e.2 += w;
            }
        }
    }
    let (mut keys, mut totals, mut selfs, mut tots, mut counts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (k, (total, s, t)) in sums {
        counts.push(counted.get(&k).copied());
        keys.push(k);
        totals.push(Some(total));
        selfs.push(Some(s));
        tots.push(Some(t));
    }
    let mut points: Vec<TrendPoint> = (0..keys.len())
        .map(|i| TrendPoint {
            value: keys[i].clone(),
            profiles: counts[i].unwrap_or(0),
            total: totals[i].unwrap_or(0),
            self_weight: selfs[i].unwrap_or(0),
            total_weight: tots[i].unwrap_or(0),
        })
        .collect();
    points.sort_by(|a, b| value_order(&a.value, &b.value));
    Ok((unit, points))
}

/// A trend's order of label values: natural, those without the label last.
fn value_order(a: &Option<String>, b: &Option<String>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => natural_cmp(x, y),
        (None, None) => Ordering::Equal,
        (None, _) => Ordering::Greater,
        (_, None) => Ordering::Less,
    }
}

/// The `profiles` expression a trend groups by: a label, or `day` (the start day), or one of the
/// columns `kind`, `thread`, `source_name`.
fn group_key(by: &str) -> String {
    if by == "day" {
        // `to_char`, not a cast: DataFusion casts to VARCHAR as Utf8View, which it cannot make
        // from a DATE.
        "to_char(coalesce(start_time, added_at), '%Y-%m-%d')".to_string()
    } else if ["kind", "thread", "source_name"].contains(&by) {
        by.to_string()
    } else {
        format!("labels[{}]", quote(by))
    }
}

/// A page-load metric's values per label value (`day`: per start day), in natural order of the
/// values (those without the label last): one value per page-load trace of the selection that
/// has the metric (`page_metrics`). `by` may not be `thread` or `kind`: a trace's metrics are
/// the page's, not a thread's.
pub async fn page_metric_values(
    reader: &LakeReader,
    sel: &Selection,
    metric: &str,
    by: &str,
) -> Result<Vec<(Option<String>, Vec<f64>)>> {
    if by == "thread" || by == "kind" {
        return Err(LakeError::Usage(format!(
            "a page load's metrics are the page's, not a {by}'s: group them by a label, `day` or `source_name`"
        )));
    }
    let key = group_key(by);
    let pred = sel.predicate("");
    let sql = format!(
        "WITH p AS (SELECT DISTINCT source_hash, {key} AS k FROM profiles WHERE {pred}) \
         SELECT p.k, m.value FROM page_metrics m JOIN p ON m.source_hash = p.source_hash \
         WHERE m.metric = {metric}",
        metric = quote(metric)
    );
    let b = reader.query(&sql).await?;
    let mut groups: BTreeMap<Option<String>, Vec<f64>> = BTreeMap::new();
    for (k, v) in strings(&b, 0)?.into_iter().zip(f64s(&b, 1)?) {
        groups.entry(k).or_default().extend(v);
    }
    let mut out: Vec<(Option<String>, Vec<f64>)> = groups.into_iter().collect();
    out.sort_by(|(a, _), (b, _)| value_order(a, b));
    Ok(out)
}

/// Each page-load trace of the selection with the metrics the lake stored for it
/// (`page_metrics`): one map per trace, metric → value, as `page_runs::run_values` read them
/// when it was added. Traces without stored metrics are not runs.
pub async fn page_runs(reader: &LakeReader, sel: &Selection) -> Result<Vec<BTreeMap<String, f64>>> {
    let pred = sel.predicate("");
    let sql = format!(
        "WITH p AS (SELECT DISTINCT source_hash FROM profiles WHERE {pred}) \
         SELECT m.source_hash, m.metric, m.value FROM page_metrics m \
         JOIN p ON m.source_hash = p.source_hash"
    );
    let b = reader.query(&sql).await?;
    let mut runs: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let rows = strings(&b, 0)?
        .into_iter()
        .zip(strings(&b, 1)?)
        .zip(f64s(&b, 2)?);
    for ((hash, metric), value) in rows {
        if let (Some(hash), Some(metric), Some(value)) = (hash, metric, value) {
            runs.entry(hash).or_default().insert(metric, value);
        }
    }
    Ok(runs.into_values().collect())
}

/// For each of `sampled` stacks: whether a function of `functions` tops it, and whether one is
/// anywhere on it. Each stack of the dictionary is looked at once (answers are remembered on the
/// way up), so this is linear in the stacks, however deep.
async fn holding(
    reader: &LakeReader,
    sampled: &std::collections::HashSet<u64>,
    functions: &std::collections::HashSet<u64>,
) -> Result<HashMap<u64, (bool, bool)>> {
    let b = reader
        .query("SELECT stack_id, parent_id, function_id FROM stacks")
        .await?;
    let (sid, parent, fid) = (u64s(&b, 0)?, u64s(&b, 1)?, u64s(&b, 2)?);
    let dict: HashMap<u64, (Option<u64>, u64)> = (0..sid.len())
        .filter_map(|i| Some((sid[i]?, (parent[i], fid[i]?))))
        .collect();
    let mut anywhere: HashMap<u64, bool> = HashMap::new();
    let mut out = HashMap::new();
    let mut path = Vec::new();
    for &s in sampled {
        let Some(&(_, top)) = dict.get(&s) else {
            continue;
        };
        // Up to the first stack already answered (or the root), then down again.
        let climbed = climb(
            s,
            &mut path,
            |id| anywhere.get(&id).copied(),
            |id| dict.get(&id).copied(),
            |&(parent, _)| parent,
            dict.len(),
        );
        let mut known = match climbed {
            Climb::Known(a) => a,
            Climb::Root | Climb::Missing(_) => false,
            Climb::Loop(id) => {
                return Err(LakeError::Query(format!(
                    "stack {id:016x}: its parents form a loop"
                )))
            }
        };
        for &(id, (_, f)) in path.iter().rev() {
            known = known || functions.contains(&f);
            anywhere.insert(id, known);
        }
        out.insert(s, (functions.contains(&top), anywhere[&s]));
    }
    Ok(out)
}

/// The selection's weight per stack, with every stack on the way to the root and every function
/// they name: what a merged profile (`lake tree`, `lake flamegraph`) is made of.
#[derive(Clone, Debug, Default)]
pub struct MergedStacks {
    pub unit: String,
    /// (stack_id, weight, samples); stack 0 is the bare root.
    pub weights: Vec<(u64, i64, i64)>,
    /// stack_id → (parent_id, function_id, depth).
    pub stacks: HashMap<u64, StackRow>,
    /// function_id → (name, url, line, column).
    pub functions: HashMap<u64, FunctionName>,
    pub profiles: i64,
    pub note: Option<String>,
}

pub async fn merged_stacks(
    reader: &LakeReader,
    sel: &Selection,
    unit: Option<&str>,
) -> Result<MergedStacks> {
    let (unit, note) = choose_unit(reader, sel, unit).await?;
    let filter = sample_filter(reader, sel, &unit).await?;
    let sql = format!(
        "SELECT s.stack_id, sum(s.self_weight), sum(s.sample_count) FROM samples s \
         WHERE {filter} GROUP BY s.stack_id ORDER BY s.stack_id"
    );
    let b = reader.query(&sql).await?;
    let (ids, ws, cs) = (u64s(&b, 0)?, i64s(&b, 1)?, i64s(&b, 2)?);
    let weights: Vec<(u64, i64, i64)> = (0..ids.len())
        .map(|i| (ids[i].unwrap_or(0), ws[i].unwrap_or(0), cs[i].unwrap_or(0)))
        .collect();
    // The dictionaries are small next to the fact table: read them whole.
    let b = reader
        .query("SELECT stack_id, parent_id, function_id, depth FROM stacks")
        .await?;
    let (sid, parent, fid, depth) = (u64s(&b, 0)?, u64s(&b, 1)?, u64s(&b, 2)?, i64s(&b, 3)?);
    let all: HashMap<u64, (Option<u64>, u64, i32)> = (0..sid.len())
        .map(|i| {
            (
                sid[i].unwrap_or(0),
                (parent[i], fid[i].unwrap_or(0), depth[i].unwrap_or(0) as i32),
            )
        })
        .collect();
    let mut stacks = HashMap::new();
    for &(s, _, _) in &weights {
        let mut cur = Some(s);
        while let Some(id) = cur {
            if stacks.contains_key(&id) {
                break;
            }
            let Some(&row) = all.get(&id) else { break };
            stacks.insert(id, row);
            cur = row.0;
        }
    }
    let used: std::collections::HashSet<u64> = stacks.values().map(|r| r.1).collect();
    let functions = function_names(reader, |f| used.contains(&f)).await?;
    let profiles = profile_count(reader, sel, &unit).await?;
    Ok(MergedStacks {
        unit,
        weights,
        stacks,
        functions,
        profiles,
        note,
    })
}

/// What an export of a selection says beside its merged stacks (`lake export`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelectionOrigin {
    /// The earliest wall-clock start of the selected profiles of the unit (µs since the epoch),
    /// when any has one.
    pub start_us: Option<i64>,
    /// Their `service` label, when every one of them has the same.
    pub service: Option<String>,
}

/// The earliest start and the one `service` label of the selected profiles of `unit`.
pub async fn origin(reader: &LakeReader, sel: &Selection, unit: &str) -> Result<SelectionOrigin> {
    let sql = format!(
        "SELECT min(start_time), count(DISTINCT labels['service']), \
                count(*) - count(labels['service']), min(labels['service']) \
         FROM profiles WHERE {}",
        sel.clone().with_unit(unit).predicate("")
    );
    let b = reader.query(&sql).await?;
    let first = |v: Vec<Option<i64>>| v.first().copied().flatten();
    let (distinct, missing) = (first(i64s(&b, 1)?), first(i64s(&b, 2)?));
    let service = strings(&b, 3)?.into_iter().next().flatten();
    Ok(SelectionOrigin {
        start_us: first(i64s(&b, 0)?),
        service: service.filter(|_| distinct == Some(1) && missing == Some(0)),
    })
}

/// One profile's function weights: what `lake diff` compares per profile.
#[derive(Clone, Debug, Default)]
pub struct ProfileFunctions {
    pub profile_id: String,
    /// The profile's weight on some function (its share's denominator, as `jsprof diff`'s:
    /// samples with an empty stack, stack 0, are left out).
    pub total: i64,
    /// function_id → (self, total).
    pub functions: HashMap<u64, (i64, i64)>,
}

/// Per selected profile, per function: self and total weight, and the profile's total (the hook
/// `lake diff` builds on). Profiles without samples are listed with no functions.
///
/// The selection's `profile_functions` rows are read with DataFusion and gathered here, with
/// integer keys: a GROUP BY on (profile id text, function) spent most of `lake diff`'s time
/// hashing the 32-character ids. Totals count a sample once however often a function recurses,
/// as DevTools does (the writer made them so).
pub async fn per_profile_functions(
    reader: &LakeReader,
    sel: &Selection,
    unit: &str,
) -> Result<Vec<ProfileFunctions>> {
    let sel = sel.clone().with_unit(unit);
    let ids = profile_ids(reader, &sel).await?;
    let filter = profile_filter(&ids);
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<ProfileFunctions> = Vec::new();
    for id in ids {
        index.entry(id.clone()).or_insert_with(|| {
            out.push(ProfileFunctions {
                profile_id: id,
                ..ProfileFunctions::default()
            });
            out.len() - 1
        });
    }
    // Each profile's weight on some function: every sample but the bare root's.
    let b = reader
        .query(&format!(
            "SELECT s.profile_id, sum(s.self_weight) FROM samples s \
             WHERE {filter} AND s.stack_id <> 0 GROUP BY s.profile_id"
        ))
        .await?;
    for (id, w) in strings(&b, 0)?.into_iter().zip(i64s(&b, 1)?) {
        if let Some(&p) = id.as_ref().and_then(|id| index.get(id)) {
            out[p].total += w.unwrap_or(0);
        }
    }
    let batches = reader
        .query(&format!(
            "SELECT s.profile_id, s.function_id, s.self_weight, s.total_weight \
             FROM profile_functions s WHERE {filter}"
        ))
        .await?;
    for b in &batches {
        let (pids, fids) = (cast(b.column(0), &DataType::Utf8)?, b.column(1));
        let fids = cast(fids, &DataType::UInt64)?;
        let selfs = cast(b.column(2), &DataType::Int64)?;
        let totals = cast(b.column(3), &DataType::Int64)?;
        let (pids, fids) = (pids.as_string::<i32>(), fids.as_primitive::<UInt64Type>());
        let (selfs, totals) = (
            selfs.as_primitive::<Int64Type>(),
            totals.as_primitive::<Int64Type>(),
        );
        // Rows come grouped by profile: look the id up once per run of rows.
        let mut last: Option<(usize, usize)> = None; // (row where the run started, profile)
        for j in 0..b.num_rows() {
            if pids.is_null(j) || fids.is_null(j) {
                continue;
            }
            let p = match last {
                Some((start, p)) if pids.value(start) == pids.value(j) => p,
                _ => match index.get(pids.value(j)) {
                    Some(&p) => {
                        last = Some((j, p));
                        p
                    }
                    None => continue,
                },
            };
            let e = out[p].functions.entry(fids.value(j)).or_default();
            e.0 += selfs.value(j);
            e.1 += totals.value(j);
        }
    }
    out.sort_by(|a, b| a.profile_id.cmp(&b.profile_id));
    Ok(out)
}

/// Names of the functions `keep` keeps, by id: (name, url, line, column).
pub async fn function_names(
    reader: &LakeReader,
    keep: impl Fn(u64) -> bool,
) -> Result<HashMap<u64, FunctionName>> {
    let b = reader
        .query("SELECT function_id, name, url, line, \"column\" FROM functions")
        .await?;
    Ok(function_columns(&b)?
        .into_iter()
        .filter_map(|(id, f)| Some((id.filter(|&id| keep(id))?, f)))
        .collect())
}

/// A stack of the dictionary: (parent_id, function_id, depth).
pub type StackRow = (Option<u64>, u64, i32);

/// One weighted profile of the merged stacks, for the engine behind `jsprof tree` and
/// `jsprof flamegraph`: one thread whose samples are the stacks with their summed weights (time
/// in nanoseconds, as the engine counts it; bytes as they are).
pub fn merged_profile(m: &MergedStacks) -> jsprof_profile::Profile {
    use jsprof_profile::{Profile, ProfileKind, Samples, StackId, Thread, WeightUnit};
    let bytes = m.unit == "bytes";
    let mut profile = Profile::new(if bytes {
        ProfileKind::HeapProfile
    } else {
        ProfileKind::CpuProfile
    });
    // Parents before children: by depth, then id for a stable order.
    let mut order: Vec<(&u64, &StackRow)> = m.stacks.iter().collect();
    order.sort_by_key(|(id, row)| (row.2, **id));
    let mut ids: HashMap<u64, StackId> = HashMap::new();
    for (id, &(parent, function, _)) in order {
        let parent = match parent {
            Some(p) => match ids.get(&p) {
                Some(&s) => Some(s),
                None => continue,
            },
            None => None,
        };
        let (name, url, line, column) = m
            .functions
            .get(&function)
            .cloned()
            .unwrap_or_else(|| ("(unknown)".into(), String::new(), None, None));
        let to_u32 = |v: Option<i64>| v.and_then(|v| u32::try_from(v).ok());
        let frame = profile.intern_frame(&name, &url, to_u32(line), to_u32(column), "");
        let stack = profile.stacks.push(parent, frame, ids.len() as u64 + 1);
        ids.insert(*id, stack);
    }
    let mut thread = Thread::new(if bytes {
        WeightUnit::Bytes
    } else {
        WeightUnit::Nanoseconds
    });
    thread.set_identity("lake".into(), None, None);
    let mut samples = Samples::weighted();
    let mut time = 0i64;
    for &(stack, weight, _) in &m.weights {
        samples.push_weighted(time, ids.get(&stack).copied(), weight);
        time = time.saturating_add(weight.max(0));
    }
    let end = time;
    *thread.samples_mut() = samples;
    thread.set_samples_end(Some(end));
    profile.threads.push(thread);
    profile
}

/// Query results as a text table.
pub fn pretty(batches: &[RecordBatch]) -> Result<String> {
    Ok(arrow::util::pretty::pretty_format_batches(batches)?.to_string())
}

/// Query results as JSON objects, one per row: integers and floats as numbers, everything else
/// (strings, times, lists, maps) as Arrow displays it.
pub fn rows_json(batches: &[RecordBatch]) -> Result<Vec<serde_json::Value>> {
    use arrow::util::display::{ArrayFormatter, FormatOptions};
    let mut out = Vec::new();
    for b in batches {
        let schema = b.schema();
        let mut rows: Vec<serde_json::Map<String, serde_json::Value>> =
            (0..b.num_rows()).map(|_| serde_json::Map::new()).collect();
        for (i, field) in schema.fields().iter().enumerate() {
            let col = b.column(i);
            let t = col.data_type();
            let one = [b.slice(0, b.num_rows())];
            let values: Vec<serde_json::Value> = if t.is_integer() {
                match t {
                    DataType::UInt64 => u64s(&one, i)?
                        .into_iter()
                        .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                        .collect(),
                    _ => i64s(&one, i)?
                        .into_iter()
                        .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                        .collect(),
                }
            } else if t.is_floating() {
                f64s(&one, i)?
                    .into_iter()
                    .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                    .collect()
            } else {
                let f = ArrayFormatter::try_new(col.as_ref(), &FormatOptions::default())?;
                (0..col.len())
                    .map(|j| {
                        if col.is_null(j) {
                            serde_json::Value::Null
                        } else {
                            f.value(j).to_string().into()
                        }
                    })
                    .collect()
            };
            for (row, v) in rows.iter_mut().zip(values) {
                row.insert(field.name().clone(), v);
            }
        }
        out.extend(rows.into_iter().map(serde_json::Value::Object));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_naturally() {
        let mut v = vec!["1.10", "1.2", "1.9.1", "1.9", "v2", "1.02"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["1.2", "1.02", "1.9", "1.9.1", "1.10", "v2"]);
    }
}
