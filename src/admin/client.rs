//! The client side: where the socket is, and one request over it.

use super::protocol::{encode_request, Request, Response};
use crate::config::Config;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// State directory assumed when nothing says otherwise (the packaged
/// front ends use it).
pub const DEFAULT_STATE_DIR: &str = "/var/lib/mauisched";

/// Largest response a client reads (a showq of a very large queue fits).
pub const MAX_RESPONSE_BYTES: u64 = 512 * 1024 * 1024;

/// The socket to talk to and what chose it (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Socket path.
    pub path: PathBuf,
    /// Where the path came from.
    pub source: String,
}

/// Finds the socket: `explicit` (`--socket`), else `$MAUISCHED_SOCKET`,
/// else ADMINSOCKET of `cfg` (relative to the state directory), else
/// `run/mauisched.sock` in the state directory (`$MAUISCHED_STATE_DIR`,
/// default [`DEFAULT_STATE_DIR`]).
pub fn locate(explicit: Option<&Path>, cfg: Option<(&Config, &Path)>) -> Located {
    if let Some(p) = explicit {
        return Located {
            path: p.to_path_buf(),
            source: "--socket".into(),
        };
    }
    if let Some(p) = std::env::var_os("MAUISCHED_SOCKET").filter(|v| !v.is_empty()) {
        return Located {
            path: PathBuf::from(p),
            source: "$MAUISCHED_SOCKET".into(),
        };
    }
    let (state, state_src) = match std::env::var_os("MAUISCHED_STATE_DIR").filter(|v| !v.is_empty())
    {
        Some(d) => (PathBuf::from(d), "$MAUISCHED_STATE_DIR"),
        None => (
            PathBuf::from(DEFAULT_STATE_DIR),
            "the default state directory",
        ),
    };
    if let Some((c, file)) = cfg {
        let a = &c.params.admin_socket;
        if !a.is_empty() {
            return Located {
                path: state.join(a),
                source: format!("ADMINSOCKET in {}", file.display()),
            };
        }
    }
    Located {
        path: state.join("run").join("mauisched.sock"),
        source: format!("run/mauisched.sock in {state_src}"),
    }
}

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nobody is listening there.
    #[error("{0}")]
    Connect(io::Error),
    /// The conversation failed.
    #[error("{0}")]
    Io(io::Error),
    /// The answer is not a response.
    #[error("the scheduler's answer is not understood: {0}")]
    BadResponse(String),
}

/// Sends one request and reads the response, waiting at most `timeout`
/// for each step.
pub fn call(path: &Path, req: &Request, timeout: Duration) -> Result<Response, ClientError> {
    let mut s = UnixStream::connect(path).map_err(ClientError::Connect)?;
    s.set_read_timeout(Some(timeout)).map_err(ClientError::Io)?;
    s.set_write_timeout(Some(timeout))
        .map_err(ClientError::Io)?;
    // A scheduler that answers at once (`busy`) may close before the
    // request is written: its answer is still there to read.
    let sent = s.write_all(&encode_request(req));
    let mut buf = Vec::new();
    let read = (&s).take(MAX_RESPONSE_BYTES).read_to_end(&mut buf);
    let line = buf.split(|b| *b == b'\n').next().unwrap_or(&[]);
    if line.is_empty() {
        sent.map_err(ClientError::Io)?;
        read.map_err(ClientError::Io)?;
    }
    serde_json::from_slice(line).map_err(|e| ClientError::BadResponse(e.to_string()))
}
