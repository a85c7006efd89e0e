/*
 * sched/maui: mauisched makes the scheduling decisions of a Slurm cluster
 * (22.05 to 24.11, see slurm_compat.h); Slurm keeps running the jobs.
 *
 * slurm.conf:  SchedulerType=sched/maui
 *              JobSubmitPlugins=maui        (the gate: job_submit_maui.c)
 *              SchedulerParameters=maui_config=/etc/slurm/maui.cfg,...
 *
 * The gate holds every new job (priority 0), so Slurm's own main
 * scheduler, which runs whatever SchedulerType is, never starts one by
 * itself. init() starts one thread, the only one that touches the
 * library's handle and the only one here that calls Slurm's API (RPCs to
 * this very slurmctld; never from a slurmctld callback, which may hold
 * locks). The thread polls Slurm cheaply (last_update), and when something
 * changed, a job was submitted, a hold was asked for, or RMPOLLINTERVAL has
 * passed, it builds a snapshot (gather.c), runs one mauisched iteration
 * and applies the plan (apply.c). fini() stops and joins the thread and
 * frees the handle (which writes the state). sched_p_reconfig() only
 * signals the thread, which rereads maui.cfg through the library; a broken
 * file is logged and the previous configuration stays. Any error from the
 * library is logged and leaves Slurm and its jobs as they are; the thread
 * keeps trying.
 *
 * The library is loaded with dlopen (loader.c), so a missing or
 * incompatible library never stops slurmctld from starting: it is logged
 * at error level every minute and retried, and no job starts meanwhile.
 *
 * Built against the installed Slurm headers only, without -lslurm: the
 * slurm_* functions resolve inside slurmctld (libslurmfull). Everything but
 * the plugin's entry points is hidden (-fvisibility=hidden).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "ctld.h"
#include "events.h"
#include "gather.h"
#include "loader.h"
#include "options.h"
#include "slurm_compat.h"
#include "util.h"

#define PLUGIN_EXPORT __attribute__((visibility("default")))

PLUGIN_EXPORT const char plugin_name[] = "mauisched: Maui-compatible scheduling policy";
PLUGIN_EXPORT const char plugin_type[] = "sched/maui";
PLUGIN_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define DEFAULT_RMPOLL 60 /* Maui's RMPOLLINTERVAL default */
#define RETRY_OPEN_S 10   /* library or handle not usable */

static pthread_t thread;
static bool thread_started;

/* One iteration; `force` skips the unchanged-input check. */
static void iterate(struct ctx *c, bool force)
{
	double t0 = mono_ms(), t_built, t_engine, t_end;
	double cpu0 = thread_cpu_ms(), cpu_engine = 0;
	struct gate_event *ev = NULL;
	size_t nev, k;
	uint32_t i;
	uint64_t fp;
	time_t now = time(NULL);
	mauisched_plan_t *plan = NULL;
	mauisched_status_t st;
	unsigned nstart = 0, nbf = 0, nupd = 0, nidle = 0, nrun = 0, nbad = 0;
	double markers_ms = 0;
	struct ctld_start_cost sc;
	char starts[160] = "";

	if (!c->jobs || !c->nodes)
		return;
	nev = take_events(&ev);
	arena_reset();
	gather_build(c, ev, nev);
	fp = gather_fingerprint(c);
	/* Nothing in Slurm changes when a begin time passes: wake up then. */
	if (c->next_begin && c->next_begin <= now) {
		force = true;
		c->next_begin = 0;
	}
	for (k = 0; k < c->njr; k++) {
		int64_t b = c->jr[k].mj.earliest_start;
		if (c->jr[k].pending && b > now &&
		    (!c->next_begin || b < c->next_begin))
			c->next_begin = (time_t) b;
	}
	if (!force && !nev && !c->cosmetic_backlog && fp == c->last_fp &&
	    now - c->last_iter < c->rmpoll) {
		free(ev);
		return;
	}
	t_built = mono_ms();
	cpu_engine = thread_cpu_ms();

	st = L.snapshot_begin(c->h, (int64_t) now);
	for (i = 0; st == MAUISCHED_OK && i < c->nodes->record_count; i++) {
		mauisched_node_t mn;
		gather_node(c, i, &mn);
		st = L.snapshot_add_node(c->h, &mn);
		if (st != MAUISCHED_OK) {
			const char *msg = handle_error(c->h);
			char cause[512];
			snprintf(cause, sizeof(cause), "node %s: %.400s", mn.name, msg);
			mlog_once(MAUISCHED_LOG_ERROR, cause, "node %s: %s; no iteration runs while the library refuses it",
				  mn.name, msg);
		}
	}
	for (k = 0; st == MAUISCHED_OK && k < c->njr; k++) {
		struct jrec *r = &c->jr[k];
		if (!r->reported)
			continue;
		if (L.snapshot_add_job(c->h, &r->mj) != MAUISCHED_OK) {
			/* The same job is refused every iteration: once. */
			char cause[ID_LEN + 16];
			snprintf(cause, sizeof(cause), "left out %s", r->id);
			mlog_once(MAUISCHED_LOG_ERROR, cause, "job %s left out: %s",
				  r->id, handle_error(c->h));
			r->reported = false;
			r->skip_why = "mauisched cannot read this job (see slurmctld's log)";
			nbad++;
			continue;
		}
		if (r->mj.state == MAUISCHED_JOB_IDLE)
			nidle++;
		else
			nrun++;
	}
	for (k = 0; st == MAUISCHED_OK && k < c->nfin; k++) {
		if (L.snapshot_add_job(c->h, &c->fin[k]) != MAUISCHED_OK) {
			char cause[ID_LEN + 16];
			snprintf(cause, sizeof(cause), "left out %s", c->fin[k].id);
			mlog_once(MAUISCHED_LOG_ERROR, cause,
				  "finished job %s left out (its use is not charged): %s",
				  c->fin[k].id, handle_error(c->h));
		}
	}
	if (st == MAUISCHED_OK)
		st = L.run(c->h, &plan);
	t_engine = mono_ms();
	cpu_engine = thread_cpu_ms() - cpu_engine;
	if (st != MAUISCHED_OK) {
		const char *msg = handle_error(c->h);
		char cause[512];
		/* The same failure tends to come back every poll: once. */
		snprintf(cause, sizeof(cause), "iteration %d: %.400s", (int) st, msg);
		mlog_once(MAUISCHED_LOG_ERROR, cause,
			  "iteration failed (%s): %s; Slurm and its jobs are left as they are (logged once for this cause)",
			  L.status_name(st), msg);
		if (st == MAUISCHED_POISONED || st == MAUISCHED_PANIC) {
			mlog(MAUISCHED_LOG_ERROR,
			     "the library panicked: its handle is dropped and opened again");
			L.free(c->h);
			c->h = NULL;
			c->next_open = 0;
		}
		requeue_events(ev, nev);
		free(ev);
		return;
	}
	c->update_failures = 0;
	apply_plan(c, plan, &nstart, &nbf, &nupd, &markers_ms);
	L.plan_free(plan);
	t_end = mono_ms();
	ctld_start_cost_take(&sc);
	if (nstart)
		snprintf(starts, sizeof(starts),
			 "; the starts: slurmctld's locks waited for %.1f ms, select_nodes %.1f ms, launches %.1f ms",
			 sc.wait_ms, sc.select_ms, sc.launch_ms);
	c->last_fp = fp;
	c->last_iter = now;
	c->iterations++;
	mlog(MAUISCHED_LOG_INFO,
	     "iteration %lu: %u idle and %u active jobs on %u nodes; started %u (%u by backfill), %u other updates (%lu failed); times: snapshot %.1f ms, engine %.1f ms, apply %.1f ms (reasons %.1f ms), total %.1f ms; this thread's CPU %.1f ms (in the library %.1f ms)%s%s",
	     c->iterations, nidle, nrun, c->nodes->record_count, nstart, nbf, nupd,
	     c->update_failures, t_built - t0, t_engine - t_built,
	     t_end - t_engine, markers_ms, t_end - t0,
	     thread_cpu_ms() - cpu0, cpu_engine, starts,
	     nbad ? " (jobs left out, see above)" : "");
	free(ev);
}

/* What the loop needs from maui.cfg, asked of the library: the plugin
 * reads no maui.cfg itself. */
static void take_settings(struct ctx *c)
{
	mauisched_settings_t s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	if (L.settings(c->h, &s) != MAUISCHED_OK) {
		mlog(MAUISCHED_LOG_ERROR, "cannot read the settings in force: %s; RMPOLLINTERVAL taken as %d s",
		     handle_error(c->h), DEFAULT_RMPOLL);
		c->rmpoll = DEFAULT_RMPOLL;
		return;
	}
	c->rmpoll = s.rm_poll_interval_s > 0 ? (long) s.rm_poll_interval_s :
					       DEFAULT_RMPOLL;
	/* Slurm reads -N and --ntasks-per-node exactly; Maui, without
	 * EXACTNODE, as minimums, and may pack a job on fewer nodes (Slurm
	 * would then add nodes of its own choosing). */
	if (!s.exact_node)
		mlog(MAUISCHED_LOG_WARN,
		     "%s does not set JOBNODEMATCHPOLICY EXACTNODE: jobs' node counts (-N) and tasks per node are then minimums, as in Maui, and a job may be planned on fewer nodes than Slurm gives it",
		     c->opt.config);
}

/* Opens the library and the handle, or says loudly why not. */
static void try_open(struct ctx *c)
{
	char err[2048];
	mauisched_options_t o;
	time_t now = time(NULL);
	bool loud = now - c->last_open_error >= 60;

	if (now < c->next_open)
		return;
	c->next_open = now + RETRY_OPEN_S;
	if (!L.dl && lib_open(c->opt.library, err, sizeof(err)) != 0) {
		snprintf(c->unavailable, sizeof(c->unavailable), "%.200s", err);
		if (loud) {
			mlog(MAUISCHED_LOG_ERROR,
			     "%s; no job is started until it loads (every job stays held; retrying every %d s)",
			     err, RETRY_OPEN_S);
			c->last_open_error = now;
		}
		return;
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.config_path = c->opt.config;
	o.state_dir = c->opt.state;
	o.log = lib_log;
	o.rm = "slurm";
	err[0] = '\0';
	if (L.new(&o, &c->h, err, sizeof(err)) != MAUISCHED_OK) {
		c->h = NULL;
		snprintf(c->unavailable, sizeof(c->unavailable),
			 "cannot start: %.200s", err);
		if (loud) {
			mlog(MAUISCHED_LOG_ERROR,
			     "cannot start mauisched with %s (state %s): %s; no job is started until it does (retrying every %d s)",
			     c->opt.config, c->opt.state, err, RETRY_OPEN_S);
			c->last_open_error = now;
		}
		return;
	}
	c->unavailable[0] = '\0';
	{
		/* Operators' changes are applied by an iteration run at once
		 * (mauisched_wakeup_take below); their commands say so. */
		int fd;
		if (L.wakeup_fd(c->h, &fd) != MAUISCHED_OK)
			mlog(MAUISCHED_LOG_WARN, "operators' changes wait for the next poll: %s",
			     handle_error(c->h));
	}
	take_settings(c);
	c->last_fp = 0;
	mlog(MAUISCHED_LOG_INFO,
	     "scheduling with %s, state in %s; RMPOLLINTERVAL %ld s, change poll %ld ms",
	     c->opt.config, c->opt.state, c->rmpoll, c->opt.poll_ms);
}

/* Whether Slurm's own scheduler is off (SchedulerParameters
 * sched_interval=-1 and defer): then nothing but this plugin starts jobs,
 * and jobs are not held at submission. Without it the gate holds every
 * new job, so that Slurm's main scheduler cannot start one by itself. */
static void take_mode(struct ctx *c)
{
	char why[128];
	bool internal = ctld_sched_params_ok(why, sizeof(why));

	if (!internal)
		mlog(MAUISCHED_LOG_ERROR,
		     "%s: Slurm's own scheduler would start jobs by itself; set SchedulerParameters=sched_interval=-1,defer (with maui_* and Slurm's other options). Until then every new job is held at submission by job_submit/maui and released only by mauisched, and squeue shows JobHeldUser for all of them",
		     why);
	else if (!c->internal)
		mlog(MAUISCHED_LOG_INFO,
		     "Slurm's own scheduler is off (sched_interval=-1, defer): mauisched alone starts jobs; holds are Slurm's own");
	c->internal = internal;
	set_internal_mode(internal);
	c->last_fp = 0;
}

static void do_reconfig(struct ctx *c)
{
	struct options o;
	unsigned long errors;

	if (load_options(&o) != 0) {
		mlog(MAUISCHED_LOG_ERROR, "reconfigure: cannot read slurm.conf: %s",
		     slurm_strerror(maui_slurm_errno()));
		return;
	}
	if (strcmp(o.state, c->opt.state) || strcmp(o.library, c->opt.library))
		mlog(MAUISCHED_LOG_WARN,
		     "maui_state and maui_library changes take effect when slurmctld restarts");
	snprintf(c->opt.config, sizeof(c->opt.config), "%s", o.config);
	c->opt.poll_ms = o.poll_ms;
	c->opt.reason_ms = o.reason_ms;
	take_mode(c);
	/* A new configuration may cure what was logged once. */
	mlog_once_reset();
	if (!c->h) {
		c->next_open = 0; /* try again now, with the new settings */
		return;
	}
	errors = lib_errors;
	if (L.reconfigure(c->h, c->opt.config) != MAUISCHED_OK) {
		/* The library logs a file's errors once: refused again for
		 * the same ones (24.11 reconfigures the plugin right after
		 * starting it, on the file it was just opened with), this
		 * is no news either. */
		mlog(lib_errors != errors ? MAUISCHED_LOG_ERROR : MAUISCHED_LOG_DEBUG,
		     "reconfigure: %s was refused%s; scheduling goes on with the previous configuration",
		     c->opt.config,
		     lib_errors != errors ? "" : " for the errors logged before");
		return;
	}
	take_settings(c);
	c->last_fp = 0;
	mlog(MAUISCHED_LOG_INFO, "reconfigured from %s (RMPOLLINTERVAL %ld s)",
	     c->opt.config, c->rmpoll);
}

static void *sched_thread(void *arg)
{
	struct ctx c;
	bool stop = false, reconf = false, wake = true, changed;
	long waited = 0;

	(void) arg;
	memset(&c, 0, sizeof(c));
	c.rmpoll = DEFAULT_RMPOLL;
	/* slurmctld answers RPCs only once it is fully up. */
	while (load_options(&c.opt) != 0) {
		wait_requests(200, &stop, &reconf, &wake);
		if (stop)
			goto out;
		if ((waited += 200) % 60000 == 0)
			mlog(MAUISCHED_LOG_WARN, "slurmctld does not answer yet");
	}
	mlog(MAUISCHED_LOG_INFO, "config %s, state %s, library %s",
	     c.opt.config, c.opt.state, c.opt.library);
	/* The mode before the gate's first question. */
	take_mode(&c);
	set_accepting(true);
	wake = true;
	while (!stop) {
		double t_poll = mono_ms();
		long left;
		if (reconf)
			do_reconfig(&c);
		if (!c.h) {
			time_t before = c.next_open;
			try_open(&c);
			/* Each failed try (every RETRY_OPEN_S): the pending
			 * jobs say why nothing starts. */
			if (!c.h && c.next_open != before && c.unavailable[0] &&
			    gather_poll(&c, &changed) == 0 && c.jobs && c.nodes) {
				arena_reset();
				gather_build(&c, NULL, 0);
				apply_unavailable(&c, c.unavailable);
			}
		}
		if (c.h && gather_poll(&c, &changed) == 0 && c.nodes && c.jobs) {
			time_t now = time(NULL);
			bool asked = false;
			/* An operator's change through the admin socket waits. */
			if (L.wakeup_take(c.h, &asked) != MAUISCHED_OK)
				asked = false;
			/* Nothing new in Slurm, nothing asked for, no begin time
			 * passed, RMPOLLINTERVAL not up: not even a mapping. */
			if (changed || wake || reconf || asked || c.cosmetic_backlog ||
			    events_pending() || now - c.last_iter >= c.rmpoll ||
			    (c.next_begin && c.next_begin <= now))
				iterate(&c, wake || reconf || asked);
		}
		/* The next poll is due poll_ms after this one began: a job
		 * that ended during a long iteration is seen right after it. */
		left = c.h ? c.opt.poll_ms - (long) (mono_ms() - t_poll) : 1000;
		wait_requests(left < 5 ? 5 : left, &stop, &reconf, &wake);
		/* Submissions come in bursts: take a few together. */
		if (wake && !stop)
			usleep(20000);
	}
out:
	events_clear();
	if (c.h) {
		L.free(c.h); /* writes the state */
		c.h = NULL;
	}
	gather_free(&c);
	arena_reset();
	names_free();
	mlog(MAUISCHED_LOG_INFO, "stopped after %lu iterations", c.iterations);
	return NULL;
}

/* ------------------------------------------------------- plugin entry */

PLUGIN_EXPORT int init(void)
{
	request_start();
	if (pthread_create(&thread, NULL, sched_thread, NULL) != 0) {
		slurm_error(LOG_PREFIX "cannot start the scheduling thread: %m");
		return SLURM_ERROR;
	}
	thread_started = true;
	slurm_info(LOG_PREFIX "loaded; mauisched decides which job starts, when and where");
	return SLURM_SUCCESS;
}

PLUGIN_EXPORT void fini(void)
{
	if (!thread_started)
		return;
	request_stop();
	pthread_join(thread, NULL);
	thread_started = false;
}

/* `scontrol reconfigure` (and SIGHUP on 22.05; 24.11 restarts slurmctld
 * instead, through fini and init): no API call from here, slurmctld holds
 * its locks; the thread rereads maui.cfg. */
PLUGIN_EXPORT int sched_p_reconfig(void)
{
	request_reconfig();
	return SLURM_SUCCESS;
}
