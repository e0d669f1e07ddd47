//! The string table and the function/location entries that the protobuf exporters ([`pprof`]
//! and [`otlp`]) both write. Both formats hold strings once in a table whose entry 0 is `""`, and
//! name a frame by a location with one line pointing at a function (name, file, start line).
//! Entries are made on first use, in the order the samples reach them, so frames no sample
//! touches are left out; a `(root)` entry stands for samples on the bare root.
//!
//! [`pprof`]: super::pprof
//! [`otlp`]: super::otlp

use std::collections::HashMap;

use crate::display::display_name;
use crate::model::{FrameId, Profile, StackId, ROOT_NAME};

/// One frame as both formats spell it: string indices, 1-based line and column (0: unknown).
pub(crate) struct FrameEntry {
    /// The model's frame; `None` for the `(root)` entry.
    pub frame: Option<FrameId>,
    pub name: i64,
    pub filename: i64,
    pub line: i64,
    pub column: i64,
}

pub(crate) struct Dictionary<'a> {
    profile: &'a Profile,
    strings: Vec<String>,
    string_index: HashMap<String, i64>,
    /// Per frame: 1 + its index in `entries`, 0 until first used.
    entry_of: Vec<u32>,
    root: u32,
    entries: Vec<FrameEntry>,
}

impl<'a> Dictionary<'a> {
    pub fn new(profile: &'a Profile) -> Dictionary<'a> {
        let mut d = Dictionary {
            profile,
            strings: Vec::new(),
            string_index: HashMap::new(),
            entry_of: vec![0; profile.frames.len()],
            root: 0,
            entries: Vec::new(),
        };
        d.string(""); // both formats: string_table[0] must be ""
        d
    }

    pub fn string(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.string_index.get(s) {
            return i;
        }
        let i = self.strings.len() as i64;
        self.strings.push(s.to_string());
        self.string_index.insert(s.to_string(), i);
        i
    }

    /// The entry of `frame`: 1 + its index in [`Dictionary::entries`].
    pub fn frame(&mut self, frame: FrameId) -> u32 {
        if self.entry_of[frame.index()] == 0 {
            let f = self.profile.frames.get(frame);
            let name = self.string(display_name(self.profile.strings.get(f.name)));
            let filename = self.string(self.profile.strings.get(f.url));
            self.entries.push(FrameEntry {
                frame: Some(frame),
                name,
                filename,
                line: f.line.map_or(0, i64::from),
                column: f.column.map_or(0, i64::from),
            });
            self.entry_of[frame.index()] = self.entries.len() as u32;
        }
        self.entry_of[frame.index()]
    }

    /// The `(root)` entry, which carries the samples on the bare root.
    pub fn root(&mut self) -> u32 {
        if self.root == 0 {
            let name = self.string(ROOT_NAME);
            self.entries.push(FrameEntry {
                frame: None,
                name,
                filename: 0,
                line: 0,
                column: 0,
            });
            self.root = self.entries.len() as u32;
        }
        self.root
    }

    /// The entries of a sample's stack, leaf first; the bare root (`None`) is `[(root)]`.
    pub fn stack(&mut self, stack: Option<StackId>) -> Vec<u32> {
        match stack {
            None => vec![self.root()],
            Some(s) => {
                let profile = self.profile;
                profile
                    .stacks
                    .frames_leaf_first(Some(s))
                    .map(|f| self.frame(f))
                    .collect()
            }
        }
    }

    pub fn entries(&self) -> &[FrameEntry] {
        &self.entries
    }

    pub fn into_strings(self) -> Vec<String> {
        self.strings
    }
}
