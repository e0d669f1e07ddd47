//! The UI's source panel: `/api/ui/sessions/{id}/artifacts/{artifact}/lines?name=&url=&line=&column=`
//! answers `jsprof lines --json`'s document (`jsprof_document::lines`) for one function, its
//! lines weighed as the Functions table beside the panel weighs (`lines::in_table_weights`).
//!
//! Which file is read: the one the *profile* names for the function (the query only picks a
//! function the profile has; a name that is not in it is 404), and only when that file lies
//! under one of the server's source roots (`Config::source_roots`: for `jsprof view`, the
//! folders of the files it opened and of its `--sourcemap` maps; for `serve`, its
//! `--sourcemap-dir` folders). Links are resolved first, so a link under a root cannot lead
//! out of it. Outside the roots the numbers come without the text, and the note says why.
//! `view` (`Config::read_named_sources`) also reads, wherever it lies, every script named by a
//! file it was given itself (a local import: the session's file links to it), as
//! `jsprof lines` does; an upload keeps the roots' rule.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::response::Response;
use axum::routing::get;
use axum::Router;
use jsprof_document::filters;
use jsprof_document::lines::{LocalFiles, Select, SourceReader, DEFAULT_CONTEXT};
use jsprof_document::load::ViewSpec;

use crate::cache::View;
use crate::catalogue::ArtifactKind;
use crate::error::{ApiError, ApiResult};
use crate::params::{ArtifactRequest, Params};
use crate::state::AppState;

/// The most context lines a request may ask for on each side.
const MAX_CONTEXT: u32 = 200;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new().route(
        "/api/ui/sessions/{id}/artifacts/{artifact}/lines",
        get(lines),
    )
}

async fn lines(ArtifactRequest(state, id, artifact, q): ArtifactRequest) -> ApiResult<Response> {
    let p = Params::parse(
        q,
        &[
            &["name", "url", "line", "column", "timeline", "context"][..],
            &filters::PARAMS,
        ]
        .concat(),
    )?;
    let filters = p.filters()?;
    let name = p
        .get("name")
        .ok_or_else(|| ApiError::bad_request("name: missing (the function's name, as `top`)"))?
        .to_string();
    let url = p.get("url").unwrap_or("").to_string();
    let line: Option<u32> = p.number("line")?;
    let column: Option<u32> = p.number("column")?;
    let timeline: Option<u32> = p.number("timeline")?;
    let context = p.number("context")?.unwrap_or(DEFAULT_CONTEXT);
    if context > MAX_CONTEXT {
        return Err(ApiError::bad_request(format!(
            "context: at most {MAX_CONTEXT} lines each side"
        )));
    }
    let (s, a) = crate::api::artifact(&state, &id, &artifact)?;
    if matches!(
        a.kind,
        ArtifactKind::HeapSampling | ArtifactKind::HeapSnapshot
    ) {
        return Err(ApiError::bad_request(format!(
            "artifact {} is a {}: per-line times need a CPU profile",
            a.artifact_id, a.format
        )));
    }
    let loaded = state.load_filtered(&s, &a, View::Cpu, &filters).await?;
    let mut files = PanelFiles::of_artifact(&state, &id, &artifact)?;
    crate::work::run(move || {
        let input = loaded.cpu()?;
        let weighted = input.weighted(&ViewSpec {
            thread: timeline.map(|t| t.to_string()),
            range: None,
            samples: true,
        })?;
        // The lines come from the samples; the panel weighs them as the Functions table beside
        // it does (a trace's entries, `jsprof top`'s view).
        let table = input.weighted(&ViewSpec {
            thread: timeline.map(|t| t.to_string()),
            range: None,
            samples: false,
        })?;
        let doc = jsprof_document::lines::report(
            &weighted,
            &Select::Exact {
                name,
                url,
                line,
                column,
            },
            context,
            &mut files,
        )?;
        let doc = jsprof_document::lines::in_table_weights(doc, &table);
        Ok(crate::ui::json_ok(&doc))
    })
    .await
}

fn canonical_roots(roots: &[PathBuf]) -> Vec<PathBuf> {
    roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .map(|r| {
            if r.is_file() {
                r.parent().map(Path::to_path_buf).unwrap_or(r)
            } else {
                r
            }
        })
        .collect()
}

/// What the source panel reads: a local script (any the profile names when `named`, else one
/// under `roots`), or a script served over HTTP found at the same path under a root (DevTools'
/// workspace mapping: `http://host/js/app.js` is `ROOT/js/app.js`, else `ROOT/app.js`).
pub(crate) struct PanelFiles {
    roots: Vec<PathBuf>,
    named: bool,
}

impl PanelFiles {
    /// What may be read for a session's artifact: the server's source roots, and every script
    /// it names when the artifact is a local file `view` was given.
    pub(crate) fn of_artifact(state: &AppState, id: &str, artifact: &str) -> ApiResult<PanelFiles> {
        let (s, a) = crate::api::artifact(state, id, artifact)?;
        Ok(PanelFiles {
            roots: canonical_roots(&state.config.source_roots),
            named: state.config.read_named_sources && local_import(state, &s.id, &a.file),
        })
    }
}

impl SourceReader for PanelFiles {
    fn read(&mut self, url: &str) -> Result<(PathBuf, Vec<u8>), String> {
        let roots = &self.roots;
        if let Some(segments) = served_path(url) {
            for from in 0..segments.len() {
                let rel: PathBuf = segments[from..].iter().collect();
                for root in roots {
                    let candidate = root.join(&rel);
                    if !candidate.is_file() {
                        continue;
                    }
                    if let Ok(real) = confine(&candidate, roots) {
                        let bytes = jsprof_document::lines::read_capped(&real)?;
                        return Ok((real, bytes));
                    }
                }
            }
            return Err(format!(
                "{url} was served over HTTP and no source folder holds {} (`jsprof view --source-dir DIR` adds one)",
                segments.join("/")
            ));
        }
        let named = self.named;
        LocalFiles {
            allowed: |path: &Path| {
                if named {
                    regular_file(path)
                } else {
                    confine(path, roots)
                }
            },
        }
        .read(url)
    }
}

/// The path segments of an `http(s)://` URL (no query or fragment); `None` for another URL or
/// a path with `.`, `..` or empty segments.
fn served_path(url: &str) -> Option<Vec<String>> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let path = &rest[rest.find('/')? + 1..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    let segments: Vec<String> = path.split('/').map(str::to_string).collect();
    let bad = |s: &String| s.is_empty() || s == "." || s == ".." || s.contains('\\');
    (!segments.iter().any(bad)).then_some(segments)
}

/// Whether the artifact's file was imported from a local path (`view FILE`: the session's file
/// is a link to the user's file), not uploaded.
fn local_import(state: &AppState, session: &str, file: &str) -> bool {
    std::fs::symlink_metadata(state.session_dir(session).join(file))
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// `path` with its links resolved, when that is a regular file.
fn regular_file(path: &Path) -> Result<PathBuf, String> {
    let real = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !real.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    Ok(real)
}

/// `path` with its links resolved, when that is a regular file under one of `roots`.
fn confine(path: &Path, roots: &[PathBuf]) -> Result<PathBuf, String> {
    let real = regular_file(path)?;
    if roots.iter().any(|r| real.starts_with(r)) {
        Ok(real)
    } else if roots.is_empty() {
        Err(format!(
            "{} is not read: this server reads sources only under its source folders, and it has none",
            path.display()
        ))
    } else {
        Err(format!(
            "{} is not read: it is outside the server's source folders ({}); `jsprof lines` reads it",
            path.display(),
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_paths_are_plain_segments() {
        let segs = |u: &str| served_path(u).map(|s| s.join("/"));
        assert_eq!(
            segs("http://h:1/js/app.js?v=2#x").as_deref(),
            Some("js/app.js")
        );
        assert_eq!(segs("https://h/app.js").as_deref(), Some("app.js"));
        assert_eq!(segs("http://h/"), None);
        assert_eq!(segs("http://h/a/../b.js"), None);
        assert_eq!(segs("http://h"), None);
        assert_eq!(segs("file:///a.js"), None);
    }

    #[test]
    fn only_files_under_a_root_are_read() {
        let dir = std::env::temp_dir().join(format!("jsprof-confine-{}", std::process::id()));
        let inside = dir.join("in");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::write(inside.join("a.js"), "x").unwrap();
        std::fs::write(dir.join("b.js"), "y").unwrap();
        let roots = canonical_roots(std::slice::from_ref(&inside));
        assert!(confine(&inside.join("a.js"), &roots).is_ok());
        // Out by `..`, out by a path, a folder, nothing at all.
        assert!(confine(&inside.join("../b.js"), &roots).is_err());
        assert!(confine(&dir.join("b.js"), &roots).is_err());
        assert!(confine(&inside, &roots).is_err());
        assert!(confine(&dir.join("b.js"), &[]).is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("b.js"), inside.join("link.js")).unwrap();
            assert!(confine(&inside.join("link.js"), &roots).is_err());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
