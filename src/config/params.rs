//! The parameter table: every scalar parameter, its type, Maui's default and
//! what it does, declared once. Parsing, `showconfig`, `--json` and the
//! documentation's parameter table are all generated from it.

use super::lexer::Token;
use super::types::*;
use super::value::{CountLimit, Duration, Limit, Names, ParamValue, Unit};

/// Parses a parameter's tokens into its field; errors carry (column, message).
pub type Setter = fn(&mut Params, &[Token], &mut Vec<(u32, String)>) -> Result<(), (u32, String)>;

/// A scalar parameter: names, doc, and how to set and show it.
pub struct ScalarDef {
    /// Canonical name first, then accepted aliases.
    pub names: &'static [&'static str],
    /// One-line description.
    pub doc: &'static str,
    /// Parses tokens into the field.
    pub set: Setter,
    /// Renders the field's current value.
    pub show: fn(&Params) -> String,
    /// True when the parameter may carry a partition index (`[0]`).
    pub partition_indexed: bool,
}

impl ScalarDef {
    /// Canonical name.
    pub fn name(&self) -> &'static str {
        self.names[0]
    }
}

macro_rules! scalar_params {
    ($( $(#[doc = $doc:literal])+ $field:ident : $ty:ty = $default:expr => [$($name:literal),+] $($pidx:ident)? ;)*) => {
        /// Every scalar parameter with its effective value.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Params {
            $( $(#[doc = $doc])+ pub $field: $ty, )*
        }

        impl Default for Params {
            fn default() -> Self {
                Params { $( $field: $default, )* }
            }
        }

        /// The scalar parameter table, in showconfig order.
        pub static SCALARS: &[ScalarDef] = &[
            $( ScalarDef {
                names: &[$($name),+],
                doc: concat!($($doc),+),
                set: |p, toks, notes| {
                    p.$field = <$ty as ParamValue>::parse_tokens(toks, notes)?;
                    Ok(())
                },
                show: |p| <$ty as ParamValue>::render_value(&p.$field),
                partition_indexed: scalar_params!(@pidx $($pidx)?),
            }, )*
        ];
    };
    (@pidx) => { false };
    (@pidx partition) => { true };
}

scalar_params! {
    // ---- priority: component weights -------------------------------------
    /// Weight of the credential component.
    cred_weight: i64 = 1 => ["CREDWEIGHT"] partition;
    /// Weight of the user priority subcomponent.
    user_weight: i64 = 0 => ["USERWEIGHT"] partition;
    /// Weight of the group priority subcomponent.
    group_weight: i64 = 0 => ["GROUPWEIGHT"] partition;
    /// Weight of the account priority subcomponent.
    account_weight: i64 = 0 => ["ACCOUNTWEIGHT"] partition;
    /// Weight of the QOS priority subcomponent.
    qos_weight: i64 = 0 => ["QOSWEIGHT"] partition;
    /// Weight of the class priority subcomponent.
    class_weight: i64 = 0 => ["CLASSWEIGHT"] partition;
    /// Weight of the fairshare component (1 as in Maui 3.3's code; its guide says 0).
    fs_weight: i64 = 1 => ["FSWEIGHT"] partition;
    /// Weight of user fairshare usage.
    fs_user_weight: i64 = 0 => ["FSUSERWEIGHT", "UFSWEIGHT"] partition;
    /// Weight of group fairshare usage.
    fs_group_weight: i64 = 0 => ["FSGROUPWEIGHT", "GFSWEIGHT"] partition;
    /// Weight of account fairshare usage.
    fs_account_weight: i64 = 0 => ["FSACCOUNTWEIGHT", "AFSWEIGHT"] partition;
    /// Weight of QOS fairshare usage.
    fs_qos_weight: i64 = 0 => ["FSQOSWEIGHT", "QFSWEIGHT"] partition;
    /// Weight of class fairshare usage.
    fs_class_weight: i64 = 0 => ["FSCLASSWEIGHT", "CFSWEIGHT"] partition;
    /// Weight of the requested-resources component (1 as in Maui 3.3's code; its guide says 0).
    res_weight: i64 = 1 => ["RESWEIGHT"] partition;
    /// Weight of the requested node count.
    node_weight: i64 = 0 => ["NODEWEIGHT"] partition;
    /// Weight of the requested processor count.
    proc_weight: i64 = 0 => ["PROCWEIGHT"] partition;
    /// Weight of the requested memory (MB).
    mem_weight: i64 = 0 => ["MEMWEIGHT", "MEMORYWEIGHT"] partition;
    /// Weight of the requested swap (MB).
    swap_weight: i64 = 0 => ["SWAPWEIGHT"] partition;
    /// Weight of the requested local disk (MB).
    disk_weight: i64 = 0 => ["DISKWEIGHT"] partition;
    /// Weight of the requested processor-seconds.
    ps_weight: i64 = 0 => ["PSWEIGHT"] partition;
    /// Weight of the requested processor equivalents (generic resources count: [gres.md](gres.md#processor-equivalents-a-gpu-hour-against-a-cpu-hour)).
    pe_weight: i64 = 0 => ["PEWEIGHT"] partition;
    /// Weight of the requested walltime (seconds).
    walltime_weight: i64 = 0 => ["WALLTIMEWEIGHT"] partition;
    /// Weight of the service component.
    serv_weight: i64 = 1 => ["SERVWEIGHT", "SERVICEWEIGHT"] partition;
    /// Weight of effective queue time (minutes).
    queuetime_weight: i64 = 1 => ["QUEUETIMEWEIGHT"] partition;
    /// Weight of the expansion factor.
    xfactor_weight: i64 = 0 => ["XFACTORWEIGHT"] partition;
    /// Weight of the backfill bypass count.
    bypass_weight: i64 = 0 => ["BYPASSWEIGHT"] partition;
    /// Weight of the target-service component (1 as in Maui 3.3's code; its guide says 0).
    targ_weight: i64 = 1 => ["TARGWEIGHT", "TARGETWEIGHT"] partition;
    /// Weight of the queue-time target subcomponent.
    target_queuetime_weight: i64 = 0 => ["TARGETQUEUETIMEWEIGHT", "TARGETQTWEIGHT"] partition;
    /// Weight of the expansion-factor target subcomponent.
    target_xfactor_weight: i64 = 0 => ["TARGETXFACTORWEIGHT", "TARGETXFWEIGHT"] partition;
    /// Weight of the usage component, running jobs (1 as in Maui 3.3's code; its guide says 0).
    usage_weight: i64 = 1 => ["USAGEWEIGHT"] partition;
    /// Weight of processor-seconds consumed so far.
    usage_consumed_weight: i64 = 0 => ["USAGECONSUMEDWEIGHT"] partition;
    /// Weight of processor-seconds remaining.
    usage_remaining_weight: i64 = 0 => ["USAGEREMAININGWEIGHT"] partition;
    /// Weight of the percentage of walltime consumed.
    usage_percent_weight: i64 = 0 => ["USAGEPERCENTWEIGHT"] partition;
    /// Weight of seconds since start.
    usage_executiontime_weight: i64 = 0 => ["USAGEEXECUTIONTIMEWEIGHT"] partition;
    // ---- priority: caps (0 = no cap) ---------------------------------------
    /// Cap on the pre-weighted credential component.
    cred_cap: f64 = 0.0 => ["CREDCAP"] partition;
    /// Cap on the pre-weighted fairshare component.
    fs_cap: f64 = 0.0 => ["FSCAP"] partition;
    /// Cap on the pre-weighted resource component.
    res_cap: f64 = 0.0 => ["RESCAP"] partition;
    /// Cap on the pre-weighted service component.
    serv_cap: f64 = 0.0 => ["SERVCAP", "SERVICECAP"] partition;
    /// Cap on the pre-weighted queue-time subcomponent.
    queuetime_cap: f64 = 0.0 => ["QUEUETIMECAP"] partition;
    /// Cap on the pre-weighted expansion-factor subcomponent.
    xfactor_cap: f64 = 0.0 => ["XFACTORCAP"] partition;
    /// Cap on the pre-weighted bypass subcomponent.
    bypass_cap: f64 = 0.0 => ["BYPASSCAP"] partition;
    /// Cap on the pre-weighted target component.
    targ_cap: f64 = 0.0 => ["TARGCAP", "TARGETCAP"] partition;
    /// Cap on the pre-weighted usage component.
    usage_cap: f64 = 0.0 => ["USAGECAP"] partition;
    /// Allow negative job priorities (without it, or REJECTNEGPRIOJOBS, priorities are at least 1).
    enable_neg_job_priority: bool = false => ["ENABLENEGJOBPRIORITY"] partition;
    /// Refuse to start jobs whose priority is negative (FALSE as in Maui 3.3's code; its guide says TRUE).
    reject_neg_prio_jobs: bool = false => ["REJECTNEGPRIOJOBS"] partition;
    /// Which throttling policies a job must meet to accrue queue time.
    job_prio_accrual_policy: JobPrioAccrualPolicy = JobPrioAccrualPolicy::QueuePolicy => ["JOBPRIOACCRUALPOLICY"];
    /// Smallest walltime used in the expansion factor (-1: none; 2 minutes by default, as in Maui 3.3's code).
    xf_min_wclimit: Limit = Limit(Some(120)) => ["XFMINWCLIMIT"];
    // ---- fairshare -------------------------------------------------------------
    /// Fairshare usage metric, `%` for ratio-based priority. `DEDICATEDPES` charges generic resources through processor equivalents ([gres.md](gres.md#processor-equivalents-a-gpu-hour-against-a-cpu-hour)).
    fs_policy: FsPolicy = FsPolicy { metric: None, percent: false } => ["FSPOLICY"];
    /// Length of one fairshare window (12 hours as in Maui 3.3's code; its guide says 24).
    fs_interval: Duration = Duration(43_200) => ["FSINTERVAL"];
    /// Number of fairshare windows considered, at most 32 (8 as in Maui 3.3's code; its guide says 7).
    fs_depth: u32 = 8 => ["FSDEPTH"];
    /// Decay applied per older window.
    fs_decay: Unit = Unit(1.0) => ["FSDECAY"];
    // ---- backfill and reservations --------------------------------------------
    /// Backfill algorithm.
    backfill_policy: BackfillPolicy = BackfillPolicy::FirstFit => ["BACKFILLPOLICY"];
    /// Degree of fit for BESTFIT and GREEDY.
    backfill_metric: BackfillMetric = BackfillMetric::Procs => ["BACKFILLMETRIC"];
    /// Number of idle jobs considered for backfill (0 = all).
    backfill_depth: u32 = 0 => ["BACKFILLDEPTH"];
    /// How long freed resources are kept for large jobs (chunking).
    bf_chunk_duration: Duration = Duration(0) => ["BFCHUNKDURATION"];
    /// Smallest job (procs) that may use chunked resources.
    bf_chunk_size: u32 = 0 => ["BFCHUNKSIZE"];
    /// Which jobs get priority reservations.
    reservation_policy: ReservationPolicy = ReservationPolicy::CurrentHighest => ["RESERVATIONPOLICY"];
    /// Which nodes a job's future reservation takes first: those
    /// NODEALLOCATIONPOLICY chooses (Maui), or LATESTFREED, the nodes that free up last before its
    /// start, leaving nodes idle now to backfill (a mauisched addition).
    reservation_node_policy: ReservationNodePolicy = ReservationNodePolicy::Allocation => ["RESERVATIONNODEPOLICY"];
    /// Maximum number of reservations on one node.
    res_depth: u32 = 24 => ["RESDEPTH"];
    /// Who may create administrative reservations.
    res_ctl_policy: ResCtlPolicy = ResCtlPolicy::AdminOnly => ["RESCTLPOLICY"];
    // ---- nodes and allocation --------------------------------------------------
    /// How nodes are chosen for a job.
    node_allocation_policy: NodeAllocationPolicy = NodeAllocationPolicy::LastAvailable => ["NODEALLOCATIONPOLICY", "ALLOCATIONPOLICY"];
    /// How LASTAVAILABLE orders nodes: LONGESTFIRST (Maui's code: for a start now the nodes
    /// available longest first, for a future start the highest index first) or BESTFIT (the
    /// guide's reading: the node whose free time ends soonest after the job first).
    last_available_order: LastAvailableOrder = LastAvailableOrder::LongestFirst => ["LASTAVAILABLEORDER"];
    /// How a node is shared between jobs.
    node_access_policy: NodeAccessPolicy = NodeAccessPolicy::Shared => ["NODEACCESSPOLICY"];
    /// How availability is judged per resource.
    node_availability_policy: NodeAvailability = NodeAvailability::default() => ["NODEAVAILABILITYPOLICY"];
    /// Whether load marks a node busy or reduces its processors.
    node_load_policy: NodeLoadPolicy = NodeLoadPolicy::AdjustState => ["NODELOADPOLICY"];
    /// Load at which a node counts as busy (0 = never).
    node_max_load: f64 = 0.0 => ["NODEMAXLOAD"];
    /// EXACTNODE / EXACTPROC.
    job_node_match_policy: JobNodeMatch = JobNodeMatch::default() => ["JOBNODEMATCHPOLICY"];
    /// Allow jobs to span several nodes.
    enable_multi_node_jobs: bool = true => ["ENABLEMULTINODEJOBS"];
    /// Allow jobs with several independent resource requests.
    enable_multi_req_jobs: bool = false => ["ENABLEMULTIREQJOBS"];
    /// Scale walltime by machine speed.
    use_machine_speed: bool = false => ["USEMACHINESPEED"];
    // ---- jobs --------------------------------------------------------------------
    /// Walltime of jobs that ask for none (Maui 3.3's MDEF_SYSJOBWCLIMIT, 99:23:59:59).
    system_default_job_walltime: Duration = Duration(8_639_999) => ["SYSTEMDEFAULTJOBWALLTIME"];
    /// Largest walltime one job may ask for (-1: no limit).
    system_max_job_walltime: Limit = Limit(None) => ["SYSTEMMAXJOBWALLTIME"];
    /// Most processors one job may ask for (-1: no limit).
    system_max_proc_per_job: CountLimit = CountLimit(None) => ["SYSTEMMAXPROCPERJOB", "SYSTEMMAXJOBPROC"];
    /// Most processor-seconds one job may ask for (-1: no limit).
    system_max_proc_second_per_job: CountLimit = CountLimit(None) => ["SYSTEMMAXPROCSECONDPERJOB", "SYSTEMMAXJOBPROCSECOND"];
    // ---- scheduler ---------------------------------------------------------------
    /// Interval between scheduling iterations (RM polls).
    rm_poll_interval: Duration = Duration(60) => ["RMPOLLINTERVAL"];
    /// Minimum wait after a job event before iterating (merges bursts).
    job_aggregation_time: Duration = Duration(0) => ["JOBAGGREGATIONTIME"];
    /// Users with full control (level 1).
    admin1: Names = Names(vec!["root".into()]) => ["ADMIN1"];
    /// Users who may change jobs and read everything (level 2).
    admin2: Names = Names(Vec::new()) => ["ADMIN2"];
    /// Users who may read everything (level 3).
    admin3: Names = Names(Vec::new()) => ["ADMIN3"];
    /// Directory for statistics and fairshare files (relative to the state directory).
    stat_dir: String = "stats".into() => ["STATDIR"];
    /// Checkpoint file name (relative to the state directory).
    checkpoint_file: String = "maui.ck".into() => ["CHECKPOINTFILE"];
    /// How often state is checkpointed at most.
    checkpoint_interval: Duration = Duration(300) => ["CHECKPOINTINTERVAL"];
    /// Log file (for front ends that keep their own log; the Slurm plugin logs to slurmctld's log).
    log_file: String = "maui.log".into() => ["LOGFILE"];
    /// Directory of relative LOGFILE names.
    log_dir: String = "log".into() => ["LOGDIR"];
    /// Log verbosity 0-9.
    log_level: u32 = 0 => ["LOGLEVEL"];
    /// Time clients wait for the scheduler.
    client_timeout: Duration = Duration(30) => ["CLIENTTIMEOUT"];
    /// Admin socket path for mauictl and the Maui command names (default: run/mauisched.sock under the state directory).
    admin_socket: String = String::new() => ["ADMINSOCKET"];
}

/// Why a known parameter does nothing in mauisched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotUsed {
    /// Plumbing that the resource manager or front end handles.
    NotApplicable(&'static str),
    /// Not the policy engine's: `mauisched-pbs`, the PBS/Torque front
    /// end, reads it from the same maui.cfg (c-shim/pbs/config.c), for
    /// what is said. The Slurm plugin runs inside slurmctld: with Slurm
    /// it does nothing.
    PbsFrontEnd(&'static str),
    /// A Maui feature mauisched does not implement (yet).
    Unsupported(&'static str),
    /// A Moab parameter (Maui never had it).
    MoabOnly,
}

/// Why LOGFILEMAXSIZE and LOGFILEROLLDEPTH do nothing.
const LOGS_ROLLED_BY_LOGROTATE: &str =
    "the Slurm plugin logs to slurmctld's log, the PBS scheduler to its -l file: logrotate rolls them";

/// Known parameters that are accepted and reported, never rejected.
/// Names ending in `*` are prefixes (`SIM*`).
pub static NOT_USED: &[(&str, NotUsed)] = &[
    (
        "SERVERHOST",
        NotUsed::PbsFrontEnd("the pbs_server to connect to when no RMCFG HOST= names one"),
    ),
    (
        "SERVERPORT",
        NotUsed::NotApplicable("commands use the admin socket (ADMINSOCKET)"),
    ),
    (
        "SERVERMODE",
        NotUsed::NotApplicable("simulation is run with `mauictl simulate`"),
    ),
    (
        "SERVERNAME",
        NotUsed::NotApplicable("mauisched has no server name"),
    ),
    (
        "ADMINHOST",
        NotUsed::NotApplicable("commands are authorised by the admin socket's peer credentials"),
    ),
    (
        "RMCFG",
        NotUsed::PbsFrontEnd(
            "the first RMCFG of TYPE=PBS or without TYPE: HOST= and PORT= the pbs_server to \
             connect to, EPORT= the scheduler port to listen on, MINETIME= the least time between \
             command-driven iterations; other attributes are ignored",
        ),
    ),
    (
        "RMTYPE",
        NotUsed::NotApplicable("the resource manager is the one whose front end loads mauisched"),
    ),
    (
        "RMHOST",
        NotUsed::NotApplicable("the resource manager is the one whose front end loads mauisched"),
    ),
    (
        "RMSERVER",
        NotUsed::NotApplicable("the resource manager is the one whose front end loads mauisched"),
    ),
    (
        "RMPORT",
        NotUsed::NotApplicable("the resource manager is the one whose front end loads mauisched"),
    ),
    (
        "RMNMPORT",
        NotUsed::NotApplicable("node data comes from the resource manager"),
    ),
    (
        "RMAUTHTYPE",
        NotUsed::NotApplicable("the front end authenticates as the RM's own daemon"),
    ),
    (
        "RMTIMEOUT",
        NotUsed::NotApplicable("the front end handles RM time-outs"),
    ),
    (
        "AMCFG",
        NotUsed::NotApplicable("allocation managers are not used"),
    ),
    (
        "CLIENTCFG",
        NotUsed::NotApplicable("commands are authorised by peer credentials"),
    ),
    (
        "SIMINITIALQUEUEDEPTH",
        NotUsed::NotApplicable(
            "read by `mauictl simulate --grid`: the jobs queued before its first iteration, as in Maui's simulator",
        ),
    ),
    (
        "SIMJOBSUBMISSIONPOLICY",
        NotUsed::NotApplicable(
            "read by `mauictl simulate --grid`, which replays submit times (NORMAL) only",
        ),
    ),
    (
        "SIM*",
        NotUsed::NotApplicable(
            "simulation is run with `mauictl simulate`, whose options replace SIM* parameters",
        ),
    ),
    (
        "LOGFACILITY",
        NotUsed::NotApplicable("log messages go to the host's log"),
    ),
    (
        "DISPLAYFLAGS",
        NotUsed::NotApplicable("command output follows Maui's default layout"),
    ),
    (
        "TRAPFUNCTION",
        NotUsed::NotApplicable("Maui debugging hook"),
    ),
    ("TRAPJOB", NotUsed::NotApplicable("Maui debugging hook")),
    ("TRAPNODE", NotUsed::NotApplicable("Maui debugging hook")),
    ("TRAPRES", NotUsed::NotApplicable("Maui debugging hook")),
    (
        "FSCONFIGFILE",
        NotUsed::NotApplicable("fairshare targets are set with the *CFG FSTARGET attributes"),
    ),
    (
        "NODEPOLLFREQUENCY",
        NotUsed::NotApplicable("node data comes from the RM on every iteration"),
    ),
    (
        "NODESYNCTIME",
        NotUsed::NotApplicable("node state is the RM's"),
    ),
    (
        "JOBSYNCTIME",
        NotUsed::NotApplicable("job state is the RM's"),
    ),
    (
        "PURGETIME",
        NotUsed::NotApplicable("job and node records are the RM's"),
    ),
    (
        "JOBPURGETIME",
        NotUsed::NotApplicable("job records are the RM's"),
    ),
    (
        "NODEPURGETIME",
        NotUsed::NotApplicable("node records are the RM's"),
    ),
    (
        "DEFAULTCLASSLIST",
        NotUsed::NotApplicable("classes come from the RM"),
    ),
    (
        "FEATURENODETYPEHEADER",
        NotUsed::NotApplicable("node types come from the RM"),
    ),
    (
        "FEATUREPARTITIONHEADER",
        NotUsed::NotApplicable("partitions come from the RM or NODECFG"),
    ),
    (
        "FEATUREPROCSPEEDHEADER",
        NotUsed::NotApplicable("processor speed comes from the RM or NODECFG"),
    ),
    (
        "PLOTMAXPROC",
        NotUsed::NotApplicable("plots are made by `mauictl simulate`"),
    ),
    (
        "PLOTMAXTIME",
        NotUsed::NotApplicable("plots are made by `mauictl simulate`"),
    ),
    (
        "PLOTMINPROC",
        NotUsed::NotApplicable("plots are made by `mauictl simulate`"),
    ),
    (
        "PLOTMINTIME",
        NotUsed::NotApplicable("plots are made by `mauictl simulate`"),
    ),
    (
        "PLOTPROCSCALE",
        NotUsed::NotApplicable("plots are made by `mauictl simulate`"),
    ),
    (
        "PLOTTIMESCALE",
        NotUsed::NotApplicable("plots are made by `mauictl simulate`"),
    ),
    (
        "NOTIFICATIONPROGRAM",
        NotUsed::Unsupported("event notification"),
    ),
    (
        "FEEDBACKPROGRAM",
        NotUsed::Unsupported("job feedback programs"),
    ),
    (
        "DEFERTIME",
        NotUsed::Unsupported("job deferral (the RM retries failed starts)"),
    ),
    (
        "DEFERCOUNT",
        NotUsed::Unsupported("job deferral (the RM retries failed starts)"),
    ),
    (
        "DEFERSTARTCOUNT",
        NotUsed::Unsupported("job deferral (the RM retries failed starts)"),
    ),
    (
        "JOBMAXSTARTTIME",
        NotUsed::Unsupported("start time-outs are the RM's"),
    ),
    (
        "JOBMAXOVERRUN",
        NotUsed::Unsupported("walltime enforcement is the RM's"),
    ),
    (
        "WCVIOLATIONACTION",
        NotUsed::Unsupported("walltime enforcement is the RM's"),
    ),
    (
        "RESOURCELIMITPOLICY",
        NotUsed::Unsupported("resource limit enforcement is the RM's"),
    ),
    (
        "ENFORCERESOURCELIMITS",
        NotUsed::Unsupported("resource limit enforcement is the RM's"),
    ),
    (
        "NODEDOWNSTATEDELAYTIME",
        NotUsed::Unsupported(
            "down and drained nodes are never planned on; Maui assumed them back after this delay, 1 hour by default",
        ),
    ),
    (
        "CHECKPOINTEXPIRATIONTIME",
        NotUsed::Unsupported("checkpointed state is kept whatever its age"),
    ),
    (
        "LOGFILEMAXSIZE",
        NotUsed::NotApplicable(LOGS_ROLLED_BY_LOGROTATE),
    ),
    (
        "LOGFILEROLLDEPTH",
        NotUsed::NotApplicable(LOGS_ROLLED_BY_LOGROTATE),
    ),
    ("PREEMPTPOLICY", NotUsed::Unsupported("preemption")),
    ("BFPRIORITYPOLICY", NotUsed::Unsupported("preemption")),
    ("NODESETPOLICY", NotUsed::Unsupported("node sets")),
    ("NODESETATTRIBUTE", NotUsed::Unsupported("node sets")),
    ("NODESETLIST", NotUsed::Unsupported("node sets")),
    ("NODESETDELAY", NotUsed::Unsupported("node sets")),
    ("NODESETPRIORITYTYPE", NotUsed::Unsupported("node sets")),
    ("NODESETTOLERANCE", NotUsed::Unsupported("node sets")),
    (
        "TASKDISTRIBUTIONPOLICY",
        NotUsed::Unsupported("task distribution is the RM's"),
    ),
    (
        "RESERVATIONRETRYTIME",
        NotUsed::Unsupported("start retries are the RM's"),
    ),
    (
        "USESYSTEMQUEUETIME",
        NotUsed::Unsupported("superseded by JOBPRIOACCRUALPOLICY"),
    ),
    ("QOSFEATURES", NotUsed::Unsupported("QOS node features")),
    (
        "MAXJOBPERUSERPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXJOB"),
    ),
    (
        "MAXJOBPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXJOB"),
    ),
    (
        "SMAXJOBPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXJOB=<soft>,<hard>"),
    ),
    (
        "MAXJOBQUEUEDPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXIJOB"),
    ),
    (
        "MAXNODEPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXNODE"),
    ),
    (
        "MAXPEPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPE"),
    ),
    (
        "MAXPROCPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPROC"),
    ),
    (
        "MAXPSPERUSER",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPS"),
    ),
    (
        "MAXWCPERUSER",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXWC"),
    ),
    ("ATTRWEIGHT", NotUsed::MoabOnly),
    ("SCHEDCFG", NotUsed::MoabOnly),
    ("ADMINCFG", NotUsed::MoabOnly),
    ("TOOLSDIR", NotUsed::MoabOnly),
    ("USEDATABASE", NotUsed::MoabOnly),
    ("UIMANAGEMENTPOLICY", NotUsed::MoabOnly),
    ("CLIENTUIPORT", NotUsed::MoabOnly),
    ("MAXJOB", NotUsed::MoabOnly),
    ("NODEIDLEPURGETIME", NotUsed::MoabOnly),
    ("JOBCFG", NotUsed::MoabOnly),
    ("PARCFG", NotUsed::MoabOnly),
    ("VCPROFILE", NotUsed::MoabOnly),
    ("IDCFG", NotUsed::MoabOnly),
    ("MAILPROGRAM", NotUsed::MoabOnly),
];

/// Looks a name up in [`NOT_USED`].
pub fn not_used(name_upper: &str) -> Option<NotUsed> {
    NOT_USED.iter().find_map(|(n, why)| {
        let hit = match n.strip_suffix('*') {
            Some(prefix) => name_upper.starts_with(prefix),
            None => *n == name_upper,
        };
        hit.then_some(*why)
    })
}

/// Finds a scalar by any of its names.
pub fn scalar(name_upper: &str) -> Option<&'static ScalarDef> {
    SCALARS.iter().find(|d| d.names.contains(&name_upper))
}
