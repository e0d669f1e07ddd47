//! Source maps (revision 3): parsing and position lookup, with a small base64-VLQ decoder of our
//! own (the `sourcemap` crate is BSD-licensed). An index map (`sections`, as bundlers that
//! concatenate write them) reads as one map: each section's sources and names after the ones
//! before, its lines and first line's columns moved by its offset; a section that points at
//! another map by `url` is refused with a clear error. Positions in and out are 0-based as in the
//! format; callers convert.
//!
//! ```
//! let map = jsprof_profile::SourceMap::from_json(
//!     br#"{"version":3,"sources":["a.ts"],"names":["f"],"mappings":"AAAAA"}"#,
//! ).unwrap();
//! let m = map.lookup(0, 4).unwrap();
//! assert_eq!((map.source(m.source), m.line, m.column, m.name.map(|n| map.name(n))), ("a.ts", 0, 0, Some("f")));
//! ```

use serde::Deserialize;

/// Why a source map could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceMapError {
    #[error("not a source map: {0}")]
    Json(String),
    #[error("unsupported source map version {0} (only 3)")]
    Version(i64),
    #[error("index source map, section {0}: {1}")]
    Section(usize, String),
    #[error("an index map inside an index map (a section's map must be a plain map)")]
    NestedIndex,
    #[error("bad `mappings` at character {0}")]
    Mappings(usize),
}

/// One mapped position: where a generated position comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub source: u32,
    pub line: u32,
    pub column: u32,
    pub name: Option<u32>,
}

/// A decoded source map.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// `sourceRoot` joined to each source, as the map states them (not yet resolved).
    sources: Vec<String>,
    names: Vec<String>,
    /// The generated file the map describes, when it says.
    pub file: Option<String>,
    /// Every mapped segment, sorted by generated line, then column (unmapped segments left
    /// out): memory in proportion to the segments, whatever lines an index map's offsets skip.
    segments: Vec<Segment>,
}

/// A mapped segment at its generated position.
#[derive(Clone, Copy, Debug)]
struct Segment {
    line: u32,
    column: u32,
    mapping: Mapping,
}

#[derive(Deserialize)]
struct Raw {
    version: Option<i64>,
    file: Option<String>,
    #[serde(rename = "sourceRoot")]
    source_root: Option<String>,
    #[serde(default)]
    sources: Vec<Option<String>>,
    #[serde(default)]
    names: Vec<String>,
    mappings: Option<String>,
    sections: Option<Vec<RawSection>>,
}

#[derive(Deserialize)]
struct RawSection {
    offset: Option<Offset>,
    map: Option<Box<serde_json::value::RawValue>>,
    url: Option<String>,
}

#[derive(Deserialize)]
struct Offset {
    line: u32,
    column: u32,
}

fn base64_value(c: u8) -> Option<i64> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as i64)
}

impl SourceMap {
    pub fn from_json(bytes: &[u8]) -> Result<SourceMap, SourceMapError> {
        Self::read(bytes, false)
    }

    /// `from_json`; `in_index` for a section's map, which may not be an index map itself.
    fn read(bytes: &[u8], in_index: bool) -> Result<SourceMap, SourceMapError> {
        // A map may start with the XSSI guard `)]}'`.
        let bytes = match bytes.strip_prefix(b")]}'") {
            Some(rest) => rest,
            None => bytes,
        };
        let raw: Raw =
            serde_json::from_slice(bytes).map_err(|e| SourceMapError::Json(e.to_string()))?;
        match raw.version {
            Some(3) => {}
            Some(v) => return Err(SourceMapError::Version(v)),
            None => return Err(SourceMapError::Json("no `version`".into())),
        }
        if let Some(sections) = raw.sections {
            if in_index {
                return Err(SourceMapError::NestedIndex);
            }
            return Self::from_sections(sections, raw.file);
        }
        let root = raw.source_root.unwrap_or_default();
        let sources = raw
            .sources
            .into_iter()
            .map(|s| {
                let s = s.unwrap_or_default();
                if root.is_empty() || s.contains("://") || s.starts_with('/') {
                    s
                } else if root.ends_with('/') {
                    format!("{root}{s}")
                } else {
                    format!("{root}/{s}")
                }
            })
            .collect();
        let segments = decode(raw.mappings.as_deref().unwrap_or(""))?;
        Ok(SourceMap {
            sources,
            names: raw.names,
            file: raw.file,
            segments,
        })
    }

    /// An index map's sections as one map (see the module's documentation).
    fn from_sections(
        sections: Vec<RawSection>,
        file: Option<String>,
    ) -> Result<SourceMap, SourceMapError> {
        let mut out = SourceMap {
            file,
            ..SourceMap::default()
        };
        for (i, section) in sections.into_iter().enumerate() {
            let fail = |why: String| SourceMapError::Section(i, why);
            let Some(offset) = section.offset else {
                return Err(fail("no `offset`".into()));
            };
            let map = match (section.map, section.url) {
                (Some(map), _) => map,
                (None, Some(url)) => {
                    return Err(fail(format!(
                        "a section's map by url ({url}) is not supported; inline it as `map`"
                    )))
                }
                (None, None) => return Err(fail("neither `map` nor `url`".into())),
            };
            let map =
                SourceMap::read(map.get().as_bytes(), true).map_err(|e| fail(e.to_string()))?;
            // (An index past a section's own sources or names reads as none, as in a plain map.)
            let (sources, names) = (out.sources.len() as u32, out.names.len() as u32);
            for s in map.segments {
                let line = s.line.checked_add(offset.line).ok_or_else(|| {
                    fail(format!("offset line {} runs past line 2^32", offset.line))
                })?;
                let shift = if s.line == 0 { offset.column } else { 0 };
                out.segments.push(Segment {
                    line,
                    column: s.column.saturating_add(shift),
                    mapping: Mapping {
                        source: s.mapping.source.saturating_add(sources),
                        name: s.mapping.name.map(|n| n.saturating_add(names)),
                        ..s.mapping
                    },
                });
            }
            out.sources.extend(map.sources);
            out.names.extend(map.names);
        }
        // Stable: segments at one position keep their order.
        out.segments.sort_by_key(|s| (s.line, s.column));
        Ok(out)
    }

    /// The mapping covering generated `(line, column)` (0-based): the last segment of that line
    /// starting at or before the column (the `source-map` library's default bias).
    pub fn lookup(&self, line: u32, column: u32) -> Option<Mapping> {
        let segs = self.line(line);
        let i = segs.partition_point(|s| s.column <= column);
        (i > 0).then(|| segs[i - 1].mapping)
    }

    /// The segments of generated `line`, by column.
    fn line(&self, line: u32) -> &[Segment] {
        let from = self.segments.partition_point(|s| s.line < line);
        let to = from + self.segments[from..].partition_point(|s| s.line == line);
        &self.segments[from..to]
    }

    /// The first mapped segment of generated `line` (0-based): where a whole generated line
    /// comes from, for data that has lines but no columns (V8's `positionTicks`).
    pub fn first_on_line(&self, line: u32) -> Option<Mapping> {
        self.line(line).first().map(|s| s.mapping)
    }

    /// The name of a segment starting exactly at generated `(line, column)`, if it has one.
    pub fn name_at(&self, line: u32, column: u32) -> Option<u32> {
        let segs = self.line(line);
        let i = segs.partition_point(|s| s.column < column);
        segs[i..]
            .iter()
            .take_while(|s| s.column == column)
            .find_map(|s| s.mapping.name)
    }

    pub fn source(&self, i: u32) -> &str {
        self.sources.get(i as usize).map_or("", String::as_str)
    }

    pub fn name(&self, i: u32) -> &str {
        self.names.get(i as usize).map_or("", String::as_str)
    }

    pub fn sources(&self) -> &[String] {
        &self.sources
    }
}

/// Decodes `mappings`: `;` separates generated lines, `,` segments; fields are base64 VLQ,
/// relative to the previous segment (the column to the previous segment of the same line).
fn decode(mappings: &str) -> Result<Vec<Segment>, SourceMapError> {
    let bytes = mappings.as_bytes();
    let mut segments = Vec::new();
    // At most one line per byte: a u32 holds it for any map under 4 GiB.
    let mut line = 0u32;
    let (mut source, mut oline, mut ocol, mut name) = (0i64, 0i64, 0i64, 0i64);
    let mut gcol = 0i64;
    let mut fields = [0i64; 5];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                line = line.checked_add(1).ok_or(SourceMapError::Mappings(i))?;
                gcol = 0;
                i += 1;
                continue;
            }
            b',' => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let start = i;
        let mut n = 0;
        while i < bytes.len() && bytes[i] != b',' && bytes[i] != b';' {
            if n == 5 {
                return Err(SourceMapError::Mappings(start));
            }
            let (mut value, mut shift) = (0i64, 0u32);
            loop {
                let d = bytes
                    .get(i)
                    .and_then(|&c| base64_value(c))
                    .ok_or(SourceMapError::Mappings(i))?;
                i += 1;
                if shift > 60 {
                    return Err(SourceMapError::Mappings(i));
                }
                value |= (d & 31) << shift;
                shift += 5;
                if d & 32 == 0 {
                    break;
                }
            }
            fields[n] = if value & 1 == 1 {
                -(value >> 1)
            } else {
                value >> 1
            };
            n += 1;
        }
        if !matches!(n, 1 | 4 | 5) {
            return Err(SourceMapError::Mappings(start));
        }
        gcol += fields[0];
        if n >= 4 {
            source += fields[1];
            oline += fields[2];
            ocol += fields[3];
            let nm = if n == 5 {
                name += fields[4];
                Some(name)
            } else {
                None
            };
            let ok = |v: i64| (0..=u32::MAX as i64).contains(&v);
            if !(ok(gcol) && ok(source) && ok(oline) && ok(ocol) && nm.is_none_or(ok)) {
                return Err(SourceMapError::Mappings(start));
            }
            segments.push(Segment {
                line,
                column: gcol as u32,
                mapping: Mapping {
                    source: source as u32,
                    line: oline as u32,
                    column: ocol as u32,
                    name: nm.map(|v| v as u32),
                },
            });
        }
    }
    // Lines come in order; within one, columns may not (stable: equal columns keep theirs).
    segments.sort_by_key(|s| (s.line, s.column));
    Ok(segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_specs_example() {
        // Hand-decoded: AAAA = [0,0,0,0]; SAASA = [9,0,0,9,0] ("S" = 18 → +9); the second line's
        // CAAC = [1,0,0,1]: column 1 maps to original line 0, column 9 + 1.
        let map = SourceMap::from_json(
            br#"{"version":3,"sourceRoot":"src","sources":["a.js"],"names":["x"],"mappings":"AAAA,SAASA;CAAC"}"#,
        )
        .unwrap();
        assert_eq!(map.source(0), "src/a.js");
        let m = map.lookup(0, 12).unwrap();
        assert_eq!((m.line, m.column, m.name), (0, 9, Some(0)));
        assert_eq!(map.lookup(0, 3).unwrap().column, 0);
        let m = map.lookup(1, 5).unwrap();
        assert_eq!((m.line, m.column, m.name), (0, 10, None));
        assert_eq!(map.lookup(1, 0), None);
        assert_eq!(map.lookup(7, 0), None);
        assert_eq!(map.name_at(0, 9), Some(0));
        assert_eq!(map.name_at(0, 10), None);
    }

    #[test]
    fn decodes_negative_and_long_values() {
        // "gB" = 16 ("g" = 0 with the continuation bit, "B" = 1 << 5 = 32, sign bit clear → 16);
        // "C" = 1, "D" = -1. Segments: [16, +1, +16, +1] then [+1, 0, 0, -1].
        let map = SourceMap::from_json(
            br#"{"version":3,"sources":["a","b"],"names":[],"mappings":"gBCgBC,CAAD"}"#,
        )
        .unwrap();
        let m = map.lookup(0, 16).unwrap();
        assert_eq!((m.source, m.line, m.column), (1, 16, 1));
        let m = map.lookup(0, 40).unwrap();
        assert_eq!((m.source, m.line, m.column), (1, 16, 0));
        assert_eq!(map.lookup(0, 15), None);
    }

    #[test]
    fn reads_index_maps_as_one_map() {
        // Section 0: a.ts at generated (0, 0) named f; section 1 at offset (1, 10): b.ts at its
        // (0, 2) → generated (1, 12), named g, and at its (1, 0) → generated (2, 0) (columns
        // move only on the section's first line). Source and name indices follow the sections.
        let map = SourceMap::from_json(
            br#"{"version":3,"file":"out.js","sections":[
                {"offset":{"line":0,"column":0},
                 "map":{"version":3,"sources":["a.ts"],"names":["f"],"mappings":"AAAAA"}},
                {"offset":{"line":1,"column":10},
                 "map":{"version":3,"sourceRoot":"src","sources":["b.ts"],"names":["g"],
                        "mappings":"EAAEA;AACA"}}]}"#,
        )
        .unwrap();
        assert_eq!(map.sources(), ["a.ts", "src/b.ts"]);
        assert_eq!(map.file.as_deref(), Some("out.js"));
        let m = map.lookup(0, 5).unwrap();
        assert_eq!((map.source(m.source), m.line, m.column), ("a.ts", 0, 0));
        assert_eq!(m.name.map(|n| map.name(n)), Some("f"));
        assert_eq!(map.lookup(1, 11), None);
        let m = map.lookup(1, 12).unwrap();
        assert_eq!((map.source(m.source), m.line, m.column), ("src/b.ts", 0, 2));
        assert_eq!(m.name.map(|n| map.name(n)), Some("g"));
        let m = map.lookup(2, 0).unwrap();
        assert_eq!((map.source(m.source), m.line, m.column), ("src/b.ts", 1, 2));
    }

    #[test]
    fn an_offset_far_away_allocates_nothing_for_the_lines_between() {
        // A section at line 4,000,000,000: one segment there, no table of the lines before it.
        let map = SourceMap::from_json(
            br#"{"version":3,"sections":[{"offset":{"line":4000000000,"column":7},
                 "map":{"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA"}}]}"#,
        )
        .unwrap();
        assert_eq!(map.lookup(4_000_000_000, 7).map(|m| m.source), Some(0));
        assert_eq!(map.lookup(4_000_000_000, 6), None);
        assert_eq!(map.first_on_line(0), None);
        // Past the last line a u32 holds: refused, naming the section.
        let e = SourceMap::from_json(
            br#"{"version":3,"sections":[{"offset":{"line":4294967295,"column":0},
                 "map":{"version":3,"sources":["a.ts"],"names":[],"mappings":";AAAA"}}]}"#,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("index source map, section 0: offset line"),
            "{e}"
        );
    }

    #[test]
    fn refuses_bad_maps() {
        assert!(matches!(
            SourceMap::from_json(br#"{"version":2,"mappings":""}"#),
            Err(SourceMapError::Version(2))
        ));
        for (sections, why) in [
            (
                r#"[{"map":{"version":3,"sources":[],"mappings":""}}]"#,
                "section 0: no `offset`",
            ),
            (
                r#"[{"offset":{"line":0,"column":0},"url":"a.map"}]"#,
                "section 0: a section's map by url (a.map) is not supported",
            ),
            (
                r#"[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":[],"mappings":""}},
                   {"offset":{"line":1,"column":0},"map":{"version":3,"sections":[]}}]"#,
                "section 1: an index map inside an index map",
            ),
            (
                r#"[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":[],"mappings":"!"}}]"#,
                "section 0: bad `mappings` at character 0",
            ),
        ] {
            let map = format!(r#"{{"version":3,"sections":{sections}}}"#);
            let e = SourceMap::from_json(map.as_bytes())
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{e}");
        }
        assert!(matches!(
            SourceMap::from_json(br#"{"version":3,"sources":[],"mappings":"A!"}"#),
            Err(SourceMapError::Mappings(1))
        ));
        assert!(SourceMap::from_json(b"nope").is_err());
    }
}
