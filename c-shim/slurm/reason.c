/*
 * reason.c: the engine's reasons in Slurm's vocabulary (reason.h).
 */
#include "reason.h"

#include <stdio.h>
#include <string.h>

#include "mauisched.h"

/* "Policy MAXJOB user steve" -> the Slurm limit reason that says the
 * same kind of thing: jobs, CPUs, nodes, memory, CPU-minutes, wall
 * time or generic resources, of a QOS or of an association (user,
 * group, account, class). */
static uint32_t policy_reason(const char *summary)
{
	char limit[32] = "", cred[32] = "";
	bool qos;

	if (!summary || sscanf(summary, "Policy %31s %31s", limit, cred) < 1)
		return WAIT_ASSOC_GRP_JOB;
	qos = !strcmp(cred, "qos");
	if (!strcmp(limit, "MAXJOB") || !strcmp(limit, "MAXIJOB"))
		return qos ? WAIT_QOS_GRP_JOB :
		       !strcmp(cred, "user") ? WAIT_ASSOC_MAX_JOBS :
					       WAIT_ASSOC_GRP_JOB;
	if (!strcmp(limit, "MAXPROC") || !strcmp(limit, "MAXIPROC") ||
	    !strcmp(limit, "MAXPE") || !strcmp(limit, "MAXIPE"))
		return qos ? WAIT_QOS_GRP_CPU : WAIT_ASSOC_GRP_CPU;
	if (!strcmp(limit, "MAXNODE") || !strcmp(limit, "MAXINODE"))
		return qos ? WAIT_QOS_GRP_NODE : WAIT_ASSOC_GRP_NODE;
	if (!strcmp(limit, "MAXMEM") || !strcmp(limit, "MAXIMEM"))
		return qos ? WAIT_QOS_GRP_MEM : WAIT_ASSOC_GRP_MEM;
	if (!strcmp(limit, "MAXPS") || !strcmp(limit, "MAXIPS"))
		return qos ? WAIT_QOS_GRP_CPU_RUN_MIN : WAIT_ASSOC_GRP_CPU_RUN_MIN;
	if (!strcmp(limit, "MAXWC") || !strcmp(limit, "MAXIWC"))
		return qos ? WAIT_QOS_GRP_WALL : WAIT_ASSOC_GRP_WALL;
	/* Moab's MAXGRES[gpu]: the limit names its generic resource. */
	if (!strncmp(limit, "MAXGRES[", 8))
		return qos ? WAIT_QOS_GRP_GRES : WAIT_ASSOC_GRP_GRES;
	return qos ? WAIT_QOS_GRP_JOB : WAIT_ASSOC_GRP_JOB;
}

void slurm_reason_of(uint32_t code, const char *summary,
		     struct slurm_reason *out)
{
	memset(out, 0, sizeof(*out));
	switch (code) {
	case MAUISCHED_REASON_NONE:
		out->state_reason = WAIT_NO_REASON;
		break;
	case MAUISCHED_REASON_PRIORITY:
		out->state_reason = WAIT_PRIORITY;
		break;
	case MAUISCHED_REASON_RESOURCES:
		out->state_reason = WAIT_RESOURCES;
		break;
	case MAUISCHED_REASON_RESERVATION:
		out->state_reason = WAIT_RESERVATION;
		break;
	case MAUISCHED_REASON_POLICY:
		out->state_reason = policy_reason(summary);
		break;
	case MAUISCHED_REASON_HOLD:
		/* Slurm's own hold (priority 0: JobHeldUser, JobHeldAdmin)
		 * or its partition's state says it. */
		out->keep = true;
		break;
	case MAUISCHED_REASON_DEPENDENCY:
		out->state_reason = WAIT_DEPENDENCY;
		break;
	case MAUISCHED_REASON_BEGIN_TIME:
		out->state_reason = WAIT_TIME;
		break;
	default:
		/* Fairshare caps, negative priorities, jobs that can never
		 * run here, scheduling stopped: no Slurm reason says these;
		 * the text does (squeue shows it instead of the code). */
		out->state_reason = WAIT_PRIORITY;
		snprintf(out->desc, sizeof(out->desc), "mauisched: %s",
			 summary && *summary ? summary : "waiting");
		break;
	}
}
