//! The Arrow schemas of the seven tables (schema version 2, `docs/lake.md`) and the record batches
//! a write makes of prepared rows.

use std::sync::Arc;

use arrow::array::{
    ArrayBuilder, ArrayRef, Float64Builder, Int32Builder, Int64Builder, MapBuilder, RecordBatch,
    StringBuilder, TimestampMicrosecondBuilder, UInt64Builder,
};
use arrow::datatypes::{Field, Schema, SchemaRef};

use crate::prepare::{ClassRow, FunctionRow, FunctionWeights, PreparedProfile, StackRow};
use crate::Result;

/// The lake's format version (`lake.json`). Version 1 stored, per stack, the list of distinct
/// functions from the root (quadratic in the stack depth); version 2 stores per profile and
/// function its self and total weight (`profile_functions`) instead, and only the stacks that
/// were sampled and their ancestors.
pub const VERSION: u32 = 2;

/// The seven tables, in the order a write makes them: dictionaries first and `profiles` last, so
/// a reader that sees a profile also sees what it refers to.
pub const TABLES: [&str; 7] = [
    "functions",
    "stacks",
    "samples",
    "profile_functions",
    "classes",
    "page_metrics",
    "profiles",
];

/// One column of a table, declared once: its field (name, type, whether it may be null) is the
/// schema's, its values a batch's. A table's schema is its columns over no rows.
struct Column {
    name: &'static str,
    nullable: bool,
    values: ArrayRef,
}

/// A column that may be null, filled by `builder` from `values`.
fn nullable<T>(
    name: &'static str,
    mut builder: impl ArrayBuilder + Extend<Option<T>>,
    values: impl IntoIterator<Item = Option<T>>,
) -> Column {
    builder.extend(values);
    Column {
        name,
        nullable: true,
        values: builder.finish(),
    }
}

/// A column that is never null, filled by `builder` from `values`.
fn required<T>(
    name: &'static str,
    builder: impl ArrayBuilder + Extend<Option<T>>,
    values: impl IntoIterator<Item = T>,
) -> Column {
    Column {
        nullable: false,
        ..nullable(name, builder, values.into_iter().map(Some))
    }
}

/// Text, 64-bit and float columns that are never null.
fn text<T: AsRef<str>>(name: &'static str, values: impl IntoIterator<Item = T>) -> Column {
    required(name, StringBuilder::new(), values)
}

fn uint(name: &'static str, values: impl IntoIterator<Item = u64>) -> Column {
    required(name, UInt64Builder::new(), values)
}

fn int(name: &'static str, values: impl IntoIterator<Item = i64>) -> Column {
    required(name, Int64Builder::new(), values)
}

fn float(name: &'static str, values: impl IntoIterator<Item = f64>) -> Column {
    required(name, Float64Builder::new(), values)
}

fn utc_micros() -> TimestampMicrosecondBuilder {
    TimestampMicrosecondBuilder::new().with_timezone("UTC")
}

fn schema_of(columns: &[Column]) -> SchemaRef {
    Arc::new(Schema::new(
        columns
            .iter()
            .map(|c| Field::new(c.name, c.values.data_type().clone(), c.nullable))
            .collect::<Vec<_>>(),
    ))
}

fn batch_of(columns: Vec<Column>) -> Result<RecordBatch> {
    let schema = schema_of(&columns);
    let values = columns.into_iter().map(|c| c.values).collect();
    Ok(RecordBatch::try_new(schema, values)?)
}

/// A profile row with what the writer adds to it.
pub struct ProfileRecord<'a> {
    pub profile: &'a PreparedProfile,
    pub source_name: &'a str,
    pub source_hash: &'a str,
    pub labels: &'a std::collections::BTreeMap<String, String>,
    pub added_at_us: i64,
}

fn profiles_columns(rows: &[ProfileRecord]) -> Result<Vec<Column>> {
    let p = || rows.iter().map(|r| r.profile);
    // The labels' map: `entries` of `keys`, `values`.
    let mut labels = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    for r in rows {
        for (k, v) in r.labels {
            labels.keys().append_value(k);
            labels.values().append_value(v);
        }
        labels.append(true)?;
    }
    let labels = Column {
        name: "labels",
        nullable: false,
        values: Arc::new(labels.finish()),
    };
    let interval = p().map(|p| p.sample_interval_us);
    Ok(vec![
        text("profile_id", p().map(|p| &p.profile_id)),
        text("kind", p().map(|p| p.kind)),
        text("source_name", rows.iter().map(|r| r.source_name)),
        text("source_hash", rows.iter().map(|r| r.source_hash)),
        nullable(
            "thread",
            StringBuilder::new(),
            p().map(|p| p.thread.as_deref()),
        ),
        nullable("start_time", utc_micros(), p().map(|p| p.start_time_us)),
        float("duration_us", p().map(|p| p.duration_us)),
        nullable("sample_interval_us", Float64Builder::new(), interval),
        int("sample_count", p().map(|p| p.sample_count)),
        text("weight_unit", p().map(|p| p.weight_unit)),
        labels,
        required("added_at", utc_micros(), rows.iter().map(|r| r.added_at_us)),
    ])
}

fn functions_columns(rows: &[&FunctionRow]) -> Vec<Column> {
    let f = || rows.iter();
    vec![
        uint("function_id", f().map(|f| f.function_id)),
        text("name", f().map(|f| &f.name)),
        text("url", f().map(|f| &f.url)),
        nullable("line", Int32Builder::new(), f().map(|f| f.line)),
        nullable("column", Int32Builder::new(), f().map(|f| f.column)),
    ]
}

fn stacks_columns(rows: &[&StackRow]) -> Vec<Column> {
    let s = || rows.iter();
    vec![
        uint("stack_id", s().map(|s| s.stack_id)),
        nullable("parent_id", UInt64Builder::new(), s().map(|s| s.parent_id)),
        uint("function_id", s().map(|s| s.function_id)),
        required("depth", Int32Builder::new(), s().map(|s| s.depth)),
    ]
}

fn samples_columns<'a>(profiles: &[&'a PreparedProfile]) -> Vec<Column> {
    let rows = || {
        let of = |p: &'a PreparedProfile| p.samples.iter().map(move |s| (&p.profile_id, *s));
        profiles.iter().copied().flat_map(of)
    };
    vec![
        text("profile_id", rows().map(|(id, _)| id)),
        uint("stack_id", rows().map(|(_, (stack, _, _))| stack)),
        int("self_weight", rows().map(|(_, (_, weight, _))| weight)),
        int("sample_count", rows().map(|(_, (_, _, count))| count)),
    ]
}

/// Per profile and function: the weight and samples with the function on top of the stack
/// (self), and with it anywhere on the stack, counted once however often it recurses (total).
fn profile_functions_columns(rows: &[(&str, Vec<FunctionWeights>)]) -> Vec<Column> {
    let rows = || {
        rows.iter()
            .flat_map(|(id, fs)| fs.iter().map(move |f| (*id, f)))
    };
    let of = |value: fn(&FunctionWeights) -> i64| rows().map(move |(_, f)| value(f));
    vec![
        text("profile_id", rows().map(|(id, _)| id)),
        uint("function_id", rows().map(|(_, f)| f.function_id)),
        int("self_weight", of(|f| f.self_weight)),
        int("total_weight", of(|f| f.total_weight)),
        int("self_samples", of(|f| f.self_samples)),
        int("total_samples", of(|f| f.total_samples)),
    ]
}

fn classes_columns<'a>(profiles: &[&'a PreparedProfile]) -> Vec<Column> {
    let rows = || {
        let of = |p: &'a PreparedProfile| p.classes.iter().map(move |c| (&p.profile_id, c));
        profiles.iter().copied().flat_map(of)
    };
    let of = |value: fn(&ClassRow) -> i64| rows().map(move |(_, c)| value(c));
    vec![
        text("profile_id", rows().map(|(id, _)| id)),
        text("class_name", rows().map(|(_, c)| &c.class_name)),
        int("count", of(|c| c.count)),
        int("shallow_size", of(|c| c.shallow_size)),
        int("retained_size", of(|c| c.retained_size)),
    ]
}

/// Per page-load trace (by its content hash, like `profiles.source_hash`): one row per metric
/// of its first navigation, named as `jsprof insights DIR` names them (`fcp_ms`, `lcp_ms`, `cls`,
/// …). Added to lakes of version 2 without a version change: a lake without the table reads it
/// as empty.
fn page_metrics_columns(inputs: &[(&str, &[(String, f64)])]) -> Vec<Column> {
    let rows = || {
        inputs
            .iter()
            .flat_map(|(h, ms)| ms.iter().map(move |m| (*h, m)))
    };
    vec![
        text("source_hash", rows().map(|(hash, _)| hash)),
        text("metric", rows().map(|(_, (metric, _))| metric)),
        float("value", rows().map(|(_, (_, value))| *value)),
    ]
}

/// The schema of table `name`.
pub fn of(name: &str) -> SchemaRef {
    schema_of(&match name {
        "page_metrics" => page_metrics_columns(&[]),
        "profiles" => profiles_columns(&[]).expect("no rows"),
        "functions" => functions_columns(&[]),
        "stacks" => stacks_columns(&[]),
        "samples" => samples_columns(&[]),
        "profile_functions" => profile_functions_columns(&[]),
        _ => classes_columns(&[]),
    })
}

pub fn profiles_batch(rows: &[ProfileRecord]) -> Result<RecordBatch> {
    batch_of(profiles_columns(rows)?)
}

pub fn functions_batch(rows: &[&FunctionRow]) -> Result<RecordBatch> {
    batch_of(functions_columns(rows))
}

pub fn stacks_batch(rows: &[&StackRow]) -> Result<RecordBatch> {
    batch_of(stacks_columns(rows))
}

pub fn samples_batch(profiles: &[&PreparedProfile]) -> Result<RecordBatch> {
    batch_of(samples_columns(profiles))
}

/// `profile_functions` rows: each profile's id with its functions' weights.
pub fn profile_functions_batch(rows: &[(&str, Vec<FunctionWeights>)]) -> Result<RecordBatch> {
    batch_of(profile_functions_columns(rows))
}

pub fn classes_batch(profiles: &[&PreparedProfile]) -> Result<RecordBatch> {
    batch_of(classes_columns(profiles))
}

/// `page_metrics` rows of inputs (each input's hash with its metrics).
pub fn page_metrics_batch(inputs: &[(&str, &[(String, f64)])]) -> Result<RecordBatch> {
    batch_of(page_metrics_columns(inputs))
}
