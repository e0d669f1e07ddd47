//! How a column section stores its values: each in the fewest bits that hold nearly all of the
//! column, the few that do not as exceptions after them, and a column that grows by small steps
//! (node ids, first edges, the locations' nodes) as its differences. The writer reads a column
//! twice: once to count how many bits its values need ([`Census`]), which gives the layout that
//! takes the fewest bytes ([`Plan`]), once to pack them ([`Packer`]). The reader ([`unpack`])
//! checks the section's length against what its first bytes claim before it allocates anything,
//! and every exception against the column.
//!
//! ```text
//! width u8 (bits per value: 1 to 56 packed; 64: plain little-endian u64s) · delta u8 (1: each
//! value is its difference from the one before, wrapping in the column's type; the first is
//! its difference from 0) · 6 zero bytes · count u64 · exception count u64 · the values packed
//! low bit first (ceil(count × width / 8) bytes, then 8 zero bytes) · the exceptions, each an
//! index u64 and a value u64, the indices increasing; an exception's packed slot holds the
//! width's largest value, 2^width − 1
//! ```
//!
//! A recorded 441 MB Node heap's index goes from 0.91× the snapshot (every column at its type's
//! size) to 0.34× (`bench/heap.sh`): node ordinals take 23 bits rather than 32, string indices 15, most sizes and
//! distances a few, first edges (counts, as differences) 4 or 5.

use std::io;

use super::wire::{corrupt, Reject};
use crate::snapshot::NodeOrdinal;

/// The section's first bytes: width, delta, padding, count, exception count.
const HEAD: usize = 24;
/// The width that stores plain little-endian `u64`s (a column of 64-bit values that need more
/// than [`MAX_PACKED`] bits).
const RAW: u32 = 64;
/// The widest packed value: a value and its shift within a byte fit one `u64` read.
const MAX_PACKED: u32 = 56;
/// Bytes an exception takes.
const EXCEPTION: u64 = 16;

/// A column's element type, as a number of at most `BITS` bits.
pub(super) trait Packable: Copy {
    const BITS: u32;
    fn to_bits(self) -> u64;
    /// `bits` is below 2^`BITS` (the reader checks every value it hands here).
    fn from_bits(bits: u64) -> Self;
}

macro_rules! packable {
    ($($t:ty => $u:ty),*) => {$(
        impl Packable for $t {
            const BITS: u32 = <$u>::BITS;
            #[inline]
            fn to_bits(self) -> u64 {
                self as $u as u64
            }
            #[inline]
            fn from_bits(bits: u64) -> Self {
                bits as $u as $t
            }
        }
    )*};
}
packable!(u8 => u8, u32 => u32, u64 => u64, i32 => u32);

impl Packable for NodeOrdinal {
    const BITS: u32 = 32;
    #[inline]
    fn to_bits(self) -> u64 {
        self.raw() as u64
    }
    #[inline]
    fn from_bits(bits: u64) -> Self {
        NodeOrdinal::new(bits as u32)
    }
}

#[inline]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The width `v` needs to be packed: its value must stay below the width's largest, which marks
/// an exception. 65 for `u64::MAX`, which no width packs.
#[inline]
fn need(v: u64) -> usize {
    match v.checked_add(1) {
        Some(w) => (64 - w.leading_zeros()) as usize,
        None => 65,
    }
}

/// How a column is laid out in its section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    width: u32,
    delta: bool,
    count: u64,
    exceptions: u64,
}

impl Plan {
    /// The section's length in bytes.
    pub(super) fn len(&self) -> u64 {
        let values = if self.width == RAW {
            8 * self.count
        } else {
            (self.count * self.width as u64).div_ceil(8) + 8
        };
        HEAD as u64 + values + EXCEPTION * self.exceptions
    }

    /// The number of values.
    pub(super) fn count(&self) -> u64 {
        self.count
    }
}

/// The first pass over a column: how many of its values, and of their differences, need each
/// width.
pub(super) struct Census {
    bits: u32,
    plain: [u64; 66],
    delta: [u64; 66],
    prev: u64,
    count: u64,
}

impl Census {
    /// A census of a column of `bits`-bit values.
    pub(super) fn new(bits: u32) -> Census {
        Census {
            bits,
            plain: [0; 66],
            delta: [0; 66],
            prev: 0,
            count: 0,
        }
    }

    pub(super) fn add(&mut self, values: &[u64]) {
        let all = mask(self.bits);
        let mut prev = self.prev;
        for &v in values {
            self.plain[need(v)] += 1;
            self.delta[need(v.wrapping_sub(prev) & all)] += 1;
            prev = v;
        }
        self.prev = prev;
        self.count += values.len() as u64;
    }

    /// The layout that takes the fewest bytes (the narrower one, without differences, of equals).
    pub(super) fn plan(&self) -> Plan {
        let count = self.count;
        // Plain u64s, for a column of 64-bit values; every packed layout is a candidate.
        let raw = Plan {
            width: RAW,
            delta: false,
            count,
            exceptions: 0,
        };
        let mut best: Option<Plan> = (self.bits == 64).then_some(raw);
        for (delta, needs) in [(false, &self.plain), (true, &self.delta)] {
            let mut above = count;
            for width in 1..=self.bits.min(MAX_PACKED) {
                above -= needs[width as usize];
                let plan = Plan {
                    width,
                    delta,
                    count,
                    exceptions: above,
                };
                if best.is_none_or(|best| plan.len() < best.len()) {
                    best = Some(plan);
                }
            }
        }
        best.expect("a column type has at least one bit")
    }
}

/// The second pass over a column: its values packed as its [`Plan`] says, in `out` (the caller
/// writes it out and clears it as it fills).
pub(super) struct Packer {
    plan: Plan,
    bits: u32,
    acc: u64,
    filled: u32,
    prev: u64,
    index: u64,
    exceptions: Vec<(u64, u64)>,
    pub(super) out: Vec<u8>,
}

impl Packer {
    /// A packer of a column of `bits`-bit values laid out as `plan`; `out` starts with the
    /// section's first bytes.
    pub(super) fn new(plan: Plan, bits: u32) -> Packer {
        let mut out = Vec::with_capacity(1 << 16);
        out.push(plan.width as u8);
        out.push(u8::from(plan.delta));
        out.extend_from_slice(&[0; 6]);
        out.extend_from_slice(&plan.count.to_le_bytes());
        out.extend_from_slice(&plan.exceptions.to_le_bytes());
        Packer {
            plan,
            bits,
            acc: 0,
            filled: 0,
            prev: 0,
            index: 0,
            exceptions: Vec::with_capacity(plan.exceptions.min(1 << 20) as usize),
            out,
        }
    }

    pub(super) fn push(&mut self, values: &[u64]) {
        let (width, all) = (self.plan.width, mask(self.bits));
        let first = self.index;
        self.index += values.len() as u64;
        if width == RAW {
            let mut prev = self.prev;
            for &v in values {
                let v = if self.plan.delta {
                    let d = v.wrapping_sub(prev) & all;
                    prev = v;
                    d
                } else {
                    v
                };
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            self.prev = prev;
            return;
        }
        let top = mask(width);
        let (mut acc, mut filled, mut prev) = (self.acc, self.filled, self.prev);
        self.out.reserve(values.len() * width as usize / 8 + 8);
        for (i, &v) in values.iter().enumerate() {
            let v = if self.plan.delta {
                let d = v.wrapping_sub(prev) & all;
                prev = v;
                d
            } else {
                v
            };
            let packed = if v < top {
                v
            } else {
                self.exceptions.push((first + i as u64, v));
                top
            };
            // `filled` < 64 and `width` ≤ 56: the value's low bits complete the word, its high
            // bits start the next.
            acc |= packed << filled;
            filled += width;
            if filled >= 64 {
                self.out.extend_from_slice(&acc.to_le_bytes());
                filled -= 64;
                acc = if filled == 0 {
                    0
                } else {
                    packed >> (width - filled)
                };
            }
        }
        (self.acc, self.filled, self.prev) = (acc, filled, prev);
    }

    /// The section's last bytes, in `out`: the values' last bits, the padding, the exceptions.
    /// Refuses a column that is not the one its census counted.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        if self.plan.width != RAW {
            let tail = self.filled.div_ceil(8) as usize;
            self.out.extend_from_slice(&self.acc.to_le_bytes()[..tail]);
            self.out.extend_from_slice(&[0; 8]);
        }
        if self.index != self.plan.count || self.exceptions.len() as u64 != self.plan.exceptions {
            return Err(io::Error::other(
                "a column changed between its census and its packing",
            ));
        }
        for &(index, value) in &self.exceptions {
            self.out.extend_from_slice(&index.to_le_bytes());
            self.out.extend_from_slice(&value.to_le_bytes());
        }
        Ok(())
    }
}

fn word(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The `count` values of section `name`, from its bytes.
pub(super) fn unpack<T: Packable>(
    bytes: &[u8],
    count: usize,
    name: &str,
) -> Result<Vec<T>, Reject> {
    if bytes.len() < HEAD {
        return corrupt(format!("section {name} is shorter than its first bytes"));
    }
    let (width, delta) = (bytes[0] as u32, bytes[1]);
    let (claimed, exceptions) = (word(bytes, 8), word(bytes, 16));
    if claimed != count as u64 {
        return corrupt(format!(
            "section {name} holds {claimed} values, the header says {count}"
        ));
    }
    let packs = (1..=T::BITS.min(MAX_PACKED)).contains(&width);
    if !(packs || width == RAW && T::BITS == 64) || delta > 1 || bytes[2..8] != [0; 6] {
        return corrupt(format!(
            "section {name} is laid out as no index writes it (width {width}, delta {delta})"
        ));
    }
    let values_len = if packs {
        (count as u128 * width as u128).div_ceil(8) + 8
    } else {
        count as u128 * 8
    };
    let expected = HEAD as u128 + values_len + EXCEPTION as u128 * exceptions as u128;
    if expected != bytes.len() as u128 || (!packs && exceptions != 0) {
        return corrupt(format!(
            "section {name} is {} bytes, its layout says {expected}",
            bytes.len()
        ));
    }
    // The values' bytes exist: `count` is bounded by the section's length.
    let values_end = HEAD + values_len as usize;
    let packed = &bytes[HEAD..values_end];
    let mut values: Vec<T> = if packs {
        unpack_values(packed, count, width)
    } else {
        packed
            .chunks_exact(8)
            .map(|b| T::from_bits(word(b, 0)))
            .collect()
    };
    let top = mask(width);
    let mut next = 0u64;
    for entry in bytes[values_end..].chunks_exact(EXCEPTION as usize) {
        let (index, value) = (word(entry, 0), word(entry, 8));
        let slot = (index >= next)
            .then(|| values.get_mut(index as usize))
            .flatten()
            .filter(|slot| slot.to_bits() == top);
        let Some(slot) = slot.filter(|_| value <= mask(T::BITS) && value >= top) else {
            return corrupt(format!(
                "section {name} has an exception out of place (index {index}, value {value})"
            ));
        };
        *slot = T::from_bits(value);
        next = index + 1;
    }
    if delta == 1 {
        let (mut sum, all) = (0u64, mask(T::BITS));
        for v in &mut values {
            sum = sum.wrapping_add(v.to_bits()) & all;
            *v = T::from_bits(sum);
        }
    }
    Ok(values)
}

/// `count` values of `width` bits (at most [`MAX_PACKED`], at most the type's) from `packed`,
/// which holds them and 8 bytes more.
fn unpack_values<T: Packable>(packed: &[u8], count: usize, width: u32) -> Vec<T> {
    let m = mask(width);
    let width = width as usize;
    let mut values = Vec::with_capacity(count);
    match width {
        8 => values.extend(packed[..count].iter().map(|&b| T::from_bits(b as u64))),
        16 => values.extend(
            (packed[..2 * count].chunks_exact(2))
                .map(|b| T::from_bits(u16::from_le_bytes([b[0], b[1]]) as u64)),
        ),
        32 => values.extend(
            (packed[..4 * count].chunks_exact(4))
                .map(|b| T::from_bits(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)),
        ),
        _ => values.extend((0..count).map(|i| {
            let bit = i * width;
            T::from_bits((word(packed, bit >> 3) >> (bit & 7)) & m)
        })),
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack<T: Packable>(values: &[T]) -> (Plan, Vec<u8>) {
        // In batches of 7, as the writer hands its columns over in batches: what a batch leaves
        // half done (a word, a difference) carries over to the next.
        let bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
        let mut census = Census::new(T::BITS);
        bits.chunks(7).for_each(|batch| census.add(batch));
        let plan = census.plan();
        let mut packer = Packer::new(plan, T::BITS);
        bits.chunks(7).for_each(|batch| packer.push(batch));
        packer.finish().unwrap();
        assert_eq!(packer.out.len() as u64, plan.len());
        (plan, packer.out)
    }

    fn round_trip<T: Packable + PartialEq + std::fmt::Debug>(values: &[T]) -> Plan {
        let (plan, bytes) = pack(values);
        let back: Vec<T> = unpack(&bytes, values.len(), "test").unwrap();
        assert_eq!(back, values);
        plan
    }

    #[test]
    fn columns_read_back_as_they_were_in_the_fewest_bytes() {
        // Small values with a few large ones: a narrow width and exceptions.
        let mut sizes: Vec<u32> = (0..10_000).map(|i| (i * 7919) % 300).collect();
        sizes[17] = u32::MAX;
        sizes[9_999] = 1 << 30;
        let plan = round_trip(&sizes);
        assert_eq!((plan.width, plan.delta, plan.exceptions), (9, false, 2));
        // Steadily growing: differences.
        let ids: Vec<u32> = (0..10_000).map(|i| 1 + 2 * i).collect();
        let plan = round_trip(&ids);
        assert!(plan.delta && plan.width == 2, "{plan:?}");
        // A difference that wraps (an id smaller than the one before).
        round_trip(&[5u32, 3, u32::MAX, 0, 7]);
        // Every width a type can take, and the plain one of 64-bit values.
        for bits in [1, 7, 8, 9, 16, 23, 31, 32] {
            let top = mask(bits) as u32;
            round_trip(
                &(0..1000)
                    .map(|i| top.saturating_sub(i % 3))
                    .collect::<Vec<u32>>(),
            );
        }
        let wide: Vec<u64> = (0..1000).map(|i| u64::MAX - i).collect();
        assert_eq!(round_trip(&wide).width, RAW);
        round_trip(&(0..1000i32).map(|i| -i * 3).collect::<Vec<i32>>());
        round_trip(&(0..1000u32).map(NodeOrdinal::new).collect::<Vec<_>>());
        round_trip::<u8>(&[]);
        round_trip(&[0u8, 1, 255, 254, 255]);
    }

    #[test]
    fn a_forged_section_is_refused_before_it_allocates() {
        let values: Vec<u32> = (0..1000).map(|i| i % 100).collect();
        let (_, good) = pack(&values);
        let refused = |bytes: &[u8], count: usize| match unpack::<u32>(bytes, count, "test") {
            Err(Reject::Corrupt(message)) => message,
            other => panic!("{other:?}"),
        };
        // A count the header and the section disagree on, or one the bytes cannot hold.
        assert!(refused(&good, 1001).contains("the header says 1001"));
        let mut huge = good.clone();
        huge[8..16].copy_from_slice(&(1u64 << 60).to_le_bytes());
        assert!(refused(&huge, 1 << 60).contains("its layout says"));
        // A width the type cannot take, or a truncated section.
        let mut wide = good.clone();
        wide[0] = 33;
        assert!(refused(&wide, 1000).contains("width 33"));
        assert!(refused(&good[..good.len() - 1], 1000).contains("its layout says"));
        assert!(refused(&good[..10], 1000).contains("shorter"));
        // An exception pointing past the column, at a slot not marked as one, or repeated.
        let mut with: Vec<u32> = values.clone();
        with[3] = 1 << 20;
        with[5] = 1 << 21;
        let (_, bytes) = pack(&with);
        let exceptions_at = bytes.len() - 32;
        for (index, what) in [(1000u64, 0), (4, 0), (3, 16), (999, 0)] {
            let mut bad = bytes.clone();
            bad[exceptions_at + what..exceptions_at + what + 8]
                .copy_from_slice(&index.to_le_bytes());
            assert!(refused(&bad, 1000).contains("out of place"), "{index}");
        }
        // An exception's value past the type.
        let mut bad = bytes.clone();
        bad[exceptions_at + 8..exceptions_at + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(refused(&bad, 1000).contains("out of place"));
    }
}
