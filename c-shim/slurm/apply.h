/*
 * apply.h: the plan -> Slurm (in place through ctld.c; in the fallback
 * mode also slurm_update_job2 for holds and AdminComment reasons).
 */
#ifndef MAUI_APPLY_H
#define MAUI_APPLY_H

#include "gather.h"

/* Applies `plan` to the records gathered for it. Order: operator actions,
 * starts (the latency that matters), jobs to hold again, then marker and
 * reason updates within the time budget. Publishes the pending jobs' holds
 * for the gate. Returns the counts for the iteration's log line. */
void apply_plan(struct ctx *c, const mauisched_plan_t *plan,
		unsigned *nstart, unsigned *nbf, unsigned *nupd,
		double *markers_ms);

/* While the library or its handle cannot be opened: every pending job
 * stays held (one Slurm could start by itself is held again) and its
 * AdminComment says why nothing is scheduled (`why`, short). */
void apply_unavailable(struct ctx *c, const char *why);

#endif /* MAUI_APPLY_H */
