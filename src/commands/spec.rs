//! Maui 3.3's client commands as mauisched takes them: every command and
//! flag, with what it does here, or the refusal that names what is not
//! supported. One table behind the commands' `-h`, their manual pages,
//! docs/commands.md and the refusals themselves, so these never disagree.

/// How far mauisched follows Maui on a command or flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// As Maui does it.
    Yes,
    /// Supported, with the difference named.
    Differs(&'static str),
    /// Refused with this reason.
    No(&'static str),
}

/// One flag of a Maui command.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// `-p`.
    pub name: &'static str,
    /// The value it takes (`PARTITION`), if any.
    pub value: Option<&'static str>,
    /// What it does.
    pub help: &'static str,
    /// Whether mauisched does it.
    pub support: Support,
}

/// One Maui client command.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The command's name.
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    /// Operands after the flags (`JOBID`), as the synopsis shows them.
    pub operands: &'static str,
    /// Its flags, in the order Maui documents them.
    pub flags: &'static [Flag],
    /// Whether mauisched has the command at all.
    pub support: Support,
    /// A reading command with an offline form (`--snapshot`).
    pub reads: bool,
    /// The admin level it needs (Maui's defaults).
    pub level: &'static str,
}

const fn f(
    name: &'static str,
    value: Option<&'static str>,
    help: &'static str,
    support: Support,
) -> Flag {
    Flag {
        name,
        value,
        help,
        support,
    }
}

use Support::{Differs, No, Yes};

const NO_STATS_MATRIX: &str =
    "mauisched keeps no statistics matrix by job size and walltime (STATPROCMIN, STATTIMEMIN); showstats and the simulator's jobs.csv give the figures";
const NO_DEADLINES: &str =
    "mauisched has no deadline scheduling (Maui 3.3's own is undocumented and was never finished)";

/// Credential flags of showbf: ask on that credential's behalf.
const BF_CRED: &str = "on behalf of this";

/// Every Maui 3.3 client command (the client names of Maui's MService
/// table, `src/MConst.c`), in alphabetical order, with the option strings
/// of `__MCGetArgList` (`src/mclient.c`).
pub const SPECS: &[Spec] = &[
    Spec {
        name: "canceljob",
        summary: "Cancel jobs.",
        operands: "JOBID [JOBID...]",
        flags: &[],
        support: Differs("the resource manager cancels the jobs (Slurm's job kill, Torque's pbs_deljob) at the next iteration; a user cancels only their own jobs, an ADMIN1 or ADMIN2 any"),
        reads: false,
        level: "user",
    },
    Spec {
        name: "changeparam",
        summary: "Change a scheduler parameter in memory.",
        operands: "PARAMETER VALUE",
        flags: &[],
        support: No("edit maui.cfg and run `schedctl -R`: the change is checked in full first (a broken file keeps the running configuration) and survives a restart, where Maui's changeparam was lost"),
        reads: false,
        level: "ADMIN1",
    },
    Spec {
        name: "checkjob",
        summary: "A job's state, credentials, priority, reservation and why it is not running.",
        operands: "JOBID",
        flags: &[
            f("-v", None, "verbose: node by node, why the job does or does not fit", Yes),
            f("-A", None, "attribute-value pairs for scripts", Differs("accepted; the layout is the same: --json gives the values for scripts")),
            f("-l", Some("POLICYLEVEL"), "check the job against policies at this level (HARD, SOFT)", No("checkjob reports the policies the iteration applied; `diagnose -j` lists every job's blocking reason")),
            f("-n", Some("NODE"), "why the job can or cannot use this node", Yes),
            f("-r", Some("RESID"), "whether the job may use this reservation", Yes),
        ],
        support: Yes,
        reads: true,
        level: "user (own jobs); ADMIN3 (any job)",
    },
    Spec {
        name: "checknode",
        summary: "A node's state, resources, reservations and jobs.",
        operands: "NODE",
        flags: &[
            f("-v", None, "verbose: the node's location (partition, frame and slot)", Yes),
            f("-A", None, "attribute-value pairs for scripts", Differs("accepted; the layout is the same: --json gives the values for scripts")),
            f("-l", Some("POLICYLEVEL"), "policy level", No("Maui 3.3 has no handler for it (its checknode prints the usage)")),
            f("-n", Some("NODE"), "node", No("Maui 3.3 has no handler for it; give the node as the operand")),
            f("-r", Some("RESID"), "reservation", No("Maui 3.3 has no handler for it; `showres -n RESID` lists a reservation's nodes")),
        ],
        support: Yes,
        reads: true,
        level: "ADMIN3",
    },
    Spec {
        name: "diagnose",
        summary: "The scheduler's view of jobs, nodes, reservations, priority, fairshare and credentials.",
        operands: "[ID]",
        flags: &[
            f("-a", None, "accounts: their configuration and use (ACCOUNTCFG)", Yes),
            f("-c", None, "classes: their configuration and use (CLASSCFG)", Yes),
            f("-f", None, "fairshare: targets and usage per window", Yes),
            f("-g", None, "groups: their configuration and use (GROUPCFG)", Yes),
            f("-G", None, "grid", No("Maui 3.3 has no handler for it (it prints the usage)")),
            f("-j", None, "jobs: state and why each waits; with ID, that job", Differs("Maui's columns, with Network, Opsys and Arch [NONE] (not modelled); a WARNING line after the table says why each job that cannot run waits")),
            f("-l", Some("POLICYLEVEL"), "policy level for -q", No("-q reports the policies as the iteration applied them")),
            f("-m", None, "frames", No("mauisched has no frame (rack) model; nodes are listed by diagnose -n")),
            f("-n", None, "nodes: state and resources; with ID, that node", Differs("Maui's columns, with Opsys, Arch, Classes and Network [NONE] (not modelled); a GRES line follows each node with generic resources")),
            f("-p", None, "priority: weights and each eligible job's components", Yes),
            f("-q", None, "queue: why each blocked job is blocked", Differs("an unmet dependency is reported without its kind and job, which the RM keeps")),
            f("-Q", None, "QOS: their configuration and use (QOSCFG)", Yes),
            f("-r", None, "reservations: each with its ACL and nodes; with ID, that one", Differs("an Access and Nodes line follows each reservation")),
            f("-R", None, "resource managers", No("the RM is the host: `scontrol show config` or `qmgr -c 'p s'`; the log shows each poll")),
            f("-s", None, "standing reservations", No("Maui 3.3 has no handler for it; diagnose -r shows standing reservations with the rest")),
            f("-S", None, "the scheduler", No("`showstats` and `showconfig` show the scheduler")),
            f("-t", None, "partitions: nodes and processors in each", Yes),
            f("-u", None, "users: their configuration and use (USERCFG)", Yes),
            f("-v", None, "verbose", Yes),
        ],
        support: Yes,
        reads: true,
        level: "ADMIN3",
    },
    Spec {
        name: "migratejob",
        summary: "Move a job to other nodes.",
        operands: "JOBID NODELIST",
        flags: &[],
        support: No("neither Slurm nor Torque migrates a running job; Maui 3.3 left it unimplemented"),
        reads: false,
        level: "ADMIN1",
    },
    Spec {
        name: "releasedeadline",
        summary: "Release a job's deadline.",
        operands: "JOBID",
        flags: &[],
        support: No(NO_DEADLINES),
        reads: false,
        level: "ADMIN2",
    },
    Spec {
        name: "releasehold",
        summary: "Release job holds through the resource manager.",
        operands: "JOBID [JOBID...]",
        flags: &[
            f("-a", None, "all holds (the default)", Differs("releases the user and system holds the resource manager keeps; mauisched places no batch or defer holds")),
            f("-b", None, "the batch hold", No("mauisched places no batch holds: a job whose start failed is planned again at the next iteration")),
            f("-s", None, "the system hold", Yes),
            f("-u", None, "the user hold", Yes),
        ],
        support: Yes,
        reads: false,
        level: "ADMIN2",
    },
    Spec {
        name: "releaseres",
        summary: "Release administrative reservations.",
        operands: "RESID [RESID...] | ALL",
        flags: &[],
        support: Differs("ALL releases every administrative reservation; Maui 3.3 looks for one named ALL"),
        reads: false,
        level: "ADMIN2",
    },
    Spec {
        name: "resetstats",
        summary: "Reset the scheduler's statistics.",
        operands: "",
        flags: &[],
        support: Yes,
        reads: false,
        level: "ADMIN1",
    },
    Spec {
        name: "runjob",
        summary: "Start a job now, at the next iteration.",
        operands: "JOBID",
        flags: &[
            f("-c", None, "clear the job's earlier start failures first", Differs("accepted: the next plan starts it afresh; there is nothing to clear")),
            f("-f", None, "force: ignore throttling policies", Differs("the same as -x")),
            f("-n", Some("NODE[:TASKS][,...]"), "on these nodes", Yes),
            f("-p", Some("PARTITION"), "in this partition", No("give the nodes with -n")),
            f("-s", None, "suspend the job", No("suspend and resume jobs with the RM (scontrol suspend, qsig -s suspend)")),
            f("-x", None, "force, past policies, reservations and priority", Yes),
        ],
        support: Differs("runjob always starts the job past throttling policies and reservations, as Maui's -x; without -x Maui checks them"),
        reads: false,
        level: "ADMIN1",
    },
    Spec {
        name: "schedctl",
        summary: "Control the scheduler: stop, resume, step, reconfigure.",
        operands: "",
        flags: &[
            f("-f", Some("FAILURE"), "simulate a failure", No("for Maui's own test harness")),
            f("-i", Some("INIT"), "initialise", No("for Maui's own test harness")),
            f("-j", Some("JOB"), "job control", No("use runjob, sethold, releasehold, setspri")),
            f("-k", None, "kill the scheduler", Differs("the scheduler lives in slurmctld or pbs_sched: scheduling stops until `schedctl -r` or a restart of the host, which itself keeps running")),
            f("-l", None, "list parameters", No("`showconfig` lists every parameter")),
            f("-m", Some("PARAMETER"), "modify a parameter", No("edit maui.cfg and run `schedctl -R`")),
            f("-n", Some("[FILE]"), "the node table: one Maui resource trace line per node, which `simulate --cluster` reads", Differs("FILE is mauictl's addition: the table is written there instead of standard output")),
            f("-r", Some("[SECONDS]"), "resume scheduling", Differs("SECONDS, Maui's deadline for its client interface, is accepted and has no use")),
            f("-R", None, "reconfigure: reread maui.cfg", Differs("Maui 3.3 refuses (\"dynamic reconfiguration disabled\"); mauisched rereads the file, and a broken one keeps the running configuration")),
            f("-s", Some("[ITERATION]"), "stop scheduling now, or once iteration number ITERATION is reached", Yes),
            f("-S", Some("[COUNT]"), "step: run COUNT (default 1) more iterations, then stop", Yes),
            f("-v", None, "verbose", Differs("accepted; the answers are the same")),
            f("-V", None, "version", No("`mauictl --version` gives the version")),
        ],
        support: Yes,
        reads: false,
        level: "ADMIN1",
    },
    Spec {
        name: "setdeadline",
        summary: "Give a job a deadline.",
        operands: "JOBID TIME",
        flags: &[],
        support: No(NO_DEADLINES),
        reads: false,
        level: "ADMIN2",
    },
    Spec {
        name: "sethold",
        summary: "Place holds on jobs through the resource manager.",
        operands: "JOBID [JOBID...]",
        flags: &[
            f("-a", None, "every hold", Differs("places the user and system holds; mauisched places no batch or defer holds")),
            f("-b", None, "a batch hold", No("batch holds are the scheduler's record of failed starts; mauisched places a system hold")),
            f("-s", None, "a system hold", Differs("the default here; Maui's default is every hold")),
            f("-u", None, "a user hold", Yes),
        ],
        support: Yes,
        reads: false,
        level: "ADMIN2",
    },
    Spec {
        name: "setqos",
        summary: "Change a job's QOS.",
        operands: "QOS JOBID",
        flags: &[],
        support: No("a job's QOS is the RM's: scontrol update job=ID qos=Q, or qalter -W qos=Q; mauisched reads it at the next iteration"),
        reads: false,
        level: "user (own jobs, QOS they may use)",
    },
    Spec {
        name: "setres",
        summary: "Create an administrative reservation.",
        operands: "{ALL | TASKS==N | HOSTEXPR}",
        flags: &[
            f("-a", Some("ACCOUNTS"), "accounts that may use it (colon-separated)", Yes),
            f("-c", Some("CHARGEACCOUNT"), "account charged for idle reserved time", Differs("recorded and shown; mauisched charges no allocation manager")),
            f("-d", Some("DURATION"), "how long ([[[DD:]HH:]MM:]SS, INFINITY)", Yes),
            f("-e", Some("ENDTIME"), "when it ends", Yes),
            f("-E", None, "exclusive: refuse if the nodes hold other reservations", Yes),
            f("-f", Some("FEATURES"), "only nodes with these features", Yes),
            f("-g", Some("GROUPS"), "groups that may use it", Yes),
            f("-n", Some("NAME"), "its name", Yes),
            f("-o", Some("OWNER"), "owner", Yes),
            f("-p", Some("PARTITION"), "only nodes of this partition", Yes),
            f("-q", Some("CLASSES"), "classes (queues) that may use it", Yes),
            f("-Q", Some("QOS"), "QOS that may use it", Yes),
            f("-r", Some("RESOURCES"), "resources per task (PROCS=2;MEM=512)", Yes),
            f("-s", Some("STARTTIME"), "when it starts", Yes),
            f("-u", Some("USERS"), "users that may use it", Yes),
            f("-x", Some("FLAGS"), "reservation flags (BYNAME, ...)", Yes),
        ],
        support: Yes,
        reads: false,
        level: "ADMIN2",
    },
    Spec {
        name: "setspri",
        summary: "Set a job's system priority.",
        operands: "PRIORITY JOBID",
        flags: &[f("-r", None, "relative: add PRIORITY to the job's priority instead of setting it", Yes)],
        support: Yes,
        reads: false,
        level: "ADMIN2",
    },
    Spec {
        name: "setupri",
        summary: "Set a job's user priority.",
        operands: "PRIORITY JOBID",
        flags: &[],
        support: No("the user priority is the RM's: scontrol update job=ID nice=N, or qalter -p N; mauisched reads it at the next iteration"),
        reads: false,
        level: "user (own jobs)",
    },
    Spec {
        name: "showbf",
        summary: "Idle resources available for immediate use (backfill windows).",
        operands: "",
        flags: &[
            f("-A", None, "all: windows for any user, group and account", Differs("the default here; Maui's default asks as the caller")),
            f("-a", Some("ACCOUNT"), BF_CRED, Yes),
            f("-c", Some("CLASS"), BF_CRED, Yes),
            f("-d", Some("DURATION"), "only windows lasting at least this long", Yes),
            f("-f", Some("FEATURES"), "only nodes with these features (colon-separated)", Yes),
            f("-g", Some("GROUP"), BF_CRED, Yes),
            f("-m", Some("[==|>=]MEMORY"), "only nodes with this much memory (MB; default >=)", Yes),
            f("-M", Some("MEMORY"), "dedicated memory per task", No("windows count processors; ask with -m for a node memory floor")),
            f("-n", Some("NODES"), "only windows with at least this many nodes", Yes),
            f("-p", Some("PARTITION"), "only this partition", Yes),
            f("-q", Some("QOS"), BF_CRED, Yes),
            f("-r", Some("PROCS"), "only windows with at least this many processors", Yes),
            f("-S", None, "SMP mode: a table of hosts", No("the windows list the nodes' processors and generic resources")),
            f("-u", Some("USER"), BF_CRED, Yes),
            f("-v", None, "verbose", Differs("accepted; the windows are the same")),
            f("-V", None, "version", No("`mauictl --version` gives the version")),
        ],
        support: Yes,
        reads: true,
        level: "user",
    },
    Spec {
        name: "showconfig",
        summary: "Every parameter with its effective value.",
        operands: "",
        flags: &[f("-v", None, "verbose", Yes)],
        support: Yes,
        reads: true,
        level: "ADMIN3",
    },
    Spec {
        name: "showdeadline",
        summary: "Jobs' deadlines.",
        operands: "",
        flags: &[],
        support: No(NO_DEADLINES),
        reads: true,
        level: "user",
    },
    Spec {
        name: "showgrid",
        summary: "A statistics matrix by job size and walltime.",
        operands: "STATISTIC",
        flags: &[],
        support: No(NO_STATS_MATRIX),
        reads: true,
        level: "ADMIN3",
    },
    Spec {
        name: "showhold",
        summary: "Jobs with holds, and which holds.",
        operands: "",
        flags: &[],
        support: Yes,
        reads: true,
        level: "user",
    },
    Spec {
        name: "showq",
        summary: "The queue: active, eligible and blocked jobs.",
        operands: "",
        flags: &[
            f("-b", None, "blocked jobs only", Yes),
            f("-c", None, "completed jobs (Moab's; not in Maui 3.3)", No("completed jobs are the RM's record (sacct, tracejob); mauisched keeps none")),
            f("-i", None, "eligible (idle) jobs with priority details", Yes),
            f("-p", Some("PARTITION"), "only jobs of this partition", Yes),
            f("-r", None, "active jobs with details", Yes),
            f("-u", Some("USER"), "only this user's jobs", Yes),
            f("-a", None, "(no meaning)", No("Maui 3.3 has no handler for it (it prints the usage)")),
            f("-v", None, "verbose: a start priority column in -r", Differs("accepted; mauisched keeps no start priority of a running job")),
            f("-w", Some("TYPE=NAME"), "only jobs of user=, group=, acct=, class= or qos= NAME", Differs("Moab's filter, not in Maui 3.3")),
        ],
        support: Yes,
        reads: true,
        level: "user",
    },
    Spec {
        name: "showres",
        summary: "Reservations: jobs', administrative and standing.",
        operands: "[RESID]",
        flags: &[
            f("-f", None, "(Moab: flags)", No("Moab's flag, not in Maui 3.3")),
            f("-o", None, "(Moab: owner)", No("Moab's flag, not in Maui 3.3")),
            f("-g", None, "with -n, the node named on every line", Differs("the -n layout names the node on every line already")),
            f("-n", None, "one line per reserved node", Yes),
            f("-p", Some("PARTITION"), "only reservations on nodes of this partition", Yes),
            f("-r", None, "with -n, start and end relative to now", Differs("accepted; the -n layout shows start relative to now and the duration")),
            f("-s", None, "with -n and RESID, a summary of the jobs", No("`showres -n RESID` lists the reservation's nodes; checkjob shows a job's")),
            f("-v", None, "verbose: start times in full", No("the start times are in full already")),
        ],
        support: Yes,
        reads: true,
        level: "user",
    },
    Spec {
        name: "showstart",
        summary: "Estimated start of a job, or of a job of N processors for DURATION.",
        operands: "JOBID | PROCS@DURATION",
        flags: &[],
        support: Yes,
        reads: true,
        level: "user",
    },
    Spec {
        name: "showstate",
        summary: "The cluster at a glance: node states and the jobs on them.",
        operands: "",
        flags: &[f("-x", None, "XML", No("use --json"))],
        support: Differs("one line per node, where Maui draws frames and slots"),
        reads: true,
        level: "ADMIN3",
    },
    Spec {
        name: "showstats",
        summary: "The scheduler's statistics, or per credential or node.",
        operands: "",
        flags: &[
            f("-a", Some("[ACCOUNT]"), "per account", Yes),
            f("-c", Some("[CLASS]"), "per class", Yes),
            f("-d", Some("DEPTH"), "statistics depth", No("the statistics have one depth")),
            f("-g", Some("[GROUP]"), "per group", Yes),
            f("-n", None, "per node", Differs("node times count from the scheduler's start or the last resetstats, as every statistic here (Maui keeps them in its checkpoint)")),
            f("-p", Some("PARTITION"), "per partition", No("Maui 3.3 has no handler for it (it prints the usage)")),
            f("-q", Some("[QOS]"), "per QOS", Yes),
            f("-s", None, "the scheduler (the default)", Yes),
            f("-S", None, "summary (with -n: no line per node)", Yes),
            f("-u", Some("[USER]"), "per user", Yes),
            f("-v", None, "verbose", Yes),
        ],
        support: Yes,
        reads: true,
        level: "ADMIN3",
    },
    Spec {
        name: "showtasks",
        summary: "Tasks per user.",
        operands: "",
        flags: &[],
        support: No("`showstats -u` gives each user's active jobs and processors"),
        reads: true,
        level: "user",
    },
];

/// Maui's commands that need no operand or flag from mauisched's table
/// to be found: the names the Maui clients installed.
pub fn names() -> impl Iterator<Item = &'static str> {
    SPECS.iter().map(|s| s.name)
}

/// The command named `name`.
pub fn find(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.name == name)
}

impl Spec {
    /// The flag `name`.
    pub fn flag(&self, name: &str) -> Option<&'static Flag> {
        self.flags.iter().find(|f| f.name == name)
    }

    /// `showq [-b] [-p PARTITION] ... [JOBID]`: the flags mauisched takes.
    pub fn synopsis(&self) -> String {
        let mut s = self.name.to_string();
        for fl in self.flags.iter().filter(|f| !matches!(f.support, No(_))) {
            s.push_str(&match fl.value {
                Some(v) => format!(" [{} {v}]", fl.name),
                None => format!(" [{}]", fl.name),
            });
        }
        if !self.operands.is_empty() {
            s.push(' ');
            s.push_str(self.operands);
        }
        s
    }

    /// Checks `args` against the table: a flag mauisched does not support
    /// is refused with its reason, an unknown one with the list to read.
    /// Values are skipped; an argument that looks like a negative number
    /// is an operand (`setspri -5 JOB`).
    pub fn check_args(&self, args: &[&str]) -> Result<(), String> {
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if !a.starts_with('-') || *a == "-" || a[1..].starts_with(|c: char| c.is_ascii_digit())
            {
                continue;
            }
            match self.flag(a) {
                Some(fl) => {
                    if let No(why) = fl.support {
                        return Err(format!(
                            "{} {}: not supported by mauisched: {why}",
                            self.name, fl.name
                        ));
                    }
                    let optional = fl.value.is_some_and(|v| v.starts_with('['));
                    let next_is_value = it.clone().next().is_some_and(|n| !n.starts_with('-'));
                    match fl.value {
                        Some(_) if optional && next_is_value => {
                            it.next();
                        }
                        Some(v) if !optional && it.next().is_none() => {
                            return Err(format!("{} {}: needs a value ({v})", self.name, fl.name));
                        }
                        _ => {}
                    }
                }
                None => {
                    return Err(format!(
                        "{}: unknown option \"{a}\" (usage: {}; `{} -h` lists the options)",
                        self.name,
                        self.synopsis(),
                        self.name
                    ))
                }
            }
        }
        Ok(())
    }

    /// The positions in `args` of the operands that name jobs (for
    /// Torque's short ids): every operand of checkjob, showstart, runjob,
    /// sethold, releasehold and canceljob; setspri's last; diagnose's with
    /// `-j`.
    pub fn job_operands(&self, args: &[&str]) -> Vec<usize> {
        let mut ops = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = args[i];
            let flag = a.starts_with('-')
                && a.len() > 1
                && !a[1..].starts_with(|c: char| c.is_ascii_digit());
            if flag {
                let next_is_value = args.get(i + 1).is_some_and(|n| !n.starts_with('-'));
                match self.flag(a).and_then(|f| f.value) {
                    Some(v) if v.starts_with('[') && next_is_value => i += 1,
                    Some(v) if !v.starts_with('[') => i += 1,
                    _ => {}
                }
            } else {
                ops.push(i);
            }
            i += 1;
        }
        match self.name {
            "checkjob" | "showstart" | "runjob" | "sethold" | "releasehold" | "canceljob" => ops,
            "setspri" => ops.last().copied().into_iter().collect(),
            "diagnose" if args.contains(&"-j") => ops,
            _ => Vec::new(),
        }
    }

    /// What `-h` prints: the synopsis, Maui's flags and what mauisched
    /// does with each, then mauictl's own options.
    pub fn help(&self) -> String {
        let mut out = format!("{}\n\nUsage: {}\n", self.summary, self.synopsis());
        match self.support {
            No(why) => {
                out.push_str(&format!("\nNot supported by mauisched: {why}\n"));
                return out;
            }
            Differs(d) => out.push_str(&format!("\nIn mauisched: {d}.\n")),
            Yes => {}
        }
        let width = self
            .flags
            .iter()
            .map(|f| f.name.len() + f.value.map_or(0, |v| v.len() + 1))
            .max()
            .unwrap_or(0)
            .max("-C, --config FILE".len());
        let line = |fl: &Flag| {
            let head = match fl.value {
                Some(v) => format!("{} {v}", fl.name),
                None => fl.name.to_string(),
            };
            let mut l = format!("  {head:<width$}  {}", fl.help);
            match fl.support {
                Differs(d) => l.push_str(&format!(" ({d})")),
                No(why) => l.push_str(&format!(": not supported: {why}")),
                Yes => {}
            }
            l.push('\n');
            l
        };
        let (taken, refused): (Vec<&Flag>, Vec<&Flag>) =
            self.flags.iter().partition(|f| !matches!(f.support, No(_)));
        if !taken.is_empty() {
            out.push_str("\nOptions (Maui's):\n");
            taken.iter().for_each(|fl| out.push_str(&line(fl)));
        }
        if !refused.is_empty() {
            out.push_str("\nMaui's options mauisched refuses:\n");
            refused.iter().for_each(|fl| out.push_str(&line(fl)));
        }
        out.push_str("\nmauictl's options:\n");
        let mut own: Vec<(&str, &str)> = vec![
            ("--json", "print JSON instead of Maui's layout"),
            (
                "--socket PATH",
                "the scheduler's admin socket (default: $MAUISCHED_SOCKET, ADMINSOCKET, run/mauisched.sock in the state directory)",
            ),
            ("-C, --config FILE", "maui.cfg (ADMINSOCKET; offline: the policy)"),
        ];
        if self.reads {
            own.push((
                "--snapshot FILE",
                "offline: run one iteration on this RM snapshot (docs/snapshot.md) and show it",
            ));
            own.push((
                "--fs-dir DIR",
                "offline: fairshare usage from these FS.<epoch> files",
            ));
            own.push((
                "--store FILE",
                "offline: administrative reservations from this store",
            ));
        }
        own.push(("-h, --help", "this help"));
        for (o, h) in own {
            out.push_str(&format!("  {o:<width$}  {h}\n"));
        }
        out.push_str(&format!("\nAdmin level needed: {}.\n", self.level));
        out
    }
}

/// docs/commands.md: every Maui 3.3 client command and flag, whether
/// mauisched takes it, and the difference or the reason it is refused
/// (tests/commands.rs keeps the file equal to this).
pub fn markdown() -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut o = String::from(
        "# Maui's commands in mauisched\n\n\
<!-- Generated from src/commands/spec.rs; tests/commands.rs checks it (MAUISCHED_BLESS=1 rewrites it). -->\n\n\
mauisched answers Maui 3.3's client commands (the names of its `MService` table, with the\n\
option strings of `src/mclient.c`) with Maui's meanings and layouts. Each is `mauictl\n\
COMMAND` or the link named after it (`showq`, `setres`, ...), installed with the package.\n\
A flag mauisched does not take is refused with the reason below, never ignored.\n\n\
## mauictl's own options\n\n\
They are long options (and `-C`, Maui's own configuration-file flag), so that every\n\
short flag after a command keeps Maui's meaning (`showbf -c CLASS`, `diagnose -c`).\n\n\
| Option | Meaning |\n|---|---|\n\
| `-C`, `--config FILE` | maui.cfg: its ADMINSOCKET; offline, the policy. |\n\
| `--socket PATH` | The running scheduler's admin socket (else `$MAUISCHED_SOCKET`, ADMINSOCKET, `run/mauisched.sock` in `$MAUISCHED_STATE_DIR`, default `/var/lib/mauisched`). |\n\
| `--json` | JSON instead of Maui's layout; times are epoch seconds with a local ISO 8601 form beside each. |\n\
| `--snapshot FILE` | Offline (reading commands): one iteration of the same scheduler on this RM snapshot (docs/snapshot.md), answered as the running scheduler answers. |\n\
| `--fs-dir DIR` | Offline: fairshare usage from these `FS.<epoch>` files (`diagnose -f` needs no snapshot). |\n\
| `--store FILE` | Offline: administrative reservations from this store. |\n\
| `-h`, `--help` | The command's flags, as this page lists them. |\n\n\
Exit status: 0 done, 1 refused (permission, not found, not supported), 2 usage, 3 no\n\
scheduler answering. Job ids may be Torque's short ones (`5104` for `5104.head`) wherever\n\
a command takes a job, as in Maui.\n\n\
## Commands and flags\n\n\
| Command | Flag | mauisched | Difference or reason |\n|---|---|---|---|\n",
    );
    let status = |s: Support| match s {
        Yes => ("yes", String::new()),
        Differs(d) => ("differs", d.to_string()),
        No(w) => ("refused", w.to_string()),
    };
    for sp in SPECS {
        let (st, why) = status(sp.support);
        o.push_str(&format!(
            "| `{}` | | {st} | {}{} |\n",
            sp.name,
            cell(sp.summary),
            match sp.support {
                Yes => String::new(),
                Differs(_) => format!(" Difference: {}", cell(&why)),
                No(_) => format!(" Refused: {}", cell(&why)),
            }
        ));
        for f in sp.flags {
            let (st, why) = status(f.support);
            let head = match f.value {
                Some(v) => format!("`{} {v}`", f.name),
                None => format!("`{}`", f.name),
            };
            o.push_str(&format!(
                "| | {head} | {st} | {}{} |\n",
                cell(f.help),
                if why.is_empty() {
                    String::new()
                } else {
                    format!(": {}", cell(&why))
                }
            ));
        }
    }
    o.push_str(
        "\nMaui's other clients (`mjobctl`, `mschedctl`, `mdiag`, `mshow`, `mbal` and the like)\n\
are Moab's interface that Maui 3.3 carried unfinished; mauisched does not answer them.\n",
    );
    o.push_str(OWN_COMMANDS);
    o
}

/// docs/commands.md's part on mauictl's own commands for the running
/// scheduler, which Maui did not have.
const OWN_COMMANDS: &str = r#"
## Snapshots, the node table and what-if (mauictl's own)

`mauictl snapshot [-o FILE] [--socket PATH]` (ADMIN3) writes the snapshot the running
scheduler's last iteration was given (nodes, jobs and `now` as the resource manager
reported them) with the memory that iteration started from: administrative reservations,
fairshare usage, accrued queue time, backfill bypass counts, system priorities (`setspri`),
the job reservations of the iteration before and the standing reservations' claims,
operators' holds, releases, cancels and `runjob` starts waiting to go out, a `schedctl -s`
stop, and preemption records ([snapshot.md](snapshot.md)). The reading commands'
offline form and `mauictl plan`, given that file and the same maui.cfg, decide exactly as
the scheduler did. Before the first iteration it is refused (`no scheduling iteration
has run yet`). The scheduler keeps one such snapshot, replaced by each iteration.

```sh
mauictl snapshot -o s.json
mauictl plan --snapshot s.json -C /etc/mauisched/maui.cfg
mauictl showq --snapshot s.json -C /etc/mauisched/maui.cfg
```

`schedctl -n FILE` writes the node table (Maui's resource trace, one `COMPUTENODE` line
per node of the last snapshot, as Maui's `schedctl -n` printed it) into FILE, which
`simulate --cluster FILE` reads as the cluster:

```sh
mauictl schedctl -n nodes.trace
mauictl simulate site.swf --cluster nodes.trace
```

`mauictl whatif` runs one iteration under the configuration in force and one under a
candidate (`-C FILE`) on the same snapshot and memory, each in a scheduler of its own in
memory: nothing changes in the running scheduler. `live` asks the running scheduler
(ADMIN3) for its snapshot and its configuration (as `showconfig` prints it; `--current
FILE` names another); offline, `--snapshot FILE` and `--current FILE` give them.

```sh
mauictl whatif live -C new.cfg
mauictl whatif live -C new.cfg --html whatif.html
mauictl whatif --snapshot s.json --current maui.cfg -C new.cfg --top 50 --json
```

The report (text, `--json`, and with `--html FILE` a self-contained page with the two
priority orders side by side and the differences highlighted) names:

| Part | What it lists |
|---|---|
| `starts` | jobs the candidate starts that the current configuration does not (`added`), and the other way round (`removed`), with their nodes |
| `order` | the first N (`--top N`, default 20) of each priority order, and every job among them whose rank differs (`changes`: ranks and priorities under each) |
| `reservations` | reservations only in one plan, or in both at another start, end or nodes: job reservations by job, administrative and standing ones by id |
| `reasons` | jobs waiting under both whose reason (why they are not running) changes |
| `credentials` | per user, group, account, class and QOS whose idle jobs move: their number, mean priority and mean rank under each, and the changes |

`identical` is true, and every list empty, when the candidate decides the same. A candidate
or a current configuration with errors is refused with each error's file, line and
column; a snapshot field that cannot be read is named by its path. Exit status: 0
compared (whatever differs), 1 a configuration with errors or a refusal, 2 usage or a
file that cannot be read, 3 no scheduler answering.
"#;
