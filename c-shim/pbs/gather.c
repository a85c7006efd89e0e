/*
 * gather.c - status calls -> struct tm_snapshot.
 */
#define _POSIX_C_SOURCE 200809L
#include "gather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

/* The job attributes read each iteration (a filter keeps the reply small on
 * sites with many jobs; a name without resource returns all resources). */
static const char *const job_attrs[] = {
    "job_state", "queue", "euser", "egroup", "Job_Owner", "Account_Name", "Job_Name",
    "qtime", "Priority", "Resource_List", "exec_host", "comment", "depend",
    "Execution_Time", "Hold_Types", "start_time", "comp_time",
    /* last: Maui's RM extensions (qsub -W x=...), a site attribute that
     * Torque builds define by default (site_job_attr_def.ht); a server
     * without it refuses the whole filter (PBSE_NOATTR), and is then asked
     * without it */
    "x"};
#define NJOB_ATTRS (sizeof job_attrs / sizeof job_attrs[0])
#define PBSE_NOATTR 15002 /* undefined attribute */

/* Set once pbs_server refused "x": not asked again while the daemon runs. */
static int server_lacks_x;

/* A NULL reply is an empty list when pbs_errno stayed 0, else a failure. */
static int stat_failed(const struct ifl_api *api, int conn,
                       const struct batch_status *bs, const char *call,
                       char *err, size_t errlen)
{
  int e;
  const char *m;
  if (bs != NULL)
    return 0;
  e = ifl_errno(api);
  if (e == 0)
    return 0;
  m = api->geterrmsg(conn);
  if (m == NULL || *m == '\0')
    m = ifl_strerror(api, e);
  snprintf(err, errlen, "%s failed: pbs_errno %d%s%s", call, e, *m ? ": " : "", m);
  return 1;
}

static int parse_bool(const char *v)
{
  if (v == NULL)
    return -1;
  if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0)
    return 1;
  if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0)
    return 0;
  return -1;
}

static size_t count(const struct batch_status *bs)
{
  size_t n = 0;
  for (; bs != NULL; bs = bs->next)
    n++;
  return n;
}

int gather_snapshot(const struct ifl_api *api, int conn, long now,
                    struct tm_snapshot *s, char *err, size_t errlen)
{
  struct attrl filter[NJOB_ATTRS];
  struct batch_status *bs = NULL, *p;
  char extend[] = "exec_queue_only";
  size_t i, n;

  memset(s, 0, sizeof *s);
  s->now = now;
  s->server.scheduling = -1;
  s->server.keep_completed = -1;

  ifl_clear_errno(api);
  bs = api->statserver(conn, NULL, NULL);
  if (stat_failed(api, conn, bs, "pbs_statserver", err, errlen))
    goto fail;
  if (bs != NULL) {
    s->server.name = xstrdup(bs->name);
    s->server.state = xstrdup(tm_attr(bs->attribs, "server_state", NULL));
    s->server.scheduling = parse_bool(tm_attr(bs->attribs, "scheduling", NULL));
    {
      const char *kc = tm_attr(bs->attribs, "keep_completed", NULL);
      char *end = NULL;
      long v = kc != NULL ? strtol(kc, &end, 10) : -1;
      s->server.keep_completed = kc != NULL && end != kc && *end == '\0' && v >= 0 ? v : -1;
    }
  }
  api->statfree(bs);

  ifl_clear_errno(api);
  bs = api->statque(conn, NULL, NULL, NULL);
  if (stat_failed(api, conn, bs, "pbs_statque", err, errlen))
    goto fail;
  n = count(bs);
  if (n > 0 && (s->queues = calloc(n, sizeof *s->queues)) == NULL)
    goto oom;
  for (p = bs; p != NULL; p = p->next, s->nqueues++) {
    struct tm_queue *q = &s->queues[s->nqueues];
    if ((q->name = xstrdup(p->name ? p->name : "")) == NULL)
      goto oom;
    q->enabled = parse_bool(tm_attr(p->attribs, "enabled", NULL));
    q->started = parse_bool(tm_attr(p->attribs, "started", NULL));
  }
  api->statfree(bs);

  ifl_clear_errno(api);
  bs = api->statnode(conn, NULL, NULL, NULL);
  if (stat_failed(api, conn, bs, "pbs_statnode", err, errlen))
    goto fail;
  n = count(bs);
  if (n > 0 && (s->nodes = calloc(n, sizeof *s->nodes)) == NULL)
    goto oom;
  for (p = bs; p != NULL; p = p->next) {
    struct tm_node *nd = &s->nodes[s->nnodes];
    if (tm_node_from_attrs(nd, p->name, p->attribs) != 0) {
      tm_node_free(nd);
      goto oom;
    }
    s->nnodes++;
    if (nd->err[0] != '\0')
      log_msg(LOG_DEBUG, "node %s: %s", nd->name, nd->err);
  }
  api->statfree(bs);

  for (i = 0; i < NJOB_ATTRS; i++) {
    filter[i].next = i + 1 < NJOB_ATTRS ? &filter[i + 1] : NULL;
    filter[i].name = (char *)job_attrs[i];
    filter[i].resource = NULL;
    filter[i].value = NULL;
    filter[i].op = IFL_SET;
  }
  if (server_lacks_x)
    filter[NJOB_ATTRS - 2].next = NULL;
  ifl_clear_errno(api);
  bs = api->statjob(conn, NULL, filter, extend);
  if (bs == NULL && !server_lacks_x && ifl_errno(api) == PBSE_NOATTR) {
    log_msg(LOG_INFO, "pbs_server defines no job attribute \"x\": Maui's resource manager "
            "extensions (qsub -W x=GRES:...) are not read");
    server_lacks_x = 1;
    filter[NJOB_ATTRS - 2].next = NULL;
    ifl_clear_errno(api);
    bs = api->statjob(conn, NULL, filter, extend);
  }
  if (stat_failed(api, conn, bs, "pbs_statjob", err, errlen))
    goto fail;
  n = count(bs);
  if (n > 0 && (s->jobs = calloc(n, sizeof *s->jobs)) == NULL)
    goto oom;
  for (p = bs; p != NULL; p = p->next) {
    struct tm_job *j = &s->jobs[s->njobs];
    if (tm_job_from_attrs(j, p->name, p->attribs) != 0) {
      tm_job_free(j);
      goto oom;
    }
    s->njobs++;
    if (j->err[0] != '\0')
      log_msg(LOG_DEBUG, "job %s: %s", j->id, j->err);
  }
  api->statfree(bs);
  bs = NULL;

  if (tm_snapshot_resolve(s) != 0)
    goto oom;
  return 0;

oom:
  snprintf(err, errlen, "out of memory while reading the server's state");
fail:
  if (bs != NULL)
    api->statfree(bs);
  tm_snapshot_free(s);
  s->now = now;
  return -1;
}
