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
 * at submit time (tried, for users' and root's jobs). A user may release their own user hold, and
 * `scontrol release` does exactly that, so job_modify below refuses, for
 * anyone but root or SlurmUser, every update that would release the job or
 * set its priority (priority, nice). Without that, any user could step
 * around the scheduler.
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
 *   scontrol hold / uhold JOB     -> priority = 0 (a hold: allowed, it can
 *                                    only delay the user's own job)
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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
/* For slurm_info/slurm_error: exported to all plugins, declared there. */
#include <slurm/spank.h>

/*
 * The job_submit plugin API is not versioned by Slurm; it changes between
 * major releases. Slurm 22.05 calls job_modify with THREE arguments
 * (job_desc, job_ptr, submit_uid), as the disassembly of
 * job_submit_plugin_modify in slurmctld 22.05.8 shows, although other
 * releases, and plugins written for them, have a fourth, err_msg. A plugin
 * that declares and writes err_msg on 22.05 writes through whatever the
 * caller left in that register. Refuse to build for a release whose
 * signatures have not been checked.
 */
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || \
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 6, 0)
#error "job_submit/maui: the job_submit API is verified for Slurm 22.05 only; check job_submit_plugin_submit/modify in this release's slurmctld before changing this test"
#endif

/* Plugin identification, read by Slurm's plugin loader. plugin_version must
 * equal the running slurmctld's version, so it comes from the headers the
 * plugin is built against. */
const char plugin_name[] = "mauisched hold-at-submit gate";
const char plugin_type[] = "job_submit/maui";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* What the refused user is told: slurmctld gives job_modify no way to send
 * a text of our own in 22.05, so the answer is an error code and the user
 * reads its standard text. These two say the truth in each case. */
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

int init(void)
{
	slurm_info("job_submit/maui: gate active: every new job is held until "
		   "the scheduler releases it; only root and SlurmUser may "
		   "release jobs or set priorities");
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
 */
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	(void) err_msg; /* we never refuse a submission */

	if (!job_desc) {
		slurm_error("job_submit/maui: job_submit called without a job "
			    "description (uid %u); nothing to gate", submit_uid);
		return SLURM_SUCCESS;
	}
	if (job_desc->priority != NO_VAL && job_desc->priority != 0)
		slurm_info("job_submit/maui: uid %u asked for priority %u at "
			   "submit; ignored, the scheduler sets priorities",
			   submit_uid, job_desc->priority);
	job_desc->priority = 0;
	slurm_info("job_submit/maui: holding new job name=%s uid=%u until the "
		   "scheduler releases it",
		   job_desc->name ? job_desc->name : "(none)", submit_uid);
	return SLURM_SUCCESS;
}

/*
 * Called for every update of an existing job, before slurmctld applies it.
 * 22.05 signature: three arguments, see the version check at the top.
 * job_ptr is slurmctld's internal job record: not part of any public
 * header, so it is not looked at.
 */
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
{
	char buf[32];
	const char *ref;

	(void) job_ptr;
	if (!job_desc)
		return SLURM_SUCCESS;
	ref = gate_job_ref(job_desc, buf, sizeof(buf));

	if (job_desc->nice != NO_VAL && !gate_privileged(submit_uid)) {
		slurm_info("job_submit/maui: refused nice change of job %s by "
			   "uid %u: only the scheduler sets priorities",
			   ref, submit_uid);
		return GATE_NICE_REFUSED;
	}
	/* NO_VAL: the update leaves the priority alone. 0: a hold, which can
	 * only delay the user's own job. */
	if (job_desc->priority == NO_VAL || job_desc->priority == 0)
		return SLURM_SUCCESS;

	if (gate_privileged(submit_uid)) {
		slurm_info("job_submit/maui: uid %u sets priority of job %s "
			   "to %u (%s): allowed, privileged",
			   submit_uid, ref, job_desc->priority,
			   job_desc->priority == INFINITE ? "release" : "set");
		return SLURM_SUCCESS;
	}
	if (job_desc->priority == INFINITE) {
		slurm_info("job_submit/maui: refused release of job %s by uid "
			   "%u: only the scheduler releases jobs",
			   ref, submit_uid);
		return GATE_RELEASE_REFUSED;
	}
	slurm_info("job_submit/maui: refused priority %u for job %s by uid "
		   "%u: only the scheduler sets priorities",
		   job_desc->priority, ref, submit_uid);
	return GATE_PRIORITY_REFUSED;
}
