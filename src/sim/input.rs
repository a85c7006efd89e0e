//! Shared plumbing for the trace readers: errors with positions, lenient
//! mode, line-by-line reading of plain or gzip-compressed input.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Why an input file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read (or its gzip stream is corrupt).
    #[error("{file}: {source}")]
    Io {
        /// File name as given.
        file: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A line does not follow the format.
    #[error("{file}:{line}:{col}: {message}")]
    Syntax {
        /// File name as given.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column (of the offending field or character).
        col: u32,
        /// What is wrong, in one sentence.
        message: String,
    },
    /// The file as a whole is unusable (no nodes, no jobs, unknown format).
    #[error("{file}: {message}")]
    Invalid {
        /// File name as given.
        file: String,
        /// What is wrong.
        message: String,
    },
}

impl InputError {
    /// The 1-based line of a syntax error.
    pub fn line(&self) -> Option<u64> {
        match self {
            InputError::Syntax { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The 1-based column of a syntax error.
    pub fn col(&self) -> Option<u32> {
        match self {
            InputError::Syntax { col, .. } => Some(*col),
            _ => None,
        }
    }

    pub(crate) fn io(file: &str, source: io::Error) -> InputError {
        InputError::Io {
            file: file.to_string(),
            source,
        }
    }

    pub(crate) fn syntax(file: &str, line: u64, col: u32, message: impl Into<String>) -> Self {
        InputError::Syntax {
            file: file.to_string(),
            line,
            col,
            message: message.into(),
        }
    }
}

/// How strictly to read a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Skip malformed lines and count them instead of failing on the first.
    pub lenient: bool,
}

/// Malformed lines kept as examples in [`ReadStats::examples`].
pub const MAX_EXAMPLES: usize = 10;

/// What a reader saw.
#[derive(Debug, Default)]
pub struct ReadStats {
    /// Lines read, comments and blank lines included.
    pub lines: u64,
    /// Well-formed data lines (records) returned.
    pub records: u64,
    /// Comment and blank lines.
    pub comments: u64,
    /// Malformed lines skipped (lenient mode only; strict mode fails instead).
    pub malformed: u64,
    /// The first [`MAX_EXAMPLES`] malformed lines' errors.
    pub examples: Vec<InputError>,
}

impl ReadStats {
    /// Records a malformed line: an error in strict mode, a count in lenient mode.
    pub(crate) fn malformed(
        &mut self,
        err: InputError,
        opts: ReadOptions,
    ) -> Result<(), InputError> {
        if !opts.lenient {
            return Err(err);
        }
        self.malformed += 1;
        if self.examples.len() < MAX_EXAMPLES {
            self.examples.push(err);
        }
        Ok(())
    }
}

/// The gzip magic number: files are recognised by content, not by name.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Wraps a reader so gzip-compressed input is decompressed transparently.
pub fn decompress<'a, R: BufRead + 'a>(mut r: R) -> io::Result<Box<dyn BufRead + 'a>> {
    let head = r.fill_buf()?;
    if head.starts_with(&GZIP_MAGIC) {
        // Multi-member: `cat a.gz b.gz` is a valid gzip file and some
        // archives are built that way.
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(r),
        )))
    } else {
        Ok(Box::new(r))
    }
}

/// Opens a plain or gzip-compressed file for line reading.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, InputError> {
    let name = path.display().to_string();
    let f = File::open(path).map_err(|e| InputError::io(&name, e))?;
    decompress(BufReader::with_capacity(1 << 16, f)).map_err(|e| InputError::io(&name, e))
}

/// Reads plain or gzip-compressed bytes (e.g. `include_bytes!` data).
pub fn from_bytes(bytes: &[u8]) -> Box<dyn BufRead + '_> {
    // Reading a slice cannot fail, and neither can peeking at it.
    decompress(bytes).unwrap_or_else(|_| Box::new(io::empty()))
}

/// Reads a whole (possibly compressed) input into a string, for small files.
pub fn read_to_string(mut r: impl Read, file: &str) -> Result<String, InputError> {
    let mut s = String::new();
    r.read_to_string(&mut s)
        .map_err(|e| InputError::io(file, e))?;
    Ok(s)
}

/// Line reader reusing one buffer: no allocation per line.
pub(crate) struct LineReader<R> {
    r: R,
    buf: Vec<u8>,
    /// 1-based number of the line last returned.
    pub line: u64,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(r: R) -> Self {
        LineReader {
            r,
            buf: Vec::with_capacity(256),
            line: 0,
        }
    }

    /// The next line without its terminator (`\n` or `\r\n`), or `None` at the end.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        self.buf.clear();
        if self.r.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut end = self.buf.len();
        if end > 0 && self.buf[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        Ok(Some(&self.buf[..end]))
    }
}

/// Splits a line into whitespace-separated fields with their 1-based columns.
pub(crate) fn fields(line: &[u8]) -> impl Iterator<Item = (u32, &[u8])> {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < line.len() && line[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= line.len() {
            return None;
        }
        let start = i;
        while i < line.len() && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        Some((start as u32 + 1, &line[start..i]))
    })
}

/// A field as text for messages (lossy, shortened).
pub(crate) fn show(field: &[u8]) -> String {
    show_text(&String::from_utf8_lossy(field))
}

/// `text` as messages quote input: control characters escaped (`\u{1b}`,
/// never sent to the terminal as they are) and cut after 40 characters.
pub(crate) fn show_text(text: &str) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == 40 {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_is_recognised_by_content() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"a\r\nb\n").unwrap();
        let gz = enc.finish().unwrap();
        for bytes in [&gz[..], b"a\r\nb\n"] {
            let mut lr = LineReader::new(from_bytes(bytes));
            assert_eq!(lr.next_line().unwrap(), Some(&b"a"[..]));
            assert_eq!(lr.next_line().unwrap(), Some(&b"b"[..]));
            assert_eq!(lr.line, 2);
            assert_eq!(lr.next_line().unwrap(), None);
        }
    }

    #[test]
    fn corrupt_gzip_is_an_io_error() {
        let mut r = from_bytes(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
        let mut s = String::new();
        assert!(r.read_to_string(&mut s).is_err());
    }

    #[test]
    fn fields_carry_columns() {
        let f: Vec<(u32, &[u8])> = fields(b"  12 ab\tc ").collect();
        assert_eq!(f, vec![(3, &b"12"[..]), (6, &b"ab"[..]), (9, &b"c"[..])]);
    }
}
