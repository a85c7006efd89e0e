/*
 * ctld_stub.c: ctld.c's calls for the unit tests, which run no slurmctld
 * (ctld.c needs its internal headers and symbols). The tests hand-make
 * the Slurm structs gather.c reads; nothing here is called by them but
 * what links gather.c and apply.c.
 */
#include <stdio.h>
#include <string.h>

#include "ctld.h"

bool ctld_sched_params_ok(char *why, size_t len)
{
	snprintf(why, len, "no slurmctld in the unit tests");
	return false;
}

void ctld_set_finished_since(time_t t)
{
	(void) t;
}

int ctld_poll(struct ctld_snap **snap, job_info_msg_t **jobs,
	      node_info_msg_t **nodes, partition_info_msg_t **parts,
	      bool *changed)
{
	(void) snap;
	(void) jobs;
	(void) nodes;
	(void) parts;
	*changed = false;
	return -1;
}

int ctld_job_cpus_on_node(const struct ctld_snap *snap,
			  const slurm_job_info_t *ji, int i)
{
	(void) snap;
	(void) ji;
	(void) i;
	return -1;
}

void ctld_snap_free(struct ctld_snap **snap)
{
	*snap = NULL;
}

int ctld_allocate(const char *id, const char *nodes, bool backfill,
		  const char *admin_comment, char *started_id, size_t len,
		  struct ctld_launch *launch)
{
	(void) nodes;
	(void) backfill;
	(void) admin_comment;
	(void) launch;
	snprintf(started_id, len, "%s", id);
	return SLURM_ERROR;
}

void ctld_launch(const struct ctld_launch *l, size_t n)
{
	(void) l;
	(void) n;
}

void ctld_start_cost_take(struct ctld_start_cost *out)
{
	memset(out, 0, sizeof(*out));
}

size_t ctld_write_waiting(const struct ctld_wait *w, size_t n)
{
	(void) w;
	(void) n;
	return 0;
}
