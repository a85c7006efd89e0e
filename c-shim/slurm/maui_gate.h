/*
 * maui_gate.h: what job_submit/maui and sched/maui share.
 *
 * Both plugins live in slurmctld, loaded with dlopen(RTLD_LOCAL): neither
 * sees the other's symbols. The gate reaches the scheduler through
 * dlopen("sched_maui.so", RTLD_NOLOAD) (the scheduler's SONAME) and
 * dlsym(MAUI_GATE_EVENT_SYMBOL); the reference it takes keeps the scheduler
 * mapped for as long as the gate holds it.
 *
 * The marker: every job under mauisched's control carries, at the start of
 * its AdminComment, "mauisched(TAGS) TEXT". TAGS are blank-separated:
 *   gated      held at priority 0 until mauisched starts it
 *   started    mauisched released it (a pending job with this tag came back:
 *              requeued)
 *   uhold      a user hold (the owner's `scontrol hold/uhold`, `sbatch -H`)
 *   shold      a system hold (root's `scontrol hold`, an operator's sethold)
 *   req=LIST   the node list the user asked for, kept when mauisched sets
 *              the job's node list to start it
 * TEXT is for people: why the job waits and when it should start.
 * Users can read AdminComment (`scontrol show job`, `squeue -O
 * admin_comment`) but not change it: only root and SlurmUser may.
 */
#ifndef MAUI_GATE_H
#define MAUI_GATE_H

#include <stdint.h>

/* The prefix of the marker. */
#define MAUI_MARKER "mauisched("

/* What the gate tells the scheduler. */
enum maui_gate_event {
	MAUI_EV_SUBMIT = 1,        /* a new job was queued: schedule soon */
	MAUI_EV_USER_HOLD = 2,     /* place a user hold */
	MAUI_EV_USER_RELEASE = 3,  /* remove the user hold */
	MAUI_EV_SYSTEM_HOLD = 4,   /* place a system hold (root, SlurmUser) */
	MAUI_EV_RELEASE_ALL = 5,   /* remove user and system holds (root) */
	MAUI_EV_MODE = 6,          /* which mode (below); job_ref NULL */
};

/* What MAUI_EV_MODE answers: sched/maui runs and Slurm's own scheduler
 * is off (SchedulerParameters sched_interval=-1 and defer: nothing starts
 * a job but sched/maui), so jobs are not held at submission and holds are
 * Slurm's own; else (1) the gate holds every new job. */
#define MAUI_MODE_INTERNAL 2
/* What MAUI_EV_USER_RELEASE answers in that mode when the job has a user
 * hold: Slurm's own release goes ahead. */
#define MAUI_RELEASE_BY_SLURM 3

/* int sched_maui_gate_event(const char *job_ref, int event, uint32_t uid):
 * job_ref is the job as the request named it ("123", "123_4"); returns 1
 * when sched/maui took the event, 0 when it is not running (the gate then
 * behaves as it does without the scheduler). Never calls Slurm: it only
 * queues the event under the scheduler's own lock and wakes its thread,
 * so it is safe from job_submit/job_modify, which run under slurmctld's
 * job write lock. */
#define MAUI_GATE_EVENT_SYMBOL "sched_maui_gate_event"
typedef int (*maui_gate_event_fn)(const char *job_ref, int event, uint32_t uid);

#endif /* MAUI_GATE_H */
