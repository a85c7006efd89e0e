/*
 * job_submit/maui: the hold-at-submit gate of the mauisched Slurm front end.
 *
 * slurm.conf:  JobSubmitPlugins=maui   (job_submit_maui.so in PluginDir)
 *
 * Why a gate at all: in Slurm 22.05 the scheduler plugin (SchedulerType)
 * does not own the decision to start a job. slurmctld's own main scheduling
 * loop runs whatever SchedulerType is, and it starts any pending job whose
 * priority is non-zero, in priority order. For mauisched to decide which job
 * runs, when and where, Slurm must never see a startable job that mauisched
 * has not released. So every new job enters the queue held (priority 0), and
 * only the scheduler (sched/maui, running inside slurmctld as SlurmUser) or
 * root releases it, by setting a priority and, usually, the node list.
 *
 * A hold made here is a *user* hold in Slurm's eyes (JobHeldUser), whoever
 * submits: setting alloc_sid = ALLOC_SID_ADMIN_HOLD as well changes nothing
 * at submit time (tried, for users' and root's jobs). A user may release
 * their own user hold, and `scontrol release` does exactly that, so
 * job_modify below never lets a user's update release a job or set its
 * priority (priority, nice). Without that, any user could step around the
 * scheduler. Because every gated job looks user-held, the gate marks its
 * jobs in AdminComment (maui_gate.h), and with sched/maui running, holds
 * and releases become marker changes the scheduler makes (see job_modify).
 *
 * What reaches job_modify (checked against Slurm 22.05.8 and tested in
 * tests/slurm_e2e.rs):
 *   scontrol release JOB          -> priority = INFINITE ("recompute")
 *   scontrol update job=J priority=N -> priority = N
 *   scontrol update job=J nice=N  -> nice = N + NICE_OFFSET. With
 *                                    PriorityType=priority/basic a changed
 *                                    nice recomputes the priority of a held
 *                                    job, which releases it (observed: the
 *                                    job started). Refused like a release.
 *   scontrol hold / uhold JOB     -> priority = 0, alloc_sid = ADMIN/USER
 *                                    hold (a hold: allowed, it can only
 *                                    delay the job; recorded as a user or,
 *                                    from root, system hold)
 *   other updates (time limit, comment, partition, QOS, account, node
 *   count, features, ...) leave priority and nice alone and were seen not
 *   to release a held job: allowed.
 * `scontrol top` is a different request (REQUEST_TOP_JOB) that never reaches
 * this plugin; slurmctld refuses it for ordinary users unless
 * SchedulerParameters contains enable_user_top, which a mauisched site must
 * not set. It reorders by nice value and cannot release a held job anyway.
 *
 * Built against the installed Slurm headers only (no -lslurm): slurm_info,
 * slurm_error and friends are resolved at load time from libslurmfull,
 * which slurmctld has already loaded. This file must never take slurmctld
 * down: every pointer from Slurm is checked before use.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "maui_gate.h"
#include "slurm_compat.h"

/*
 * job_modify's signature differs between releases (slurm_compat.h): three
 * arguments in 22.05, a fourth, err_msg, from 23.02. Where it exists the
 * refused user reads our own text; on 22.05 the standard text of the
 * error code, which the codes below are chosen for.
 */

/* Plugin identification, read by Slurm's plugin loader. plugin_version must
 * equal the running slurmctld's version, so it comes from the headers the
 * plugin is built against. */
const char plugin_name[] = "mauisched hold-at-submit gate";
const char plugin_type[] = "job_submit/maui";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* What the refused user is told: the error code's standard text says the
 * truth in each case (and is all 22.05 can send); from 23.02 a text of our
 * own goes with it (refuse()). */
#define GATE_RELEASE_REFUSED ESLURM_JOB_HELD        /* "Job is in held state, pending scheduler release" */
#define GATE_PRIORITY_REFUSED ESLURM_ACCESS_DENIED  /* "Access/permission denied" */
#define GATE_NICE_REFUSED ESLURM_ACCESS_DENIED

/* Whether uid may release jobs and set priorities: root, and SlurmUser, the
 * account slurmctld (and so sched/maui inside it) runs as. slurmctld serves
 * requests only once it runs as SlurmUser, so our uid at request time is
 * SlurmUser's; at init() it may still be root's. */
static int gate_privileged(uint32_t uid)
{
	return uid == 0 || uid == (uint32_t) getuid();
}

/* A printable job reference for the log: updates name jobs by job_id_str
 * ("123", "123_4", ...), submissions have no id yet. */
static const char *gate_job_ref(const job_desc_msg_t *job_desc, char *buf,
				size_t len)
{
	if (job_desc->job_id_str && job_desc->job_id_str[0])
		return job_desc->job_id_str;
	if (job_desc->job_id != NO_VAL && job_desc->job_id != 0) {
		snprintf(buf, len, "%u", job_desc->job_id);
		return buf;
	}
	return "new";
}

/* sched/maui, when slurmctld runs it: found among the loaded objects by
 * file name (it is loaded RTLD_LOCAL, so its symbols are not global), then
 * referenced with dlopen(RTLD_NOLOAD), which keeps it mapped while the
 * gate holds the pointer. Only job_submit/job_modify call this, and
 * slurmctld runs them one at a time under its job write lock. */
static maui_gate_event_fn gate_fn;
static const char *found_path;

static int find_sched(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name, *slash;

	(void) size;
	(void) data;
	if (!name || !(slash = strrchr(name, '/')))
		return 0;
	if (strcmp(slash + 1, "sched_maui.so"))
		return 0;
	found_path = name;
	return 1;
}

static maui_gate_event_fn scheduler(void)
{
	void *dl;

	if (gate_fn)
		return gate_fn;
	found_path = NULL;
	dl_iterate_phdr(find_sched, NULL);
	if (!found_path)
		return NULL;
	if (!(dl = dlopen(found_path, RTLD_LAZY | RTLD_NOLOAD)))
		return NULL;
	*(void **) (&gate_fn) = dlsym(dl, MAUI_GATE_EVENT_SYMBOL);
	if (!gate_fn) {
		dlclose(dl);
		return NULL;
	}
	slurm_info("job_submit/maui: holds and releases go to sched/maui (%s)",
		   found_path);
	return gate_fn;
}

/* Tells sched/maui; 0 when it does not run, else its answer. */
static int tell(const char *ref, int event, uint32_t uid)
{
	maui_gate_event_fn fn = scheduler();

	return fn ? fn(ref, event, uid) : 0;
}

int init(void)
{
	slurm_info("job_submit/maui: gate active: only root and SlurmUser may "
		   "set priorities; new jobs are held until the scheduler starts "
		   "them only while Slurm's own scheduler is on (sched/maui says "
		   "which)");
	return SLURM_SUCCESS;
}

int fini(void)
{
	return SLURM_SUCCESS;
}

/*
 * Called for every new job (each component of a heterogeneous job, once for
 * a whole array), before slurmctld creates the job record. Priority 0 is
 * Slurm's "held": the job is queued but never started by Slurm itself.
 * Every job, root's included: the scheduler decides for all of them.
 *
 * The job is marked in its AdminComment (maui_gate.h): Slurm shows every
 * hold at priority 0 alike (JobHeldUser, whoever set it), so the marker is
 * what tells the gate's hold from a hold the user asked for with
 * `sbatch -H` (priority 0 here: slurmctld turns any other priority a user
 * asks for into NO_VAL before calling us).
 */
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	int user_hold;

	(void) err_msg; /* we never refuse a submission */

	if (!job_desc) {
		slurm_error("job_submit/maui: job_submit called without a job "
			    "description (uid %u); nothing to gate", submit_uid);
		return SLURM_SUCCESS;
	}
	/* Slurm's own scheduler is off (sched_interval=-1, defer): nothing
	 * but sched/maui starts the job, so it is not held; `sbatch -H` is
	 * Slurm's own user hold. */
	if (tell(NULL, MAUI_EV_MODE, submit_uid) == MAUI_MODE_INTERNAL) {
		tell(NULL, MAUI_EV_SUBMIT, submit_uid);
		return SLURM_SUCCESS;
	}
	user_hold = job_desc->priority == 0;
	if (job_desc->priority != NO_VAL && job_desc->priority != 0)
		slurm_info("job_submit/maui: uid %u asked for priority %u at "
			   "submit; ignored, the scheduler sets priorities",
			   submit_uid, job_desc->priority);
	job_desc->priority = 0;
	if (job_desc->admin_comment) {
		slurm_info("job_submit/maui: AdminComment \"%s\" of a new job "
			   "by uid %u replaced by mauisched's marker",
			   job_desc->admin_comment, submit_uid);
		slurm_xfree((void **) &job_desc->admin_comment);
	}
	job_desc->admin_comment = slurm_xstrdup(
		user_hold ? MAUI_MARKER "gated uhold) Hold User" :
			    MAUI_MARKER "gated) queued: waiting for mauisched");
	slurm_info("job_submit/maui: holding new job name=%s uid=%u until the "
		   "scheduler releases it%s",
		   job_desc->name ? job_desc->name : "(none)", submit_uid,
		   user_hold ? " (and a user hold: submitted held)" : "");
	tell(NULL, MAUI_EV_SUBMIT, submit_uid);
	return SLURM_SUCCESS;
}

/* The answer to a refused update: `code`, and from 23.02 `text` for the
 * user (slurmctld frees it with xfree, so it comes from Slurm's
 * allocator). */
static int refuse(char **err_msg, int code, const char *text)
{
	if (err_msg && !*err_msg)
		*err_msg = slurm_xstrdup(text);
	return code;
}

#if MAUI_JOB_MODIFY_HAS_ERR_MSG
#define ERR_MSG err_msg
#else
#define ERR_MSG NULL
#endif

/*
 * Called for every update of an existing job, before slurmctld applies it.
 * Three arguments on 22.05, four from 23.02 (slurm_compat.h).
 * job_ptr is slurmctld's internal job record: not part of any public
 * header, so it is not looked at.
 *
 * With sched/maui running, holds and releases become marker changes made
 * by the scheduler; the job stays at priority 0 until mauisched starts it:
 *   a user's hold/uhold        -> user hold (passed on too: it can only
 *                                 delay the job)
 *   a user's release           -> the user hold is removed (the request
 *                                 itself no longer touches the priority);
 *                                 refused when the job has no user hold
 *   root's hold / uhold        -> system / user hold (passed on)
 *   root's release             -> every hold removed; mauisched decides
 *                                 when the job starts
 * Without sched/maui (the gate alone, e.g. with sched/builtin) a user's
 * release is refused and root's release is Slurm's own.
 */
int job_modify(MAUI_JOB_MODIFY_ARGS)
{
	char buf[32];
	const char *ref;
	int privileged, answer;

	(void) job_ptr;
	if (!job_desc)
		return SLURM_SUCCESS;
	ref = gate_job_ref(job_desc, buf, sizeof(buf));
	privileged = gate_privileged(submit_uid);

	/* sched/maui's own updates (starts, holds again, markers). */
	if (privileged && job_desc->admin_comment &&
	    !strncmp(job_desc->admin_comment, MAUI_MARKER, strlen(MAUI_MARKER)))
		return SLURM_SUCCESS;

	if (job_desc->nice != NO_VAL && !privileged) {
		slurm_info("job_submit/maui: refused nice change of job %s by "
			   "uid %u: only the scheduler sets priorities",
			   ref, submit_uid);
		return refuse(ERR_MSG, GATE_NICE_REFUSED,
			      "only the scheduler (mauisched) sets priorities: nice changes are refused");
	}
	/* NO_VAL: the update leaves the priority alone. */
	if (job_desc->priority == NO_VAL)
		return SLURM_SUCCESS;

	/* slurmctld checks that the requester owns the job only after this
	 * call; it has put the owner in user_id. Another user's hold is left
	 * to that check; a release or priority by anyone else (an account
	 * coordinator would pass Slurm's check) is refused here. */
	if (!privileged && job_desc->user_id != NO_VAL &&
	    job_desc->user_id != submit_uid) {
		if (job_desc->priority == 0)
			return SLURM_SUCCESS;
		slurm_info("job_submit/maui: refused priority %u for job %s of "
			   "uid %u by uid %u: not the owner", job_desc->priority,
			   ref, job_desc->user_id, submit_uid);
		return job_desc->priority == INFINITE ?
		       refuse(ERR_MSG, GATE_RELEASE_REFUSED,
			      "only the job's owner may release it, and only from a hold the owner placed; mauisched starts it") :
		       refuse(ERR_MSG, GATE_PRIORITY_REFUSED,
			      "only the scheduler (mauisched) sets priorities");
	}

	/* A hold can only delay the job: passed on, and recorded. */
	if (job_desc->priority == 0) {
		int ev = privileged && job_desc->alloc_sid != ALLOC_SID_USER_HOLD ?
			 MAUI_EV_SYSTEM_HOLD : MAUI_EV_USER_HOLD;
		if (tell(ref, ev, submit_uid))
			slurm_info("job_submit/maui: %s hold of job %s by uid %u",
				   ev == MAUI_EV_SYSTEM_HOLD ? "system" : "user",
				   ref, submit_uid);
		return SLURM_SUCCESS;
	}

	if (job_desc->priority == INFINITE) {
		answer = tell(ref, privileged ? MAUI_EV_RELEASE_ALL :
				   MAUI_EV_USER_RELEASE, submit_uid);
		/* Slurm's own scheduler is off: its own release goes ahead
		 * (root's, or the owner's from a user hold); the job then waits
		 * for mauisched like any other. */
		if (answer == MAUI_RELEASE_BY_SLURM ||
		    (privileged && tell(NULL, MAUI_EV_MODE, submit_uid) ==
				   MAUI_MODE_INTERNAL)) {
			slurm_info("job_submit/maui: release of job %s by uid %u: "
				   "%s removed; the scheduler starts it (Slurm's own release)",
				   ref, submit_uid,
				   privileged ? "every hold" : "the user hold");
			return SLURM_SUCCESS;
		}
		if (answer == 1) {
			/* The job stays held in Slurm: mauisched starts it. */
			job_desc->priority = NO_VAL;
			slurm_info("job_submit/maui: release of job %s by uid %u: "
				   "%s removed; the scheduler starts it",
				   ref, submit_uid,
				   privileged ? "every hold" : "the user hold");
			return SLURM_SUCCESS;
		}
		if (privileged) {
			slurm_info("job_submit/maui: uid %u sets priority of job %s "
				   "to %u (release): allowed, privileged",
				   submit_uid, ref, job_desc->priority);
			return SLURM_SUCCESS;
		}
		slurm_info("job_submit/maui: refused release of job %s by uid "
			   "%u: only the scheduler releases jobs%s",
			   ref, submit_uid,
			   answer == 2 ? " (the job has no user hold)" : "");
		return refuse(ERR_MSG, GATE_RELEASE_REFUSED,
			      answer == 2 ?
			      "the job has no user hold to release; mauisched starts it when its turn comes" :
			      "only the scheduler (mauisched) releases jobs");
	}

	if (privileged) {
		slurm_info("job_submit/maui: uid %u sets priority of job %s "
			   "to %u (set): allowed, privileged",
			   submit_uid, ref, job_desc->priority);
		return SLURM_SUCCESS;
	}
	slurm_info("job_submit/maui: refused priority %u for job %s by uid "
		   "%u: only the scheduler sets priorities",
		   job_desc->priority, ref, submit_uid);
	return refuse(ERR_MSG, GATE_PRIORITY_REFUSED,
		      "only the scheduler (mauisched) sets priorities");
}
