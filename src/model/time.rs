//! Time types: whole seconds, epoch-based, never floating point.

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

/// Day of the week of an epoch time, UTC: 0 = Sunday … 6 = Saturday.
pub fn weekday(t: Time) -> u32 {
    // 1970-01-01 was a Thursday (4).
    ((t.div_euclid(DAY) + 4).rem_euclid(7)) as u32
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

/// Formats an epoch time as Maui's commands do: `Fri Aug 18 18:00:00` (UTC).
pub fn fmt_time(t: Time) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (days, off) = day_and_offset(t);
    let (_, m, d) = civil_from_days(days);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02}",
        DAYS[weekday(t) as usize],
        MONTHS[(m - 1) as usize],
        d,
        off / 3600,
        (off / 60) % 60,
        off % 60
    )
}

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
        assert_eq!(fmt_time(966_621_600), "Fri Aug 18 18:00:00");
        assert_eq!(weekday(0), 4);
    }
}
