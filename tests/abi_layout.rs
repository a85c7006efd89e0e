//! The checked-in header and the Rust definitions agree on every struct's
//! layout: bindgen (libclang) reads `include/mauisched.h` as a C compiler
//! does and reports each struct's size, alignment and field offsets; they
//! must equal what rustc computes for the `#[repr(C)]` structs of
//! `mauisched::ffi`. A field added on one side only, or a type that lays
//! out differently in C, fails here.

use mauisched::ffi;
use std::collections::BTreeMap;
use std::mem::{align_of, offset_of, size_of};

/// A struct's layout: size, alignment, fields in order with their offsets.
#[derive(Debug, Default, PartialEq)]
struct Layout {
    size: usize,
    align: usize,
    fields: Vec<(String, usize)>,
}

macro_rules! rust_layout {
    ($map:ident, $t:ident { $($f:ident),* $(,)? }) => {
        $map.insert(
            stringify!($t).to_string(),
            Layout {
                size: size_of::<ffi::$t>(),
                align: align_of::<ffi::$t>(),
                fields: vec![$((stringify!($f).to_string(), offset_of!(ffi::$t, $f))),*],
            },
        );
    };
}

/// Every `#[repr(C)]` struct of the ABI, with all its fields.
fn rust_layouts() -> BTreeMap<String, Layout> {
    let mut m = BTreeMap::new();
    rust_layout!(
        m,
        mauisched_options_t {
            size,
            config_path,
            state_dir,
            log,
            log_userdata,
            admin_socket,
            rm
        }
    );
    rust_layout!(
        m,
        mauisched_node_t {
            size,
            name,
            state,
            procs,
            mem_mb,
            swap_mb,
            disk_mb,
            avail_valid,
            avail_procs,
            avail_mem_mb,
            avail_swap_mb,
            avail_disk_mb,
            features,
            partition,
            speed,
            procspeed,
            load,
            has_priority,
            priority,
            gres,
            avail_gres
        }
    );
    rust_layout!(
        m,
        mauisched_job_t {
            size,
            id,
            user,
            group,
            account,
            class_name,
            qos,
            partition,
            state,
            holds,
            dependency_pending,
            submit_time,
            earliest_start,
            start_time,
            walltime,
            tasks,
            task_procs,
            task_mem_mb,
            task_swap_mb,
            task_disk_mb,
            nodes,
            tasks_per_node,
            features,
            pref_features,
            hostlist,
            exclude_hosts,
            advres,
            attributes,
            allocation,
            has_system_priority,
            system_priority,
            utilized_valid,
            utilized_procs,
            node_allocation_policy,
            gres_per_task,
            gres_per_node,
            gres_per_job,
            end_time
        }
    );
    rust_layout!(
        m,
        mauisched_settings_t {
            size,
            rm_poll_interval_s,
            exact_node,
            exact_proc
        }
    );
    rust_layout!(
        m,
        mauisched_admin_res_request_t {
            size,
            name,
            start,
            end,
            duration,
            users,
            groups,
            accounts,
            classes,
            qos,
            job_attrs,
            time_limit,
            resources,
            tasks,
            tpn,
            hosts,
            features,
            partition,
            flags,
            owner,
            charge_account,
            access,
            has_priority,
            priority
        }
    );
    rust_layout!(
        m,
        mauisched_local_request_t {
            size,
            job_id,
            user,
            tasks,
            task_procs,
            task_mem_mb,
            task_swap_mb,
            task_disk_mb,
            tasks_per_node,
            exact_tasks_per_node,
            node_count,
            immediate
        }
    );
    rust_layout!(
        m,
        mauisched_local_candidate_t {
            size,
            node,
            max_tasks,
            free_procs,
            free_mem_mb,
            free_swap_mb,
            free_disk_mb,
            job_count,
            gap
        }
    );
    m
}

/// Layouts as libclang computes them, read from bindgen's layout checks:
/// `["Size of T"][size_of::<T>() - N]`, `["Alignment of T"][...]`,
/// `["Offset of field: T::f"][offset_of!(T, f) - N]`.
fn header_layouts() -> BTreeMap<String, Layout> {
    let header = concat!(env!("CARGO_MANIFEST_DIR"), "/include/mauisched.h");
    let code = bindgen::Builder::default()
        .header(header)
        .allowlist_file(header)
        .layout_tests(true)
        .generate()
        .expect("bindgen could not read include/mauisched.h (is libclang installed? scripts/deps.sh test)")
        .to_string();
    let check = regex::Regex::new(
        r#"\["(Size of|Alignment of|Offset of field:) ([A-Za-z0-9_:]+)"\]\s*\[[^\]]*?-\s*(\d+)usize\]"#,
    )
    .unwrap();
    let mut m: BTreeMap<String, Layout> = BTreeMap::new();
    for c in check.captures_iter(&code) {
        let n: usize = c[3].parse().unwrap();
        match &c[1] {
            "Size of" => m.entry(c[2].to_string()).or_default().size = n,
            "Alignment of" => m.entry(c[2].to_string()).or_default().align = n,
            _ => {
                let (t, f) = c[2].split_once("::").expect("T::field");
                m.entry(t.to_string())
                    .or_default()
                    .fields
                    .push((f.to_string(), n));
            }
        }
    }
    assert!(
        !m.is_empty(),
        "bindgen produced no layout checks; its output format changed?\n{code}"
    );
    m
}

#[test]
fn every_struct_in_the_header_has_the_rust_layout() {
    let c = header_layouts();
    let rust = rust_layouts();
    let c_names: Vec<&String> = c.keys().collect();
    let rust_names: Vec<&String> = rust.keys().collect();
    assert_eq!(
        c_names, rust_names,
        "the header's structs and the ones this test knows differ: add new structs to rust_layouts()"
    );
    for (name, want) in &rust {
        assert_eq!(
            &c[name], want,
            "layout of {name}: header (left), Rust (right)"
        );
    }
}

#[test]
fn the_status_enum_is_a_c_int() {
    // A C enum of these values is an int; the Rust one must match it.
    assert_eq!(
        size_of::<ffi::mauisched_status_t>(),
        size_of::<std::ffi::c_int>()
    );
    assert_eq!(ffi::MAUISCHED_OK as i32, 0);
}

#[test]
fn every_status_code_in_the_header_has_its_name() {
    let header = include_str!("../include/mauisched.h");
    let start = header
        .find("typedef enum mauisched_status_t {")
        .expect("the status enum");
    let body = &header[start..start + header[start..].find('}').unwrap()];
    let item = regex::Regex::new(r"(MAUISCHED_[A-Z0-9_]+) = (\d+),").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for c in item.captures_iter(body) {
        let code: i32 = c[2].parse().unwrap();
        assert!(
            code == 0 || (7000..8000).contains(&code),
            "{} = {code}",
            &c[1]
        );
        assert!(seen.insert(code), "{code} is used twice");
        let name = unsafe { std::ffi::CStr::from_ptr(ffi::mauisched_status_name(code)) };
        assert_eq!(name.to_str().unwrap(), &c[1]);
    }
    assert!(seen.len() >= 18, "{seen:?}");
}
