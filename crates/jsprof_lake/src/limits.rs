//! The user's SQL (`lake sql`) within a memory and a time limit.
//!
//! **Memory.** The session gets a DataFusion memory pool of `max_memory` bytes, with spilling to
//! disk off: sorts, aggregates, joins, windows and repartitions reserve what they hold from it
//! and fail with "Resources exhausted" past it, and so does the result, which is held whole
//! (`read::LakeReader::query_read_only`). Scalar functions reserve nothing, and a few make
//! results whose size an argument chooses (`repeat('x', 2000000000)` makes 2 GB in one
//! allocation, whose failure aborts the process): those are replaced by [`Bounded`] wrappers that
//! estimate a batch's result from its arguments (twice it: the built-ins make each value, then
//! copy it) and refuse it past the same limit before it is made. Other functions' results are
//! bounded by their inputs (`concat`, `replace` of a string already within the limit), which
//! is what remains unaccounted: a few times the limit at worst, not an unbounded request.
//!
//! **Time.** The query runs as a task on its own runtime while the calling thread waits on a
//! plain channel with a deadline (a tokio timer would need an idle worker to fire, and a CPU-bound
//! plan may hold every worker). Past the deadline the task is aborted and the runtime shut down
//! without waiting: the caller gets its error at once, and a plan that never yields keeps a core
//! busy only until the process ends (the CLI exits).

use std::any::Any;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{Array, ArrayRef, AsArray, Int64Array};
use arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyInfo};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature,
};
use datafusion::prelude::SessionContext;

use crate::{LakeError, Result};

/// The limits of one user query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes the query's operators may hold, and the largest result a size-choosing function
    /// may make in one batch.
    pub max_memory: usize,
    /// Wall-clock time from opening the lake to the last row.
    pub timeout: Duration,
}

impl Default for Limits {
    /// 1 GiB and 60 s: room for any query over a lake of millions of profiles' rows, well short
    /// of what takes a shared machine down.
    fn default() -> Self {
        Limits {
            max_memory: 1 << 30,
            timeout: Duration::from_secs(60),
        }
    }
}

/// `n` bytes for people: `512 MiB`.
pub fn bytes_text(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The runtime of a limited session: the pool, no spill files.
pub(crate) fn runtime(limits: &Limits) -> Result<Arc<RuntimeEnv>> {
    Ok(RuntimeEnvBuilder::new()
        .with_memory_limit(limits.max_memory, 1.0)
        .with_disk_manager_builder(
            DiskManagerBuilder::default().with_mode(DiskManagerMode::Disabled),
        )
        .build_arc()?)
}

/// Functions whose result size an argument chooses: (name, index of that argument, bytes per
/// unit of it at least: a byte of a repeated string, a character of a padded one, an element of
/// an array).
const SIZE_CHOOSING: &[(&str, usize, u64)] = &[
    ("repeat", 1, 1),
    ("lpad", 1, 4),
    ("rpad", 1, 4),
    ("array_repeat", 1, 8),
    ("array_resize", 1, 8),
];

/// Replaces the session's size-choosing functions by [`Bounded`] wrappers.
pub(crate) fn bound_functions(ctx: &SessionContext, max_bytes: usize) -> Result<()> {
    let mut names: Vec<(&str, Shape)> = SIZE_CHOOSING
        .iter()
        .map(|&(n, i, unit)| (n, Shape::Count(i, unit)))
        .collect();
    names.push(("range", Shape::Series));
    names.push(("generate_series", Shape::Series));
    for (name, shape) in names {
        // A function the build leaves out needs no bound.
        let Ok(udf) = ctx.udf(name) else { continue };
        let bounded = Bounded {
            inner: udf.inner().clone(),
            shape,
            max_bytes: max_bytes as u64,
        };
        ctx.register_udf(ScalarUDF::new_from_impl(bounded));
    }
    Ok(())
}

/// How a wrapped function's result grows with its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Shape {
    /// Each row's result is about argument `i` × the other arguments' bytes (at least the
    /// given bytes per unit).
    Count(usize, u64),
    /// `range`/`generate_series` over integers: (stop − start) / step + 1 elements of 8 bytes.
    Series,
}

/// A built-in function that first estimates the bytes its result would take for the batch and
/// refuses past `max_bytes`, then runs the function itself.
#[derive(Debug)]
struct Bounded {
    inner: Arc<dyn ScalarUDFImpl>,
    shape: Shape,
    max_bytes: u64,
}

/// One argument's value per row: the same for every row (a scalar) or one each.
enum PerRow {
    Same(u64),
    Each(Vec<u64>),
}

impl PerRow {
    fn at(&self, i: usize) -> u64 {
        match self {
            PerRow::Same(v) => *v,
            PerRow::Each(v) => v.get(i).copied().unwrap_or(0),
        }
    }
}

/// Bytes per row of an array: exact for strings and binaries, the array's mean otherwise.
fn array_bytes(a: &ArrayRef) -> Vec<u64> {
    let n = a.len();
    let each = |len: &dyn Fn(usize) -> usize| (0..n).map(|i| len(i) as u64).collect();
    match a.data_type() {
        DataType::Utf8 => each(&|i| a.as_string::<i32>().value(i).len()),
        DataType::LargeUtf8 => each(&|i| a.as_string::<i64>().value(i).len()),
        DataType::Utf8View => each(&|i| a.as_string_view().value(i).len()),
        DataType::Binary => each(&|i| a.as_binary::<i32>().value(i).len()),
        DataType::LargeBinary => each(&|i| a.as_binary::<i64>().value(i).len()),
        _ => vec![(a.get_array_memory_size() / n.max(1)) as u64; n],
    }
}

/// A scalar's bytes: a string's or binary's length, else its size in memory.
fn scalar_bytes(s: &ScalarValue) -> u64 {
    match s {
        ScalarValue::Utf8(Some(v))
        | ScalarValue::LargeUtf8(Some(v))
        | ScalarValue::Utf8View(Some(v)) => v.len() as u64,
        ScalarValue::Binary(Some(v))
        | ScalarValue::LargeBinary(Some(v))
        | ScalarValue::BinaryView(Some(v)) => v.len() as u64,
        other => other.size() as u64,
    }
}

fn bytes_of(arg: &ColumnarValue) -> PerRow {
    match arg {
        ColumnarValue::Scalar(s) => PerRow::Same(scalar_bytes(s)),
        ColumnarValue::Array(a) => PerRow::Each(array_bytes(a)),
    }
}

/// An integer argument per row (nulls and negatives as 0; `None` when not an integer).
fn ints_of(arg: &ColumnarValue) -> Option<PerRow> {
    let to_i64 = |a: &ArrayRef| -> Option<Vec<i64>> {
        if !a.data_type().is_integer() {
            return None;
        }
        let cast = arrow::compute::cast(a, &DataType::Int64).ok()?;
        let ints = cast.as_any().downcast_ref::<Int64Array>()?;
        Some(
            (0..ints.len())
                .map(|i| if ints.is_null(i) { 0 } else { ints.value(i) })
                .collect(),
        )
    };
    match arg {
        ColumnarValue::Scalar(s) => {
            if s.is_null() {
                return Some(PerRow::Same(0));
            }
            let a = s.to_array().ok()?;
            Some(PerRow::Same(to_i64(&a)?.first().copied()?.max(0) as u64))
        }
        ColumnarValue::Array(a) => Some(PerRow::Each(
            to_i64(a)?.into_iter().map(|v| v.max(0) as u64).collect(),
        )),
    }
}

/// Signed integers per row, for a series' bounds.
fn signed_of(arg: &ColumnarValue, rows: usize) -> Option<Vec<i64>> {
    let a = match arg {
        ColumnarValue::Scalar(s) => s.to_array_of_size(1).ok()?,
        ColumnarValue::Array(a) => a.clone(),
    };
    if !a.data_type().is_integer() {
        return None;
    }
    let cast = arrow::compute::cast(&a, &DataType::Int64).ok()?;
    let ints = cast.as_any().downcast_ref::<Int64Array>()?;
    let value = |i: usize| if ints.is_null(i) { 0 } else { ints.value(i) };
    Some(match arg {
        ColumnarValue::Scalar(_) => vec![value(0); rows],
        ColumnarValue::Array(_) => (0..ints.len()).map(value).collect(),
    })
}

impl Bounded {
    /// The estimated bytes of the batch's result (saturating); `None` when it cannot be told.
    fn estimate(&self, args: &ScalarFunctionArgs) -> Option<u64> {
        let rows = args.number_rows;
        match self.shape {
            Shape::Count(index, unit) => {
                let count = ints_of(args.args.get(index)?)?;
                let sizes: Vec<PerRow> = args
                    .args
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != index)
                    .map(|(_, a)| bytes_of(a))
                    .collect();
                let mut total = 0u64;
                for row in 0..rows {
                    let each = sizes
                        .iter()
                        .fold(0u64, |s, p| s.saturating_add(p.at(row)))
                        .max(unit);
                    total = total.saturating_add(each.saturating_mul(count.at(row)));
                }
                // The built-ins make each value, then copy it into the result array: twice.
                Some(total.saturating_mul(2))
            }
            Shape::Series => {
                let ints: Vec<Vec<i64>> = args
                    .args
                    .iter()
                    .map(|a| signed_of(a, rows))
                    .collect::<Option<_>>()?;
                let mut total = 0u64;
                for row in 0..rows {
                    let (start, stop, step) = match ints.as_slice() {
                        [stop] => (0, stop[row], 1),
                        [start, stop] => (start[row], stop[row], 1),
                        [start, stop, step] => (start[row], stop[row], step[row]),
                        _ => return None,
                    };
                    let span = (i128::from(stop) - i128::from(start)).unsigned_abs();
                    let step = i128::from(step).unsigned_abs().max(1);
                    let elements = u64::try_from(span / step + 1).unwrap_or(u64::MAX);
                    total = total.saturating_add(elements.saturating_mul(8));
                }
                Some(total)
            }
        }
    }
}

impl ScalarUDFImpl for Bounded {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn display_name(&self, args: &[Expr]) -> datafusion::common::Result<String> {
        self.inner.display_name(args)
    }

    fn schema_name(&self, args: &[Expr]) -> datafusion::common::Result<String> {
        self.inner.schema_name(args)
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> datafusion::common::Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field_from_args(
        &self,
        args: ReturnFieldArgs,
    ) -> datafusion::common::Result<FieldRef> {
        self.inner.return_field_from_args(args)
    }

    fn invoke_with_args(
        &self,
        args: ScalarFunctionArgs,
    ) -> datafusion::common::Result<ColumnarValue> {
        if let Some(bytes) = self.estimate(&args) {
            if bytes > self.max_bytes {
                return Err(DataFusionError::ResourcesExhausted(format!(
                    "{}(): its result would take about {}, past the query's memory limit of {}",
                    self.inner.name(),
                    bytes_text(bytes),
                    bytes_text(self.max_bytes)
                )));
            }
        }
        self.inner.invoke_with_args(args)
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    fn simplify(
        &self,
        args: Vec<Expr>,
        info: &dyn SimplifyInfo,
    ) -> datafusion::common::Result<ExprSimplifyResult> {
        self.inner.simplify(args, info)
    }

    fn short_circuits(&self) -> bool {
        self.inner.short_circuits()
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> datafusion::common::Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }

    fn equals(&self, other: &dyn ScalarUDFImpl) -> bool {
        other
            .as_any()
            .downcast_ref::<Bounded>()
            .is_some_and(|o| o.shape == self.shape && self.inner.equals(o.inner.as_ref()))
    }

    fn hash_value(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.inner.hash_value().hash(&mut h);
        self.shape.hash(&mut h);
        h.finish()
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }
}

/// The error for a query that passed `limits`, naming the limit and the flag that raises it;
/// other errors as they are.
pub(crate) fn limit_error(e: DataFusionError, limits: &Limits) -> LakeError {
    let root = e.find_root();
    if matches!(root, DataFusionError::ResourcesExhausted(_)) {
        return LakeError::Limit(format!(
            "lake sql: the query needs more memory than its limit of {} (raise it with \
             --max-memory SIZE): {root}",
            bytes_text(limits.max_memory as u64)
        ));
    }
    LakeError::from(e)
}

/// The error for a query stopped at its deadline.
pub(crate) fn timeout_error(limits: &Limits) -> LakeError {
    LakeError::Limit(format!(
        "lake sql: the query was stopped after {} s, its time limit (raise it with --timeout \
         SECONDS)",
        limits.timeout.as_secs_f64()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_for_people() {
        assert_eq!(bytes_text(512), "512 bytes");
        assert_eq!(bytes_text(1 << 30), "1 GiB");
        assert_eq!(bytes_text(3 << 19), "1.5 MiB");
    }
}
