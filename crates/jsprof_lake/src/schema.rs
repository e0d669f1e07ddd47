//! The Arrow schemas of the seven tables (schema version 2, `docs/lake.md`) and the record batches
//! a write makes of prepared rows.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, Float64Builder, Int32Builder, Int64Builder, MapBuilder, RecordBatch, StringBuilder,
    TimestampMicrosecondBuilder, UInt64Builder,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};

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

fn utc_micros() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// The labels' map type as `MapBuilder` makes it (`entries` of `keys`, `values`).
fn labels_type() -> DataType {
    let entries = Field::new(
        "entries",
        DataType::Struct(
            vec![
                Field::new("keys", DataType::Utf8, false),
                Field::new("values", DataType::Utf8, true),
            ]
            .into(),
        ),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

pub fn profiles() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("profile_id", DataType::Utf8, false),
        Field::new("kind", DataType::Utf8, false),
        Field::new("source_name", DataType::Utf8, false),
        Field::new("source_hash", DataType::Utf8, false),
        Field::new("thread", DataType::Utf8, true),
        Field::new("start_time", utc_micros(), true),
        Field::new("duration_us", DataType::Float64, false),
        Field::new("sample_interval_us", DataType::Float64, true),
        Field::new("sample_count", DataType::Int64, false),
        Field::new("weight_unit", DataType::Utf8, false),
        Field::new("labels", labels_type(), false),
        Field::new("added_at", utc_micros(), false),
    ]))
}

pub fn functions() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("function_id", DataType::UInt64, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("url", DataType::Utf8, false),
        Field::new("line", DataType::Int32, true),
        Field::new("column", DataType::Int32, true),
    ]))
}

pub fn stacks() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("stack_id", DataType::UInt64, false),
        Field::new("parent_id", DataType::UInt64, true),
        Field::new("function_id", DataType::UInt64, false),
        Field::new("depth", DataType::Int32, false),
    ]))
}

pub fn samples() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("profile_id", DataType::Utf8, false),
        Field::new("stack_id", DataType::UInt64, false),
        Field::new("self_weight", DataType::Int64, false),
        Field::new("sample_count", DataType::Int64, false),
    ]))
}

/// Per profile and function: the weight and samples with the function on top of the stack
/// (self), and with it anywhere on the stack, counted once however often it recurses (total).
pub fn profile_functions() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("profile_id", DataType::Utf8, false),
        Field::new("function_id", DataType::UInt64, false),
        Field::new("self_weight", DataType::Int64, false),
        Field::new("total_weight", DataType::Int64, false),
        Field::new("self_samples", DataType::Int64, false),
        Field::new("total_samples", DataType::Int64, false),
    ]))
}

pub fn classes() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("profile_id", DataType::Utf8, false),
        Field::new("class_name", DataType::Utf8, false),
        Field::new("count", DataType::Int64, false),
        Field::new("shallow_size", DataType::Int64, false),
        Field::new("retained_size", DataType::Int64, false),
    ]))
}

/// Per page-load trace (by its content hash, like `profiles.source_hash`): one row per metric
/// of its first navigation, named as `jsprof insights DIR` names them (`fcp_ms`, `lcp_ms`, `cls`,
/// …). Added to lakes of version 2 without a version change: a lake without the table reads it
/// as empty.
pub fn page_metrics() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("source_hash", DataType::Utf8, false),
        Field::new("metric", DataType::Utf8, false),
        Field::new("value", DataType::Float64, false),
    ]))
}

/// The schema of table `name`.
pub fn of(name: &str) -> SchemaRef {
    match name {
        "page_metrics" => page_metrics(),
        "profiles" => profiles(),
        "functions" => functions(),
        "stacks" => stacks(),
        "samples" => samples(),
        "profile_functions" => profile_functions(),
        _ => classes(),
    }
}

/// A profile row with what the writer adds to it.
pub struct ProfileRecord<'a> {
    pub profile: &'a PreparedProfile,
    pub source_name: &'a str,
    pub source_hash: &'a str,
    pub labels: &'a std::collections::BTreeMap<String, String>,
    pub added_at_us: i64,
}

pub fn profiles_batch(rows: &[ProfileRecord]) -> Result<RecordBatch> {
    let mut id = StringBuilder::new();
    let mut kind = StringBuilder::new();
    let mut source_name = StringBuilder::new();
    let mut source_hash = StringBuilder::new();
    let mut thread = StringBuilder::new();
    let mut start = TimestampMicrosecondBuilder::new().with_timezone("UTC");
    let mut duration = Float64Builder::new();
    let mut interval = Float64Builder::new();
    let mut count = Int64Builder::new();
    let mut unit = StringBuilder::new();
    let mut labels = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    let mut added = TimestampMicrosecondBuilder::new().with_timezone("UTC");
    for r in rows {
        let p = r.profile;
        id.append_value(&p.profile_id);
        kind.append_value(p.kind);
        source_name.append_value(r.source_name);
        source_hash.append_value(r.source_hash);
        thread.append_option(p.thread.as_deref());
        start.append_option(p.start_time_us);
        duration.append_value(p.duration_us);
        interval.append_option(p.sample_interval_us);
        count.append_value(p.sample_count);
        unit.append_value(p.weight_unit);
        for (k, v) in r.labels {
            labels.keys().append_value(k);
            labels.values().append_value(v);
        }
        labels.append(true)?;
        added.append_value(r.added_at_us);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(kind.finish()),
        Arc::new(source_name.finish()),
        Arc::new(source_hash.finish()),
        Arc::new(thread.finish()),
        Arc::new(start.finish()),
        Arc::new(duration.finish()),
        Arc::new(interval.finish()),
        Arc::new(count.finish()),
        Arc::new(unit.finish()),
        Arc::new(labels.finish()),
        Arc::new(added.finish()),
    ];
    Ok(RecordBatch::try_new(profiles(), columns)?)
}

pub fn functions_batch<'a>(rows: impl Iterator<Item = &'a FunctionRow>) -> Result<RecordBatch> {
    let mut id = UInt64Builder::new();
    let mut name = StringBuilder::new();
    let mut url = StringBuilder::new();
    let mut line = Int32Builder::new();
    let mut column = Int32Builder::new();
    for f in rows {
        id.append_value(f.function_id);
        name.append_value(&f.name);
        url.append_value(&f.url);
        line.append_option(f.line);
        column.append_option(f.column);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(name.finish()),
        Arc::new(url.finish()),
        Arc::new(line.finish()),
        Arc::new(column.finish()),
    ];
    Ok(RecordBatch::try_new(functions(), columns)?)
}

pub fn stacks_batch<'a>(rows: impl Iterator<Item = &'a StackRow>) -> Result<RecordBatch> {
    let mut id = UInt64Builder::new();
    let mut parent = UInt64Builder::new();
    let mut function = UInt64Builder::new();
    let mut depth = Int32Builder::new();
    for s in rows {
        id.append_value(s.stack_id);
        parent.append_option(s.parent_id);
        function.append_value(s.function_id);
        depth.append_value(s.depth);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(parent.finish()),
        Arc::new(function.finish()),
        Arc::new(depth.finish()),
    ];
    Ok(RecordBatch::try_new(stacks(), columns)?)
}

pub fn samples_batch(profiles: &[&PreparedProfile]) -> Result<RecordBatch> {
    let mut id = StringBuilder::new();
    let mut stack = UInt64Builder::new();
    let mut weight = Int64Builder::new();
    let mut count = Int64Builder::new();
    for p in profiles {
        for &(s, w, c) in &p.samples {
            id.append_value(&p.profile_id);
            stack.append_value(s);
            weight.append_value(w);
            count.append_value(c);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(stack.finish()),
        Arc::new(weight.finish()),
        Arc::new(count.finish()),
    ];
    Ok(RecordBatch::try_new(samples(), columns)?)
}

/// `profile_functions` rows: each profile's id with its functions' weights.
pub fn profile_functions_batch(rows: &[(&str, Vec<FunctionWeights>)]) -> Result<RecordBatch> {
    let mut id = StringBuilder::new();
    let mut function = UInt64Builder::new();
    let mut self_w = Int64Builder::new();
    let mut total_w = Int64Builder::new();
    let mut self_n = Int64Builder::new();
    let mut total_n = Int64Builder::new();
    for (profile_id, functions) in rows {
        for f in functions {
            id.append_value(profile_id);
            function.append_value(f.function_id);
            self_w.append_value(f.self_weight);
            total_w.append_value(f.total_weight);
            self_n.append_value(f.self_samples);
            total_n.append_value(f.total_samples);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(function.finish()),
        Arc::new(self_w.finish()),
        Arc::new(total_w.finish()),
        Arc::new(self_n.finish()),
        Arc::new(total_n.finish()),
    ];
    Ok(RecordBatch::try_new(profile_functions(), columns)?)
}

pub fn classes_batch(profiles: &[&PreparedProfile]) -> Result<RecordBatch> {
    let mut id = StringBuilder::new();
    let mut name = StringBuilder::new();
    let mut count = Int64Builder::new();
    let mut shallow = Int64Builder::new();
    let mut retained = Int64Builder::new();
    for p in profiles {
        for c in &p.classes {
            let ClassRow {
                class_name,
                count: n,
                shallow_size,
                retained_size,
            } = c;
            id.append_value(&p.profile_id);
            name.append_value(class_name);
            count.append_value(*n);
            shallow.append_value(*shallow_size);
            retained.append_value(*retained_size);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(name.finish()),
        Arc::new(count.finish()),
        Arc::new(shallow.finish()),
        Arc::new(retained.finish()),
    ];
    Ok(RecordBatch::try_new(classes(), columns)?)
}

/// `page_metrics` rows of inputs (each input's hash with its metrics).
pub fn page_metrics_batch(inputs: &[(&str, &[(String, f64)])]) -> Result<RecordBatch> {
    let mut hash = StringBuilder::new();
    let mut metric = StringBuilder::new();
    let mut value = Float64Builder::new();
    for (h, metrics) in inputs {
        for (m, v) in metrics.iter() {
            hash.append_value(h);
            metric.append_value(m);
            value.append_value(*v);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(hash.finish()),
        Arc::new(metric.finish()),
        Arc::new(value.finish()),
    ];
    Ok(RecordBatch::try_new(page_metrics(), columns)?)
}
