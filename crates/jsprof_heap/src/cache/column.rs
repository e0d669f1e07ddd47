//! What the index writer packs: a section's source, a column of the engine's tables in memory,
//! an edge column set aside in its scratch file, or one field of the locations, handed over a
//! batch of values at a time ([`Column::each`]); and how each section ends up stored ([`Stored`]).

use std::io;

use super::format::le32;
use super::packed::{Census, Packable, Plan};
use crate::snapshot::{Location, NodeOrdinal};
use crate::spill::SpilledEdges;

/// Which field of the locations a column section holds.
#[derive(Clone, Copy)]
pub(super) enum LocationField {
    Node,
    Script,
    Line,
    Column,
}

/// One section to write: the misc or overview bytes as they are, or a column of values, packed
/// ([`super::packed`]).
pub(super) enum Column<'a> {
    Bytes(&'a [u8]),
    U8(&'a [u8]),
    U32(&'a [u32]),
    Nodes(&'a [NodeOrdinal]),
    U64(&'a [u64]),
    I32(&'a [i32]),
    /// An edge column still set aside on disk ([`SpilledEdges`]): whether it is the types (else
    /// the names).
    Aside(bool),
    Locations(&'a [Location], LocationField),
}

impl Column<'_> {
    /// The width of the column's type.
    pub(super) fn bits(&self) -> u32 {
        match self {
            Column::Bytes(_) | Column::U8(_) | Column::Aside(true) => u8::BITS,
            Column::U64(_) => u64::BITS,
            _ => u32::BITS,
        }
    }

    /// Calls `f` with the column's values, in order, a batch at a time (an aside column is read
    /// from its file).
    pub(super) fn each(
        &self,
        aside: Option<&mut SpilledEdges>,
        mut f: impl FnMut(&[u64]) -> io::Result<()>,
    ) -> io::Result<()> {
        const BATCH: usize = 4096;
        let mut batch = Vec::with_capacity(BATCH);
        fn all<T: Copy>(
            values: &[T],
            bits: impl Fn(T) -> u64,
            batch: &mut Vec<u64>,
            f: &mut impl FnMut(&[u64]) -> io::Result<()>,
        ) -> io::Result<()> {
            for chunk in values.chunks(BATCH) {
                batch.clear();
                batch.extend(chunk.iter().map(|&v| bits(v)));
                f(batch)?;
            }
            Ok(())
        }
        match self {
            Column::Bytes(v) | Column::U8(v) => all(v, u64::from, &mut batch, &mut f),
            Column::U32(v) => all(v, u64::from, &mut batch, &mut f),
            Column::Nodes(v) => all(v, NodeOrdinal::to_bits, &mut batch, &mut f),
            Column::U64(v) => all(v, u64::from, &mut batch, &mut f),
            Column::I32(v) => all(v, i32::to_bits, &mut batch, &mut f),
            &Column::Aside(kinds) => {
                let aside = aside.expect("an aside column comes with the file it is in");
                // The scratch file holds them as little-endian `u32`s and bytes.
                aside.copy(kinds, &mut |bytes| {
                    if kinds {
                        all(bytes, u64::from, &mut batch, &mut f)
                    } else {
                        debug_assert!(bytes.len() % 4 == 0, "whole values per chunk");
                        for chunk in bytes.chunks(4 * BATCH) {
                            batch.clear();
                            batch.extend(chunk.chunks_exact(4).map(|b| le32(b) as u64));
                            f(&batch)?;
                        }
                        Ok(())
                    }
                })
            }
            &Column::Locations(locations, field) => all(
                locations,
                |l| {
                    // Destructured in full: a field added to `Location` must be stored here.
                    let Location {
                        node,
                        script_id,
                        line,
                        column,
                    } = l;
                    match field {
                        LocationField::Node => node.raw() as u64,
                        LocationField::Script => script_id as u64,
                        LocationField::Line => line as u64,
                        LocationField::Column => column as u64,
                    }
                },
                &mut batch,
                &mut f,
            ),
        }
    }
}

macro_rules! column_from {
    ($($t:ty => $variant:ident),*) => {$(
        impl<'a> From<&'a [$t]> for Column<'a> {
            fn from(values: &'a [$t]) -> Column<'a> {
                Column::$variant(values)
            }
        }
    )*};
}
column_from!(u8 => U8, u32 => U32, NodeOrdinal => Nodes, u64 => U64, i32 => I32);

/// How a section is stored: its bytes as they are, or a column laid out by its plan.
#[derive(Clone, Copy)]
pub(super) enum Stored {
    Bytes(u64),
    Packed(Plan),
}

impl Stored {
    /// How `column` is stored: its bytes, or the layout its census gives (`aside`: the file an
    /// aside column is read from).
    pub(super) fn of(column: &Column<'_>, aside: Option<&mut SpilledEdges>) -> io::Result<Stored> {
        Ok(match column {
            Column::Bytes(bytes) => Stored::Bytes(bytes.len() as u64),
            column => {
                let mut census = Census::new(column.bits());
                column.each(aside, |values| {
                    census.add(values);
                    Ok(())
                })?;
                Stored::Packed(census.plan())
            }
        })
    }

    /// The element count the header gives: the bytes, or the column's values.
    pub(super) fn count(&self) -> u64 {
        match self {
            Stored::Bytes(len) => *len,
            Stored::Packed(plan) => plan.count(),
        }
    }

    pub(super) fn len(&self) -> u64 {
        match self {
            Stored::Bytes(len) => *len,
            Stored::Packed(plan) => plan.len(),
        }
    }
}
