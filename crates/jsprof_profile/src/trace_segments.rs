//! A trace's event array read on several threads, its events handed on in file order.
//!
//! Parsing the JSON is most of the time a trace takes to read, and the events are independent
//! of each other until they are applied. So the array is cut into segments of a few MB at
//! guessed event boundaries (Chrome writes one event per line: `,\n{`), each segment is parsed on
//! whichever thread is free, and the caller's thread applies the segments in order.
//!
//! A guess is only a guess: `,\n{` can occur inside a string or a nested array. A segment is
//! used only if the segment before it, read from a known boundary, stopped exactly where it
//! starts; otherwise it is read again, on the applying thread, from where the one before
//! stopped. What is applied is therefore exactly what one pass from the array's start reads.

use std::sync::{Condvar, Mutex};

use serde::Deserialize;

/// How far parsing may run ahead of applying, in segments per parsing thread: it bounds the
/// parsed events held in memory.
const AHEAD_PER_THREAD: usize = 1;

/// How one segment's reading ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// At the first element starting at or past the segment's limit (`end` is its start).
    Limit,
    /// At the array's closing `]` (`end` is its offset).
    Close,
    /// The text ended inside the array (a trace cut short).
    Eof,
    /// Anything else: not JSON, an element that is not an event, a missing comma. The caller
    /// reads the trace again in one pass to report it exactly.
    Error,
}

/// The elements of one segment as parsed, borrowing their strings from the text.
pub(crate) struct Segment<T> {
    pub start: usize,
    pub elements: Vec<T>,
    pub end: usize,
    pub stop: Stop,
}

/// Parses elements of type `T` from `start` (an element's first byte or the blanks before it)
/// until one starts at or past `limit`, the array closes or reading fails.
pub(crate) fn read_segment<'a, T: Deserialize<'a>>(
    text: &'a [u8],
    start: usize,
    limit: usize,
) -> Segment<T> {
    // Room for a segment's elements at once (Chrome's events take about 200 bytes): grown by
    // doubling instead, moving them was a sixth of the reading time. Pages never written to
    // cost no memory; the cap keeps a last segment that runs to the end of a huge file sane.
    let room = limit.min(text.len()).saturating_sub(start) / 128;
    let mut elements = Vec::with_capacity(room.min(1 << 16));
    let mut pos = skip_blanks(text, start);
    let stop = loop {
        if pos >= limit {
            break Stop::Limit;
        }
        let mut stream = serde_json::Deserializer::from_slice(&text[pos..]).into_iter::<T>();
        match stream.next() {
            Some(Ok(element)) => elements.push(element),
            Some(Err(e)) if e.is_eof() => break Stop::Eof,
            Some(Err(_)) => break Stop::Error,
            None => break Stop::Eof,
        }
        pos = skip_blanks(text, pos + stream.byte_offset());
        match text.get(pos) {
            Some(b',') => pos = skip_blanks(text, pos + 1),
            Some(b']') => break Stop::Close,
            Some(_) => break Stop::Error,
            None => break Stop::Eof,
        }
    };
    Segment {
        start,
        elements,
        end: pos,
        stop,
    }
}

/// JSON's blanks (not `is_ascii_whitespace`, which also takes form feeds).
pub(crate) fn skip_blanks(text: &[u8], mut pos: usize) -> usize {
    while matches!(text.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// Guessed element starts, about `every` bytes apart, the first at `first`.
pub(crate) fn guess_starts(text: &[u8], first: usize, every: usize) -> Vec<usize> {
    let mut starts = vec![first];
    let mut at = first.saturating_add(every);
    while at < text.len() {
        match next_boundary(text, at) {
            Some(b) => {
                starts.push(b);
                at = b.saturating_add(every);
            }
            None => break,
        }
    }
    starts
}

/// The first likely element start from `at`: a `{` first on its line after a line ending in `,`
/// (Chrome's layout), else `},{"` (a trace on one line).
fn next_boundary(text: &[u8], at: usize) -> Option<usize> {
    // Past this many bytes without a newline the trace is not laid out one event per line.
    const LINE_WINDOW: usize = 1 << 20;
    let window = &text[at..text.len().min(at + LINE_WINDOW)];
    let mut from = 0;
    while let Some(nl) = window[from..].iter().position(|&b| b == b'\n') {
        let nl = at + from + nl;
        let next = skip_blanks(text, nl);
        let before = text[..nl]
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r'));
        if text.get(next) == Some(&b'{') && before.is_some_and(|b| text[b] == b',') {
            return Some(next);
        }
        from = nl - at + 1;
    }
    text[at..]
        .windows(4)
        .position(|w| w == b"},{\"")
        .map(|p| at + p + 2)
}

/// Runs `read(i)` for `i` in `0..n` on `threads` threads (the caller's among them) and hands
/// each result to `take(i, result)` on the caller's thread, in order of `i`, until `take`
/// returns false.
pub(crate) fn in_order<T: Send>(
    n: usize,
    threads: usize,
    read: impl Fn(usize) -> T + Sync,
    mut take: impl FnMut(usize, T) -> bool,
) {
    struct Queue<T> {
        done: Vec<Option<T>>,
        /// The next index nobody has claimed.
        next: usize,
        /// Indexes below this one were taken.
        taken: usize,
        stopped: bool,
    }
    let ahead = AHEAD_PER_THREAD * threads.max(1);
    let queue = Mutex::new(Queue {
        done: (0..n).map(|_| None).collect(),
        next: 0,
        taken: 0,
        stopped: false,
    });
    let changed = Condvar::new();
    let claim = |q: &mut Queue<T>| {
        (q.next < n && q.next <= q.taken + ahead && !q.stopped).then(|| {
            q.next += 1;
            q.next - 1
        })
    };
    let lock = || queue.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| {
                let mut q = lock();
                loop {
                    if q.stopped || q.next >= n {
                        return;
                    }
                    if let Some(i) = claim(&mut q) {
                        drop(q);
                        let result = read(i);
                        q = lock();
                        q.done[i] = Some(result);
                        changed.notify_all();
                    } else {
                        q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
                    }
                }
            });
        }
        let mut q = lock();
        for i in 0..n {
            let result = loop {
                if let Some(r) = q.done[i].take() {
                    break r;
                }
                if let Some(j) = claim(&mut q) {
                    drop(q);
                    let result = read(j);
                    q = lock();
                    q.done[j] = Some(result);
                } else {
                    q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            q.taken = i + 1;
            changed.notify_all();
            drop(q);
            let go_on = take(i, result);
            q = lock();
            if !go_on {
                break;
            }
        }
        q.stopped = true;
        changed.notify_all();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_stop_at_their_limit_the_close_and_the_end() {
        let text = b"[1, 2 ,3,\n4]  ";
        let s = read_segment::<u32>(text, 1, 6);
        assert_eq!((s.elements, s.end, s.stop), (vec![1, 2], 7, Stop::Limit));
        let s = read_segment::<u32>(text, 7, usize::MAX);
        assert_eq!((s.elements, s.end, s.stop), (vec![3, 4], 11, Stop::Close));
        let s = read_segment::<u32>(&text[..10], 7, usize::MAX);
        assert_eq!((s.elements, s.stop), (vec![3], Stop::Eof));
        let s = read_segment::<u32>(b"[1,", 1, usize::MAX);
        assert_eq!((s.elements, s.stop), (vec![1], Stop::Eof));
        let s = read_segment::<u32>(b"[1 2]", 1, usize::MAX);
        assert_eq!((s.elements, s.stop), (vec![1], Stop::Error));
        let s = read_segment::<u32>(b"[1,]", 1, usize::MAX);
        assert_eq!((s.elements, s.stop), (vec![1], Stop::Error));
    }

    #[test]
    fn boundaries_are_lines_that_open_an_event() {
        // A pretty-printed nested array opens lines with `{` after `,` too: a wrong guess,
        // found out when the segment before it is applied.
        let text = b"[{\"a\":[\n{\"b\":1},\n{\"c\":2}]},\n{\"d\":1}]";
        assert_eq!(guess_starts(text, 1, 1), vec![1, 17, 28]);
        let one_line = b"[{\"a\":1},{\"b\":2}]";
        assert_eq!(guess_starts(one_line, 1, 1), vec![1, 9]);
    }

    #[test]
    fn results_come_in_order_whatever_thread_read_them() {
        for threads in 1..4 {
            let mut seen = Vec::new();
            in_order(
                50,
                threads,
                |i| {
                    std::thread::sleep(std::time::Duration::from_micros((i % 7) as u64 * 50));
                    i * 2
                },
                |i, r| {
                    seen.push((i, r));
                    true
                },
            );
            assert_eq!(seen, (0..50).map(|i| (i, i * 2)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn taking_can_stop_early() {
        let mut seen = 0;
        in_order(
            100,
            2,
            |i| i,
            |i, _| {
                seen += 1;
                i < 9
            },
        );
        assert_eq!(seen, 10);
    }
}
