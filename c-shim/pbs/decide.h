/*
 * decide.h - the one call boundary between "gather" and "apply".
 *
 * decide(snapshot) -> decisions is the mauisched library's work: decide.c
 * copies the snapshot into the library's structs (abi_map.c), runs one
 * iteration of the policy engine and turns its plan into what apply.c
 * does on pbs_server: operator holds and releases, pbs_runjob locations
 * (host:ppn=N+host2...) and the comment of every job left waiting (its
 * reason and estimated start).
 */
#ifndef MAUISCHED_PBS_DECIDE_H
#define MAUISCHED_PBS_DECIDE_H

#include <stddef.h>

#include "torque_map.h"

/* What to do with one job. */
enum decision_kind {
  DECISION_START,  /* pbs_runjob at `location` */
  DECISION_WAIT,   /* leave queued; tell the user why in its comment */
  DECISION_HOLD,    /* pbs_holdjob, hold type `hold_type` (an operator's sethold) */
  DECISION_RELEASE, /* pbs_rlsjob, hold type `hold_type` (an operator's releasehold) */
  DECISION_CANCEL,  /* pbs_deljob (an operator's canceljob) */
  DECISION_REQUEUE, /* pbs_rerunjob (preemption; `by` is the preemptor) */
  DECISION_SUSPEND, /* pbs_sigjob "suspend" (preemption; `by` is the preemptor) */
  DECISION_CHECKPOINT, /* pbs_holdjob + pbs_rlsjob "s" on the running job, as
                        * Maui's MPBSJobCkpt (preemption; `by` is the preemptor) */
  DECISION_RESUME   /* pbs_sigjob "resume" (a job the scheduler suspended) */
};

/* `job` of an action on a job the snapshot does not hold. */
#define DECISION_NO_JOB ((size_t)-1)

/* One decision about a job. */
struct decision {
  enum decision_kind kind;
  size_t job;     /* index into the snapshot's jobs, or DECISION_NO_JOB */
  char *id;       /* the job id */
  char *location; /* START: "host:ppn=N+host2" as pbs_runjob takes it */
  int backfill;   /* START: backfill started it (for the log) */
  char *reason;   /* WAIT: why the job waits (one line) */
  long est_start; /* WAIT: estimated start, epoch seconds; -1 unknown */
  char *by;       /* HOLD, RELEASE, CANCEL: who asked (for the log);
                   * REQUEUE, SUSPEND, CHECKPOINT: the preemptor's job id */
  char **after;   /* START: jobs the plan preempts whose nodes it uses: when
                   * a preemption of one of them fails, it is not started */
  size_t nafter;
  int failed;     /* REQUEUE, SUSPEND, CHECKPOINT once applied: refused */
  char hold_type; /* HOLD, RELEASE: 's' (system) or 'u' (user) */
  int outcome;    /* START, once applied: 1 started, -1 not started, 0 not tried */
  char *refusal;  /* START not started: why (pbs_server's words) */
};

/* The plan of one iteration, in the order to apply it: actions, starts (in
 * the order the engine chose them), then waiting jobs (priority order). */
struct decisions {
  struct decision *v;
  size_t n;
  const char *decider; /* who decided, for log lines */
};

/* The policy engine: one mauisched library handle. */
struct decider;

/* Checks the library's ABI major version (refusing another one) and
 * creates the handle from maui.cfg at `config_path` with its state in
 * `state_dir` (created if missing, locked while the daemon runs).  The
 * library's log lines go to the daemon's log.  Returns 0, or -1 with the
 * reason in err. */
int decider_open(struct decider **out, const char *config_path, const char *state_dir,
                 char *err, size_t errlen);

/* Rereads maui.cfg from `config_path` (SIGHUP).  A file the library refuses
 * leaves the running policy in force; the library logs why.  Returns 0 when
 * the new file is in force, -1 otherwise. */
int decider_reconfigure(struct decider *d, const char *config_path);

/* The descriptor that becomes readable when an operator's change (sethold,
 * runjob, ... through the admin socket) waits for the next iteration;
 * -1 while there is no handle.  The handle owns it. */
int decider_wakeup_fd(struct decider *d);

/* Empties that descriptor; 1 when an operator's change was waiting. */
int decider_wakeup_take(struct decider *d);

/* Tells the library what became of the plan's starts (`outcome`), so
 * that showq and checkjob show a started job running, and one pbs_server
 * refused waiting again with the refusal, until the next snapshot. */
void decider_report(struct decider *d, const struct decisions *plan);

/* Writes the state and frees the handle (NULL: nothing). */
void decider_close(struct decider *d);

/* "mauisched ABI 1.0": the library in use, for log lines. */
const char *decider_name(const struct decider *d);

/* Decides for every job of the snapshot.  Returns 0, or -1 with a message
 * (the iteration then applies nothing).  A library failure that leaves the
 * handle unusable (a caught panic) drops it; the next call creates a new
 * one from the state directory. */
int decide(struct decider *d, const struct tm_snapshot *s, struct decisions *out,
           char *err, size_t errlen);

/* Frees a plan. */
void decisions_free(struct decisions *d);

/* Appends a decision (takes copies of the strings, which may be NULL);
 * -1 when out of memory. */
int decisions_add(struct decisions *d, enum decision_kind kind, size_t job, const char *id,
                  const char *location, const char *reason, long est_start);

/* Builds the location string of pbs_runjob from (host, slots) pairs:
 * "host" for one slot, "host:ppn=N" otherwise, then ":gpus=G" and
 * ":mics=M" where gpus[i] / mics[i] (either array may be NULL) are above
 * 0, joined by '+'.  Returns a malloc'd string, NULL when out of memory. */
char *decide_location(const char *const *hosts, const int *slots, const int *gpus,
                      const int *mics, size_t n);

#endif
