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
    // DIRECTSPECWEIGHT, SERVICETARGETWEIGHT, BACKFILLTYPE: old names Maui 3.3
    // still translates (MConfig.c, MCfgTranslateBackLevel).
    /// Weight of the credential component.
    cred_weight: i64 = 1 => ["CREDWEIGHT", "DIRECTSPECWEIGHT"] partition;
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
    serv_weight: i64 = 1 => ["SERVWEIGHT", "SERVICEWEIGHT", "SERVICETARGETWEIGHT"] partition;
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
    // CONSUMEDWEIGHT, REMAININGWEIGHT, PERCENTWEIGHT are the names in Maui 3.3's
    // table (MConst.c); its guide calls them USAGE*WEIGHT.
    /// Weight of processor-seconds consumed so far.
    usage_consumed_weight: i64 = 0 => ["USAGECONSUMEDWEIGHT", "CONSUMEDWEIGHT"] partition;
    /// Weight of processor-seconds remaining.
    usage_remaining_weight: i64 = 0 => ["USAGEREMAININGWEIGHT", "REMAININGWEIGHT"] partition;
    /// Weight of the percentage of walltime consumed.
    usage_percent_weight: i64 = 0 => ["USAGEPERCENTWEIGHT", "PERCENTWEIGHT"] partition;
    /// Weight of seconds since start.
    usage_executiontime_weight: i64 = 0 => ["USAGEEXECUTIONTIMEWEIGHT"] partition;
    // ---- priority: caps (0 = no cap) ---------------------------------------
    /// Cap on the pre-weighted credential component.
    cred_cap: f64 = 0.0 => ["CREDCAP"] partition;
    /// Cap on the pre-weighted fairshare component.
    fs_cap: f64 = 0.0 => ["FSCAP"] partition;
    /// Cap on the pre-weighted resource component.
    res_cap: f64 = 0.0 => ["RESCAP"] partition;
    // SERVICEWCAP is Maui 3.3's table name for this cap.
    /// Cap on the pre-weighted service component.
    serv_cap: f64 = 0.0 => ["SERVCAP", "SERVICECAP", "SERVICEWCAP"] partition;
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
    /// Backfill algorithm: FIRSTFIT, BESTFIT, GREEDY, PREEMPT (Maui's preemption-based backfill: FIRSTFIT that may run into reserved timeslots, what it started being preempted when the timeslot comes, [preemption.md](preemption.md)) or NONE.
    backfill_policy: BackfillPolicy = BackfillPolicy::FirstFit => ["BACKFILLPOLICY", "BACKFILLTYPE"];
    /// How preempted jobs are preempted: REQUEUE (ended and queued again), SUSPEND (stopped on their nodes, keeping memory, resumed when the processors are free) or CHECKPOINT (checkpointed and ended, Torque only: [preemption.md](preemption.md)).
    preempt_policy: PreemptPolicy = PreemptPolicy::Requeue => ["PREEMPTPOLICY"];
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
    /// ADJUSTSTATE: a node at MAXLOAD is busy (ADJUSTPROCS, which would reduce its processors, is warned about and ignores load).
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
    // ADMINS sets the same list as ADMIN1 in Maui 3.3 (MSched.c).
    /// Users with full control (level 1).
    admin1: Names = Names(vec!["root".into()]) => ["ADMIN1", "ADMINS"];
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
    /// Plumbing that the resource manager or front end handles, or a
    /// name Maui 3.3 reads and never acts on.
    NotApplicable(&'static str),
    /// Not the policy engine's: `mauisched-pbs`, the PBS/Torque front
    /// end, reads it from the same maui.cfg (c-shim/pbs/config.c), for
    /// what is said. The Slurm plugin runs inside slurmctld: with Slurm
    /// it does nothing.
    PbsFrontEnd(&'static str),
    /// A Maui feature mauisched does not implement (yet).
    Unsupported(&'static str),
    /// A Moab parameter (not in Maui 3.3's parameter tables).
    MoabOnly,
}

/// Why LOGFILEMAXSIZE and LOGFILEROLLDEPTH do nothing.
const LOGS_ROLLED_BY_LOGROTATE: &str =
    "the Slurm plugin logs to slurmctld's log, the PBS scheduler to its -l file: logrotate rolls them";

/// Why ADMINHOSTS and ADMINHOST do nothing: the admin socket is a local
/// socket whose peer's uid says who asks.
const PEER_CREDENTIALS: &str = "commands are authorised by the admin socket's peer credentials";

/// Why client socket settings do nothing.
const ADMIN_SOCKET: &str = "commands use the admin socket (ADMINSOCKET)";

/// Why the simulator's settings do nothing.
const SIMULATION: &str = "simulation is run with `mauictl simulate`";

/// Why Maui's allocation manager (bank) settings do nothing.
const NO_ALLOCATION_MANAGER: &str = "allocation managers are not used";

/// Names in Maui 3.3's parameter table that its code stores and never
/// uses, or does not store at all: ignoring them changes nothing.
const MAUI_NEVER_ACTED: &str = "Maui 3.3 reads it but never acts on it";

/// PARCFG and QUEUECFG are in Maui 3.3's MCredCfgParm[], but its
/// MSysInitialize loads neither.
const MAUI_NEVER_LOADED: &str = "Maui 3.3 names it but never loads it";

/// Why the ATTR* weights and caps do nothing.
const JOB_ATTR_PRIORITY: &str =
    "Maui 3.3 never implemented its job attribute priority component: its MPriority.c marks it NYI";

/// Why caps on the usage subcomponents do nothing: Maui 3.3's usage
/// priority (MJobGetRunPriority) applies none.
const USAGE_SUBCOMPONENT_CAPS: &str = "Maui 3.3 reads it but caps no usage subcomponent";

/// Maui caps every priority subcomponent; mauisched caps three.
const SUBCOMPONENT_CAPS: &str =
    "caps on priority subcomponents other than QUEUETIMECAP, XFACTORCAP and BYPASSCAP";

/// Maui's Scalable Systems Software peers.
const SSS_SERVICES: &str =
    "Scalable Systems Software directory and event services: mauisched runs inside the RM's front end";

/// Why event notification settings do nothing.
const EVENT_NOTIFICATION: &str = "event notification";

/// Why resource-limit enforcement settings do nothing.
const RESOURCE_LIMITS_BY_RM: &str = "resource limit enforcement is the RM's";

/// Known parameters that are accepted and reported, never rejected.
/// Names ending in `*` are prefixes (`SIM*`).
pub static NOT_USED: &[(&str, NotUsed)] = &[
    (
        "SERVERHOST",
        NotUsed::PbsFrontEnd("the pbs_server to connect to when no RMCFG HOST= names one"),
    ),
    ("SERVERPORT", NotUsed::NotApplicable(ADMIN_SOCKET)),
    ("SERVERMODE", NotUsed::NotApplicable(SIMULATION)),
    (
        "SERVERNAME",
        NotUsed::NotApplicable("mauisched has no server name"),
    ),
    // Maui 3.3's name (MConst.c) and Moab's.
    ("ADMINHOSTS", NotUsed::NotApplicable(PEER_CREDENTIALS)),
    // Kept because site files carry it, though no Maui or Moab reads it.
    (
        "ADMINHOST",
        NotUsed::NotApplicable(
            "neither Maui's nor Moab's name, both spell it ADMINHOSTS; commands are authorised \
             by the admin socket's peer credentials",
        ),
    ),
    // Maui 3.3 accepted requests whose checksum failed when ADMIN4 was ALL (MSU.c).
    (
        "ADMIN4",
        NotUsed::NotApplicable(
            "commands are authorised by the admin socket's peer credentials; Maui 3.3 used \
             ADMIN4 ALL only to accept requests whose checksum failed",
        ),
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
    ("AMCFG", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
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
    ("NOTIFICATIONPROGRAM", NotUsed::Unsupported(EVENT_NOTIFICATION)),
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
        NotUsed::Unsupported(RESOURCE_LIMITS_BY_RM),
    ),
    (
        "ENFORCERESOURCELIMITS",
        NotUsed::Unsupported(RESOURCE_LIMITS_BY_RM),
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
    (
        "BFPRIORITYPOLICY",
        NotUsed::Unsupported(
            "backfill takes jobs in priority order, BACKFILLPOLICY PREEMPT included",
        ),
    ),
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
    // ---- the rest of Maui 3.3's parameter table (tests/data/maui33-params.txt) ----
    // Scheduler plumbing.
    ("MCSOCKETPROTOCOL", NotUsed::NotApplicable(ADMIN_SOCKET)),
    ("DIRECTORYSERVER", NotUsed::NotApplicable(SSS_SERVICES)),
    ("EVENTSERVER", NotUsed::NotApplicable(SSS_SERVICES)),
    (
        "LOCKFILE",
        NotUsed::NotApplicable("the state directory's run/lock keeps a second scheduler out"),
    ),
    (
        "SERVERHOMEDIR",
        NotUsed::NotApplicable(
            "the state directory is the front end's: maui_state= for Slurm, mauisched-pbs \
             -S",
        ),
    ),
    (
        "SERVERCONFIGFILE",
        NotUsed::NotApplicable(
            "maui.cfg is named to the front end: maui_config= for Slurm, mauisched-pbs \
             -c",
        ),
    ),
    // SCHEDCFG[<name>] MODE= SERVER= FBSERVER= (MSys.c MSchedProcessConfig).
    (
        "SCHEDCFG",
        NotUsed::NotApplicable(
            "the scheduler's name, MODE=, SERVER= and FBSERVER=: mauisched runs inside the RM's \
             front end, answers on its admin socket and simulates with `mauictl simulate`",
        ),
    ),
    (
        "TOOLSDIR",
        NotUsed::NotApplicable(
            "where Maui found NOTIFICATIONPROGRAM and FEEDBACKPROGRAM, which mauisched \
             does not run",
        ),
    ),
    (
        "USESYSLOG",
        NotUsed::NotApplicable(
            "the Slurm plugin logs to slurmctld's log, the PBS scheduler to its -l file \
             or standard error",
        ),
    ),
    ("MAXSLEEPITERATION", NotUsed::NotApplicable("mauisched schedules at every poll")),
    (
        "STEPCOUNT",
        NotUsed::NotApplicable(
            "the iterations of Maui's SINGLESTEP and TEST modes; simulation is run with \
             `mauictl simulate`",
        ),
    ),
    ("COMINTERFRAMECOST", NotUsed::NotApplicable(SIMULATION)),
    ("COMINTRAFRAMECOST", NotUsed::NotApplicable(SIMULATION)),
    (
        "RMCONFIGFILE",
        NotUsed::NotApplicable("a LoadLeveler setting; mauisched works with Slurm and PBS/Torque"),
    ),
    (
        "BACKFILLMAXSCHEDULES",
        NotUsed::NotApplicable(
            "GREEDY backfill is solved as a knapsack, with no search of \
             schedules to cap",
        ),
    ),
    (
        "USECPUTIME",
        NotUsed::NotApplicable("command output follows Maui's default layout (walltime limits)"),
    ),
    // Allocation manager (bank) settings.
    ("BANKAPPENDMACHINENAME", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKCHARGEPOLICY", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKDEFERONJOBFAILURE", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKFALLBACKACCOUNT", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKFLUSHINTERVAL", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKHOST", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKPORT", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKPROTOCOL", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKSERVER", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKTIMEOUT", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    ("BANKTYPE", NotUsed::NotApplicable(NO_ALLOCATION_MANAGER)),
    // In the table, not acted on by Maui 3.3: set and never read, handled
    // as "no longer supported", NYI (MAILPROGRAM) or not handled at all.
    ("BACKFILLPROCFACTOR", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("COMPUTEHOSTS", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("DEFAULTACCOUNT", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("DEFAULTQMHOST", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("FSENFORCEMENT", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("JOBPRIOF", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("JOBSIZEPOLICY", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("MACHINECONFIGFILE", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("MAILPROGRAM", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("MAXJOBPERITERATION", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("MINDISPATCHTIME", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("PARCFG", NotUsed::NotApplicable(MAUI_NEVER_LOADED)),
    ("PARIGNQUEUELIST", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("QOSNAME", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("QUEUECFG", NotUsed::NotApplicable(MAUI_NEVER_LOADED)),
    ("QUEUETIMETARGETWEIGHT", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("XFACTORTARGETWEIGHT", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("REMOTESTARTCOMMAND", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RESOURCECOLLECTIONPOLICY", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RESOURCEDAEMON", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RESOURCEDATAFILE", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RESOURCELOCKFILE", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RESOURCEPORT", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RESOURCEREPORTWAIT", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RESOURCESAMPLEINTERVAL", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("RMNAME", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("SRIDLETIME", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("SRMAXTASKS", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("SRMINLOAD", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("SRMINTASKS", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("SRNAME", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    ("USELOCALMACHINEPRIORITY", NotUsed::NotApplicable(MAUI_NEVER_ACTED)),
    // Maui 3.3 computes these and leaves them out of the RES sum (its loop
    // ends at the WALLTIME subcomponent).
    (
        "UJOBWEIGHT",
        NotUsed::NotApplicable(
            "Maui 3.3 reads it but leaves the subcomponent out of the resource \
             component",
        ),
    ),
    (
        "UPROCWEIGHT",
        NotUsed::NotApplicable(
            "Maui 3.3 reads it but leaves the subcomponent out of the resource \
             component",
        ),
    ),
    ("ATTRWEIGHT", NotUsed::NotApplicable(JOB_ATTR_PRIORITY)),
    ("ATTRCAP", NotUsed::NotApplicable(JOB_ATTR_PRIORITY)),
    ("ATTRATTRWEIGHT", NotUsed::NotApplicable(JOB_ATTR_PRIORITY)),
    ("ATTRATTRCAP", NotUsed::NotApplicable(JOB_ATTR_PRIORITY)),
    ("ATTRSTATEWEIGHT", NotUsed::NotApplicable(JOB_ATTR_PRIORITY)),
    ("ATTRSTATECAP", NotUsed::NotApplicable(JOB_ATTR_PRIORITY)),
    ("CONSUMEDCAP", NotUsed::NotApplicable(USAGE_SUBCOMPONENT_CAPS)),
    ("REMAININGCAP", NotUsed::NotApplicable(USAGE_SUBCOMPONENT_CAPS)),
    ("PERCENTCAP", NotUsed::NotApplicable(USAGE_SUBCOMPONENT_CAPS)),
    ("USAGEEXECUTIONTIMECAP", NotUsed::NotApplicable(USAGE_SUBCOMPONENT_CAPS)),
    // Maui 3.3 features mauisched does not implement.
    ("ACCOUNTCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("CLASSCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("GROUPCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("QOSCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("USERCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("FSACCOUNTCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("FSCLASSCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("FSGROUPCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("FSQOSCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("FSUSERCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("DISKCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("MEMCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("NODECAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("PECAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("PROCCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("PSCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("SWAPCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("WALLTIMECAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("TARGETQUEUETIMECAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("TARGETXFACTORCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("SPVIOLATIONCAP", NotUsed::Unsupported(SUBCOMPONENT_CAPS)),
    ("SPVIOLATIONWEIGHT", NotUsed::Unsupported("priority of running jobs over a soft limit")),
    ("NOTIFICATIONINTERVAL", NotUsed::Unsupported(EVENT_NOTIFICATION)),
    // Its only effect in Maui 3.3 is an event after that many RM failures.
    ("APIFAILURETHRESHHOLD", NotUsed::Unsupported(EVENT_NOTIFICATION)),
    // How long Maui kept a job suspended for RESOURCELIMITPOLICY.
    ("MINADMINSTIME", NotUsed::Unsupported(RESOURCE_LIMITS_BY_RM)),
    ("NODEALLOCMAXPS", NotUsed::Unsupported("MAXPS usage of SINGLEJOB jobs counted by nodes")),
    (
        "NODECPUOVERCOMMITFACTOR",
        NotUsed::Unsupported("over-committing the processors the RM reports"),
    ),
    ("NODEMEMOVERCOMMITFACTOR", NotUsed::Unsupported("over-committing the memory the RM reports")),
    (
        "NODEUNTRACKEDLOADFACTOR",
        NotUsed::Unsupported("load that no job accounts for taken off a node's free processors"),
    ),
    (
        "RESERVATIONTHRESHOLDTYPE",
        NotUsed::Unsupported(
            "reservations only for jobs past a queue time, expansion factor or bypass \
             threshold",
        ),
    ),
    (
        "RESERVATIONTHRESHOLDVALUE",
        NotUsed::Unsupported(
            "reservations only for jobs past a queue time, expansion factor or bypass \
             threshold",
        ),
    ),
    ("RESLIMITPOLICY", NotUsed::Unsupported("throttling limits on user reservations")),
    // MJobGetRange caps every available-task range by it (MRLLimitTC with
    // MRange, which nothing fills).
    (
        "METAMAXTASKS",
        NotUsed::Unsupported("a cap on the tasks Maui's availability ranges offer a job"),
    ),
    ("ALLOCLOCALITYPOLICY", NotUsed::Unsupported("allocation locality constraints")),
    (
        "DEFAULTDOMAIN",
        NotUsed::Unsupported(
            "host names are matched as the RM reports them, with no default \
             domain",
        ),
    ),
    (
        "IGNPBSGROUPLIST",
        NotUsed::Unsupported("the job's group is PBS's egroup; group_list is not ignored"),
    ),
    ("FSSECONDARYGROUPS", NotUsed::Unsupported("fairshare by the user's secondary groups")),
    ("USEMACHINESPEEDFORFS", NotUsed::Unsupported("fairshare usage scaled by node speed")),
    ("USEJOBREGEX", NotUsed::Unsupported("regular expressions for job names in commands")),
    (
        "RMEPORT",
        NotUsed::Unsupported(
            "mauisched-pbs takes the scheduler port from RMCFG[<name>] EPORT= \
             only",
        ),
    ),
    ("RMLOCALDISKFS", NotUsed::Unsupported("mauisched-pbs reads no node disk space")),
    // Maui 3.0 throttling, still in Maui 3.3's table. MAX*COUNT is the hard
    // limit, SMAX*COUNT the soft one, MAX*POLICY FALSE clears both. Maui 3.3's
    // table maps MAXPROC*GROUP* and MAXPROC*ACCOUNT* to the node limit.
    (
        "SMAXJOBQUEUEDPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXIJOB=<soft>,<hard>"),
    ),
    (
        "MAXJOBQUEUEDPERUSERPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXIJOB"),
    ),
    (
        "SMAXNODEPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXNODE=<soft>,<hard>"),
    ),
    (
        "MAXNODEPERUSERPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXNODE"),
    ),
    (
        "SMAXPEPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPE=<soft>,<hard>"),
    ),
    (
        "MAXPEPERUSERPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPE"),
    ),
    (
        "SMAXPROCPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPROC=<soft>,<hard>"),
    ),
    (
        "MAXPROCPERUSERPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPROC"),
    ),
    (
        "MAXPROCSECONDPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPS"),
    ),
    (
        "SMAXPROCSECONDPERUSERCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPS=<soft>,<hard>"),
    ),
    (
        "MAXPROCSECONDPERUSERPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use USERCFG[DEFAULT] MAXPS"),
    ),
    (
        "MAXJOBPERGROUPCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXJOB"),
    ),
    (
        "SMAXJOBPERGROUPCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXJOB=<soft>,<hard>"),
    ),
    (
        "MAXJOBPERGROUPPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXJOB"),
    ),
    (
        "MAXJOBQUEUEDPERGROUPCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXIJOB"),
    ),
    (
        "SMAXJOBQUEUEDPERGROUPCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXIJOB=<soft>,<hard>"),
    ),
    (
        "MAXJOBQUEUEDPERGROUPPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXIJOB"),
    ),
    (
        "MAXPROCPERGROUPCOUNT",
        NotUsed::Unsupported(
            "Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXPROC (Maui 3.3 read it as \
             MAXNODE)",
        ),
    ),
    (
        "SMAXPROCPERGROUPCOUNT",
        NotUsed::Unsupported(
            "Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXPROC=<soft>,<hard> (Maui 3.3 read \
             it as MAXNODE)",
        ),
    ),
    (
        "MAXPROCPERGROUPPOLICY",
        NotUsed::Unsupported(
            "Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXPROC (Maui 3.3 read it as \
             MAXNODE)",
        ),
    ),
    (
        "MAXPROCSECONDPERGROUPCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXPS"),
    ),
    (
        "SMAXPROCSECONDPERGROUPCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXPS=<soft>,<hard>"),
    ),
    (
        "MAXPROCSECONDPERGROUPPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use GROUPCFG[DEFAULT] MAXPS"),
    ),
    (
        "MAXJOBPERACCOUNTCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXJOB"),
    ),
    (
        "SMAXJOBPERACCOUNTCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXJOB=<soft>,<hard>"),
    ),
    (
        "MAXJOBPERACCOUNTPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXJOB"),
    ),
    (
        "MAXJOBQUEUEDPERACCOUNTCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXIJOB"),
    ),
    (
        "SMAXJOBQUEUEDPERACCOUNTCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXIJOB=<soft>,<hard>"),
    ),
    (
        "MAXJOBQUEUEDPERACCOUNTPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXIJOB"),
    ),
    (
        "MAXPROCPERACCOUNTCOUNT",
        NotUsed::Unsupported(
            "Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXPROC (Maui 3.3 read it as \
             MAXNODE)",
        ),
    ),
    (
        "SMAXPROCPERACCOUNTCOUNT",
        NotUsed::Unsupported(
            "Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXPROC=<soft>,<hard> (Maui 3.3 \
             read it as MAXNODE)",
        ),
    ),
    (
        "MAXPROCPERACCOUNTPOLICY",
        NotUsed::Unsupported(
            "Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXPROC (Maui 3.3 read it as \
             MAXNODE)",
        ),
    ),
    (
        "MAXPROCSECONDPERACCOUNTCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXPS"),
    ),
    (
        "SMAXPROCSECONDPERACCOUNTCOUNT",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXPS=<soft>,<hard>"),
    ),
    (
        "MAXPROCSECONDPERACCOUNTPOLICY",
        NotUsed::Unsupported("Maui 3.0 throttling; use ACCOUNTCFG[DEFAULT] MAXPS"),
    ),
    // Moab's, not in Maui 3.3's tables.
    ("ADMINCFG", NotUsed::MoabOnly),
    ("USEDATABASE", NotUsed::MoabOnly),
    ("UIMANAGEMENTPOLICY", NotUsed::MoabOnly),
    ("CLIENTUIPORT", NotUsed::MoabOnly),
    ("MAXJOB", NotUsed::MoabOnly),
    ("NODEIDLEPURGETIME", NotUsed::MoabOnly),
    ("JOBCFG", NotUsed::MoabOnly),
    ("VCPROFILE", NotUsed::MoabOnly),
    ("IDCFG", NotUsed::MoabOnly),
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
