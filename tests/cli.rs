//! `mauictl check` and `mauictl showconfig` as a site administrator runs them.

use std::process::Command;

fn mauictl(args: &[&str]) -> (i32, String, String) {
    // Commands without an offline input ask the running scheduler: make
    // sure none answers.
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .env("MAUISCHED_SOCKET", "/nonexistent/mauisched-test.sock")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_cfg(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mauictl-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn check_reports_errors_with_positions_and_exits_1() {
    let p = temp_cfg("bad.cfg", "FSDEPTH 7\nFSDECAY x\nFSDECAYY 0.5\n");
    let (code, out, _) = mauictl(&["check", "-c", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("bad.cfg:2:9: FSDECAY: expected a number in [0,1], got \"x\""),
        "{out}"
    );
    assert!(
        out.contains(
            "bad.cfg:3:1: warning: unknown parameter FSDECAYY (did you mean FSDECAY?); ignored"
        ),
        "{out}"
    );
    assert!(out.contains("1 error(s), 1 warning(s)"), "{out}");
}

#[test]
fn check_passes_a_clean_file_and_the_embedded_default() {
    let p = temp_cfg(
        "good.cfg",
        "RMPOLLINTERVAL 00:00:30\nSERVERHOST torquehost\n",
    );
    let (code, out, _) = mauictl(&["check", "-c", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("note: SERVERHOST: read by mauisched-pbs"),
        "{out}"
    );
    let (code, out, _) = mauictl(&["check", "-c", p.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0);
    assert!(!out.contains("note:"), "{out}");
    let (code, out, _) = mauictl(&["check"]);
    assert_eq!(code, 0, "{out}");
    // The one note names the time zone the times follow (the tests run in
    // UTC).
    assert!(
        out.starts_with("<embedded default maui.cfg>: note: times are local to UTC "),
        "{out}"
    );
    assert!(
        out.contains("<embedded default maui.cfg>: 0 error(s), 0 warning(s), 1 note(s)"),
        "{out}"
    );
}

#[test]
fn check_on_a_missing_file_says_which() {
    let (code, _, err) = mauictl(&["check", "-c", "/nonexistent/maui.cfg"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent/maui.cfg: No such file or directory"),
        "{err}"
    );
}

#[test]
fn showconfig_prints_effective_values_and_json() {
    let p = temp_cfg("site.cfg", "FSDECAY 0.5\nUSERCFG[john] PRIORITY=100\n");
    let (code, out, _) = mauictl(&["showconfig", "-c", p.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains("\nFSDECAY                         0.5\n"),
        "{out}"
    );
    assert!(
        out.contains("\nBACKFILLPOLICY                  FIRSTFIT\n"),
        "defaults included"
    );
    assert!(out.contains("\nUSERCFG[john]                   PRIORITY=100\n"));
    let (code, out, _) = mauictl(&["showconfig", "--json", "-c", p.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["parameters"]["FSDECAY"], "0.5");
    assert_eq!(v["USERCFG"]["john"]["PRIORITY"], "100");
    let (code, out, _) = mauictl(&["showconfig"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("FSPOLICY                        DEDICATEDPS"),
        "embedded default: {out}"
    );
}

#[test]
fn showconfig_refuses_a_broken_file() {
    let p = temp_cfg("broken.cfg", "BACKFILLPOLICY NOPE\n");
    let (code, out, err) = mauictl(&["showconfig", "-c", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("broken.cfg:1:16: BACKFILLPOLICY: expected one of"),
        "{err}"
    );
}
