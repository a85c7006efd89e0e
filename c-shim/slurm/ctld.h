/*
 * ctld.h: slurmctld's internal interface, used the way Slurm's own
 * sched/backfill uses it (the only file of the plugin that includes
 * slurmctld's headers, built against the configured Slurm source tree of
 * the exact release: scripts/slurm-src.sh, SLURM_SRC in the Makefile).
 *
 *  - reading: jobs, nodes and partitions are copied in place under
 *    slurmctld's read locks into the public structs the mapping reads
 *    (slurm_job_info_t & co.), only when Slurm's own update times say
 *    something changed. No RPC: nothing is packed in an RPC thread.
 *  - starting: as backfill's _start_job: the job's excluded nodes become
 *    every node but the chosen ones, select_nodes(), then launch_job()
 *    (batch) or srun_allocate(), under slurmctld's write locks.
 *
 * Runs on the scheduling thread only; every call takes and releases the
 * locks itself (never call it holding them).
 */
#ifndef MAUI_CTLD_H
#define MAUI_CTLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "slurm_compat.h"

struct ctld_snap;

/* Whether SchedulerParameters turn Slurm's own starts off
 * (sched_interval=-1 and defer, tested as slurmctld tests them); when not,
 * `why` says which setting is missing. */
bool ctld_sched_params_ok(char *why, size_t len);

/* Finished jobs (and completing ones) that ran and ended after `t` (the
 * last iteration) are copied too, for fairshare; none before the first
 * call. */
void ctld_set_finished_since(time_t t);

/* Copies what changed since the last copy into *jobs, *nodes, *parts
 * (freed and replaced; the previous ones stay when nothing changed);
 * *changed says whether anything did. The structs belong to `*snap`
 * (ctld_snap_free). */
int ctld_poll(struct ctld_snap **snap, job_info_msg_t **jobs,
	      node_info_msg_t **nodes, partition_info_msg_t **parts,
	      bool *changed);

/* CPUs the i-th node of a running job's node list holds for it, from
 * slurmctld's job_resrcs as of the copy; -1 when not known. */
int ctld_job_cpus_on_node(const struct ctld_snap *snap,
			  const slurm_job_info_t *ji, int i);

void ctld_snap_free(struct ctld_snap **snap);

/* What a start leaves to do once it is allocated: the launch (the batch
 * script to its node, or the allocation to a waiting srun/salloc). */
struct ctld_launch {
	uint32_t job_id;         /* the record that started (a task split out
				  * of its array has its own) */
	bool launch;             /* false: Slurm launches it itself (nodes
				  * still configuring) */
};

/* Allocates job `id` ("123", or "123_4": an array task; a task still in
 * its pending array record starts as the record's lowest pending task,
 * which Slurm splits out) on `nodes` (comma-separated names) as backfill
 * does (select_nodes), under slurmctld's job and node write locks, held
 * for this job only. `admin_comment`, when not NULL, replaces the job's
 * AdminComment once it started. Returns SLURM_SUCCESS or Slurm's error
 * code (`*started_id`: the job id that started, "123_5" for a task). On
 * success the job is allocated (RUNNING) but not launched: `*launch` says
 * what ctld_launch must do. */
int ctld_allocate(const char *id, const char *nodes, bool backfill,
		  const char *admin_comment, char *started_id, size_t len,
		  struct ctld_launch *launch);

/* Launches jobs ctld_allocate allocated, each under its own write lock
 * (launch_job or srun_allocate, as backfill does right after its
 * select_nodes). A job that is not running any more (cancelled, requeued,
 * completing) meanwhile is left alone. */
void ctld_launch(const struct ctld_launch *l, size_t n);

/* Where the starts' time went since the last call (ms, wall): waiting for
 * slurmctld's locks, in select_nodes, launching (launch_job,
 * srun_allocate). Reset by the call. */
struct ctld_start_cost {
	double wait_ms, select_ms, launch_ms;
};
void ctld_start_cost_take(struct ctld_start_cost *out);

/* What a waiting job should show (Slurm's own scheduler off): written in
 * place, only where it differs. */
struct ctld_wait {
	const char *id;         /* "123", "123_4" */
	uint32_t priority;      /* the engine's order; 0: left alone */
	bool set_reason;        /* state_reason and state_desc below */
	uint32_t state_reason;  /* WAIT_* */
	const char *desc;       /* state_desc; NULL or "": none */
	bool set_start;
	time_t start_time;      /* mauisched's estimate; 0: unknown */
	int hold;               /* CTLD_HOLD_* */
	bool clear_marker;      /* an AdminComment marker of the gate goes */
};
#define CTLD_HOLD_LEAVE 0
#define CTLD_HOLD_USER 1    /* priority 0, JobHeldUser */
#define CTLD_HOLD_SYSTEM 2  /* priority 0, JobHeldAdmin */
#define CTLD_RELEASE 3      /* a system (or gate) hold released */

/* Writes `n` jobs under one job write lock; returns how many changed.
 * Holds and releases mark the job table changed (Slurm saves its state
 * then); reasons, estimates and priorities do not. */
size_t ctld_write_waiting(const struct ctld_wait *w, size_t n);

#endif /* MAUI_CTLD_H */
