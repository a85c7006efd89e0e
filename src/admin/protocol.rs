//! The admin socket's wire format: one JSON object per line each way.
//!
//! A client connects, sends one request line and reads one response line;
//! the server then closes the connection.
//!
//! ```text
//! → {"v":1,"cmd":"showq","args":["-r"],"json":false}
//! ← {"v":1,"ok":true,"user":"steve","level":"user","output":"ACTIVE JOBS---..."}
//! → {"v":1,"cmd":"checkjob","args":["17"],"json":true}
//! ← {"v":1,"ok":true,"user":"steve","level":"user","data":{...}}
//! → {"v":1,"cmd":"setres","args":["-u","john","TASKS==2"]}
//! ← {"v":1,"ok":false,"user":"steve","level":"user",
//!    "error":{"code":"permission_denied","message":"...","needs":"ADMIN2"}}
//! ```
//!
//! `args` are the command's arguments exactly as on Maui's command line;
//! `json` asks for the machine-readable form (`data`) instead of Maui's text
//! (`output`). Unknown fields are refused, so a newer client talking to an
//! older server hears why instead of being half understood. A request line
//! is at most [`MAX_REQUEST_BYTES`] long, with at most [`MAX_ARGS`]
//! arguments of at most [`MAX_ARG_BYTES`] each.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Protocol version this library speaks.
pub const VERSION: u32 = 1;
/// Longest request line accepted (bytes, without the newline).
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;
/// Most arguments one request may carry.
pub const MAX_ARGS: usize = 256;
/// Longest single argument (bytes).
pub const MAX_ARG_BYTES: usize = 4096;
/// Longest command name (bytes).
pub const MAX_COMMAND_BYTES: usize = 32;

/// A client's request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Protocol version ([`VERSION`]).
    pub v: u32,
    /// Command name (`showq`, `setres`, ...).
    pub cmd: String,
    /// Arguments as on Maui's command line.
    #[serde(default)]
    pub args: Vec<String>,
    /// JSON output instead of Maui's text.
    #[serde(default)]
    pub json: bool,
}

/// Machine-readable error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request is not valid JSON of the request's shape.
    BadRequest,
    /// The request exceeds a size limit.
    TooLarge,
    /// The request did not arrive in time.
    Timeout,
    /// The client speaks another protocol version.
    Version,
    /// No such command.
    UnknownCommand,
    /// The command's arguments are wrong.
    Usage,
    /// The job, node or reservation named does not exist.
    NotFound,
    /// No scheduling iteration has run yet.
    NoIteration,
    /// The caller's admin level is too low.
    PermissionDenied,
    /// The request is valid but cannot be carried out (no room, wrong state).
    Refused,
    /// Too many clients at once, or the scheduler is still in an iteration
    /// after the wait for its view: try again.
    Busy,
    /// Something failed inside the scheduler.
    Internal,
}

/// Why a request failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// Error code.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
    /// The admin level the command needs (permission_denied only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<String>,
}

/// The server's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Protocol version of the server.
    pub v: u32,
    /// True on success.
    pub ok: bool,
    /// Who the server took the caller to be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The caller's admin level (`user`, `ADMIN3`, `ADMIN2`, `ADMIN1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Text output (Maui's layout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// JSON output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// The error, when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl Response {
    /// A text answer.
    pub fn text(output: String) -> Response {
        Response {
            v: VERSION,
            ok: true,
            user: None,
            level: None,
            output: Some(output),
            data: None,
            error: None,
        }
    }

    /// A JSON answer.
    pub fn data(data: Value) -> Response {
        Response {
            v: VERSION,
            ok: true,
            user: None,
            level: None,
            output: None,
            data: Some(data),
            error: None,
        }
    }

    /// An error answer.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Response {
        Response {
            v: VERSION,
            ok: false,
            user: None,
            level: None,
            output: None,
            data: None,
            error: Some(ErrorBody {
                code,
                message: message.into(),
                needs: None,
            }),
        }
    }

    /// The response as one line (JSON and a newline).
    pub fn encode(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec(self).unwrap_or_else(|_| {
            br#"{"v":1,"ok":false,"error":{"code":"internal","message":"unencodable response"}}"#
                .to_vec()
        });
        v.push(b'\n');
        v
    }
}

/// A request that cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProtoError {
    /// Error code for the response.
    pub code: ErrorCode,
    /// Why.
    pub message: String,
}

fn proto(code: ErrorCode, message: impl Into<String>) -> ProtoError {
    ProtoError {
        code,
        message: message.into(),
    }
}

/// Reads one request line (without its newline; a trailing `\r` is
/// allowed), checking every limit.
pub fn parse_request(line: &[u8]) -> Result<Request, ProtoError> {
    if line.len() > MAX_REQUEST_BYTES {
        return Err(proto(
            ErrorCode::TooLarge,
            format!(
                "the request is {} bytes (at most {MAX_REQUEST_BYTES})",
                line.len()
            ),
        ));
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line)
        .map_err(|_| proto(ErrorCode::BadRequest, "the request is not UTF-8"))?;
    if text.trim().is_empty() {
        return Err(proto(ErrorCode::BadRequest, "empty request"));
    }
    let req: Request = serde_json::from_str(text).map_err(|e| {
        proto(
            ErrorCode::BadRequest,
            format!("the request is not a JSON request object: {e}"),
        )
    })?;
    if req.v != VERSION {
        return Err(proto(
            ErrorCode::Version,
            format!(
                "protocol version {} is not spoken here (this server speaks {VERSION})",
                req.v
            ),
        ));
    }
    if req.cmd.is_empty() || req.cmd.len() > MAX_COMMAND_BYTES {
        return Err(proto(
            ErrorCode::BadRequest,
            format!("the command name must be 1 to {MAX_COMMAND_BYTES} bytes"),
        ));
    }
    if req.args.len() > MAX_ARGS {
        return Err(proto(
            ErrorCode::TooLarge,
            format!("{} arguments (at most {MAX_ARGS})", req.args.len()),
        ));
    }
    if let Some(a) = req.args.iter().find(|a| a.len() > MAX_ARG_BYTES) {
        return Err(proto(
            ErrorCode::TooLarge,
            format!("an argument is {} bytes (at most {MAX_ARG_BYTES})", a.len()),
        ));
    }
    if req
        .args
        .iter()
        .chain(std::iter::once(&req.cmd))
        .any(|a| a.contains('\0'))
    {
        return Err(proto(ErrorCode::BadRequest, "NUL in the request"));
    }
    Ok(req)
}

/// Encodes a request line (JSON and a newline).
pub fn encode_request(req: &Request) -> Vec<u8> {
    let mut v = serde_json::to_vec(req).unwrap_or_default();
    v.push(b'\n');
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn round_trip_and_limits() {
        let r = Request {
            v: 1,
            cmd: "showq".into(),
            args: vec!["-r".into()],
            json: true,
        };
        let line = encode_request(&r);
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(parse_request(&line[..line.len() - 1]), Ok(r));
        assert_eq!(
            parse_request(br#"{"v":1,"cmd":"showq"}"#).unwrap().args,
            Vec::<String>::new()
        );
        let err = |s: &[u8]| parse_request(s).unwrap_err().code;
        assert_eq!(err(b""), ErrorCode::BadRequest);
        assert_eq!(err(b"showq"), ErrorCode::BadRequest);
        assert_eq!(err(br#"{"v":2,"cmd":"showq"}"#), ErrorCode::Version);
        assert_eq!(err(br#"{"v":1,"cmd":""}"#), ErrorCode::BadRequest);
        assert_eq!(
            err(br#"{"v":1,"cmd":"showq","extra":1}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(err(&[0xff, 0xfe]), ErrorCode::BadRequest);
        assert_eq!(err(&vec![b' '; MAX_REQUEST_BYTES + 1]), ErrorCode::TooLarge);
        let many = format!(
            r#"{{"v":1,"cmd":"showq","args":[{}]}}"#,
            vec!["\"x\""; MAX_ARGS + 1].join(",")
        );
        assert_eq!(err(many.as_bytes()), ErrorCode::TooLarge);
        let long = format!(
            r#"{{"v":1,"cmd":"showq","args":["{}"]}}"#,
            "x".repeat(MAX_ARG_BYTES + 1)
        );
        assert_eq!(err(long.as_bytes()), ErrorCode::TooLarge);
        assert_eq!(
            err(br#"{"v":1,"cmd":"showq","args":["a\u0000b"]}"#),
            ErrorCode::BadRequest
        );
    }

    #[test]
    fn responses_encode_as_one_line() {
        let r = Response::text("line 1\nline 2\n".into());
        let enc = r.encode();
        assert_eq!(enc.iter().filter(|b| **b == b'\n').count(), 1);
        let back: Response = serde_json::from_slice(&enc).unwrap();
        assert_eq!(back, r);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Arbitrary bytes never panic the parser, and whatever it accepts
        /// keeps every limit.
        #[test]
        fn parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            if let Ok(r) = parse_request(&bytes) {
                prop_assert_eq!(r.v, VERSION);
                prop_assert!(!r.cmd.is_empty() && r.cmd.len() <= MAX_COMMAND_BYTES);
                prop_assert!(r.args.len() <= MAX_ARGS);
            }
        }

        /// Mutated valid requests: parsed or refused with a code, never a panic.
        #[test]
        fn mutated_requests(
            cmd in "[a-z]{0,40}",
            args in proptest::collection::vec(".{0,20}", 0..8),
            json in any::<bool>(),
            cut in 0usize..200,
            flip in proptest::collection::vec((0usize..200, any::<u8>()), 0..4),
        ) {
            let req = Request { v: 1, cmd, args, json };
            let mut line = encode_request(&req);
            line.pop();
            let good = parse_request(&line);
            if !req.cmd.is_empty() && req.cmd.len() <= MAX_COMMAND_BYTES
                && !req.args.iter().any(|a| a.contains('\0'))
            {
                prop_assert_eq!(good, Ok(req.clone()));
            }
            for (i, b) in flip {
                if !line.is_empty() {
                    let i = i % line.len();
                    line[i] = b;
                }
            }
            line.truncate(line.len().saturating_sub(cut % (line.len() + 1)));
            let _ = parse_request(&line);
        }
    }
}
