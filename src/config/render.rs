//! showconfig: every parameter with its effective value, Maui's layout.

use super::{Config, SCALARS};
use crate::model::CredKind;
use serde_json::{json, Map, Value};

const WIDTH: usize = 32;

fn row(out: &mut String, name: &str, value: &str) {
    if name.len() >= WIDTH {
        out.push_str(&format!("{name} {value}\n"));
    } else {
        out.push_str(&format!("{name:<WIDTH$}{value}\n"));
    }
}

fn pairs(p: &[(String, String)]) -> String {
    p.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Renders the configuration as `showconfig` text: every scalar parameter
/// (defaults included), then the reservation stacks and indexed sections.
pub fn showconfig(cfg: &Config) -> String {
    let mut out = format!(
        "# mauisched {} configuration from {} (defaults included)\n\n",
        env!("CARGO_PKG_VERSION"),
        if cfg.source.is_empty() {
            "<defaults>"
        } else {
            &cfg.source
        }
    );
    for d in SCALARS {
        row(&mut out, d.name(), &(d.show)(&cfg.params));
    }
    out.push('\n');
    for (idx, s) in cfg.reservation_stacks() {
        row(
            &mut out,
            &format!("RESERVATIONDEPTH[{idx}]"),
            &s.depth.to_string(),
        );
        row(
            &mut out,
            &format!("RESERVATIONQOSLIST[{idx}]"),
            &if s.qos.0.is_empty() {
                "[ALL]".to_string()
            } else {
                s.qos.0.join(" ")
            },
        );
    }
    let sys = cfg.system.render();
    if !sys.is_empty() {
        row(&mut out, "SYSCFG", &pairs(&sys));
    }
    for kind in CredKind::ALL {
        if let Some(m) = cfg.creds.get(&kind) {
            for (name, c) in m {
                row(
                    &mut out,
                    &format!("{}[{name}]", kind.cfg_param()),
                    &pairs(&c.render()),
                );
            }
        }
    }
    for (name, n) in &cfg.nodes {
        row(&mut out, &format!("NODECFG[{name}]"), &pairs(&n.render()));
    }
    for (name, s) in &cfg.standing {
        row(&mut out, &format!("SRCFG[{name}]"), &pairs(&s.render()));
    }
    out
}

fn obj(p: &[(String, String)]) -> Value {
    Value::Object(
        p.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// The same content as [`showconfig`], as JSON: parameter names to values
/// (strings in maui.cfg syntax), sections by index.
pub fn showconfig_json(cfg: &Config) -> Value {
    let params: Map<String, Value> = SCALARS
        .iter()
        .map(|d| (d.name().to_string(), Value::String((d.show)(&cfg.params))))
        .collect();
    let mut root = Map::new();
    root.insert("source".into(), json!(cfg.source));
    root.insert("parameters".into(), Value::Object(params));
    let stacks: Map<String, Value> = cfg
        .reservation_stacks()
        .into_iter()
        .map(|(i, s)| (i, json!({"RESERVATIONDEPTH": s.depth.to_string(), "RESERVATIONQOSLIST": s.qos.0.join(" ")})))
        .collect();
    root.insert("reservation_stacks".into(), Value::Object(stacks));
    root.insert("SYSCFG".into(), obj(&cfg.system.render()));
    for kind in CredKind::ALL {
        let m: Map<String, Value> = cfg
            .creds
            .get(&kind)
            .map(|m| {
                m.iter()
                    .map(|(n, c)| (n.clone(), obj(&c.render())))
                    .collect()
            })
            .unwrap_or_default();
        root.insert(kind.cfg_param().into(), Value::Object(m));
    }
    root.insert(
        "NODECFG".into(),
        Value::Object(
            cfg.nodes
                .iter()
                .map(|(n, c)| (n.clone(), obj(&c.render())))
                .collect(),
        ),
    );
    root.insert(
        "SRCFG".into(),
        Value::Object(
            cfg.standing
                .iter()
                .map(|(n, c)| (n.clone(), obj(&c.render())))
                .collect(),
        ),
    );
    Value::Object(root)
}
