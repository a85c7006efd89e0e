/*
 * gather.h: Slurm -> the engine's snapshot. Loads jobs, nodes and
 * partitions (cheaply, with last_update), and maps them onto
 * mauisched_node_t and mauisched_job_t records; the mapping rules are in
 * README.md ("Mapping Slurm to the engine").
 */
#ifndef MAUI_GATHER_H
#define MAUI_GATHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mauisched.h"
#include "events.h"
#include "marker.h"
#include "ctld.h"
#include "options.h"
#include "slurm_compat.h"

/* One Slurm job record as this iteration sees it. */
struct jrec {
	slurm_job_info_t *ji;
	char id[ID_LEN];         /* "123" or "123_4" */
	bool meta_task;          /* a task still inside a pending array record */
	bool pending;
	bool reported;           /* given to the engine */
	bool started_now;        /* started by this iteration's plan */
	bool regate;             /* must be held again (priority 0) */
	bool ungate;             /* Slurm's own scheduler is off, and the job
				  * still has the gate's marker (held at
				  * submission before the mode was known, or
				  * under a former configuration): the marker
				  * goes, its holds become Slurm's own */
	struct marker mk;        /* as found in Slurm */
	struct marker want;      /* holds after gate events and actions */
	const char *skip_why;    /* not scheduled by mauisched, and why */
	mauisched_job_t mj;
};

/* What the plugin asked for when it started a job: its nodes and tasks
 * per node ("n001:4,n002:1"), for Slurm releases without a public per-node
 * CPU count of a running job. Kept while the job is pending or runs. */
struct started_alloc {
	char id[ID_LEN];
	char *alloc;
};

struct ctx {
	struct options opt;
	mauisched_t *h;
	long rmpoll;             /* RMPOLLINTERVAL, from the library */
	/* Copied in place from slurmctld (ctld.c), owned by snap. */
	struct ctld_snap *snap;
	/* Slurm's own scheduler is off (sched_interval=-1, defer): jobs are
	 * not held by the gate, holds are Slurm's own, and the plugin writes
	 * reasons, estimates and priorities in place. Else the gate holds
	 * every job and reasons go to AdminComment. */
	bool internal;
	job_info_msg_t *jobs;
	node_info_msg_t *nodes;
	partition_info_msg_t *parts;
	int load_errno;          /* the last load error logged (0: none) */
	uint64_t last_fp;
	time_t last_iter;
	unsigned long iterations;
	time_t next_open;        /* when to retry opening the library/handle */
	time_t next_begin;       /* earliest future begin time of a pending job */
	time_t last_open_error;
	char unavailable[256];   /* why the library or handle is not open */
	bool cosmetic_backlog;   /* reason updates left for the next round */
	unsigned long update_failures; /* failed job updates this iteration */
	double last_reasons;     /* mono_ms() of the last reason pass */
	/* Built per iteration. */
	struct jrec *jr;
	size_t njr, capjr;
	/* Jobs that ended and ran (Slurm keeps them MinJobAge seconds):
	 * reported to the engine with their start and end, so fairshare
	 * charges their exact use; nothing is applied to them. */
	mauisched_job_t *fin;
	size_t nfin, capfin;
	size_t *by_id;           /* indices of jr sorted by id */
	int32_t *node_part;      /* per node: index of its only partition, or -1 */
	char **part_nodes;       /* per partition: its nodes, comma-separated */
	bool *part_exclusive;    /* per partition: none of its nodes elsewhere */
	bool *part_up;
	char *gres_skip;         /* no_consume generic resources: ",a,b" */
	uint64_t gres_logged;    /* the nodes' GRES last logged (a hash) */
	bool gres_logged_any;    /* ... and whether any node had some */
	/* Kept across iterations: sorted by id up to nstarted_sorted, then
	 * the starts since the last gather_build. */
	struct started_alloc *started;
	size_t nstarted, nstarted_sorted, capstarted;
};

/* Copies what changed in slurmctld since the last copy (under its read
 * locks, no RPC); *changed says whether anything did. -1 on an error
 * (logged). */
int gather_poll(struct ctx *c, bool *changed);

/* Maps the loaded jobs into c->jr (strings in the arena; call
 * arena_reset() before), applying the queued gate events `ev` to the holds
 * they will have, and forgets the starts of jobs that are gone. */
void gather_build(struct ctx *c, const struct gate_event *ev, size_t nev);

/* The engine's view of node i of c->nodes (strings borrowed from it). */
void gather_node(const struct ctx *c, uint32_t i, mauisched_node_t *mn);

/* A hash of the engine's inputs: an iteration whose inputs did not change
 * is skipped (RMPOLLINTERVAL still forces one). */
uint64_t gather_fingerprint(const struct ctx *c);

/* The record of engine job `id`, NULL if none. */
struct jrec *gather_find(struct ctx *c, const char *id);

/* Whether node `name` was COMPLETING (a job's epilog still running on it)
 * when the snapshot was taken: select_nodes refuses such a node. */
bool gather_node_completing(const struct ctx *c, const char *name);

/* Remembers the per-node tasks a start asked for ("n001:4,n002:1"). */
void gather_remember_start(struct ctx *c, const char *id, const char *alloc);

/* Frees everything gathered (at the thread's end). */
void gather_free(struct ctx *c);

/* Pieces of the mapping, for the unit tests. */
uint32_t node_state(const node_info_t *n);
void job_shape(const slurm_job_info_t *ji, mauisched_job_t *m);

#endif /* MAUI_GATHER_H */
