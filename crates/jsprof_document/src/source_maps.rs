//! The source-map step of the load pipeline: finding maps for the scripts a profile names, on the
//! local disk only — the `sourceMappingURL` comment of a local script (a file next to it, or an
//! inline `data:` URL) when [`SourceMaps::discover`] allows it, and maps given explicitly
//! (`--sourcemap FILE|DIR`, `serve --sourcemap-dir DIR`; matched to scripts by file name). Never
//! the network: a map named by an `http(s)` URL is reported, not fetched. What was mapped and
//! which maps were missing go into the profile's warnings. Every front door (CLI, `view`,
//! `report`, the service) applies maps through [`apply`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use jsprof_analysis::{apply_source_maps, ScriptMap};
use jsprof_profile::{FrameKind, Profile, SourceMap, Warning};

use crate::local_file::lexical;
use crate::{ReportError, Result};

/// Where maps may come from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceMaps {
    /// Apply maps at all (`--no-sourcemaps` turns this off).
    pub enabled: bool,
    /// Read the scripts a profile names on this machine for their `sourceMappingURL` comments:
    /// on for the user's own files (CLI, `view`, `report`, recorded sessions), off for files
    /// uploaded to the service, which must not make it read local paths they name.
    pub discover: bool,
    /// Map files or folders of them, matched to scripts by file name.
    pub explicit: Vec<PathBuf>,
    /// When not empty, discovery reads scripts and maps only below these (canonical) folders:
    /// MCP's roots. Empty: anywhere the user can read (their own files, at the CLI).
    pub roots: Vec<PathBuf>,
}

impl Default for SourceMaps {
    fn default() -> SourceMaps {
        SourceMaps {
            enabled: true,
            discover: true,
            explicit: Vec::new(),
            roots: Vec::new(),
        }
    }
}

impl SourceMaps {
    /// No source maps at all.
    pub fn off() -> SourceMaps {
        SourceMaps {
            enabled: false,
            discover: false,
            explicit: Vec::new(),
            roots: Vec::new(),
        }
    }
}

/// Scripts larger than this are not read for a comment, and maps larger than this not read.
/// Every file a profile points at is read through [`crate::local_file`]: regular files only,
/// never past this bound, below `roots` when they are given.
pub(crate) const MAX_SCRIPT: u64 = 512 << 20;

/// The maps `policy` allows for scripts by URL: the one lookup of the CPU pipeline ([`apply`])
/// and of the heap views (`crate::heap_source_maps`).
pub(crate) struct MapFinder<'p> {
    policy: &'p SourceMaps,
    /// `--sourcemap` maps by the file name of the script they describe.
    given: HashMap<String, (PathBuf, SourceMap)>,
}

impl<'p> MapFinder<'p> {
    /// Reads the maps `policy` names explicitly; an unreadable one is an error, as a bad flag is.
    pub(crate) fn new(policy: &'p SourceMaps) -> Result<MapFinder<'p>> {
        Ok(MapFinder {
            policy,
            given: load_explicit(&policy.explicit)?,
        })
    }

    /// The map of the script at `url`: a given map of its file name, else (when discovery is
    /// allowed) the one its own `sourceMappingURL` names. `Ok(None)`: none; `Err`: the script
    /// names a map that cannot be had, and why.
    pub(crate) fn find(&self, url: &str) -> Result<Option<ScriptMap>, String> {
        let base = url.rsplit(['/', '\\']).next().unwrap_or(url);
        let base = base.split(['?', '#']).next().unwrap_or(base);
        if let Some((map_path, map)) = self.given.get(base) {
            let sources = resolve_sources(map, map_path.parent(), url);
            return Ok(Some(ScriptMap {
                map: map.clone(),
                sources,
            }));
        }
        if !self.policy.discover {
            return Ok(None);
        }
        let Some(script) = local_path(url) else {
            return Ok(None);
        };
        Ok(find_map(&script, &self.policy.roots)?.map(|(dir, map)| {
            let sources = resolve_sources(&map, dir.as_deref(), url);
            ScriptMap { map, sources }
        }))
    }
}

/// The profile with source maps applied as `policy` allows.
pub fn apply(profile: Profile, policy: &SourceMaps) -> Result<Profile> {
    if !policy.enabled {
        return Ok(profile);
    }
    let finder = MapFinder::new(policy)?;
    let mut urls: Vec<&str> = Vec::new();
    for (_, f) in profile.frames.iter() {
        let url = profile.strings.get(f.url);
        if f.kind == FrameKind::Js && !url.is_empty() && !urls.contains(&url) {
            urls.push(url);
        }
    }
    let mut maps: HashMap<String, ScriptMap> = HashMap::new();
    let mut notes: Vec<Warning> = Vec::new();
    for url in urls {
        match finder.find(url) {
            Ok(None) => {}
            Ok(Some(map)) => {
                maps.insert(url.to_string(), map);
            }
            Err(why) => notes.push(Warning::new(url, format!("source map missing: {why}"))),
        }
    }
    if maps.is_empty() && notes.is_empty() {
        return Ok(profile);
    }
    let (mut mapped, report) = apply_source_maps(&profile, |url| maps.get(url));
    for r in report {
        let mut message = format!("source map applied: {} frames mapped", r.mapped);
        if r.unmapped > 0 {
            message.push_str(&format!(
                ", {} not covered by the map (kept as they were)",
                r.unmapped
            ));
        }
        if r.ticks_dropped > 0 {
            message.push_str(&format!(
                ", {} line ticks on lines the map does not place in the frame's file (left out of the per-line view)",
                r.ticks_dropped
            ));
        }
        mapped.warnings.push(Warning::new(r.url, message));
    }
    mapped.warnings.extend(notes);
    Ok(mapped)
}

/// `--sourcemap` maps by the file name of the script they describe (their `file`, else their
/// own name less `.map`).
fn load_explicit(paths: &[PathBuf]) -> Result<HashMap<String, (PathBuf, SourceMap)>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect_maps(p, 0, &mut files)
                .map_err(|e| ReportError::Input(format!("cannot list {}: {e}", p.display())))?;
        } else {
            files.push(p.clone());
        }
    }
    let mut out = HashMap::new();
    for f in files {
        let bytes = crate::local_file::read_bounded(&f, MAX_SCRIPT, &[])
            .map_err(|e| ReportError::Input(format!("cannot read {e}")))?;
        let map = SourceMap::from_json(&bytes)
            .map_err(|e| ReportError::Input(format!("{}: {e}", f.display())))?;
        let own = f
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.strip_suffix(".map").unwrap_or(n).to_string());
        let named = map
            .file
            .as_deref()
            .map(|n| n.rsplit(['/', '\\']).next().unwrap_or(n).to_string());
        for key in [named, own].into_iter().flatten() {
            out.entry(key).or_insert_with(|| (f.clone(), map.clone()));
        }
    }
    Ok(out)
}

fn collect_maps(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if depth > 8 {
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if e.file_type()?.is_dir() {
            if e.file_name() != "node_modules" {
                collect_maps(&p, depth + 1, out)?;
            }
        } else if p.extension().is_some_and(|x| x == "map") {
            out.push(p);
        }
    }
    Ok(())
}

/// The local path of a `file://` URL or an absolute path; `None` for anything else.
pub(crate) fn local_path(url: &str) -> Option<PathBuf> {
    let path = if let Some(rest) = url.strip_prefix("file://") {
        percent_decode(rest.strip_prefix("localhost").unwrap_or(rest))
    } else if url.starts_with('/') {
        url.to_string()
    } else {
        return None;
    };
    Some(PathBuf::from(path))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The map a local script's `sourceMappingURL` names, with the folder its sources are relative
/// to. `Ok(None)`: the script is not there or names no map; `Err`: it names one that cannot be had.
/// A script that is missing, not a regular file or outside `roots` names no map; one too large
/// to read whole is looked at by its tail ([`crate::source_map_url`]).
fn find_map(
    script: &Path,
    roots: &[PathBuf],
) -> Result<Option<(Option<PathBuf>, SourceMap)>, String> {
    let Ok(Some(reference)) = crate::source_map_url::in_script(script, MAX_SCRIPT, roots) else {
        return Ok(None);
    };
    let dir = script.parent().map(Path::to_path_buf);
    if let Some(data) = reference.strip_prefix("data:") {
        let (meta, payload) = data
            .split_once(',')
            .ok_or_else(|| "the inline data: URL has no payload".to_string())?;
        let bytes = if meta.ends_with(";base64") {
            base64_decode(payload)
                .ok_or_else(|| "the inline map is not valid base64".to_string())?
        } else {
            percent_decode(payload).into_bytes()
        };
        let map = SourceMap::from_json(&bytes).map_err(|e| format!("inline map: {e}"))?;
        return Ok(Some((dir, map)));
    }
    if reference.contains("://") && !reference.starts_with("file://") {
        return Err(format!(
            "{reference} is not fetched (jsprof never uses the network); pass the map with --sourcemap"
        ));
    }
    let path = match local_path(&reference) {
        Some(p) => p,
        None => dir
            .clone()
            .unwrap_or_default()
            .join(percent_decode(&reference)),
    };
    let bytes = crate::local_file::read_bounded(&path, MAX_SCRIPT, roots)?;
    let map = SourceMap::from_json(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some((path.parent().map(Path::to_path_buf), map)))
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b'\n' | b'\r' => continue,
            _ => return None,
        } as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Each source of `map` as a URL: absolute ones kept, relative ones joined to the map's folder
/// (written as `file://` when the script's URL is one).
fn resolve_sources(map: &SourceMap, dir: Option<&Path>, script_url: &str) -> Vec<String> {
    let file_url = script_url.starts_with("file://");
    map.sources()
        .iter()
        .map(|s| {
            if s.contains("://") || s.starts_with('/') {
                return s.clone();
            }
            let Some(dir) = dir else {
                return s.clone();
            };
            let joined = lexical(&dir.join(s));
            let text = joined.to_string_lossy().into_owned();
            if file_url {
                format!("file://{text}")
            } else {
                text
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_comments_and_decodes() {
        assert_eq!(base64_decode("eyJhIjoxfQ==").unwrap(), br#"{"a":1}"#);
        assert_eq!(percent_decode("/a%20b/c"), "/a b/c");
        assert_eq!(local_path("file:///x/y.js"), Some(PathBuf::from("/x/y.js")));
        assert_eq!(local_path("node:fs"), None);
        assert_eq!(lexical(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
    }
}
