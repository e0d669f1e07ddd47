//! Opening an input, once: a path (or `-` for stdin) becomes one [`Input`] that owns the opened
//! file, looks at its head (gzip magic, byte-order mark, format) before anything else is read, and
//! then hands on the same stream — so a FIFO or `<(…)` is read once, and `/dev/zero` or a binary
//! file is refused after 64 KB instead of being read until memory runs out.
//!
//! The CLI and the service both read through here. Whole-input reads are how the serde readers
//! are fast (a slice is scanned with memchr; a stream byte by byte is four times slower), so:
//! plain files are memory-mapped (nothing is copied), everything else is read into memory under
//! [`Limits`] — gzip may not inflate past `max_inflated` bytes nor grow more than `max_ratio`
//! times its compressed size. The streaming heap reader takes [`Input::into_reader`], which keeps
//! the ratio check (a bomb is refused early) but not the size cap (it holds no whole text).
//!
//! Text encodings are accepted as DevTools accepts them: a UTF-8 byte-order mark is skipped, and
//! UTF-16 (LE or BE, with its mark) is transcoded to UTF-8.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::bufread::MultiGzDecoder;
use jsprof_profile::detect::SNIFF_LEN;
use jsprof_profile::Format;
use thiserror::Error;

/// How far a decompressed or streamed input may grow in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes a non-mapped input (gzip, stdin, a pipe) may have once decompressed;
    /// `u64::MAX` for none.
    pub max_inflated: u64,
    /// Most times gzip may expand its compressed bytes (checked once past 64 MiB inflated, so
    /// small repetitive files load); 0 for none. Real profiles compress 5–30×; bombs 1000×.
    pub max_ratio: u64,
    /// How to raise the limits, as the front door that set them spells it.
    pub raise_hint: &'static str,
}

/// Default of [`Limits::max_inflated`]: 2 GiB.
pub const DEFAULT_MAX_INFLATED: u64 = 2 << 30;
/// Default of [`Limits::max_ratio`].
pub const DEFAULT_MAX_RATIO: u64 = 100;
/// Inflated bytes below which the ratio is not checked.
const RATIO_GRACE: u64 = 64 << 20;
/// Environment variables that set the limits (bytes, or a number with K, M or G; 0 = no limit).
pub const MAX_INFLATED_ENV: &str = "JSPROF_MAX_INFLATED";
pub const MAX_RATIO_ENV: &str = "JSPROF_MAX_INFLATE_RATIO";

const BUF_SIZE: usize = 256 * 1024;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_inflated: DEFAULT_MAX_INFLATED,
            max_ratio: DEFAULT_MAX_RATIO,
            raise_hint: "raise it with JSPROF_MAX_INFLATED=<bytes> or JSPROF_MAX_INFLATE_RATIO=<n> (0 = no limit)",
        }
    }
}

impl Limits {
    /// The defaults, overridden by `JSPROF_MAX_INFLATED` and `JSPROF_MAX_INFLATE_RATIO`.
    pub fn from_env() -> Result<Limits, String> {
        let mut limits = Limits::default();
        if let Some(v) = std::env::var_os(MAX_INFLATED_ENV) {
            let v = v.to_string_lossy();
            limits.max_inflated = match parse_size(&v) {
                Some(0) => u64::MAX,
                Some(n) => n,
                None => {
                    return Err(format!(
                    "{MAX_INFLATED_ENV}={v}: expected a number of bytes, optionally with K, M or G"
                ))
                }
            };
        }
        if let Some(v) = std::env::var_os(MAX_RATIO_ENV) {
            let v = v.to_string_lossy();
            limits.max_ratio = v
                .trim()
                .parse()
                .map_err(|_| format!("{MAX_RATIO_ENV}={v}: expected a whole number"))?;
        }
        Ok(limits)
    }
}

/// `123`, `64K`, `512M`, `4G` (binary units) as bytes.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, shift) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 10),
        (i, 'm' | 'M') => (&s[..i], 20),
        (i, 'g' | 'G') => (&s[..i], 30),
        _ => (s, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Bytes in a readable unit, for messages about limits.
fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// Why an input could not be read; the name is the input's, as given.
#[derive(Debug, Error)]
#[error("{name}: {kind}")]
pub struct InputError {
    pub name: String,
    pub kind: InputErrorKind,
}

/// What went wrong, without the input's name (the service words names itself).
#[derive(Debug, Error)]
pub enum InputErrorKind {
    #[error("cannot open: {0}")]
    Open(io::Error),
    #[error("cannot read: {0}")]
    Read(io::Error),
    /// More bytes than `Limits::max_inflated`.
    #[error("{0}")]
    Limit(LimitExceeded),
    /// Not a format jsprof reads (not JSON, or JSON of no known shape).
    #[error("{0}")]
    Format(String),
}

/// A limit of [`Limits`] reached; carried inside `io::Error`s by the decompressing reader.
#[derive(Debug, Error)]
pub struct LimitExceeded {
    message: String,
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl LimitExceeded {
    fn size(limits: &Limits, gzipped: bool) -> LimitExceeded {
        let what = if gzipped {
            "decompresses to"
        } else {
            "is streamed (not a plain file) and has"
        };
        LimitExceeded {
            message: format!(
                "the input {what} more than {} (the limit on input read into memory); {}",
                bytes(limits.max_inflated),
                limits.raise_hint
            ),
        }
    }

    fn ratio(limits: &Limits, inflated: u64, compressed: u64) -> LimitExceeded {
        LimitExceeded {
            message: format!(
                "gzip expands more than {}× (the limit on the compression ratio: {inflated} bytes \
                 from the first {compressed} compressed bytes); refused as a likely decompression \
                 bomb; {}",
                limits.max_ratio, limits.raise_hint
            ),
        }
    }
}

/// The error of a read: a limit reached inside the stream stays a limit.
fn read_error(e: io::Error) -> InputErrorKind {
    if e.get_ref().is_some_and(|r| r.is::<LimitExceeded>()) {
        let inner = e.into_inner().expect("checked above");
        match inner.downcast::<LimitExceeded>() {
            Ok(limit) => InputErrorKind::Limit(*limit),
            Err(other) => InputErrorKind::Read(io::Error::other(other)),
        }
    } else {
        InputErrorKind::Read(e)
    }
}

/// The bytes of an input, mapped or owned, without any byte-order mark.
#[derive(Debug)]
pub enum Text {
    /// A plain file on disk, memory-mapped; the text starts at `start` (after a UTF-8 BOM).
    Mapped {
        map: memmap2::Mmap,
        start: usize,
    },
    Owned(Vec<u8>),
}

impl std::ops::Deref for Text {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Text::Mapped { map, start } => &map[*start..],
            Text::Owned(v) => v,
        }
    }
}

/// Text that a reader reads once, front to back: the pages it has read may leave memory where
/// they come back on access, so that a big input is not resident all at once.
pub trait ReadOnce: std::ops::Deref<Target = [u8]> {
    /// The bytes in `range` have been read; reading them again must still work.
    fn read_past(&self, _range: std::ops::Range<usize>) {}
}

impl ReadOnce for Text {
    /// A mapped file's pages in `range` (whole ones) are dropped from this process: touched
    /// again, they are read back from the file. Owned text keeps its memory.
    fn read_past(&self, range: std::ops::Range<usize>) {
        let Text::Mapped { map, start } = self else {
            return;
        };
        // A smaller page than the system's makes the call fail, which is harmless.
        let page = 4096;
        let from = (start + range.start) / page * page;
        let to = ((start + range.end).min(map.len()) / page) * page;
        if from < to {
            // SAFETY: the map is private and read-only, so dropping pages loses nothing: a
            // later read faults them in from the file again (MADV_DONTNEED on a file mapping).
            // Only a hint: a failure leaves the pages resident.
            #[cfg(unix)]
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
            };
        }
    }
}

impl ReadOnce for Vec<u8> {}
impl ReadOnce for &[u8] {}

impl AsRef<[u8]> for Text {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// The decompressed bytes behind an [`Input`].
enum Body {
    Text(Text),
    /// A stream whose first bytes (`head`, already read for sniffing) come before `rest`.
    Stream {
        head: Vec<u8>,
        rest: Box<dyn BufRead + Send>,
    },
}

/// An opened input: its name, the decompressed, UTF-8 bytes, and what was learnt from its head.
pub struct Input {
    name: String,
    body: Body,
    file_size: Option<u64>,
    gzipped: bool,
    limits: Limits,
}

/// Opens `path` (`-` = stdin): gzip is detected by its magic bytes, a byte-order mark is handled,
/// and the first 64 KB are read so that [`Input::format`] can answer before the rest is read.
pub fn open(path: &Path, limits: &Limits) -> Result<Input, InputError> {
    open_with(path, limits, true)
}

/// As [`open`], for a reader that streams the whole input once (the heap snapshot reader): a
/// plain file is read, not memory-mapped, so the pages already parsed do not stay in the
/// process's memory (a mapped 450 MB snapshot added a third of its size to the peak RSS).
pub fn open_streaming(path: &Path, limits: &Limits) -> Result<Input, InputError> {
    open_with(path, limits, false)
}

fn open_with(path: &Path, limits: &Limits, map_plain_files: bool) -> Result<Input, InputError> {
    let stdin = path == Path::new("-");
    let name = if stdin {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let fail = |kind| InputError {
        name: name.clone(),
        kind,
    };
    let (raw, file_size): (Box<dyn Read + Send>, Option<u64>) = if stdin {
        (Box::new(io::stdin()), None)
    } else {
        let file = File::open(path).map_err(|e| fail(InputErrorKind::Open(e)))?;
        let meta = file.metadata().map_err(|e| fail(InputErrorKind::Read(e)))?;
        if map_plain_files && meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only and private to this process, and nothing writes
            // through it. If another process truncates the file while it is mapped, reading
            // past the new end raises SIGBUS (the trade-off ripgrep makes): the CLI reads files
            // the user names, and the service only ever replaces its files by rename.
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                let utf16 = map.starts_with(b"\xFF\xFE") || map.starts_with(b"\xFE\xFF");
                if !map.starts_with(b"\x1F\x8B") && !utf16 {
                    let start = if map.starts_with(b"\xEF\xBB\xBF") {
                        3
                    } else {
                        0
                    };
                    return Ok(Input {
                        name,
                        body: Body::Text(Text::Mapped { map, start }),
                        file_size: Some(meta.len()),
                        gzipped: false,
                        limits: limits.clone(),
                    });
                }
            }
        }
        // Nothing was read from `file` yet: the stream below starts at its first byte.
        let size = meta.is_file().then_some(meta.len());
        (Box::new(file), size)
    };
    let mut buffered: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(BUF_SIZE, raw));
    let magic = peek(&mut buffered, 2).map_err(|e| fail(InputErrorKind::Read(e)))?;
    let gzipped = magic == [0x1F, 0x8B];
    let buffered: Box<dyn BufRead + Send> = Box::new(Cursor::new(magic).chain(buffered));
    let mut stream: Box<dyn BufRead + Send> = if gzipped {
        let compressed = Arc::new(AtomicU64::new(0));
        let counted = Counting {
            inner: buffered,
            count: compressed.clone(),
        };
        Box::new(BufReader::with_capacity(
            BUF_SIZE,
            RatioLimited {
                inner: MultiGzDecoder::new(counted),
                compressed,
                inflated: 0,
                limits: limits.clone(),
            },
        ))
    } else {
        buffered
    };
    let mut head = peek(&mut stream, SNIFF_LEN).map_err(|e| fail(read_error(e)))?;
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        let little = head[0] == 0xFF;
        let mut all = head;
        read_capped(&mut stream, &mut all, limits, gzipped).map_err(fail)?;
        let text = transcode_utf16(&all[2..], little);
        return Ok(Input {
            name,
            body: Body::Text(Text::Owned(text)),
            file_size,
            gzipped,
            limits: limits.clone(),
        });
    }
    if head.starts_with(b"\xEF\xBB\xBF") {
        head.drain(..3);
    }
    Ok(Input {
        name,
        body: Body::Stream { head, rest: stream },
        file_size,
        gzipped,
        limits: limits.clone(),
    })
}

impl Input {
    /// How the input is named in messages: the path as given, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Size on disk (compressed when gzipped) when known, for progress bars.
    pub fn file_size(&self) -> Option<u64> {
        self.file_size
    }

    pub fn gzipped(&self) -> bool {
        self.gzipped
    }

    /// The format, from the first 64 KB of text: non-JSON is refused here, before the rest of
    /// the input is read.
    pub fn format(&self) -> Result<Format, InputError> {
        let head: &[u8] = match &self.body {
            Body::Text(t) => t,
            Body::Stream { head, .. } => head,
        };
        jsprof_profile::detect(&head[..head.len().min(SNIFF_LEN)]).map_err(|message| {
            // A stream's head stops at 64 KB: all blanks there is not yet an empty input.
            let message = match &self.body {
                Body::Stream { head, .. }
                    if head.len() == SNIFF_LEN && head.iter().all(u8::is_ascii_whitespace) =>
                {
                    "the input starts with more than 64 KB of blanks; expected JSON".to_string()
                }
                _ => message,
            };
            self.error(InputErrorKind::Format(message))
        })
    }

    /// The whole text in memory: mapped for a plain file, else read under `max_inflated`.
    pub fn read_all(self) -> Result<Text, InputError> {
        match self.body {
            Body::Text(t) => Ok(t),
            Body::Stream { mut head, mut rest } => {
                if let Some(size) = self.file_size.filter(|_| !self.gzipped) {
                    head.reserve_exact(
                        (size.min(self.limits.max_inflated) as usize).saturating_sub(head.len()),
                    );
                }
                match read_capped(&mut rest, &mut head, &self.limits, self.gzipped) {
                    Ok(()) => Ok(Text::Owned(head)),
                    Err(kind) => Err(InputError {
                        name: self.name,
                        kind,
                    }),
                }
            }
        }
    }

    /// The decompressed text as a stream (for the streaming heap reader): no size cap, the
    /// gzip ratio still checked.
    pub fn into_reader(self) -> Box<dyn BufRead + Send> {
        match self.body {
            Body::Text(t) => Box::new(Cursor::new(t)),
            Body::Stream { head, rest } => Box::new(Cursor::new(head).chain(rest)),
        }
    }

    fn error(&self, kind: InputErrorKind) -> InputError {
        InputError {
            name: self.name.clone(),
            kind,
        }
    }
}

/// Reads up to `n` bytes (fewer only at the end of input) without losing them: the caller puts
/// them back in front of the stream.
fn peek(reader: &mut dyn BufRead, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    reader.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Appends the rest of `reader` to `buf`, refusing more than `limits.max_inflated` bytes in all.
/// The buffer grows by doubling but never past the limit, so the cap is also the peak.
fn read_capped(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limits: &Limits,
    gzipped: bool,
) -> Result<(), InputErrorKind> {
    let cap = limits.max_inflated.saturating_add(1);
    let mut target = (buf.capacity() as u64).max(buf.len() as u64 + BUF_SIZE as u64);
    loop {
        let target_now = target.min(cap);
        let room = target_now.saturating_sub(buf.len() as u64);
        if room == 0 {
            return Err(InputErrorKind::Limit(LimitExceeded::size(limits, gzipped)));
        }
        let room_usize = usize::try_from(room).unwrap_or(usize::MAX);
        buf.try_reserve_exact(room_usize).map_err(|_| {
            InputErrorKind::Read(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("cannot allocate {} for the input", bytes(target_now)),
            ))
        })?;
        let n = reader.take(room).read_to_end(buf).map_err(read_error)?;
        if (n as u64) < room {
            return Ok(());
        }
        if buf.len() as u64 >= cap {
            return Err(InputErrorKind::Limit(LimitExceeded::size(limits, gzipped)));
        }
        target = target.saturating_mul(2);
    }
}

/// UTF-16 (after its byte-order mark) as UTF-8; unpaired surrogates become U+FFFD, as
/// `TextDecoder` does; an odd last byte is dropped.
fn transcode_utf16(bytes: &[u8], little: bool) -> Vec<u8> {
    let units = bytes.chunks_exact(2).map(|p| {
        if little {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    let mut out = Vec::with_capacity(bytes.len() / 2);
    let mut buf = [0u8; 4];
    for c in char::decode_utf16(units) {
        let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    out
}

/// Counts the compressed bytes the decoder consumes.
struct Counting {
    inner: Box<dyn BufRead + Send>,
    count: Arc<AtomicU64>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl BufRead for Counting {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.count.fetch_add(amt as u64, Ordering::Relaxed);
        self.inner.consume(amt)
    }
}

/// Fails the stream once gzip has expanded more than `max_ratio` times.
struct RatioLimited<R> {
    inner: R,
    compressed: Arc<AtomicU64>,
    inflated: u64,
    limits: Limits,
}

impl<R: Read> Read for RatioLimited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.inflated += n as u64;
        let compressed = self.compressed.load(Ordering::Relaxed).max(1);
        if self.limits.max_ratio > 0
            && self.inflated > RATIO_GRACE
            && self.inflated / compressed > self.limits.max_ratio
        {
            return Err(io::Error::other(LimitExceeded::ratio(
                &self.limits,
                self.inflated,
                compressed,
            )));
        }
        Ok(n)
    }
}

impl From<InputError> for crate::ReportError {
    fn from(e: InputError) -> crate::ReportError {
        crate::ReportError::Input(e.to_string())
    }
}

/// Reads all of the file at `path` under `limits` (the service's entry point).
pub fn read_file_with(path: &Path, limits: &Limits) -> Result<Text, InputError> {
    let input = open(path, limits)?;
    input.format()?;
    input.read_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("jsprof-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    const PROFILE: &[u8] = br#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}"#;

    #[test]
    fn plain_bom_gzip_and_utf16_give_the_same_text() {
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(PROFILE);
        let mut le = vec![0xFF, 0xFE];
        let mut be = vec![0xFE, 0xFF];
        for u in std::str::from_utf8(PROFILE).unwrap().encode_utf16() {
            le.extend_from_slice(&u.to_le_bytes());
            be.extend_from_slice(&u.to_be_bytes());
        }
        let limits = Limits::default();
        for (name, bytes) in [
            ("plain", PROFILE.to_vec()),
            ("bom", bom.clone()),
            ("gz", gz(PROFILE)),
            ("bomgz", gz(&bom)),
            ("le", le),
            ("be", be),
        ] {
            let input = open(&temp(name, &bytes), &limits).unwrap();
            assert_eq!(input.format().unwrap(), Format::CpuProfile, "{name}");
            assert_eq!(&*input.read_all().unwrap(), PROFILE, "{name}");
        }
    }

    #[test]
    fn the_size_cap_stops_reading_at_the_limit() {
        let mut big = br#"{"nodes":["#.to_vec();
        big.resize(1 << 20, b' ');
        let limits = Limits {
            max_inflated: 100_000,
            ..Limits::default()
        };
        let input = open(&temp("cap.gz", &gz(&big)), &limits).unwrap();
        let err = input.read_all().unwrap_err();
        assert!(matches!(err.kind, InputErrorKind::Limit(_)), "{err}");
        assert!(err.to_string().contains("JSPROF_MAX_INFLATED"), "{err}");
    }

    #[test]
    fn the_ratio_refuses_a_bomb_past_the_grace() {
        let mut bomb = br#"{"nodes":["#.to_vec();
        bomb.resize(80 << 20, b' ');
        let input = open(&temp("bomb.gz", &gz(&bomb)), &Limits::default()).unwrap();
        let err = input.read_all().unwrap_err();
        assert!(err.to_string().contains("compression ratio"), "{err}");
    }

    #[test]
    fn binary_input_is_refused_from_its_head() {
        let input = open(&temp("zeros", &[0u8; 1000]), &Limits::default()).unwrap();
        assert!(input.format().unwrap_err().to_string().contains("not JSON"));
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("4g"), Some(4 << 30));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("x"), None);
    }
}
