/*
 * apply.c - pbs_runjob / pbs_alterjob with per-job error handling.
 */
#define _POSIX_C_SOURCE 200809L
#include "apply.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

char *apply_comment_text(const struct decision *d, char *buf, size_t len)
{
  char when[64] = "";
  if (d->est_start >= 0) {
    time_t t = (time_t)d->est_start;
    struct tm tm;
    if (localtime_r(&t, &tm) != NULL)
      strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  }
  snprintf(buf, len, "mauisched: %s%s%s", d->reason ? d->reason : "waiting",
           when[0] ? "; estimated start " : "", when);
  return buf;
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

int apply_decisions(const struct ifl_api *api, int conn,
                    const struct tm_snapshot *s, const struct decisions *d,
                    int dry_run, struct apply_stats *st, char *err,
                    size_t errlen)
{
  size_t i;
  memset(st, 0, sizeof *st);
  for (i = 0; i < d->n; i++) {
    const struct decision *x = &d->v[i];
    const struct tm_job *j = &s->jobs[x->job];
    char id[512];
    int rc, e;

    snprintf(id, sizeof id, "%s", j->id);
    if (x->kind == DECISION_START) {
      char loc[8192];
      if (strlen(x->location) >= sizeof loc) {
        log_msg(LOG_ERR, "job %s: location too long (%zu bytes); not started", id,
                strlen(x->location));
        st->start_failed++;
        continue;
      }
      snprintf(loc, sizeof loc, "%s", x->location);
      if (dry_run) {
        log_msg(LOG_INFO, "dry run: would start job %s on %s", id, loc);
        continue;
      }
      ifl_clear_errno(api);
      rc = api->runjob(conn, id, loc, NULL);
      if (rc == 0) {
        st->started++;
        log_msg(LOG_INFO, "started job %s on %s", id, loc);
        continue;
      }
      e = ifl_errno(api);
      st->start_failed++;
      log_msg(LOG_WARN, "pbs_runjob(%s, %s) refused: pbs_errno %d: %s", id, loc, e,
              errtext(api, conn, e));
      if (!connection_alive(api, conn, e)) {
        snprintf(err, errlen, "pbs_runjob(%s) failed (pbs_errno %d) and the server no "
                 "longer answers", id, e);
        return -1;
      }
    } else {
      char text[APPLY_COMMENT_MAX + 1];
      struct attrl a;
      apply_comment_text(x, text, sizeof text);
      if (j->comment != NULL && strcmp(j->comment, text) == 0) {
        st->comments_kept++;
        continue;
      }
      if (dry_run) {
        log_msg(LOG_INFO, "dry run: would set comment of job %s to \"%s\"", id, text);
        continue;
      }
      a.next = NULL;
      a.name = (char *)"comment";
      a.resource = NULL;
      a.value = text;
      a.op = IFL_SET;
      ifl_clear_errno(api);
      rc = api->alterjob(conn, id, &a, NULL);
      if (rc == 0) {
        st->comments++;
        log_msg(LOG_DEBUG, "job %s: comment \"%s\"", id, text);
        continue;
      }
      e = ifl_errno(api);
      st->comment_failed++;
      log_msg(LOG_WARN, "pbs_alterjob(%s, comment) refused: pbs_errno %d: %s", id, e,
              errtext(api, conn, e));
      if (!connection_alive(api, conn, e)) {
        snprintf(err, errlen, "pbs_alterjob(%s) failed (pbs_errno %d) and the server no "
                 "longer answers", id, e);
        return -1;
      }
    }
  }
  return 0;
}
