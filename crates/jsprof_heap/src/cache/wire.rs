//! How the header's fields and the small tables are encoded: [`Wire`], one description per type
//! from which both directions are derived, and [`Dec`], the bounded reader the decoders share.

use std::io;

/// Why an index was not used.
#[derive(Debug)]
pub(crate) enum Reject {
    /// Made for another file, another version of it, or another build of jsprof.
    Stale(String),
    /// Truncated, damaged or not an index at all.
    Corrupt(String),
    Io(io::Error),
}

impl From<io::Error> for Reject {
    fn from(e: io::Error) -> Reject {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            Reject::Corrupt("it ends early (truncated)".into())
        } else {
            Reject::Io(e)
        }
    }
}

pub(super) fn corrupt<T>(message: impl Into<String>) -> Result<T, Reject> {
    Err(Reject::Corrupt(message.into()))
}

/// A value of the header and of the small tables. Integers are little-endian, a byte string or a
/// text is a u32 length and its bytes, a list a u64 count and its elements, an `Option` a u8 flag
/// and the value (zero when absent); a record is its fields in the order [`wire!`] lists them.
pub(super) trait Wire: Sized {
    /// The fewest bytes the value takes: a list's count is refused when that many elements
    /// cannot be left in the section.
    const MIN: usize;
    fn put(&self, o: &mut Vec<u8>);
    fn get(d: &mut Dec<'_>) -> Result<Self, Reject>;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            const MIN: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(&self, o: &mut Vec<u8>) {
                o.extend_from_slice(&self.to_le_bytes());
            }
            fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
                let bytes = d.take(std::mem::size_of::<$t>())?;
                Ok(<$t>::from_le_bytes(bytes.try_into().expect("took the integer's size")))
            }
        }
    )*};
}
integer!(u8, u32, u64, i32, i64);

/// Stored as its raw `u32`; the loader checks every ordinal it reads against the node table
/// (`invariants::check_tables_aside`) before anything uses it.
impl Wire for crate::snapshot::NodeOrdinal {
    const MIN: usize = <u32 as Wire>::MIN;
    #[inline]
    fn put(&self, o: &mut Vec<u8>) {
        self.raw().put(o);
    }
    fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
        u32::get(d).map(crate::snapshot::NodeOrdinal::new)
    }
}

/// What a list holds (a byte string is not a list of `u8`: it is a [`Wire`] of its own).
pub(super) trait Item: Wire {}

impl<T: Item> Wire for Vec<T> {
    const MIN: usize = 8;
    fn put(&self, o: &mut Vec<u8>) {
        (self.len() as u64).put(o);
        for item in self {
            item.put(o);
        }
    }
    fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
        d.list(T::MIN, T::get)
    }
}

impl Wire for Vec<u8> {
    const MIN: usize = 4;
    fn put(&self, o: &mut Vec<u8>) {
        put_bytes(o, self);
    }
    fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
        Ok(d.bytes()?.to_vec())
    }
}

impl Wire for String {
    const MIN: usize = 4;
    fn put(&self, o: &mut Vec<u8>) {
        put_bytes(o, self.as_bytes());
    }
    fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
        let at = d.base + d.at;
        String::from_utf8(d.bytes()?.to_vec())
            .or_else(|_| corrupt(format!("the text at byte {at} is not UTF-8")))
    }
}

impl<T: Wire + Default> Wire for Option<T> {
    const MIN: usize = 1 + T::MIN;
    fn put(&self, o: &mut Vec<u8>) {
        u8::from(self.is_some()).put(o);
        match self {
            Some(v) => v.put(o),
            None => T::default().put(o),
        }
    }
    fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
        let some = u8::get(d)? != 0;
        let v = T::get(d)?;
        Ok(some.then_some(v))
    }
}

impl Wire for [u8; 32] {
    const MIN: usize = 32;
    fn put(&self, o: &mut Vec<u8>) {
        o.extend_from_slice(self);
    }
    fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
        Ok(d.take(32)?.try_into().expect("took 32 bytes"))
    }
}

impl Item for Vec<u8> {}
impl Item for String {}

/// A record's [`Wire`]: its fields in the order they are stored, with their types. Both
/// directions come from this one list; a field added to the type fails to compile here until it
/// is stored (a cached answer missing a field would differ from a fresh one).
macro_rules! wire {
    ($($record:ident { $($field:ident: $t:ty),* $(,)? })*) => {$(
        impl Wire for $record {
            const MIN: usize = 0 $(+ <$t as Wire>::MIN)*;
            fn put(&self, o: &mut Vec<u8>) {
                let $record { $($field),* } = self;
                $(<$t as Wire>::put($field, o);)*
            }
            fn get(d: &mut Dec<'_>) -> Result<Self, Reject> {
                Ok($record { $($field: <$t as Wire>::get(d)?),* })
            }
        }
        impl Item for $record {}
    )*};
}
pub(super) use wire;

pub(super) fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    (bytes.len() as u32).put(out);
    out.extend_from_slice(bytes);
}

/// A bounded reader over decoded bytes: every length is checked against what is left.
pub(super) struct Dec<'a> {
    bytes: &'a [u8],
    pub(super) at: usize,
    /// Offset of `bytes` in the file, for messages.
    pub(super) base: usize,
}

impl<'a> Dec<'a> {
    pub(super) fn new(bytes: &'a [u8], base: usize) -> Dec<'a> {
        Dec { bytes, at: 0, base }
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], Reject> {
        if self.bytes.len() - self.at < n {
            return corrupt(format!(
                "a field at byte {} runs past its section",
                self.base + self.at
            ));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    pub(super) fn bytes(&mut self) -> Result<&'a [u8], Reject> {
        let n = u32::get(self)? as usize;
        self.take(n)
    }

    /// A count, then that many elements read by `item`: the count is refused first when that
    /// many elements of at least `min_size` bytes cannot be left, so a forged count never
    /// reserves more than the section holds.
    pub(super) fn list<T>(
        &mut self,
        min_size: usize,
        mut item: impl FnMut(&mut Dec<'a>) -> Result<T, Reject>,
    ) -> Result<Vec<T>, Reject> {
        let n = u64::get(self)?;
        if n > (self.rest() / min_size) as u64 {
            return corrupt(format!(
                "a count of {n} at byte {} is more than the section holds",
                self.base + self.at - 8
            ));
        }
        let mut out = Vec::with_capacity(n as usize);
        for _ in 0..n {
            out.push(item(self)?);
        }
        Ok(out)
    }

    pub(super) fn rest(&self) -> usize {
        self.bytes.len() - self.at
    }
}
