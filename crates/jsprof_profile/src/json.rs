//! Shared pieces of the serde-based streaming readers: the deserializer setup (no recursion limit,
//! stack grown on the heap for deep trees), the current JSON path for error messages, and visitors
//! that put number arrays straight into compact columns.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::io::Read;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::error::ReadError;

/// The JSON path being read, kept up to date by the visitors so errors can name it. An indexed
/// path (`traceEvents[12]`) is only written out when asked for: it is set once per element of
/// arrays with millions of them, and read only for a message.
#[derive(Default)]
pub(crate) struct JsonPath {
    at: RefCell<String>,
    /// When set, the path is `at[index]`.
    index: std::cell::Cell<Option<usize>>,
}

impl JsonPath {
    pub fn set(&self, at: impl fmt::Display) {
        let mut s = self.at.borrow_mut();
        s.clear();
        use std::fmt::Write;
        let _ = write!(s, "{at}");
        self.index.set(None);
    }

    pub fn set_indexed(&self, section: &str, index: usize) {
        let mut s = self.at.borrow_mut();
        if *s != section {
            s.clear();
            s.push_str(section);
        }
        self.index.set(Some(index));
    }

    pub fn get(&self) -> String {
        let s = self.at.borrow();
        match self.index.get() {
            Some(i) => format!("{s}[{i}]"),
            None => s.clone(),
        }
    }
}

/// Where the JSON text comes from: a reader (streamed, byte by byte) or a slice in memory (several
/// times faster: strings are scanned with memchr rather than read one byte at a time).
pub enum Source<'a, R> {
    Reader(R),
    Slice(&'a [u8]),
}

/// Runs `seed` over the JSON text. Deep trees (legacy `head` forms) are fine: the stack grows on
/// the heap instead of overflowing. Trailing bytes after the value are reported through the
/// returned flag.
pub(crate) fn deserialize<R: Read, S, T>(
    source: Source<'_, R>,
    seed: S,
    path: &JsonPath,
) -> Result<(T, bool), ReadError>
where
    S: for<'de> DeserializeSeed<'de, Value = T>,
{
    match source {
        Source::Reader(reader) => run(
            serde_json::Deserializer::from_reader(reader),
            seed,
            path,
            true,
        ),
        Source::Slice(bytes) => {
            // Only `head` trees nest deeply; a profile that opens with its flat `nodes` keeps
            // serde_json's recursion limit (deep junk fails cleanly) and skips the stack checks.
            let deep = crate::detect::first_key(bytes) != Some(b"nodes".as_slice());
            // Text checked as UTF-8 once, whole (vectorised), lets serde_json take each string
            // as it is instead of checking it again; text that is not is read as bytes, so its
            // error names the place as before.
            match std::str::from_utf8(bytes) {
                Ok(text) => run(serde_json::Deserializer::from_str(text), seed, path, deep),
                Err(_) => run(
                    serde_json::Deserializer::from_slice(bytes),
                    seed,
                    path,
                    deep,
                ),
            }
        }
    }
}

fn run<'de, J: serde_json::de::Read<'de>, S, T>(
    mut de: serde_json::Deserializer<J>,
    seed: S,
    path: &JsonPath,
    deep: bool,
) -> Result<(T, bool), ReadError>
where
    S: DeserializeSeed<'de, Value = T>,
{
    let value = if deep {
        // Without a recursion limit, deep nesting must not overflow the thread's stack:
        // serde_stacker grows it on the heap.
        de.disable_recursion_limit();
        seed.deserialize(serde_stacker::Deserializer::new(&mut de))
    } else {
        seed.deserialize(&mut de)
    }
    .map_err(|e| ReadError::json(&path.get(), e))?;
    let trailing = de.end().is_err();
    Ok((value, trailing))
}

/// Implements a seed that is its own visitor: [`DeserializeSeed`] by handing itself to
/// `$method` (`deserialize_map`, `deserialize_seq`, `deserialize_any`), and [`Visitor`] with
/// `expecting` saying `$expecting`; the macro's body holds the visitor's `visit_*` methods, which
/// may name the input's lifetime `'de`; doc comments before the seed go on the visitor.
macro_rules! seed_visitor {
    ($(#[$attr:meta])* $seed:ty => $value:ty, $method:ident, $expecting:expr; $($visit:tt)*) => {
        impl<'de> serde::de::DeserializeSeed<'de> for $seed {
            type Value = $value;
            fn deserialize<D: serde::de::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<$value, D::Error> {
                d.$method(self)
            }
        }

        $(#[$attr])*
        impl<'de> serde::de::Visitor<'de> for $seed {
            type Value = $value;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str($expecting)
            }
            $($visit)*
        }
    };
}
pub(crate) use seed_visitor;

/// A JSON number as serde hands it over: see [`FromNumber`].
#[derive(Clone, Copy)]
pub(crate) enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

/// A value read from a JSON number (and, for some, from a string or `null`) by one visitor, so
/// that each such type says only how it converts. The hot path reads these per event and node:
/// the conversion is inlined, and nothing is allocated.
pub(crate) trait FromNumber: Sized {
    /// What an error message says was expected.
    const EXPECTING: &'static str;
    fn from_number<E: de::Error>(n: Number) -> Result<Self, E>;
    /// A string's value; `None` where a string is the wrong type.
    fn from_str(_: &str) -> Option<Self> {
        None
    }
    /// `null`'s value; `None` where it is the wrong type.
    fn from_unit() -> Option<Self> {
        None
    }
}

struct NumberVisitor<T>(PhantomData<T>);

impl<T: FromNumber> Visitor<'_> for NumberVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_number(Number::U64(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_number(Number::I64(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_number(Number::F64(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::from_str(v).ok_or_else(|| E::invalid_type(de::Unexpected::Str(v), &self))
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        T::from_unit().ok_or_else(|| E::invalid_type(de::Unexpected::Unit, &self))
    }
}

/// Implements [`Deserialize`] for [`FromNumber`] types.
macro_rules! deserialize_from_number {
    ($($t:ty),*) => {
        $(impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::de::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                d.deserialize_any($crate::json::number_visitor())
            }
        })*
    };
}
pub(crate) use deserialize_from_number;

/// The visitor of a [`FromNumber`] type.
pub(crate) fn number_visitor<'de, T: FromNumber>() -> impl Visitor<'de, Value = T> {
    NumberVisitor(PhantomData)
}

/// The next value of `map` as an optional number (`null` for none).
pub(crate) fn next_f64<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<f64>, A::Error> {
    Ok(map.next_value::<Option<Float>>()?.map(|f| f.0))
}

/// The next value of `map` as an optional list, `null` or missing read as empty.
pub(crate) fn next_list<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
) -> Result<Vec<T>, A::Error> {
    Ok(map.next_value::<Option<Vec<T>>>()?.unwrap_or_default())
}

/// Warns, at the top, that bytes after the end of the JSON value were ignored, when there were.
pub(crate) fn warn_trailing(profile: &mut crate::model::Profile, trailing: bool) {
    if trailing {
        profile.warn("", TRAILING_BYTES);
    }
}

/// The warning for bytes after the JSON value.
pub(crate) const TRAILING_BYTES: &str = "bytes after the end of the JSON value were ignored";

/// Reads an array of numbers given in microseconds (ints or floats) into nanoseconds.
pub(crate) struct MicrosToNanos<'a>(pub &'a mut Vec<i64>);

seed_visitor! {
    MicrosToNanos<'_> => (), deserialize_seq, "an array of numbers (microseconds)";
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if let Some(n) = seq.size_hint() {
            self.0.reserve(n);
        }
        while let Some(Micros(ns)) = seq.next_element()? {
            self.0.push(ns);
        }
        Ok(())
    }
}

/// One number of microseconds, as nanoseconds.
pub(crate) struct Micros(pub i64);

impl FromNumber for Micros {
    const EXPECTING: &'static str = "a number";
    fn from_number<E: de::Error>(n: Number) -> Result<Micros, E> {
        let ns = match n {
            Number::I64(v) => v.saturating_mul(1000),
            Number::U64(v) => (v.min(i64::MAX as u64) as i64).saturating_mul(1000),
            Number::F64(v) if !v.is_finite() => return Err(E::custom("expected a finite number")),
            Number::F64(v) => (v * 1000.0).round() as i64,
        };
        Ok(Micros(crate::model::clamp_time(ns)))
    }
}

/// A number (int or float) as f64.
pub(crate) struct Float(pub f64);

impl FromNumber for Float {
    const EXPECTING: &'static str = "a number";
    fn from_number<E: de::Error>(n: Number) -> Result<Float, E> {
        Ok(Float(match n {
            Number::I64(v) => v as f64,
            Number::U64(v) => v as f64,
            Number::F64(v) => v,
        }))
    }
}

deserialize_from_number!(Micros, Float, NodeId);

/// An optional string field borrowed from the input text when it has no escapes. Serde's own
/// `Option<Cow<str>>` copies every string even with `#[serde(borrow)]` (only a bare `Cow` field
/// borrows), which cost a third of the trace reader's time in allocation:
/// `#[serde(borrow, default, deserialize_with = "json::opt_cow_str")]`.
pub(crate) fn opt_cow_str<'de: 'a, 'a, D: de::Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    struct Text<'de>(Cow<'de, str>);
    impl<'de> Deserialize<'de> for Text<'de> {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
            d.deserialize_str(CowText("a string")).map(Text)
        }
    }
    Ok(Option::<Text<'de>>::deserialize(d)?.map(|t| t.0))
}

/// An id that CDP sends as a string (`scriptId: "80"`) and older files as a number. Borrowed
/// from the input text when it can be.
#[derive(Default)]
pub(crate) struct IdString<'de>(pub Cow<'de, str>);

impl<'de: 'a, 'a> Deserialize<'de> for IdString<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<IdString<'a>, D::Error> {
        d.deserialize_any(CowText("a string or a number"))
            .map(IdString)
    }
}

/// Text borrowed from the input where it has no escapes, a number as its text, `null` as empty;
/// what is expected, for the error message. Asked for a string (`deserialize_str`), the JSON
/// reader offers only strings.
struct CowText(&'static str);

impl<'de> Visitor<'de> for CowText {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Cow<'de, str>, E> {
        Ok(Cow::default())
    }
}

/// A node id: a non-negative integer (floats with an integral value tolerated).
pub(crate) struct NodeId(pub u64);

impl FromNumber for NodeId {
    const EXPECTING: &'static str = "a node id (a non-negative integer)";
    fn from_number<E: de::Error>(n: Number) -> Result<NodeId, E> {
        match n {
            Number::U64(v) => Ok(NodeId(v)),
            Number::I64(v) => u64::try_from(v)
                .map(NodeId)
                .map_err(|_| E::custom(format!("negative node id {v}"))),
            Number::F64(v) if v >= 0.0 && v.fract() == 0.0 && v < 1.8e19 => Ok(NodeId(v as u64)),
            Number::F64(v) => Err(E::custom(format!("invalid node id {v}"))),
        }
    }
}

/// Reads an array of node ids into `u32`s (V8 numbers nodes densely from 1); ids past `u32::MAX`
/// are an error rather than silently truncated.
pub(crate) struct NodeIds<'a>(pub &'a mut Vec<u32>);

seed_visitor! {
    NodeIds<'_> => (), deserialize_seq, "an array of node ids";
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(NodeId(id)) = seq.next_element()? {
            let id = u32::try_from(id)
                .ok()
                .filter(|&id| id != u32::MAX)
                .ok_or_else(|| de::Error::custom(format!("node id {id} is too large")))?;
            self.0.push(id);
        }
        Ok(())
    }
}

/// The keys of one JSON object seen so far. A repeated key is read again and its last value
/// wins, as `JSON.parse` (and so DevTools) has it; each repeated key is reported once.
#[derive(Default)]
pub(crate) struct Keys {
    seen: Vec<&'static str>,
    repeated: Vec<&'static str>,
}

impl Keys {
    /// Records `key`; false when it was seen before (the caller drops what the earlier value
    /// left behind).
    pub fn first(&mut self, key: &'static str) -> bool {
        if self.seen.contains(&key) {
            if !self.repeated.contains(&key) {
                self.repeated.push(key);
            }
            false
        } else {
            self.seen.push(key);
            true
        }
    }

    /// One warning per repeated key, at `prefix` + the key (the key's JSON path).
    pub fn warn(&self, profile: &mut crate::model::Profile, prefix: &str) {
        for key in &self.repeated {
            profile.warn(format!("{prefix}{key}"), REPEATED_KEY);
        }
    }
}

/// The warning for a repeated key.
pub(crate) const REPEATED_KEY: &str =
    "the key appears more than once in its object; the last value was used, as JSON.parse does";

/// Warns once, at `at`, when times of `profile`'s threads (samples, declared start and end) or
/// `more` reached ±[`crate::model::MAX_TIME_NS`]: the readers clamp there so that no arithmetic
/// overflows, and a clamped time is not the file's.
pub(crate) fn warn_clamped(
    profile: &mut crate::model::Profile,
    at: &str,
    more: impl IntoIterator<Item = i64>,
) {
    let clamped = |t: &i64| t.unsigned_abs() >= crate::model::MAX_TIME_NS as u64;
    let mut n = more.into_iter().filter(clamped).count();
    for thread in &profile.threads {
        n += thread.samples.time.iter().filter(|t| clamped(t)).count();
        n += [thread.declared_start, thread.declared_end]
            .iter()
            .flatten()
            .filter(|t| clamped(t))
            .count();
    }
    if n > 0 {
        profile.warn(
            at,
            format!(
                "{n} times lie beyond ±2^61 ns (about 73 years) and were clamped to it; \
                 durations next to them are not the file's"
            ),
        );
    }
}
