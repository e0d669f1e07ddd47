//! The recorded profiles the generated ones are derived from: every stack (root → leaf) that a
//! recorded profile sampled, with how often, over one table of functions.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// A function as the JS Self-Profiling format names it: 1-based line and column, no URL for a
/// frame without a script.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Func {
    pub name: String,
    pub url: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

/// One recorded profile: its stacks (indices into `Pool::funcs`, root first) with their sample
/// counts. Idle samples (no stack) are not kept: the generator draws its own idle share.
pub struct Source {
    /// The browser's own traces (JS Self-Profiling); the others are Node `.cpuprofile`s used as
    /// the bulk of each page's "application" code.
    pub browser: bool,
    pub stacks: Vec<(Vec<u32>, u64)>,
}

#[derive(Default)]
pub struct Pool {
    pub funcs: Vec<Func>,
    index: HashMap<Func, u32>,
    pub sources: Vec<Source>,
}

impl Pool {
    fn intern(&mut self, f: Func) -> u32 {
        if let Some(&i) = self.index.get(&f) {
            return i;
        }
        let i = self.funcs.len() as u32;
        self.funcs.push(f.clone());
        self.index.insert(f, i);
        i
    }

    /// Reads a JS Self-Profiling trace (`.json`) or a `.cpuprofile` (gzipped or not).
    pub fn load(&mut self, path: &Path) -> Result<(), String> {
        let mut bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_end(&mut plain)
                .map_err(|e| format!("{}: gzip: {e}", path.display()))?;
            bytes = plain;
        }
        let v: Value = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        let source = if v.get("frames").is_some() && v.get("stacks").is_some() {
            self.selfprofile(&v)
        } else if v.get("nodes").is_some() {
            self.cpuprofile(&v)
        } else {
            Err(
                "neither a JS Self-Profiling trace (frames, stacks) nor a .cpuprofile (nodes)"
                    .into(),
            )
        }
        .map_err(|e| format!("{}: {e}", path.display()))?;
        if source.stacks.is_empty() {
            return Err(format!("{}: no sampled stacks", path.display()));
        }
        self.sources.push(source);
        Ok(())
    }

    fn selfprofile(&mut self, v: &Value) -> Result<Source, String> {
        let arr = |k: &str| {
            v[k].as_array()
                .ok_or_else(|| format!("{k}: expected an array"))
        };
        let resources: Vec<&str> = arr("resources")?
            .iter()
            .map(|r| r.as_str().unwrap_or(""))
            .collect();
        let mut frames = Vec::new();
        for (i, f) in arr("frames")?.iter().enumerate() {
            let url = f["resourceId"]
                .as_u64()
                .map(|r| {
                    resources
                        .get(r as usize)
                        .map(|s| s.to_string())
                        .ok_or_else(|| format!("frames[{i}].resourceId: no resource {r}"))
                })
                .transpose()?;
            frames.push(self.intern(Func {
                name: f["name"].as_str().unwrap_or("").to_string(),
                url,
                line: f["line"].as_u64().map(|x| x as u32),
                column: f["column"].as_u64().map(|x| x as u32),
            }));
        }
        let stacks = arr("stacks")?;
        let mut paths: Vec<Option<Vec<u32>>> = vec![None; stacks.len()];
        // Parents may come after their children in principle: resolve by walking up, bounded.
        for (i, path) in paths.iter_mut().enumerate() {
            let mut chain = Vec::new();
            let mut at = Some(i);
            while let Some(s) = at {
                if chain.len() > stacks.len() {
                    return Err(format!("stacks[{i}]: parentId cycle"));
                }
                let fid = stacks[s]["frameId"]
                    .as_u64()
                    .and_then(|f| frames.get(f as usize))
                    .ok_or_else(|| format!("stacks[{s}].frameId: expected a frame index"))?;
                chain.push(*fid);
                at = stacks[s]["parentId"].as_u64().map(|p| p as usize);
                if at.is_some_and(|p| p >= stacks.len()) {
                    return Err(format!("stacks[{s}].parentId: no such stack"));
                }
            }
            chain.reverse();
            *path = Some(chain);
        }
        let mut counts = vec![0u64; stacks.len()];
        for s in arr("samples")? {
            if let Some(id) = s["stackId"].as_u64() {
                if let Some(c) = counts.get_mut(id as usize) {
                    *c += 1;
                }
            }
        }
        Ok(Source {
            browser: true,
            stacks: paths
                .into_iter()
                .zip(counts)
                .filter(|(_, c)| *c > 0)
                .map(|(p, c)| (p.unwrap_or_default(), c))
                .collect(),
        })
    }

    fn cpuprofile(&mut self, v: &Value) -> Result<Source, String> {
        let nodes = v["nodes"].as_array().ok_or("nodes: expected an array")?;
        let mut by_id = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            let id = n["id"]
                .as_u64()
                .ok_or_else(|| format!("nodes[{i}].id: expected a number"))?;
            by_id.insert(id, i);
        }
        let mut parent = vec![None; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            for c in n["children"].as_array().into_iter().flatten() {
                if let Some(&ci) = c.as_u64().and_then(|c| by_id.get(&c)) {
                    parent[ci] = Some(i);
                }
            }
        }
        let mut counts = vec![0u64; nodes.len()];
        for s in v["samples"].as_array().into_iter().flatten() {
            if let Some(&i) = s.as_u64().and_then(|s| by_id.get(&s)) {
                counts[i] += 1;
            }
        }
        let mut stacks = Vec::new();
        for (i, &count) in counts.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let mut chain = Vec::new();
            let mut at = Some(i);
            while let Some(n) = at {
                if chain.len() > nodes.len() {
                    return Err(format!("nodes[{i}]: parent cycle"));
                }
                let cf = &nodes[n]["callFrame"];
                let fname = cf["functionName"].as_str().unwrap_or("");
                at = parent[n];
                if at.is_none() && fname == "(root)" {
                    break;
                }
                chain.push(cf);
            }
            chain.reverse();
            // The JS Self-Profiling API has no (program), (idle) or (garbage collector) frames:
            // those samples are idle samples there, which the generator draws itself.
            if chain.is_empty()
                || chain.iter().any(|cf| {
                    let n = cf["functionName"].as_str().unwrap_or("");
                    n.starts_with('(') && n != "(anonymous)"
                })
            {
                continue;
            }
            let path = chain
                .iter()
                .map(|cf| {
                    let url = cf["url"].as_str().unwrap_or("");
                    let line = cf["lineNumber"].as_i64().unwrap_or(-1);
                    let column = cf["columnNumber"].as_i64().unwrap_or(-1);
                    self.intern(Func {
                        name: cf["functionName"].as_str().unwrap_or("").to_string(),
                        url: (!url.is_empty()).then(|| web_url(url)),
                        // .cpuprofile positions are 0-based, the Self-Profiling API's 1-based.
                        line: (line >= 0).then_some(line as u32 + 1),
                        column: (column >= 0).then_some(column as u32 + 1),
                    })
                })
                .collect();
            stacks.push((path, count));
        }
        Ok(Source {
            browser: false,
            stacks,
        })
    }
}

/// A Node profile's script as a page would load it: `file:///…/typescript/lib/typescript.js`
/// becomes `https://app.example/assets/typescript.js`; `node:` URLs stay (a bundled polyfill).
fn web_url(url: &str) -> String {
    match url.strip_prefix("file://") {
        Some(path) => format!(
            "https://app.example/assets/{}",
            path.rsplit('/').next().unwrap_or(path)
        ),
        None => url.to_string(),
    }
}
