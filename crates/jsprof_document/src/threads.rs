//! `jsprof threads FILE --json` and the service's `…/threads`: the timelines of a CPU input, one
//! per thread, with the ids `--thread` and `?thread=` take.

use schemars::JsonSchema;
use serde::Serialize;

use crate::load::CpuInput;
use crate::{warnings_json, JsonWarning};

/// One timeline.
#[derive(Serialize, JsonSchema)]
pub struct ThreadJson {
    /// What `--thread` takes (1-based, sampled threads first).
    pub timeline_id: u32,
    pub pid: Option<u64>,
    pub tid: Option<u64>,
    pub name: String,
    #[serde(flatten)]
    pub about: ThreadAbout,
}

// What a listing of timelines says of each beyond its ids: `threads`' and the flame chart's
// (`chart::ThreadJson`). Not a doc comment: flattened, its description would become theirs.
#[derive(Serialize, JsonSchema)]
pub struct ThreadAbout {
    /// The process's name (`process_name` metadata of a trace: `Renderer`, `Browser`, `GPU
    /// Process`), when the trace names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// The page a renderer's main thread draws, as the Performance panel names its track:
    /// `Main — URL` (the outermost main frame's process) or `Frame — NAME` (another frame's:
    /// the last segment of its URL's path); see [`page_track_name`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    /// CPU samples of the thread's profile.
    pub samples: usize,
    /// Events of the timeline: reconstructed calls and trace events.
    pub events: usize,
}

impl ThreadAbout {
    /// A timeline's counts, its process and page named from `input`'s metadata when given.
    pub fn of(input: Option<&CpuInput>, t: &jsprof_analysis::Timeline) -> ThreadAbout {
        ThreadAbout {
            process: input.and_then(|i| process_name(i, t.pid)),
            page: input.and_then(|i| page_track_name(i, t.pid, &t.name)),
            samples: t.samples,
            events: t.events.len(),
        }
    }
}

/// The whole `threads` document.
#[derive(Serialize, JsonSchema)]
pub struct ThreadsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub timelines: Vec<ThreadJson>,
}

/// The timelines of `input`.
pub fn threads_report(input: &CpuInput) -> ThreadsReport {
    ThreadsReport {
        kind: input.profile().kind.as_str(),
        warnings: warnings_json(input.warnings()),
        timelines: input
            .timelines()
            .iter()
            .map(|t| ThreadJson {
                timeline_id: t.id,
                pid: t.pid,
                tid: t.tid,
                name: t.name.clone(),
                about: ThreadAbout::of(Some(input), t),
            })
            .collect(),
    }
}

/// The name a trace gives process `pid` (`Renderer`, `Browser`, `GPU Process`): its last
/// `process_name` metadata. `None` for a profile, or a process the trace does not name.
pub fn process_name(input: &CpuInput, pid: Option<u64>) -> Option<String> {
    let pid = pid?;
    let names = input.process_names();
    names
        .iter()
        .rev()
        .find(|(p, _)| *p == pid)
        .map(|(_, n)| n.clone())
}

/// The page a renderer's main thread (`CrRendererMain`) of process `pid` draws, from the trace's
/// frame commits (`TracingStartedInBrowser`'s frames, `FrameCommittedInBrowser`): `Main — URL`
/// when the process holds the outermost main frame, else `Frame — NAME` for the last frame
/// committed in it (NAME: its URL's last path segment, or its host). `about:blank` is no page.
/// `None` for another thread, a profile, or a process no frame names.
pub fn page_track_name(input: &CpuInput, pid: Option<u64>, thread: &str) -> Option<String> {
    if thread != "CrRendererMain" {
        return None;
    }
    let (pid, page) = (pid?, &input.trace()?.page);
    let mut mine = page
        .frame_urls
        .iter()
        .filter(|f| f.process_id == pid && !f.url.is_empty() && f.url != "about:blank");
    let main = page.main_frame.as_ref().map(|(id, _)| id.as_str());
    if let Some(f) = mine.clone().rfind(|f| Some(f.frame.as_str()) == main) {
        return Some(format!("Main \u{2014} {}", f.url));
    }
    mine.next_back()
        .map(|f| format!("Frame \u{2014} {}", url_name(&f.url)))
}

/// A URL's last path segment without query or fragment (`ad.html`), else its host.
fn url_name(url: &str) -> &str {
    let bare = &url[..url.find(['?', '#']).unwrap_or(url.len())];
    let after_scheme = bare.find("://").map_or(0, |i| i + 3);
    let path = &bare[after_scheme..];
    match path.rsplit('/').next() {
        Some(last) if !last.is_empty() && path.contains('/') => last,
        _ => path.split('/').next().unwrap_or(path),
    }
}

#[cfg(test)]
mod tests {
    use super::url_name;

    #[test]
    fn a_frame_is_named_by_its_file_or_host() {
        assert_eq!(url_name("http://127.0.0.1:8790/ads/ad.html?x=1"), "ad.html");
        assert_eq!(url_name("https://a.test/"), "a.test");
        assert_eq!(url_name("https://a.test"), "a.test");
        assert_eq!(url_name("http://h/dir/"), "h");
    }
}
