/*
 * apply.c - pbs_holdjob / pbs_rlsjob / pbs_runjob / pbs_alterjob with
 * per-job error handling.
 */
#define _POSIX_C_SOURCE 200809L
#include "apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

void apply_format_time(long t, char *buf, size_t len)
{
  static const char *const wday[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  time_t tt = (time_t)t;
  struct tm tm;
  char zone[16] = "";
  /* fixed English names, whatever the locale: pbs_server stores the text;
   * the zone named, as the comment is read away from the scheduler host */
  if (localtime_r(&tt, &tm) == NULL || tm.tm_wday < 0 || tm.tm_wday > 6 || tm.tm_mon < 0 ||
      tm.tm_mon > 11) {
    snprintf(buf, len, "@%ld", t);
    return;
  }
  strftime(zone, sizeof zone, "%Z", &tm);
  snprintf(buf, len, "%s %s %d %02d:%02d%s%s", wday[tm.tm_wday], mon[tm.tm_mon], tm.tm_mday,
           tm.tm_hour, tm.tm_min, zone[0] ? " " : "", zone);
}

char *apply_comment_text(const struct decision *d, char *buf, size_t len)
{
  char when[64] = "";
  if (d->est_start >= 0)
    apply_format_time(d->est_start, when, sizeof when);
  snprintf(buf, len, APPLY_COMMENT_PREFIX "%s%s%s", d->reason ? d->reason : "waiting",
           when[0] ? "; estimated start " : "", when);
  return buf;
}

int apply_comment_is_wait_reason(const char *comment)
{
  static const char prefix[] = APPLY_COMMENT_PREFIX;
  const char *rest;
  if (comment == NULL || strncmp(comment, prefix, sizeof prefix - 1) != 0)
    return 0;
  rest = comment + sizeof prefix - 1;
  return strncmp(rest, APPLY_COMMENT_STARTED, strlen(APPLY_COMMENT_STARTED)) != 0 &&
         strncmp(rest, APPLY_COMMENT_RUNNING, strlen(APPLY_COMMENT_RUNNING)) != 0;
}

/* After a refused request: is the connection still there?  A status call
 * that fails says no.  Known per-job refusals skip the probe. */
static int connection_alive(const struct ifl_api *api, int conn, int e)
{
  struct batch_status *bs;
  int alive;
  if (e == IFL_PBSE_UNKJOBID || e == IFL_PBSE_RESCUNAV)
    return 1;
  ifl_clear_errno(api);
  bs = api->statserver(conn, NULL, NULL);
  alive = bs != NULL || ifl_errno(api) == 0;
  if (bs != NULL)
    api->statfree(bs);
  return alive;
}

static const char *errtext(const struct ifl_api *api, int conn, int e)
{
  const char *m = api->geterrmsg(conn);
  if (m != NULL && *m != '\0')
    return m;
  return ifl_strerror(api, e);
}

/* Writes `text` as job `id`'s comment.  Returns 0, 1 when pbs_server
 * refused it (logged), -1 when the server no longer answers (err set). */
static int write_comment(const struct ifl_api *api, int conn, const char *id, const char *text,
                         char *err, size_t errlen)
{
  struct attrl a;
  int e;
  a.next = NULL;
  a.name = (char *)"comment";
  a.resource = NULL;
  a.value = (char *)text;
  a.op = IFL_SET;
  ifl_clear_errno(api);
  if (api->alterjob(conn, (char *)id, &a, NULL) == 0) {
    log_msg(LOG_DEBUG, "job %s: comment \"%s\"", id, text);
    return 0;
  }
  e = ifl_errno(api);
  log_msg(LOG_WARN, "pbs_alterjob(%s, comment) refused: pbs_errno %d: %s", id, e,
          errtext(api, conn, e));
  if (!connection_alive(api, conn, e)) {
    snprintf(err, errlen, "pbs_alterjob(%s) failed (pbs_errno %d) and the server no "
             "longer answers", id, e);
    return -1;
  }
  return 1;
}

/* Notes that start `x` was not carried out, and why (for the library's
 * views: decider_report). */
static void not_started(struct decision *x, const char *why)
{
  x->outcome = -1;
  free(x->refusal);
  x->refusal = strdup(why);
}

/* 1 when an earlier decision of the plan held or cancelled job `id` (its
 * start is skipped: pbs_server would refuse it, and the operator asked for
 * it). */
static int held_by_plan(const struct decisions *d, size_t upto, const char *id)
{
  size_t i;
  for (i = 0; i < upto; i++)
    if ((d->v[i].kind == DECISION_HOLD || d->v[i].kind == DECISION_CANCEL) &&
        strcmp(d->v[i].id, id) == 0)
      return 1;
  return 0;
}

/* The preemption of a job that start `x` waits for which pbs_server
 * refused, or NULL. */
static const struct decision *failed_preemption(const struct decisions *d, size_t upto,
                                                const struct decision *x)
{
  size_t i, k;
  for (i = 0; i < upto; i++)
    if (d->v[i].failed)
      for (k = 0; k < x->nafter; k++)
        if (strcmp(d->v[i].id, x->after[k]) == 0)
          return &d->v[i];
  return NULL;
}

static int is_preemption(enum decision_kind k)
{
  return k == DECISION_REQUEUE || k == DECISION_SUSPEND || k == DECISION_CHECKPOINT ||
         k == DECISION_RESUME;
}

/* Applies a preemption or a resumption: pbs_rerunjob (REQUEUE), pbs_sigjob
 * "suspend" / "resume", or pbs_holdjob then pbs_rlsjob "s" on the running
 * job (CHECKPOINT, as Maui's MPBSJobCkpt: pbs_server checkpoints a
 * checkpointable job it holds and queues it again).  A refusal is logged
 * with pbs_server's words and marks the decision failed (the starts that
 * wait for it are not made).  Returns -1 when the server no longer
 * answers. */
static int apply_preemption(const struct ifl_api *api, int conn, struct decision *x,
                            const char *id, int dry_run, struct apply_stats *st, char *err,
                            size_t errlen)
{
  static const char *const what[] = {"requeue", "suspend", "checkpoint", "resume"};
  const char *verb = what[x->kind == DECISION_REQUEUE ? 0 : x->kind == DECISION_SUSPEND ? 1
                          : x->kind == DECISION_CHECKPOINT ? 2 : 3];
  const char *call = x->kind == DECISION_REQUEUE ? "pbs_rerunjob"
                     : x->kind == DECISION_CHECKPOINT ? "pbs_holdjob" : "pbs_sigjob";
  int rc, e;
  if (dry_run) {
    log_msg(LOG_INFO, "dry run: would %s job %s%s%s", verb, id,
            x->kind == DECISION_RESUME ? "" : " for job ", x->kind == DECISION_RESUME ? "" : x->by);
    x->failed = 1;
    return 0;
  }
  ifl_clear_errno(api);
  switch (x->kind) {
  case DECISION_REQUEUE:
    rc = api->rerunjob(conn, (char *)id, NULL);
    break;
  case DECISION_SUSPEND:
    rc = api->sigjob(conn, (char *)id, (char *)"suspend", NULL);
    break;
  case DECISION_RESUME:
    rc = api->sigjob(conn, (char *)id, (char *)"resume", NULL);
    break;
  default:
    rc = api->holdjob(conn, (char *)id, (char *)"s", NULL);
    if (rc == 0) {
      call = "pbs_rlsjob";
      ifl_clear_errno(api);
      rc = api->rlsjob(conn, (char *)id, (char *)"s", NULL);
    }
    break;
  }
  if (rc == 0) {
    if (x->kind == DECISION_RESUME) {
      st->resumed++;
      log_msg(LOG_INFO, "resumed job %s (its processors are free again)", id);
    } else {
      st->preempted++;
      log_msg(LOG_INFO, "preempted job %s (%s) for job %s", id, verb, x->by ? x->by : "?");
    }
    return 0;
  }
  e = ifl_errno(api);
  x->failed = 1;
  st->preempt_failed++;
  log_msg(LOG_WARN, "%s(%s) to %s it%s%s refused: pbs_errno %d: %s", call, id, verb,
          x->kind == DECISION_RESUME ? "" : " for job ",
          x->kind == DECISION_RESUME ? "" : (x->by ? x->by : "?"), e, errtext(api, conn, e));
  if (!connection_alive(api, conn, e)) {
    snprintf(err, errlen, "%s(%s) failed (pbs_errno %d) and the server no longer answers",
             call, id, e);
    return -1;
  }
  return 0;
}

int apply_decisions(const struct ifl_api *api, int conn,
                    const struct tm_snapshot *s, struct decisions *d,
                    int dry_run, struct apply_stats *st, char *err,
                    size_t errlen)
{
  size_t i;
  memset(st, 0, sizeof *st);
  for (i = 0; i < d->n; i++) {
    struct decision *x = &d->v[i];
    const struct tm_job *j = x->job != DECISION_NO_JOB ? &s->jobs[x->job] : NULL;
    char id[512];
    int rc, e;

    snprintf(id, sizeof id, "%s", x->id ? x->id : j ? j->id : "");
    if (is_preemption(x->kind)) {
      if (apply_preemption(api, conn, x, id, dry_run, st, err, errlen) != 0)
        return -1;
    } else if (x->kind == DECISION_HOLD || x->kind == DECISION_RELEASE || x->kind == DECISION_CANCEL) {
      int hold = x->kind == DECISION_HOLD, cancel = x->kind == DECISION_CANCEL;
      char type[2] = { x->hold_type == 'u' ? 'u' : 's', '\0' };
      const char *what = cancel ? "pbs_deljob" : hold ? "pbs_holdjob" : "pbs_rlsjob";
      const char *verb = cancel ? "cancel" : hold ? "hold" : "release";
      const char *holdname = type[0] == 'u' ? "user hold" : "system hold";
      if (dry_run) {
        log_msg(LOG_INFO, "dry run: would %s job %s (asked by %s)", verb, id,
                x->by ? x->by : "?");
        continue;
      }
      ifl_clear_errno(api);
      rc = cancel ? api->deljob(conn, id, NULL)
           : hold ? api->holdjob(conn, id, type, NULL) : api->rlsjob(conn, id, type, NULL);
      if (rc == 0) {
        if (cancel)
          st->cancelled++;
        else if (hold)
          st->held++;
        else
          st->released++;
        if (cancel)
          log_msg(LOG_INFO, "cancelled job %s, asked by %s", id, x->by ? x->by : "?");
        else
          log_msg(LOG_INFO, "%s job %s (%s), asked by %s", hold ? "held" : "released", id,
                  holdname, x->by ? x->by : "?");
        continue;
      }
      e = ifl_errno(api);
      st->action_failed++;
      if (cancel)
        log_msg(LOG_WARN, "%s(%s) refused: pbs_errno %d: %s", what, id, e,
                errtext(api, conn, e));
      else
        log_msg(LOG_WARN, "%s(%s, %s) refused: pbs_errno %d: %s", what, id, type, e,
                errtext(api, conn, e));
      if (!connection_alive(api, conn, e)) {
        snprintf(err, errlen, "%s(%s) failed (pbs_errno %d) and the server no longer answers",
                 what, id, e);
        return -1;
      }
    } else if (x->kind == DECISION_START) {
      char loc[8192];
      if (held_by_plan(d, i, id)) {
        log_msg(LOG_INFO, "job %s: not started, an operator hold was just placed", id);
        not_started(x, "an operator hold was placed first");
        continue;
      }
      {
        const struct decision *p = failed_preemption(d, i, x);
        if (p != NULL && !dry_run) {
          char why[600];
          snprintf(why, sizeof why, "the preemption of job %s was refused; its resources "
                   "are not free", p->id);
          log_msg(LOG_WARN, "job %s: not started: %s", id, why);
          st->start_failed++;
          not_started(x, why);
          continue;
        }
      }
      if (strlen(x->location) >= sizeof loc) {
        log_msg(LOG_ERR, "job %s: location too long (%zu bytes); not started", id,
                strlen(x->location));
        st->start_failed++;
        not_started(x, "its pbs_runjob location is too long");
        continue;
      }
      snprintf(loc, sizeof loc, "%s", x->location);
      if (dry_run) {
        log_msg(LOG_INFO, "dry run: would start job %s on %s%s", id, loc,
                x->backfill ? " (backfill)" : "");
        not_started(x, "dry run (mauisched-pbs --dry-run)");
        continue;
      }
      ifl_clear_errno(api);
      rc = api->runjob(conn, id, loc, NULL);
      if (rc == 0) {
        char when[64], text[APPLY_COMMENT_MAX + 1];
        x->outcome = 1;
        st->started++;
        log_msg(LOG_INFO, "started job %s on %s%s", id, loc, x->backfill ? " (backfill)" : "");
        /* the waiting reason goes: the comment says when and where */
        apply_format_time((long)time(NULL), when, sizeof when);
        snprintf(text, sizeof text, APPLY_COMMENT_PREFIX APPLY_COMMENT_STARTED "%.40s on %.160s%s%s",
                 when, loc, strlen(loc) > 160 ? "..." : "", x->backfill ? " by backfill" : "");
        rc = write_comment(api, conn, id, text, err, errlen);
        if (rc < 0)
          return -1;
        if (rc > 0)
          st->comment_failed++;
        continue;
      }
      e = ifl_errno(api);
      st->start_failed++;
      log_msg(LOG_WARN, "pbs_runjob(%s, %s) refused: pbs_errno %d: %s", id, loc, e,
              errtext(api, conn, e));
      {
        char why[512];
        snprintf(why, sizeof why, "pbs_runjob refused: pbs_errno %d: %s", e,
                 errtext(api, conn, e));
        not_started(x, why);
      }
      if (!connection_alive(api, conn, e)) {
        snprintf(err, errlen, "pbs_runjob(%s) failed (pbs_errno %d) and the server no "
                 "longer answers", id, e);
        return -1;
      }
    } else {
      char text[APPLY_COMMENT_MAX + 1];
      if (j == NULL)
        continue;
      apply_comment_text(x, text, sizeof text);
      if (j->comment != NULL && strcmp(j->comment, text) == 0) {
        st->comments_kept++;
        continue;
      }
      if (dry_run) {
        log_msg(LOG_INFO, "dry run: would set comment of job %s to \"%s\"", id, text);
        continue;
      }
      rc = write_comment(api, conn, id, text, err, errlen);
      if (rc < 0)
        return -1;
      if (rc == 0)
        st->comments++;
      else
        st->comment_failed++;
    }
  }
  return 0;
}
