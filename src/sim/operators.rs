//! Operators' commands for a simulation, from a file (`mauictl simulate
//! --operators FILE`, docs/simulator.md): what an administrator would type
//! during the trace, at the time they would type it.
//!
//! ```text
//! # WHEN after the first submission, [as USER], the command as typed
//! 2:00:00            setres -u bob -d 4:00:00 node001
//! 1:02:00:00  as ann sethold 1234
//! 1:03:00:00         schedctl -R
//! ```
//!
//! `WHEN` is `[[DD:]HH:]MM:SS` (or plain seconds) after the workload's
//! first submission. The caller is root (ADMIN1) unless `as USER` names
//! another, whose level then comes from ADMIN1/ADMIN2/ADMIN3 as on a live
//! server. The commands are the changing ones of the admin socket
//! (`setres`, `releaseres`, `runjob`, `sethold`, `releasehold`,
//! `canceljob`, `setspri`, `schedctl`), parsed as the server parses them; relative times in
//! `setres` count from `WHEN`. Words are separated by blanks; quotes are
//! not interpreted. Blank lines and `#` comments are skipped. Commands
//! are applied in time order, those with the same `WHEN` in file order.

use super::run::OperatorEvent;
use crate::admin::{auth, ops, Caller, Level};
use crate::config::Config;
use crate::model::Time;

/// The uid operators' commands run as when the file names a user: no real
/// uid, so the level comes from the configuration alone.
const NAMED_UID: u32 = u32::MAX - 1;

/// Reads an operators file into its commands in the order they are
/// applied, each with its line as written; `source` names the file in
/// errors, `first_submit` is the workload's first submission (WHEN counts
/// from it).
pub fn parse_operators(
    source: &str,
    text: &str,
    first_submit: Time,
    cfg: &Config,
) -> Result<Vec<(String, OperatorEvent)>, String> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let at_line = |m: String| format!("{source}:{}: {m}", k + 1);
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(q) = words.iter().find(|w| w.contains(['"', '\''])) {
            return Err(at_line(format!(
                "quotes are not interpreted (in {q}); words are separated by blanks"
            )));
        }
        let when = words[0];
        let offset = match crate::time::parse_duration(when) {
            Ok(Some(d)) if d >= 0 => d,
            _ => {
                return Err(at_line(format!(
                    "expected WHEN as [[DD:]HH:]MM:SS after the first submission, got \"{when}\""
                )))
            }
        };
        let mut rest = &words[1..];
        let caller = match rest {
            ["as", user, tail @ ..] => {
                rest = tail;
                Caller {
                    uid: NAMED_UID,
                    pid: 0,
                    user: user.to_string(),
                    level: auth::level_of(cfg, NAMED_UID, user, u32::MAX),
                }
            }
            ["as"] => return Err(at_line("\"as\" needs a user name".into())),
            _ => Caller {
                uid: 0,
                pid: 0,
                user: "root".into(),
                level: Level::Admin1,
            },
        };
        let Some((cmd, args)) = rest.split_first() else {
            return Err(at_line(format!("a command is needed after \"{when}\"")));
        };
        let at = first_submit.saturating_add(offset);
        let mutation = ops::parse(cmd, args, at, &cfg.zone).map_err(at_line)?;
        let event = OperatorEvent {
            at,
            caller,
            mutation,
        };
        out.push((line.to_string(), event));
    }
    // Stable: the simulator applies them in this order too.
    out.sort_by_key(|(_, e)| e.at);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin::{Mutation, SchedCtl};

    fn cfg() -> Config {
        Config::parse("ADMIN2 ann\n", "maui.cfg").config
    }

    #[test]
    fn times_callers_and_commands() {
        let text = "# an evening\n\n2:00 sethold 7   # a comment\n1:00:00:00 as ann releasehold 7\n90 as bob schedctl -s\n";
        let ev = parse_operators("ops.txt", text, 1000, &cfg()).unwrap();
        let got: Vec<(&str, Time, &str, Level, &Mutation)> = ev
            .iter()
            .map(|(l, e)| {
                (
                    l.as_str(),
                    e.at,
                    e.caller.user.as_str(),
                    e.caller.level,
                    &e.mutation,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "90 as bob schedctl -s",
                    1090,
                    "bob",
                    Level::User,
                    &Mutation::Sched(SchedCtl::Stop { at: None })
                ),
                (
                    "2:00 sethold 7",
                    1120,
                    "root",
                    Level::Admin1,
                    &Mutation::SetHold(vec!["7".into()], crate::admin::HoldTypes::System)
                ),
                (
                    "1:00:00:00 as ann releasehold 7",
                    1000 + 86400,
                    "ann",
                    Level::Admin2,
                    &Mutation::ReleaseHold(vec!["7".into()], crate::admin::HoldTypes::All)
                ),
            ]
        );
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let bad = [
            ("soon sethold 7\n", "ops.txt:1: expected WHEN as [[DD:]HH:]MM:SS after the first submission, got \"soon\""),
            ("\n10\n", "ops.txt:2: a command is needed after \"10\""),
            ("10 as\n", "ops.txt:1: \"as\" needs a user name"),
            ("10 sethold\n", "ops.txt:1: sethold: "),
            ("10 frobnicate x\n", "ops.txt:1: frobnicate: "),
            ("10 setres -u 'a b' n1\n", "ops.txt:1: quotes are not interpreted"),
        ];
        for (text, want) in bad {
            let e = parse_operators("ops.txt", text, 0, &cfg()).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
