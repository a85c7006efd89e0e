/*
 * decide.h - the one call boundary between "gather" and "apply".
 *
 * decide(snapshot) -> decisions is where the mauisched library takes over:
 * the ABI issue implements decide() by copying the snapshot into the
 * library's structs, calling its iteration and copying the plan back.  Until
 * then decide() calls placeholder_fifo_firstfit() (placeholder_fifo.c), a
 * plain FIFO first-fit that exists ONLY so the gather/apply plumbing can be
 * exercised end to end; it is not the scheduler and is to be replaced.
 */
#ifndef MAUISCHED_PBS_DECIDE_H
#define MAUISCHED_PBS_DECIDE_H

#include <stddef.h>

#include "torque_map.h"

/* What to do with one job. */
enum decision_kind {
  DECISION_START, /* pbs_runjob at `location` */
  DECISION_WAIT   /* leave queued; tell the user why in its comment */
};

/* One decision about snapshot->jobs[job]. */
struct decision {
  enum decision_kind kind;
  size_t job;     /* index into the snapshot's jobs */
  char *location; /* START: "host:ppn=N+host2" as pbs_runjob takes it */
  char *reason;   /* WAIT: why the job waits (one line) */
  long est_start; /* WAIT: estimated start, epoch seconds; -1 unknown */
};

/* The plan of one iteration, in the order to apply it. */
struct decisions {
  struct decision *v;
  size_t n;
  const char *decider; /* who decided, for log lines */
};

/* Decides for every job of the snapshot.  Returns 0, or -1 with a message
 * (the iteration then applies nothing). */
int decide(const struct tm_snapshot *s, struct decisions *out, char *err,
           size_t errlen);

/* Frees a plan. */
void decisions_free(struct decisions *d);

/* Appends a decision (takes copies of the strings); -1 when out of memory. */
int decisions_add(struct decisions *d, enum decision_kind kind, size_t job,
                  const char *location, const char *reason, long est_start);

/* TEMPORARY placeholder, see placeholder_fifo.c: FIFO by qtime, first fit
 * on free processor slots.  Not the Maui policy; replaced by the library. */
int placeholder_fifo_firstfit(const struct tm_snapshot *s,
                              struct decisions *out, char *err, size_t errlen);

/* Builds the location string of pbs_runjob from (host, slots) pairs:
 * "host" for one slot, "host:ppn=N" otherwise, joined by '+'.  Returns a
 * malloc'd string, NULL when out of memory. */
char *decide_location(const char *const *hosts, const int *slots, size_t n);

#endif
