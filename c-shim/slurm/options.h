/*
 * options.h: the plugin's own settings, from slurm.conf's
 * SchedulerParameters. Everything about the policy, and what the loop
 * needs from maui.cfg (RMPOLLINTERVAL, JOBNODEMATCHPOLICY), comes from the
 * library (mauisched_settings): the plugin reads no maui.cfg.
 */
#ifndef MAUI_OPTIONS_H
#define MAUI_OPTIONS_H

#include <limits.h>

#define DEFAULT_CONFIG "/etc/slurm/maui.cfg"
#define DEFAULT_LIBRARY "libmauisched.so.1"
#define DEFAULT_POLL_MS 20    /* change detection (no lock when nothing changed) */
#define DEFAULT_REASON_MS 100 /* budget for reason-only updates */

struct options {
	char config[PATH_MAX];
	char library[PATH_MAX];
	char state[PATH_MAX];
	long poll_ms;
	long reason_ms;
};

/* SchedulerParameters: maui_config=, maui_library=, maui_state=,
 * maui_poll_ms=, maui_reason_ms= (comma-separated, like Slurm's own; the
 * rest is Slurm's and ignored). `state_save` is StateSaveLocation. */
void read_options(struct options *o, const char *sched_params,
		  const char *state_save);

/* Reads slurm.conf as slurmctld has it now (an RPC: from the scheduling
 * thread only). -1 when slurmctld does not answer. */
int load_options(struct options *o);

#endif /* MAUI_OPTIONS_H */
