//! What the Summary and the Statistics are printed from, kept whole in the index so that a warm
//! `heap summary` or `heap stats` reads a few kilobytes instead of the graph's columns.

use crate::analysis::Analysis;
use crate::scripts::Script;
use crate::snapshot::{HeapSnapshot, Warning};
use crate::statistics::Statistics;
use crate::summary::{sort_rows, summary, ClassRow, SortBy};

/// An analysed snapshot's Summary rows, totals and Statistics: everything `heap summary` (without
/// `--between`) and `heap stats` print. Made by [`Overview::of`] from the graph, or read back from
/// the index, where [`Overview::of`]'s result is stored as it was returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overview {
    /// [`HeapSnapshot::kind`].
    pub kind: &'static str,
    pub node_count: usize,
    /// [`Analysis::total_size`].
    pub total_size: u64,
    pub statistics: Statistics,
    /// The reader's warnings about the snapshot.
    pub warnings: Vec<Warning>,
    /// All Summary rows, in [`SortBy::Retained`]'s order.
    pub classes: Vec<ClassRow>,
    /// [`Analysis::scripts`]: what the located rows' script ids name, for their source maps.
    pub scripts: Vec<Script>,
}

impl Overview {
    /// The overview of an analysed snapshot: its Summary through [`summary`], the one function
    /// that computes it.
    pub fn of(s: &HeapSnapshot, a: &Analysis) -> Overview {
        Overview {
            kind: s.kind(),
            node_count: s.node_count(),
            total_size: a.total_size,
            statistics: a.statistics,
            warnings: s.warnings.clone(),
            classes: summary(s, a, SortBy::Retained),
            scripts: a.scripts.clone(),
        }
    }

    /// All Summary rows in `sort`'s order: the same rows as [`summary`] with `sort` gives, since
    /// [`sort_rows`]' order is total (ties go by the keys, which are unique).
    pub fn classes_by(&self, sort: SortBy) -> Vec<ClassRow> {
        let mut rows = self.classes.clone();
        if sort != SortBy::Retained {
            sort_rows(&mut rows, sort);
        }
        rows
    }
}
