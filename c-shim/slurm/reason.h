/*
 * reason.h: why a job waits, in Slurm's words. The engine's reason
 * (MAUISCHED_REASON_*, with its summary "Policy MAXJOB user steve") ->
 * the job's state_reason (WAIT_*, what squeue's reason column and
 * scontrol's Reason= show) and, where no Slurm reason fits, a state_desc
 * text naming mauisched's policy (squeue shows it instead).
 */
#ifndef MAUI_REASON_H
#define MAUI_REASON_H

#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"

/* How a waiting job's reason is written. */
struct slurm_reason {
	uint32_t state_reason; /* WAIT_* */
	bool keep;             /* Slurm's own reason stands (a hold) */
	char desc[192];        /* state_desc; "" for none */
};

/* The Slurm reason of engine reason `code` with `summary`. */
void slurm_reason_of(uint32_t code, const char *summary,
		     struct slurm_reason *out);

#endif /* MAUI_REASON_H */
