//! Time types: whole seconds, epoch-based, never floating point, and the
//! site's time zone ([`Zone`]) that turns them into local dates and clocks.

use std::path::{Path, PathBuf};

/// A point in time: seconds since the Unix epoch (UTC).
pub type Time = i64;

/// A length of time in seconds.
pub type Secs = i64;

/// Seconds in a minute, hour, day and week.
pub const MINUTE: Secs = 60;
/// Seconds in an hour.
pub const HOUR: Secs = 3600;
/// Seconds in a day.
pub const DAY: Secs = 86_400;
/// Seconds in a week.
pub const WEEK: Secs = 7 * DAY;

/// Parses Maui's `[[[DD:]HH:]MM:]SS` duration form.
///
/// Fields above the seconds may exceed their usual range (`168:00:00` is a
/// week), a bare integer is seconds, and a leading `-` negates the value
/// (`-1` is Maui's "no limit"). `INFINITY`/`INFINITE` map to `None` in
/// `Ok`, so callers decide what infinity means for them.
pub fn parse_duration(text: &str) -> Result<Option<Secs>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("expected a duration [[[DD:]HH:]MM:]SS, got an empty value".into());
    }
    let up = t.to_ascii_uppercase();
    if up == "INFINITY" || up == "INFINITE" || up == "UNLIMITED" {
        return Ok(None);
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let parts: Vec<&str> = body.split(':').collect();
    if parts.len() > 4 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "expected a duration [[[DD:]HH:]MM:]SS, got \"{t}\""
        ));
    }
    const UNITS: [Secs; 4] = [DAY, HOUR, MINUTE, 1];
    let units = &UNITS[4 - parts.len()..];
    let mut total: Secs = 0;
    for (p, unit) in parts.iter().zip(units) {
        if !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "expected a duration [[[DD:]HH:]MM:]SS, got \"{t}\""
            ));
        }
        let v: Secs = p
            .parse()
            .map_err(|_| format!("duration \"{t}\" is too large"))?;
        total = v
            .checked_mul(*unit)
            .and_then(|x| total.checked_add(x))
            .ok_or_else(|| format!("duration \"{t}\" is too large"))?;
    }
    Ok(Some(if neg { -total } else { total }))
}

/// Formats a duration the way Maui's commands print it: `[-][D:]HH:MM:SS`.
pub fn fmt_duration(secs: Secs) -> String {
    let neg = secs < 0;
    let s = secs.unsigned_abs();
    let (d, h, m, sec) = (s / 86_400, (s / 3600) % 24, (s / 60) % 60, s % 60);
    let sign = if neg { "-" } else { "" };
    if d > 0 {
        format!("{sign}{d}:{h:02}:{m:02}:{sec:02}")
    } else {
        format!("{sign}{h:02}:{m:02}:{sec:02}")
    }
}

/// Splits an epoch time into (days since epoch, seconds into the day), UTC.
pub fn day_and_offset(t: Time) -> (i64, Secs) {
    (t.div_euclid(DAY), t.rem_euclid(DAY))
}

/// Days since the epoch of a civil date (proleptic Gregorian, UTC): the
/// inverse of `civil_from_days`.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Civil date (year, month 1-12, day 1-31) of a day count since the epoch.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    // Howard Hinnant's days-from-civil inverse, proleptic Gregorian.
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The site's time zone: what local dates, clocks and weekdays mean.
///
/// Maui computed standing-reservation periods and printed every time in the
/// scheduler host's local time (`localtime()`); mauisched does the same
/// through a `Zone` that comes in with the configuration
/// ([`crate::config::Config::zone`]). The core never asks the environment:
/// only front ends call [`Zone::host`]. A zone is an IANA name
/// (`America/Chicago`, read from the system's time zone database) or a POSIX
/// TZ rule (`CST6CDT,M3.2.0,M11.1.0`); daylight-saving changes follow its
/// rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    tz: jiff::tz::TimeZone,
    name: String,
}

impl Default for Zone {
    fn default() -> Self {
        Zone::utc()
    }
}

/// A local date and clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Local {
    /// Days since 1970-01-01 of the local date.
    pub days: i64,
    /// Year.
    pub year: i64,
    /// Month, 1-12.
    pub month: u32,
    /// Day of the month, 1-31.
    pub day: u32,
    /// Seconds since local midnight (wall clock: 0..86400).
    pub secs: Secs,
    /// Day of the week: 0 = Sunday … 6 = Saturday.
    pub weekday: u32,
    /// Offset from UTC in seconds (east positive).
    pub offset: Secs,
}

impl Zone {
    /// Coordinated Universal Time.
    pub fn utc() -> Zone {
        Zone {
            tz: jiff::tz::TimeZone::UTC,
            name: "UTC".into(),
        }
    }

    /// A zone by IANA name (`Europe/Stockholm`, read from the system's time
    /// zone database: `$TZDIR`, else `/usr/share/zoneinfo`), by POSIX TZ
    /// rule (`CET-1CEST,M3.5.0,M10.5.0/3`) or by the path of a TZif file
    /// (`:/etc/localtime`, `/usr/share/zoneinfo/...`). Read here, once:
    /// nothing is cached behind the caller's back (the library lives in
    /// slurmctld and pbs_server).
    pub fn named(name: &str) -> Result<Zone, String> {
        let n = name.trim();
        let bare = n.strip_prefix(':').unwrap_or(n);
        if bare.is_empty() {
            return Err("empty time zone name".into());
        }
        if bare.starts_with('/') {
            return Zone::from_file(bare, Path::new(bare));
        }
        if bare.eq_ignore_ascii_case("UTC") || bare == "Etc/UTC" {
            return Ok(Zone::utc());
        }
        let db = std::env::var_os("TZDIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/share/zoneinfo"));
        let file = db.join(bare);
        let iana = bare
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != ".." && !p.contains(','));
        if iana && file.is_file() {
            return Zone::from_file(bare, &file);
        }
        match jiff::tz::TimeZone::posix(bare) {
            Ok(tz) => Ok(Zone {
                tz,
                name: bare.to_string(),
            }),
            Err(_) => Err(format!(
                "unknown time zone \"{bare}\": not in the time zone database ({}) and not a POSIX TZ rule",
                db.display()
            )),
        }
    }

    /// A zone from a TZif file, called `name`.
    fn from_file(name: &str, path: &Path) -> Result<Zone, String> {
        let what = |e: &dyn std::fmt::Display| format!("time zone file {}: {e}", path.display());
        let bytes = std::fs::read(path).map_err(|e| what(&e))?;
        let tz = jiff::tz::TimeZone::tzif(name, &bytes).map_err(|e| what(&e))?;
        Ok(Zone {
            tz,
            name: name.to_string(),
        })
    }

    /// The scheduler host's zone: `TZ` when it is set, else the system's
    /// (`/etc/localtime`, named by the database entry it links to), else
    /// UTC, as the C library decides. For front ends only (the command
    /// line, the RM plugins), which hand it to the core with the
    /// configuration. The message says why the host's zone could not be
    /// used (a `TZ` naming no zone, an unreadable `/etc/localtime`); UTC is
    /// used then.
    pub fn host() -> (Zone, Option<String>) {
        if let Some(v) = std::env::var("TZ").ok().filter(|v| !v.trim().is_empty()) {
            return match Zone::named(&v) {
                Ok(z) => (z, None),
                Err(e) => (Zone::utc(), Some(format!("TZ={v}: {e}; using UTC"))),
            };
        }
        let local = Path::new("/etc/localtime");
        if !local.exists() {
            return (Zone::utc(), None);
        }
        // A link into the database names the zone: .../zoneinfo/Europe/Oslo.
        let name = std::fs::read_link(local)
            .ok()
            .and_then(|t| {
                let t = t.to_string_lossy().into_owned();
                t.split_once("zoneinfo/").map(|(_, n)| n.to_string())
            })
            .unwrap_or_else(|| "localtime".into());
        match Zone::from_file(&name, local) {
            Ok(z) if z.name == "Etc/UTC" || z.name == "UTC" => (Zone::utc(), None),
            Ok(z) => (z, None),
            Err(e) => (Zone::utc(), Some(format!("{e}; using UTC"))),
        }
    }

    /// The zone's name as configured (`America/Chicago`, a POSIX rule, `UTC`).
    pub fn name(&self) -> &str {
        &self.name
    }

    fn ts(t: Time) -> jiff::Timestamp {
        jiff::Timestamp::from_second(t.clamp(-377_705_116_800, 253_402_207_200))
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }

    /// Offset from UTC at `t`, in seconds (east positive).
    pub fn offset(&self, t: Time) -> Secs {
        self.tz.to_offset(Zone::ts(t)).seconds() as Secs
    }

    /// The abbreviation in use at `t` (`CST`, `CDT`, `UTC`; a numeric
    /// offset such as `+0530` where the zone has none).
    pub fn abbreviation(&self, t: Time) -> String {
        let info = self.tz.to_offset_info(Zone::ts(t));
        let a = info.abbreviation();
        if a.is_empty() || a.starts_with(['+', '-']) {
            fmt_offset(self.offset(t), "")
        } else {
            a.to_string()
        }
    }

    /// The local date and clock at `t`.
    pub fn local(&self, t: Time) -> Local {
        let offset = self.offset(t);
        let l = t + offset;
        let (days, secs) = day_and_offset(l);
        let (year, month, day) = civil_from_days(days);
        Local {
            days,
            year,
            month,
            day,
            secs,
            weekday: ((days + 4).rem_euclid(7)) as u32,
            offset,
        }
    }

    /// The time at which local clocks show `secs` seconds past the midnight
    /// that starts local day `days` (days since 1970-01-01; `secs` may run
    /// past a day: `1:08:00:00` from a Sunday is Monday 08:00). Wall-clock
    /// time, so 08:30 stays 08:30 across a daylight-saving change; a clock
    /// time skipped by a change (02:30 on the spring-forward night) is the
    /// same distance past it (03:30), and one repeated (01:30 in autumn) is
    /// its first occurrence.
    pub fn at(&self, days: i64, secs: Secs) -> Time {
        let (d, s) = (days + secs.div_euclid(DAY), secs.rem_euclid(DAY));
        let (y, m, dd) = civil_from_days(d);
        let wall = d * DAY + s;
        let dt = jiff::civil::DateTime::new(
            y.clamp(-9999, 9999) as i16,
            m as i8,
            dd as i8,
            (s / 3600) as i8,
            ((s / 60) % 60) as i8,
            (s % 60) as i8,
            0,
        );
        dt.ok()
            .and_then(|dt| self.tz.to_ambiguous_timestamp(dt).compatible().ok())
            .map(|ts| ts.as_second())
            .unwrap_or_else(|| wall - self.offset(wall))
    }

    /// The start of the local day holding `t` (local midnight).
    pub fn day_start(&self, t: Time) -> Time {
        self.at(self.local(t).days, 0)
    }

    /// Formats `t` the way Maui's commands print times: `Fri Aug 18 18:00:00`,
    /// in local time.
    pub fn fmt(&self, t: Time) -> String {
        let l = self.local(t);
        format!(
            "{} {} {:2} {:02}:{:02}:{:02}",
            WEEKDAYS[l.weekday as usize],
            MONTHS[(l.month - 1) as usize],
            l.day,
            l.secs / 3600,
            (l.secs / 60) % 60,
            l.secs % 60
        )
    }

    /// Like [`Zone::fmt`], followed by the zone's abbreviation:
    /// `Thu Nov 26 05:18:09 CST` (for text read away from the scheduler
    /// host: RM comments, logs).
    pub fn fmt_named(&self, t: Time) -> String {
        format!("{} {}", self.fmt(t), self.abbreviation(t))
    }

    /// ISO 8601 with the local offset: `2026-11-26T05:18:09-06:00`.
    pub fn iso(&self, t: Time) -> String {
        let l = self.local(t);
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}",
            l.year,
            l.month,
            l.day,
            l.secs / 3600,
            (l.secs / 60) % 60,
            l.secs % 60,
            fmt_offset(l.offset, ":")
        )
    }
}

/// An offset from UTC as `+0530` (`sep` "") or `+05:30` (`sep` ":").
fn fmt_offset(offset: Secs, sep: &str) -> String {
    let (sign, o) = if offset < 0 {
        ('-', -offset)
    } else {
        ('+', offset)
    };
    format!("{sign}{:02}{sep}{:02}", o / 3600, (o / 60) % 60)
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_every_form() {
        assert_eq!(parse_duration("30"), Ok(Some(30)));
        assert_eq!(parse_duration("00:00:30"), Ok(Some(30)));
        assert_eq!(parse_duration("5:00"), Ok(Some(300)));
        assert_eq!(parse_duration("24:00:00"), Ok(Some(DAY)));
        assert_eq!(parse_duration("168:00:00"), Ok(Some(WEEK)));
        assert_eq!(parse_duration("1:00:00:00"), Ok(Some(DAY)));
        assert_eq!(parse_duration("1:08:00:00"), Ok(Some(DAY + 8 * HOUR)));
        assert_eq!(parse_duration("-1"), Ok(Some(-1)));
        assert_eq!(parse_duration("INFINITY"), Ok(None));
        assert!(parse_duration("1:2:3:4:5").is_err());
        assert!(parse_duration("1h").is_err());
        assert!(parse_duration("1::2").is_err());
        assert!(parse_duration("99999999999999999999").is_err());
    }

    #[test]
    fn formats_like_maui() {
        assert_eq!(fmt_duration(300), "00:05:00");
        assert_eq!(fmt_duration(DAY + 3661), "1:01:01:01");
        assert_eq!(fmt_duration(-3600), "-01:00:00");
        // 2000-08-18 18:00:00 UTC was a Friday.
        assert_eq!(Zone::utc().fmt(966_621_600), "Fri Aug 18 18:00:00");
        assert_eq!(Zone::utc().local(0).weekday, 4);
    }

    /// US Central time by POSIX rule (no time zone database needed): CST
    /// (-6) in winter, CDT (-5) from the second Sunday of March 02:00 to
    /// the first Sunday of November 02:00. In 2026: 8 March, 1 November.
    fn chicago() -> Zone {
        Zone::named("CST6CDT,M3.2.0,M11.1.0").unwrap()
    }

    /// UTC epoch of a civil date and clock, for expectations.
    fn utc(y: i64, mo: u32, d: u32, h: i64, mi: i64) -> Time {
        days_from_civil(y, mo, d) * DAY + h * HOUR + mi * MINUTE
    }

    #[test]
    fn local_times_follow_the_zone_and_its_daylight_saving() {
        let z = chicago();
        // 26 Nov 2026 11:18:09 UTC is 05:18:09 CST.
        let t = utc(2026, 11, 26, 11, 18) + 9;
        assert_eq!(z.fmt(t), "Thu Nov 26 05:18:09");
        assert_eq!(z.fmt_named(t), "Thu Nov 26 05:18:09 CST");
        assert_eq!(z.iso(t), "2026-11-26T05:18:09-06:00");
        assert_eq!(Zone::utc().iso(t), "2026-11-26T11:18:09+00:00");
        // Summer: CDT, five hours behind.
        let s = utc(2026, 7, 1, 13, 30);
        assert_eq!(z.fmt_named(s), "Wed Jul  1 08:30:00 CDT");
        assert_eq!(z.offset(s), -5 * HOUR);
        // Local midnight and weekday, not UTC's: 03:00 UTC on Friday is
        // Thursday evening in Chicago.
        let l = z.local(utc(2026, 11, 27, 3, 0));
        assert_eq!((l.month, l.day, l.weekday, l.secs), (11, 26, 4, 21 * HOUR));
        assert_eq!(
            z.day_start(utc(2026, 11, 27, 3, 0)),
            utc(2026, 11, 26, 6, 0)
        );
    }

    #[test]
    fn wall_clock_times_across_daylight_saving_changes() {
        let z = chicago();
        let mar8 = days_from_civil(2026, 3, 8);
        let nov1 = days_from_civil(2026, 11, 1);
        // 08:30 stays 08:30 on the clocks: before, on and after each change.
        assert_eq!(
            z.at(mar8 - 1, 8 * HOUR + 30 * MINUTE),
            utc(2026, 3, 7, 14, 30)
        );
        assert_eq!(z.at(mar8, 8 * HOUR + 30 * MINUTE), utc(2026, 3, 8, 13, 30));
        assert_eq!(z.at(nov1, 8 * HOUR + 30 * MINUTE), utc(2026, 11, 1, 14, 30));
        // The spring-forward day has 23 hours, the fall-back day 25.
        assert_eq!(z.at(mar8 + 1, 0) - z.at(mar8, 0), 23 * HOUR);
        assert_eq!(z.at(nov1, DAY) - z.at(nov1, 0), 25 * HOUR);
        // 02:30 does not exist on 8 March: an hour later (03:30 CDT).
        assert_eq!(z.at(mar8, 2 * HOUR + 30 * MINUTE), utc(2026, 3, 8, 8, 30));
        // 01:30 happens twice on 1 November: the first (CDT).
        assert_eq!(z.at(nov1, HOUR + 30 * MINUTE), utc(2026, 11, 1, 6, 30));
        // Offsets past a day roll into the next days (a week's 1:08:00:00).
        assert_eq!(z.at(mar8 - 7, DAY + 8 * HOUR), z.at(mar8 - 6, 8 * HOUR));
    }

    #[test]
    fn zones_by_name_rule_or_file() {
        assert_eq!(Zone::named("UTC").unwrap(), Zone::utc());
        assert_eq!(chicago().name(), "CST6CDT,M3.2.0,M11.1.0");
        let e = Zone::named("Mars/Olympus_Mons").unwrap_err();
        assert!(e.contains("unknown time zone \"Mars/Olympus_Mons\""), "{e}");
        assert!(Zone::named("").is_err());
        let e = Zone::named("/nonexistent/zone").unwrap_err();
        assert!(e.starts_with("time zone file /nonexistent/zone:"), "{e}");
        // A zone with no abbreviation of its own shows its offset.
        let ist = Zone::named("<+0530>-5:30").unwrap();
        assert_eq!(ist.fmt_named(0), "Thu Jan  1 05:30:00 +0530");
        assert_eq!(ist.iso(0), "1970-01-01T05:30:00+05:30");
    }
}
