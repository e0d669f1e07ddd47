//! Source maps as a transform of the model: frames in generated code become frames at their
//! original position — original file, line, column and, where the map names it, the original
//! function name — so every view and export shows the original. Samples are not touched, so
//! every time is conserved. Which map belongs to which script is the caller's business (the CLI
//! looks next to the scripts, never on the network).

use jsprof_profile::{
    Frame, FrameKind, OriginalPosition, Profile, SamplePosition, SourceMap, StackTable,
};

/// A script's map with its sources resolved to the URLs frames should show.
#[derive(Clone, Debug)]
pub struct ScriptMap {
    pub map: SourceMap,
    /// One URL per `map.sources()`.
    pub sources: Vec<String>,
}

/// What [`apply_source_maps`] did for one script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptMapping {
    pub url: String,
    /// Frames of the script whose position the map covered.
    pub mapped: usize,
    /// Frames of the script it did not cover (kept as they were).
    pub unmapped: usize,
    /// Line ticks (`positionTicks`) — or a trace's samples with a position — of mapped frames
    /// whose generated position the map does not place in the frame's original file (no
    /// segment, or one from another source): dropped, since their line in the original file is
    /// unknown.
    pub ticks_dropped: u64,
}

/// The profile with every frame of a script `map_for` has a map for moved to its original
/// position. Returns, per such script (in first-seen order), how many frames were mapped.
pub fn apply_source_maps<'m>(
    profile: &Profile,
    mut map_for: impl FnMut(&str) -> Option<&'m ScriptMap>,
) -> (Profile, Vec<ScriptMapping>) {
    let mut out = Profile {
        kind: profile.kind,
        strings: profile.strings.clone(),
        frames: Default::default(),
        stacks: StackTable::default(),
        // Stacks are rebuilt one for one in the same order, so every StackId the threads hold
        // (samples and side tables) still names the same stack: no remapping needed.
        threads: profile.threads.clone(),
        warnings: profile.warnings.clone(),
    };
    let mut report: Vec<ScriptMapping> = Vec::new();
    let mut new_frame = Vec::with_capacity(profile.frames.len());
    // Per old frame that a map moved: its script's map, the original source and its report row.
    let mut moved: Vec<Option<(&ScriptMap, u32, usize)>> = vec![None; profile.frames.len()];
    for (_, f) in profile.frames.iter() {
        let url = profile.strings.get(f.url);
        let mapped = match (f.kind, f.line) {
            (FrameKind::Js, Some(line)) if !url.is_empty() => map_for(url).map(|m| (m, line)),
            _ => None,
        };
        let Some((script, line)) = mapped else {
            new_frame.push(out.frames.intern(*f));
            continue;
        };
        let i = match report.iter().position(|r| r.url == url) {
            Some(i) => i,
            None => {
                report.push(ScriptMapping {
                    url: url.to_string(),
                    mapped: 0,
                    unmapped: 0,
                    ticks_dropped: 0,
                });
                report.len() - 1
            }
        };
        let (line0, col0) = (line - 1, f.column.map_or(0, |c| c - 1));
        let Some(m) = script.map.lookup(line0, col0) else {
            report[i].unmapped += 1;
            new_frame.push(out.frames.intern(*f));
            continue;
        };
        report[i].mapped += 1;
        moved[new_frame.len()] = Some((script, m.source, i));
        // V8 places a function at its `(`; the bundler names the identifier just before it.
        let generated = profile.strings.get(f.name);
        let name_len = generated.encode_utf16().count() as u32;
        let name = (!generated.is_empty() && col0 >= name_len)
            .then(|| script.map.name_at(line0, col0 - name_len))
            .flatten()
            .or(m.name)
            .map(|n| script.map.name(n))
            .filter(|n| !n.is_empty() && !generated.is_empty());
        let name = out.strings.intern(name.unwrap_or(generated));
        let source = script
            .sources
            .get(m.source as usize)
            .map_or("", String::as_str);
        let original = OriginalPosition {
            url: out.strings.intern(source),
            line: Some(m.line + 1),
            column: Some(m.column + 1),
            name: Some(name),
        };
        new_frame.push(out.frames.intern(Frame {
            name,
            url: original.url,
            line: original.line,
            column: original.column,
            script_id: f.script_id,
            kind: FrameKind::Js,
            original: Some(original),
        }));
    }
    for s in profile.stacks.ids() {
        let frame = new_frame[profile.stacks.frame(s).index()];
        out.stacks
            .push(profile.stacks.parent(s), frame, profile.stacks.node_id(s));
    }
    // A tick names a generated line and no column: it goes where the line's first segment
    // comes from, when that is in the frame's own original file.
    for thread in &mut out.threads {
        thread.map_position_tick_lines(|s, line, ticks| {
            let Some((script, source, i)) = moved[profile.stacks.frame(s).index()] else {
                return Some(line);
            };
            let to = line
                .checked_sub(1)
                .and_then(|l| script.map.first_on_line(l))
                .filter(|m| m.source == source)
                .map(|m| m.line + 1);
            if to.is_none() {
                report[i].ticks_dropped += u64::from(ticks);
            }
            to
        });
        // A trace's sample position has a column: it goes where its own segment comes from
        // (minified code, all on one line, maps line by line), when that is the frame's file.
        thread.map_sample_positions(|_, stack, at| {
            let Some((script, source, i)) =
                stack.and_then(|s| moved[profile.stacks.frame(s).index()])
            else {
                return at;
            };
            match script
                .map
                .lookup(at.line - 1, at.column - 1)
                .filter(|m| m.source == source)
            {
                Some(m) => SamplePosition {
                    line: m.line + 1,
                    column: m.column + 1,
                },
                None => {
                    report[i].ticks_dropped += 1;
                    SamplePosition::NONE
                }
            }
        });
    }
    (out, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function_table;
    use jsprof_profile::{ProfileKind, Thread, WeightUnit};

    type Row = (String, String, Option<u32>, Option<u32>, i64);

    /// A map of the sources `x.ts` and `y.ts` (resolved to `/src/…`) with the `names` and
    /// `mappings` members in `names_and_mappings`.
    fn script(names_and_mappings: &str) -> ScriptMap {
        let json = format!(r#"{{"version":3,"sources":["x.ts","y.ts"],{names_and_mappings}}}"#);
        ScriptMap {
            sources: vec!["/src/x.ts".into(), "/src/y.ts".into()],
            map: SourceMap::from_json(json.as_bytes()).unwrap(),
        }
    }

    #[test]
    fn moves_frames_and_keeps_times() {
        // Generated `function a(){…}function b(){…}`: a's `(` at column 11 (1-based), b's at 27.
        // Segments (0-based): column 9 (`a`) → x.ts 2:9 named `alpha`; column 10 → x.ts 2:10;
        // column 26 → y.ts 6:0, no name.
        let script = script(r#""names":["alpha"],"mappings":"SAESA,CAAC,gBCIV""#);
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let a = p.intern_frame("a", "file:///b.js", Some(1), Some(11), "1");
        let b = p.intern_frame("b", "file:///b.js", Some(1), Some(27), "1");
        let c = p.intern_frame("c", "file:///other.js", Some(1), Some(1), "2");
        let sa = p.stacks.push(None, a, 2);
        let sb = p.stacks.push(Some(sa), b, 3);
        let sc = p.stacks.push(Some(sb), c, 4);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        t.set_samples_end(Some(30));
        t.samples_mut().push(0, Some(sa));
        t.samples_mut().push(10, Some(sb));
        t.samples_mut().push(20, Some(sc));
        p.threads.push(t);
        let (q, report) = apply_source_maps(&p, |u| (u == "file:///b.js").then_some(&script));
        assert_eq!(
            report,
            [ScriptMapping {
                url: "file:///b.js".into(),
                mapped: 2,
                unmapped: 0,
                ticks_dropped: 0,
            }]
        );
        let rows = |p: &Profile| {
            let mut v: Vec<Row> = function_table(p, &p.threads[0])
                .rows
                .iter()
                .map(|r| {
                    (
                        p.strings.get(r.key.name).to_string(),
                        p.strings.get(r.key.url).to_string(),
                        r.key.line,
                        r.key.column,
                        r.self_weight,
                    )
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            rows(&q),
            [
                ("alpha".into(), "/src/x.ts".into(), Some(3), Some(11), 10),
                ("b".into(), "/src/y.ts".into(), Some(7), Some(1), 10),
                ("c".into(), "file:///other.js".into(), Some(1), Some(1), 10),
            ]
        );
        assert_eq!(
            q.threads[0].samples().stack(),
            p.threads[0].samples().stack()
        );
    }

    /// A trace's sample positions move by line *and column* with their frame (one generated
    /// line holds both functions); one the map puts in another file is dropped and counted.
    #[test]
    fn moves_sample_positions_by_their_column() {
        // Segments (0-based, line 0): column 0 → x.ts 0:0, column 10 → x.ts 4:2, column 20 →
        // y.ts 9:0.
        let script = script(r#""names":[],"mappings":"AAAA,UAIE,UCKF""#);
        let mut p = Profile::new(ProfileKind::Trace);
        let a = p.intern_frame("a", "https://b.test/b.js", Some(1), Some(1), "1");
        let sa = p.stacks.push(None, a, 2);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        for time in [0, 10, 20, 30] {
            t.samples_mut().push(time, Some(sa));
        }
        let at = |line, column| SamplePosition { line, column };
        t.set_sample_positions(Some(vec![at(1, 3), at(1, 15), at(1, 25), at(0, 0)]));
        p.threads.push(t);
        let (q, report) =
            apply_source_maps(&p, |u| (u == "https://b.test/b.js").then_some(&script));
        assert_eq!(report[0].ticks_dropped, 1);
        assert_eq!(
            q.threads[0].sample_positions().unwrap(),
            [
                at(1, 1),
                at(5, 3),
                SamplePosition::NONE,
                SamplePosition::NONE
            ]
        );
    }
}
