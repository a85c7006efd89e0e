/*
 * cli_filter/maui: a heterogeneous job is refused at the client, with a
 * message that says why, before it reaches slurmctld.
 *
 * slurm.conf (read by sbatch, salloc and srun on every submit host, with
 * cli_filter_maui.so in their PluginDir; mauisched-slurm installs it):
 *     CliFilterPlugins=maui
 *
 * Why a client plugin: slurmctld refuses heterogeneous jobs itself unless
 * SchedulerType is literally sched/backfill (proc_req.c _sched_backfill()
 * at 22.05 and 24.11), before any job_submit plugin runs, so
 * job_submit/maui never sees one; the user reads only "Requested operation
 * not supported on this system". Here sbatch/salloc call
 * cli_filter_p_pre_submit() once per component, with its index as
 * `offset`: a second component (offset > 0) is a heterogeneous job.
 *
 * Public headers only: slurm_opt_t (src/common/slurm_opt.h) is not looked
 * at, so it is taken as an opaque pointer (the same argument either way).
 */
#include <stdbool.h>
#include <stdint.h>

#include "slurm_compat.h"

const char plugin_name[] = "mauisched: heterogeneous jobs refused at submission, saying why";
const char plugin_type[] = "cli_filter/maui";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define HET_REFUSED                                                              \
	"heterogeneous jobs are not supported here: Slurm accepts them only with " \
	"SchedulerType=sched/backfill, and this cluster schedules with sched/maui " \
	"(mauisched); submit the components as separate jobs (a dependency can " \
	"order them)"

int init(void)
{
	return SLURM_SUCCESS;
}

int fini(void)
{
	return SLURM_SUCCESS;
}

int cli_filter_p_setup_defaults(void *opt, bool early)
{
	(void) opt;
	(void) early;
	return SLURM_SUCCESS;
}

int cli_filter_p_pre_submit(void *opt, int offset)
{
	(void) opt;
	if (offset > 0) {
		slurm_error("%s", HET_REFUSED);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

void cli_filter_p_post_submit(int offset, uint32_t jobid, uint32_t stepid)
{
	(void) offset;
	(void) jobid;
	(void) stepid;
}
