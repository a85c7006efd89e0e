/*
 * apply.h - carries a plan out on pbs_server.
 */
#ifndef MAUISCHED_PBS_APPLY_H
#define MAUISCHED_PBS_APPLY_H

#include <stddef.h>

#include "decide.h"
#include "ifl.h"
#include "torque_map.h"

/* What one application did. */
struct apply_stats {
  int started;        /* pbs_runjob succeeded */
  int start_failed;   /* refused for that job (15046, 15001, ...) */
  int comments;       /* comments written */
  int comments_kept;  /* comment already said that: not rewritten */
  int comment_failed; /* pbs_alterjob refused */
  int held;           /* pbs_holdjob succeeded */
  int released;       /* pbs_rlsjob succeeded */
  int cancelled;      /* pbs_deljob succeeded */
  int action_failed;  /* pbs_holdjob / pbs_rlsjob / pbs_deljob refused */
  int preempted;      /* pbs_rerunjob / pbs_sigjob suspend / checkpoint succeeded */
  int resumed;        /* pbs_sigjob resume succeeded */
  int preempt_failed; /* a preemption or resumption refused */
};

/* Every comment the daemon writes starts with the prefix; a started job's
 * continues with STARTED, a job someone else started with RUNNING. */
#define APPLY_COMMENT_PREFIX "mauisched: "
#define APPLY_COMMENT_STARTED "started "
#define APPLY_COMMENT_RUNNING "running since "

/* 1 when `comment` is one of the daemon's wait reasons (not a started or
 * running job's comment). */
int apply_comment_is_wait_reason(const char *comment);

/* Longest comment written (pbs_server keeps comments short). */
#define APPLY_COMMENT_MAX 250

/* Local time to the minute in fixed English, the zone named:
 * "Fri Jul 15 12:53 CDT". */
void apply_format_time(long t, char *buf, size_t len);

/* Formats the comment of a waiting job: "mauisched: <reason>" and, when
 * known, "; estimated start <local time>" (apply_format_time: to the
 * minute, so an estimate that moves by seconds does not rewrite the
 * comment).  Returns buf. */
char *apply_comment_text(const struct decision *d, char *buf, size_t len);

/* Applies the plan in order: pbs_holdjob/pbs_rlsjob (hold type s or u)
 * and pbs_deljob for operator actions, pbs_runjob(location) for starts (except of a job the
 * same plan just held), pbs_alterjob of `comment` for waiting jobs whose
 * comment differs.  A request refused for one job is logged and the next
 * one is tried; when the connection itself is gone (a failed request
 * followed by a failed probe) it stops and returns -1 with the reason in
 * err.  dry_run logs instead of calling. */
int apply_decisions(const struct ifl_api *api, int conn,
                    const struct tm_snapshot *s, struct decisions *d,
                    int dry_run, struct apply_stats *st, char *err,
                    size_t errlen);

#endif
