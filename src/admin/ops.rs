//! Commands that change the scheduler, parsed from Maui's command lines
//! before anything is locked: a malformed request is refused without
//! touching the engine. What the values mean against the live cluster
//! (hosts exist, the job is queued, resources are free) is checked when the
//! change is made, still before anything changes.

use crate::model::time::{civil_from_days, days_from_civil, parse_duration, Zone};
use crate::model::{HoldKind, Secs, Time};
use crate::reservation::AdminRequest;

/// The commands that change something.
pub const MUTATIONS: [&str; 9] = [
    "canceljob",
    "resetstats",
    "setres",
    "releaseres",
    "runjob",
    "sethold",
    "releasehold",
    "setspri",
    "schedctl",
];

/// What `schedctl` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedCtl {
    /// `-R`: reread maui.cfg.
    Reconfigure,
    /// `-s [ITERATION]`: stop scheduling (plans carry no starts) now, or
    /// once iteration number ITERATION has run.
    Stop {
        /// The iteration to stop after; `None`: now.
        at: Option<u64>,
    },
    /// `-S [COUNT]`: run COUNT more iterations, then stop.
    Step(u64),
    /// `-r [SECONDS]`: resume scheduling.
    Resume,
    /// `-k`: Maui shuts down; mauisched, inside the RM's daemon, stops
    /// scheduling until `-r`.
    Kill,
    /// `-n`: the node table, one resource trace line per node.
    NodeTable,
}

/// The holds sethold and releasehold mean: Maui's `-s`, `-u` and `-a`
/// (the last flag given wins, as in Maui).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HoldTypes {
    /// `-s`: the system (administrator) hold; sethold's default here.
    System,
    /// `-u`: the user hold.
    User,
    /// `-a`: every hold the RM keeps (user and system); releasehold's
    /// default, as in Maui.
    All,
}

impl HoldTypes {
    /// The hold kinds meant.
    pub fn kinds(self) -> &'static [HoldKind] {
        match self {
            HoldTypes::System => &[HoldKind::System],
            HoldTypes::User => &[HoldKind::User],
            HoldTypes::All => &[HoldKind::User, HoldKind::System],
        }
    }
}

/// A change an operator asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// setres: create an administrative reservation.
    SetRes(Box<AdminRequest>),
    /// releaseres: release these reservations.
    ReleaseRes(Vec<String>),
    /// runjob: start the job at the next iteration, on these nodes
    /// (name, tasks or as many as fit) or wherever it fits.
    RunJob {
        /// Job id.
        job: String,
        /// `-n`: nodes, with task counts when given.
        nodes: Option<Vec<(String, Option<u32>)>>,
    },
    /// sethold: place holds through the RM.
    SetHold(Vec<String>, HoldTypes),
    /// releasehold: remove holds through the RM.
    ReleaseHold(Vec<String>, HoldTypes),
    /// canceljob: cancel queued or running jobs through the RM.
    CancelJob(Vec<String>),
    /// setspri: set (or, with 0, clear) a job's system priority.
    SetSpri {
        /// Job id.
        job: String,
        /// Priority (0 clears).
        priority: i64,
    },
    /// setspri -r: add to a job's system priority (the sum kept within
    /// 0 and MAXPRIOVAL).
    SetSpriRelative {
        /// Job id.
        job: String,
        /// What to add (may be negative).
        delta: i64,
    },
    /// schedctl.
    Sched(SchedCtl),
    /// resetstats: start the statistics afresh.
    ResetStats,
}

/// Maui's synopsis of a command that changes something.
pub fn synopsis(cmd: &str) -> &'static str {
    match cmd {
        "setres" => "setres [-a ACCOUNTS] [-c CHARGEACCOUNT] [-d DURATION] [-e ENDTIME] [-E] [-f FEATURES] [-g GROUPS] [-n NAME] [-o OWNER] [-p PARTITION] [-q CLASSES] [-Q QOS] [-r RESOURCES] [-s STARTTIME] [-u USERS] [-x FLAGS] {ALL | TASKS==N | HOSTEXPR}",
        "releaseres" => "releaseres RESID [RESID...]",
        "runjob" => "runjob [-c] [-f] [-x] [-n NODE[:TASKS][,NODE[:TASKS]...]] JOBID",
        "sethold" => "sethold [-a|-s|-u] JOBID [JOBID...]",
        "releasehold" => "releasehold [-a|-s|-u] JOBID [JOBID...]",
        "canceljob" => "canceljob JOBID [JOBID...]",
        "setspri" => "setspri [-r] PRIORITY JOBID",
        "resetstats" => "resetstats",
        _ => "schedctl -r [SECONDS] | -R | -s [ITERATION] | -S [COUNT] | -k | -n",
    }
}

fn usage(cmd: &str, what: impl std::fmt::Display) -> String {
    format!("{cmd}: {what} (usage: {})", synopsis(cmd))
}

fn num(s: &str, what: &str, max: u32) -> Result<u32, String> {
    if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} \"{s}\" is not a number"));
    }
    let v: u32 = s
        .parse()
        .map_err(|_| format!("{what} \"{s}\" is too large"))?;
    if v > max {
        return Err(format!("{what} {v} is out of range (at most {max})"));
    }
    Ok(v)
}

/// Reads a Maui time: `NOW`, `+[[[DD:]HH:]MM:]SS` (from `now`), or
/// `[HH[:MM[:SS]]][_MO[/DD[/YY]]]` (a local clock time and date in `zone`,
/// like every time mauisched shows; the date defaults to `now`'s local
/// date). `INFINITY` gives `None`.
pub fn parse_time(text: &str, now: Time, zone: &Zone) -> Result<Option<Time>, String> {
    let t = text.trim();
    let up = t.to_ascii_uppercase();
    if up == "NOW" {
        return Ok(Some(now));
    }
    if up == "INFINITY" || up == "INFINITE" {
        return Ok(None);
    }
    if let Some(rel) = t.strip_prefix('+') {
        let d = parse_duration(rel)?.ok_or("a relative time cannot be INFINITY")?;
        return Ok(Some(now.saturating_add(d)));
    }
    let (clock, date) = match t.split_once('_') {
        Some((c, d)) => (c, Some(d)),
        None => (t, None),
    };
    let today = zone.local(now);
    let (mut year, mut month, mut day) = (today.year, today.month, today.day);
    if let Some(d) = date {
        let parts: Vec<&str> = d.split('/').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(format!("date \"{d}\": expected MO[/DD[/YY]]"));
        }
        month = num(parts[0], "month", 12)?;
        if month == 0 {
            return Err("month 0 is out of range".into());
        }
        if let Some(dd) = parts.get(1) {
            day = num(dd, "day", 31)?;
            if day == 0 {
                return Err("day 0 is out of range".into());
            }
        }
        if let Some(yy) = parts.get(2) {
            let y = num(yy, "year", 9999)? as i64;
            year = if y < 100 { 2000 + y } else { y };
        }
    }
    let secs = if clock.is_empty() {
        0
    } else {
        let parts: Vec<&str> = clock.split(':').collect();
        if parts.len() > 3 {
            return Err(format!(
                "time \"{t}\": expected NOW, +[[[DD:]HH:]MM:]SS or [HH[:MM[:SS]]][_MO[/DD[/YY]]]"
            ));
        }
        let h = num(parts[0], "hour", 23)? as Secs;
        let m = parts
            .get(1)
            .map(|x| num(x, "minute", 59))
            .transpose()?
            .unwrap_or(0) as Secs;
        let s = parts
            .get(2)
            .map(|x| num(x, "second", 59))
            .transpose()?
            .unwrap_or(0) as Secs;
        h * 3600 + m * 60 + s
    };
    let days = days_from_civil(year, month, day);
    if civil_from_days(days) != (year, month, day) {
        return Err(format!("{year:04}-{month:02}-{day:02} is not a date"));
    }
    Ok(Some(zone.at(days, secs)))
}

fn need<'a>(
    cmd: &str,
    it: &mut std::slice::Iter<'a, &'a str>,
    flag: &str,
) -> Result<&'a str, String> {
    it.next()
        .copied()
        .ok_or_else(|| usage(cmd, format!("{flag} needs a value")))
}

fn parse_setres(args: &[&str], now: Time, zone: &Zone) -> Result<AdminRequest, String> {
    let cmd = "setres";
    let mut r = AdminRequest::default();
    let mut hosts: Vec<&str> = Vec::new();
    let mut it = args.iter();
    let set = |slot: &mut Option<String>, v: &str, flag: &str| -> Result<(), String> {
        if slot.is_some() {
            return Err(usage(cmd, format!("{flag} is given twice")));
        }
        *slot = Some(v.to_string());
        Ok(())
    };
    while let Some(a) = it.next() {
        match *a {
            "-a" => set(&mut r.accounts, need(cmd, &mut it, a)?, a)?,
            "-c" => set(&mut r.charge_account, need(cmd, &mut it, a)?, a)?,
            "-f" => set(&mut r.features, need(cmd, &mut it, a)?, a)?,
            "-g" => set(&mut r.groups, need(cmd, &mut it, a)?, a)?,
            "-n" => set(&mut r.name, need(cmd, &mut it, a)?, a)?,
            "-o" => set(&mut r.owner, need(cmd, &mut it, a)?, a)?,
            "-p" => set(&mut r.partition, need(cmd, &mut it, a)?, a)?,
            "-q" => set(&mut r.classes, need(cmd, &mut it, a)?, a)?,
            "-Q" => set(&mut r.qos, need(cmd, &mut it, a)?, a)?,
            "-r" => set(&mut r.resources, need(cmd, &mut it, a)?, a)?,
            "-u" => set(&mut r.users, need(cmd, &mut it, a)?, a)?,
            "-x" => set(&mut r.flags, need(cmd, &mut it, a)?, a)?,
            "-E" => r.access = Some("DEDICATED".into()),
            "-s" => {
                let v = need(cmd, &mut it, a)?;
                r.start = Some(
                    parse_time(v, now, zone)
                        .map_err(|e| usage(cmd, format!("-s {v}: {e}")))?
                        .ok_or_else(|| usage(cmd, "-s: a start cannot be INFINITY"))?,
                );
            }
            "-e" => {
                let v = need(cmd, &mut it, a)?;
                // An INFINITY end is the default (no end, no duration).
                r.end = parse_time(v, now, zone).map_err(|e| usage(cmd, format!("-e {v}: {e}")))?;
            }
            "-d" => {
                let v = need(cmd, &mut it, a)?;
                r.duration = parse_duration(v).map_err(|e| usage(cmd, format!("-d {v}: {e}")))?;
            }
            "-b" | "-R" | "-T" => {
                return Err(usage(
                    cmd,
                    format!(
                    "{a} (subtypes, reservation profiles, triggers) is not supported by mauisched"
                ),
                ))
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(usage(cmd, format!("unknown option \"{s}\"")))
            }
            s => {
                let up = s.to_ascii_uppercase();
                if let Some(n) = up
                    .strip_prefix("TASKS==")
                    .or_else(|| up.strip_prefix("TASKS>="))
                {
                    if r.tasks.is_some() {
                        return Err(usage(cmd, "the task count is given twice"));
                    }
                    r.tasks = Some(n.parse().ok().filter(|&t: &u32| t > 0).ok_or_else(|| {
                        usage(cmd, format!("\"{s}\": expected TASKS==<N>, N at least 1"))
                    })?);
                } else {
                    hosts.push(s);
                }
            }
        }
    }
    if !hosts.is_empty() {
        if hosts.len() > 1 && hosts.iter().any(|h| h.eq_ignore_ascii_case("ALL")) {
            return Err(usage(cmd, "ALL takes every node: give no other host"));
        }
        r.hosts = Some(hosts.join(","));
    }
    if r.tasks.is_none() && r.hosts.is_none() {
        return Err(usage(
            cmd,
            "a resource expression is needed: ALL, TASKS==<N> or a host expression",
        ));
    }
    Ok(r)
}

/// `runjob -n` node list: `n1,n2`, `n1:2,n2:1` or `n1:n2`.
fn parse_nodes(v: &str) -> Result<Vec<(String, Option<u32>)>, String> {
    let mut out: Vec<(String, Option<u32>)> = Vec::new();
    for piece in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match piece.rsplit_once(':') {
            Some((name, t)) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
                let tasks: u32 = t
                    .parse()
                    .map_err(|_| format!("task count \"{t}\" is too large"))?;
                if tasks == 0 || name.is_empty() || name.contains(':') {
                    return Err(format!(
                        "\"{piece}\": expected NODE[:TASKS] with TASKS at least 1"
                    ));
                }
                out.push((name.to_string(), Some(tasks)));
            }
            _ => out.extend(
                piece
                    .split(':')
                    .filter(|n| !n.is_empty())
                    .map(|n| (n.to_string(), None)),
            ),
        }
    }
    if out.is_empty() {
        return Err("the node list is empty".into());
    }
    let mut names: Vec<&str> = out.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("node {} is listed twice", w[0]));
    }
    Ok(out)
}

fn jobs(cmd: &str, ids: &[&str]) -> Result<Vec<String>, String> {
    if ids.is_empty() {
        return Err(usage(cmd, "a job id is needed"));
    }
    if let Some(o) = ids.iter().find(|a| a.starts_with('-')) {
        return Err(usage(cmd, format!("unknown option \"{o}\"")));
    }
    let mut v: Vec<String> = Vec::new();
    for id in ids {
        if !v.iter().any(|x| x == id) {
            v.push(id.to_string());
        }
    }
    Ok(v)
}

/// Parses a changing command; `now` is the scheduler's clock (relative
/// and date-less times in setres count from it) and `zone` the site's
/// (setres's clock times and dates are local).
pub fn parse(cmd: &str, args: &[&str], now: Time, zone: &Zone) -> Result<Mutation, String> {
    match cmd {
        "setres" => parse_setres(args, now, zone).map(|r| Mutation::SetRes(Box::new(r))),
        "releaseres" => {
            if args.is_empty() {
                return Err(usage(cmd, "a reservation id is needed"));
            }
            if let Some(o) = args.iter().find(|a| a.starts_with('-')) {
                return Err(usage(cmd, format!("unknown option \"{o}\"")));
            }
            let mut ids: Vec<String> = Vec::new();
            for a in args {
                if !ids.iter().any(|x| x == a) {
                    ids.push(a.to_string());
                }
            }
            Ok(Mutation::ReleaseRes(ids))
        }
        "runjob" => {
            let mut nodes = None;
            let mut job = None;
            let mut it = args.iter();
            while let Some(a) = it.next() {
                match *a {
                    "-n" => {
                        let v = need(cmd, &mut it, a)?;
                        nodes =
                            Some(parse_nodes(v).map_err(|e| usage(cmd, format!("-n {v}: {e}")))?);
                    }
                    // runjob always starts the job past policies and
                    // reservations (Maui's -x); -f and -x say so, and -c
                    // has no earlier failures to clear.
                    "-c" | "-f" | "-x" => {}
                    s if s.starts_with('-') && s.len() > 1 => {
                        return Err(usage(cmd, format!("unknown option \"{s}\"")))
                    }
                    s if job.is_none() => job = Some(s.to_string()),
                    s => return Err(usage(cmd, format!("unexpected argument \"{s}\""))),
                }
            }
            let job = job.ok_or_else(|| usage(cmd, "a job id is needed"))?;
            Ok(Mutation::RunJob { job, nodes })
        }
        "sethold" | "releasehold" => {
            let mut types = if cmd == "sethold" {
                HoldTypes::System
            } else {
                HoldTypes::All
            };
            let mut rest = args;
            while let Some((flag, tail)) = rest.split_first() {
                types = match *flag {
                    "-a" => HoldTypes::All,
                    "-s" => HoldTypes::System,
                    "-u" => HoldTypes::User,
                    _ => break,
                };
                rest = tail;
            }
            let jobs = jobs(cmd, rest)?;
            Ok(if cmd == "sethold" {
                Mutation::SetHold(jobs, types)
            } else {
                Mutation::ReleaseHold(jobs, types)
            })
        }
        "canceljob" => jobs(cmd, args).map(Mutation::CancelJob),
        "setspri" => match args {
            ["-r", p, job] if !job.starts_with('-') => {
                let delta: i64 = p
                    .parse()
                    .map_err(|_| usage(cmd, format!("\"{p}\" is not a priority")))?;
                Ok(Mutation::SetSpriRelative {
                    job: job.to_string(),
                    delta,
                })
            }
            [p, job] if !job.starts_with('-') => {
                let priority: i64 = p
                    .parse()
                    .map_err(|_| usage(cmd, format!("\"{p}\" is not a priority")))?;
                if !(0..=crate::priority::MAX_PRIO_VAL).contains(&priority) {
                    return Err(usage(
                        cmd,
                        format!(
                            "priority {priority} is out of range (0 clears, 1 to {} set)",
                            crate::priority::MAX_PRIO_VAL
                        ),
                    ));
                }
                Ok(Mutation::SetSpri {
                    job: job.to_string(),
                    priority,
                })
            }
            _ => Err(usage(cmd, "a priority and a job id are needed")),
        },
        "schedctl" => {
            // -v and -V (verbose) change nothing here.
            let args: Vec<&str> = args
                .iter()
                .copied()
                .filter(|a| !matches!(*a, "-v" | "-V"))
                .collect();
            let count = |flag: &str, v: &str| -> Result<u64, String> {
                v.parse::<u64>()
                    .map_err(|_| usage(cmd, format!("{flag} {v}: expected a number of iterations")))
            };
            let ctl = match args.as_slice() {
                ["-R"] => SchedCtl::Reconfigure,
                ["-s"] => SchedCtl::Stop { at: None },
                ["-s", n] => SchedCtl::Stop {
                    at: Some(count("-s", n)?),
                },
                ["-S"] => SchedCtl::Step(1),
                ["-S", n] => SchedCtl::Step(count("-S", n)?.max(1)),
                ["-r"] => SchedCtl::Resume,
                ["-r", secs] => {
                    count("-r", secs)
                        .map_err(|_| usage(cmd, format!("-r {secs}: expected seconds")))?;
                    SchedCtl::Resume
                }
                ["-k"] => SchedCtl::Kill,
                ["-n"] => SchedCtl::NodeTable,
                ["-n", _] => {
                    return Err(usage(
                        cmd,
                        "-n FILE: the client writes FILE (mauictl schedctl -n FILE); ask with -n alone",
                    ))
                }
                _ => {
                    return Err(usage(
                        cmd,
                        "exactly one of -r [SECONDS], -R, -s [ITERATION], -S [COUNT], -k or -n is needed",
                    ))
                }
            };
            Ok(Mutation::Sched(ctl))
        }
        "resetstats" => match args {
            [] => Ok(Mutation::ResetStats),
            [a, ..] => Err(usage(cmd, format!("unexpected argument \"{a}\""))),
        },
        _ => Err(format!("{cmd}: not a command that changes the scheduler")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::time::DAY;
    use proptest::prelude::*;

    // Fri Aug 18 18:00:00 2000 UTC.
    const NOW: Time = 966_621_600;

    #[test]
    fn maui_times() {
        assert_eq!(parse_time("NOW", NOW, &Zone::utc()), Ok(Some(NOW)));
        assert_eq!(
            parse_time("+24:00:00", NOW, &Zone::utc()),
            Ok(Some(NOW + DAY))
        );
        assert_eq!(
            parse_time("+1:00:00:00", NOW, &Zone::utc()),
            Ok(Some(NOW + DAY))
        );
        assert_eq!(parse_time("INFINITY", NOW, &Zone::utc()), Ok(None));
        // Today at 20:00 and 08:00 (earlier today).
        assert_eq!(
            parse_time("20", NOW, &Zone::utc()),
            Ok(Some(NOW + 2 * 3600))
        );
        assert_eq!(
            parse_time("8:00:00", NOW, &Zone::utc()),
            Ok(Some(NOW - 10 * 3600))
        );
        // Maui's example: 8:00 on June 20 (this year), 17:00 on June 22.
        let jun20 = days_from_civil(2000, 6, 20) * DAY;
        assert_eq!(
            parse_time("8:00:00_06/20", NOW, &Zone::utc()),
            Ok(Some(jun20 + 8 * 3600))
        );
        assert_eq!(
            parse_time("17:00:00_06/22", NOW, &Zone::utc()),
            Ok(Some(jun20 + 2 * DAY + 17 * 3600))
        );
        assert_eq!(
            parse_time("14:30_06/20/01", NOW, &Zone::utc()),
            Ok(Some(days_from_civil(2001, 6, 20) * DAY + 14 * 3600 + 1800))
        );
        assert_eq!(
            parse_time("_08/19", NOW, &Zone::utc()),
            Ok(Some(NOW + 6 * 3600))
        );
        for bad in [
            "24",
            "1:60",
            "8:00_13/01",
            "8:00_02/30",
            "x",
            "1:2:3:4",
            "+x",
            "_",
        ] {
            assert!(parse_time(bad, NOW, &Zone::utc()).is_err(), "{bad}");
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
    }

    #[test]
    fn setres_times_are_local_and_keep_their_clock_across_daylight_saving() {
        // Chicago by POSIX rule; daylight saving 8 March to 1 November 2026.
        let z = Zone::named("CST6CDT,M3.2.0,M11.1.0").unwrap();
        let utc = |mo: u32, d: u32, h: i64| days_from_civil(2026, mo, d) * DAY + h * 3600;
        // Thursday 26 November 2026 23:30 CST is Friday 05:30 UTC: "today"
        // is Chicago's Thursday.
        let now = utc(11, 27, 5) + 1800;
        // setres -s 08:00:00_11/27: 08:00 in Chicago, 14:00 UTC.
        assert_eq!(
            parse_time("08:00:00_11/27", now, &z),
            Ok(Some(utc(11, 27, 14)))
        );
        assert_eq!(parse_time("08:00:00", now, &z), Ok(Some(utc(11, 26, 14))));
        // Across the spring change: 08:00 CST on 7 March, 08:00 CDT on the
        // 8th and 9th (13:00 UTC).
        assert_eq!(parse_time("08:00_03/07", now, &z), Ok(Some(utc(3, 7, 14))));
        assert_eq!(parse_time("08:00_03/08", now, &z), Ok(Some(utc(3, 8, 13))));
        assert_eq!(parse_time("08:00_03/09", now, &z), Ok(Some(utc(3, 9, 13))));
        // 02:30 on 8 March does not exist: 03:30 CDT, as the clocks read.
        assert_eq!(
            parse_time("02:30_03/08", now, &z),
            Ok(Some(utc(3, 8, 8) + 1800))
        );
        // Relative times do not care about the zone.
        assert_eq!(parse_time("+1:00:00", now, &z), Ok(Some(now + 3600)));
        // A reservation from setres -s/-e in that zone.
        match parse(
            "setres",
            &["-s", "08:00_03/08", "-e", "17:00_03/08", "n1"],
            now,
            &z,
        ) {
            Ok(Mutation::SetRes(r)) => {
                assert_eq!(r.start, Some(utc(3, 8, 13)));
                assert_eq!(r.end, Some(utc(3, 8, 22)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn setres_command_lines() {
        let p = |a: &[&str]| parse("setres", a, NOW, &Zone::utc());
        match p(&[
            "-u",
            "john:mary",
            "-s",
            "+24:00:00",
            "-d",
            "8:00:00",
            "TASKS==2",
        ])
        .unwrap()
        {
            Mutation::SetRes(r) => {
                assert_eq!(r.users.as_deref(), Some("john:mary"));
                assert_eq!(r.start, Some(NOW + DAY));
                assert_eq!(r.duration, Some(8 * 3600));
                assert_eq!(r.tasks, Some(2));
                assert_eq!(r.hosts, None);
            }
            m => panic!("{m:?}"),
        }
        match p(&[
            "-r",
            "PROCS=1:MEM=512",
            "-g",
            "staff",
            "-q",
            "interactive",
            "node00[3-6]",
        ])
        .unwrap()
        {
            Mutation::SetRes(r) => {
                assert_eq!(r.hosts.as_deref(), Some("node00[3-6]"));
                assert_eq!(r.resources.as_deref(), Some("PROCS=1:MEM=512"));
                assert_eq!(r.classes.as_deref(), Some("interactive"));
            }
            m => panic!("{m:?}"),
        }
        match p(&["-s", "8:00:00_06/20", "-e", "17:00:00_06/22", "ALL"]).unwrap() {
            Mutation::SetRes(r) => {
                assert_eq!(r.hosts.as_deref(), Some("ALL"));
                assert!(r.end.unwrap() > r.start.unwrap());
            }
            m => panic!("{m:?}"),
        }
        assert!(p(&[])
            .unwrap_err()
            .contains("a resource expression is needed"));
        assert!(p(&["-u"]).unwrap_err().contains("-u needs a value"));
        assert!(p(&["-u", "a", "-u", "b", "ALL"])
            .unwrap_err()
            .contains("twice"));
        assert!(p(&["-s", "25:00", "ALL"]).unwrap_err().contains("hour 25"));
        assert!(p(&["TASKS==0"]).is_err());
        assert!(p(&["-T", "x", "ALL"])
            .unwrap_err()
            .contains("not supported"));
        assert!(p(&["-z", "ALL"]).unwrap_err().contains("unknown option"));
        assert!(p(&["ALL", "n1"]).is_err());
    }

    #[test]
    fn other_command_lines() {
        assert_eq!(
            parse("runjob", &["-n", "n1:2,n2", "17"], NOW, &Zone::utc()),
            Ok(Mutation::RunJob {
                job: "17".into(),
                nodes: Some(vec![("n1".into(), Some(2)), ("n2".into(), None)])
            })
        );
        assert_eq!(
            parse("runjob", &["-n", "n1:n2", "17"], NOW, &Zone::utc()),
            Ok(Mutation::RunJob {
                job: "17".into(),
                nodes: Some(vec![("n1".into(), None), ("n2".into(), None)])
            })
        );
        assert!(parse("runjob", &["-n", "n1,n1", "17"], NOW, &Zone::utc()).is_err());
        assert!(parse("runjob", &[], NOW, &Zone::utc()).is_err());
        assert_eq!(
            parse("sethold", &["1", "2", "1"], NOW, &Zone::utc()),
            Ok(Mutation::SetHold(
                vec!["1".into(), "2".into()],
                HoldTypes::System
            ))
        );
        assert!(parse("sethold", &["-b", "1"], NOW, &Zone::utc()).is_err());
        assert_eq!(
            parse("sethold", &["-u", "1"], NOW, &Zone::utc()),
            Ok(Mutation::SetHold(vec!["1".into()], HoldTypes::User))
        );
        // The last flag wins, as in Maui; releasehold's default is every hold.
        assert_eq!(
            parse("releasehold", &["-u", "-s", "1"], NOW, &Zone::utc()),
            Ok(Mutation::ReleaseHold(vec!["1".into()], HoldTypes::System))
        );
        assert_eq!(
            parse("releasehold", &["1"], NOW, &Zone::utc()),
            Ok(Mutation::ReleaseHold(vec!["1".into()], HoldTypes::All))
        );
        assert_eq!(
            parse("canceljob", &["7", "8", "7"], NOW, &Zone::utc()),
            Ok(Mutation::CancelJob(vec!["7".into(), "8".into()]))
        );
        assert!(parse("canceljob", &[], NOW, &Zone::utc()).is_err());
        assert!(parse("canceljob", &["-x", "7"], NOW, &Zone::utc()).is_err());
        assert_eq!(
            parse("setspri", &["10", "orion.4752"], NOW, &Zone::utc()),
            Ok(Mutation::SetSpri {
                job: "orion.4752".into(),
                priority: 10
            })
        );
        assert_eq!(
            parse("setspri", &["-r", "-50", "j"], NOW, &Zone::utc()),
            Ok(Mutation::SetSpriRelative {
                job: "j".into(),
                delta: -50
            })
        );
        assert!(parse("setspri", &["-5", "j"], NOW, &Zone::utc()).is_err());
        // Maui's meanings: -r resumes, -R reconfigures.
        assert_eq!(
            parse("schedctl", &["-R"], NOW, &Zone::utc()),
            Ok(Mutation::Sched(SchedCtl::Reconfigure))
        );
        assert_eq!(
            parse("schedctl", &["-r", "30"], NOW, &Zone::utc()),
            Ok(Mutation::Sched(SchedCtl::Resume))
        );
        assert_eq!(
            parse("schedctl", &["-s", "12"], NOW, &Zone::utc()),
            Ok(Mutation::Sched(SchedCtl::Stop { at: Some(12) }))
        );
        assert_eq!(
            parse("schedctl", &["-S"], NOW, &Zone::utc()),
            Ok(Mutation::Sched(SchedCtl::Step(1)))
        );
        assert_eq!(
            parse("schedctl", &["-k"], NOW, &Zone::utc()),
            Ok(Mutation::Sched(SchedCtl::Kill))
        );
        assert_eq!(
            parse("schedctl", &["-n", "-v"], NOW, &Zone::utc()),
            Ok(Mutation::Sched(SchedCtl::NodeTable))
        );
        assert!(parse("schedctl", &["-s", "soon"], NOW, &Zone::utc()).is_err());
        assert!(parse("schedctl", &["-s", "-R"], NOW, &Zone::utc()).is_err());
        assert!(parse("releaseres", &[], NOW, &Zone::utc()).is_err());
    }

    proptest! {
        /// Any argument list is parsed or refused with a message, never a panic.
        #[test]
        fn never_panics(
            cmd in proptest::sample::select(MUTATIONS.to_vec()),
            args in proptest::collection::vec("(-[a-zA-Z]|[A-Za-z0-9:=+_/,\\[\\]-]{0,12})", 0..8),
        ) {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let _ = parse(cmd, &a, NOW, &Zone::utc());
        }

        #[test]
        fn times_never_panic(t in "[0-9:_/+NOWINFTY-]{0,20}") {
            let _ = parse_time(&t, NOW, &Zone::utc());
        }
    }
}
