/*
 * placeholder_fifo.c - TEMPORARY stand-in for the mauisched library.
 *
 * ======================================================================
 *  THIS IS NOT THE SCHEDULER.  It is a plain FIFO first-fit that exists
 *  only so the daemon's plumbing (gather -> decide -> apply: pbs_runjob
 *  locations, comments, error handling, reconnects) can be exercised end
 *  to end before the library's C ABI exists.  It knows no priorities,
 *  fairshare, reservations, backfill, throttling or memory.  The ABI
 *  issue replaces the call in decide() with the library and deletes this
 *  file.
 * ======================================================================
 *
 * Jobs are taken by queue time (then job number); each eligible one gets,
 * for every part of its nodes= request, the first usable nodes with enough
 * free processor slots and the requested properties (distinct nodes within
 * one job, as pbs_server allocates them); procs=N takes free slots anywhere.
 * Slots taken are subtracted so later jobs see them.  A job that does not
 * fit waits and the next one is tried.
 */
#define _POSIX_C_SOURCE 200809L
#include "decide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG "placeholder FIFO first-fit"

struct order {
  const struct tm_job *j;
  size_t idx;
  long num;
};

static int by_fifo(const void *a, const void *b)
{
  const struct order *x = a, *y = b;
  if (x->j->submit_time != y->j->submit_time)
    return x->j->submit_time < y->j->submit_time ? -1 : 1;
  if (x->num != y->num)
    return x->num < y->num ? -1 : 1;
  if (x->j->array_index != y->j->array_index)
    return x->j->array_index < y->j->array_index ? -1 : 1;
  return strcmp(x->j->id, y->j->id);
}

static int node_has(const struct tm_node *n, const struct strlist *want, const char *extra)
{
  size_t i;
  for (i = 0; i < want->n; i++)
    if (!strlist_has(&n->features, want->v[i]))
      return 0;
  return extra == NULL || strlist_has(&n->features, extra);
}

/* Fits one job on the free slots; fills hosts/slots (nodes in order). */
static int fit(const struct tm_snapshot *s, const struct tm_job *j, const int *freeslots,
               const char **hosts, int *slots, size_t *nused, char *used)
{
  size_t r, i;
  *nused = 0;
  memset(used, 0, s->nnodes);
  if (j->spread) {
    int left = j->tasks;
    for (i = 0; i < s->nnodes && left > 0; i++) {
      int take = freeslots[i] < left ? freeslots[i] : left;
      if (take <= 0)
        continue;
      hosts[*nused] = s->nodes[i].name;
      slots[(*nused)++] = take;
      left -= take;
    }
    return left == 0;
  }
  for (r = 0; r < j->nreqs; r++) {
    const struct tm_nodereq *q = &j->reqs[r];
    int c;
    for (c = 0; c < q->count; c++) {
      for (i = 0; i < s->nnodes; i++) {
        const struct tm_node *n = &s->nodes[i];
        if (used[i] || freeslots[i] < q->ppn)
          continue;
        if (q->is_host && strcmp(n->name, q->name) != 0)
          continue;
        if (!node_has(n, &q->features, q->name != NULL && !q->is_host ? q->name : NULL))
          continue;
        if (j->exclusive && (n->used_slots > 0 || freeslots[i] < n->procs))
          continue;
        break;
      }
      if (i == s->nnodes)
        return 0;
      used[i] = 1;
      hosts[*nused] = s->nodes[i].name;
      slots[(*nused)++] = j->exclusive ? s->nodes[i].procs : q->ppn;
    }
  }
  return 1;
}

static void describe(const struct tm_job *j, char *buf, size_t len)
{
  if (j->spread)
    snprintf(buf, len, "%d processor(s) on any nodes", j->tasks);
  else if (j->ppn > 0 && j->req_hosts.n == 0)
    snprintf(buf, len, "%d node(s) with %d free processor(s)%s%s", j->nodes, j->ppn,
             j->features.n ? " and the requested properties" : "",
             j->exclusive ? ", exclusively" : "");
  else
    snprintf(buf, len, "%d processor(s) on %d node(s) as requested", j->tasks, j->nodes);
}

int placeholder_fifo_firstfit(const struct tm_snapshot *s, struct decisions *out,
                              char *err, size_t errlen)
{
  struct order *ord = NULL;
  int *freeslots = NULL, *slots = NULL;
  const char **hosts = NULL;
  char *used = NULL;
  size_t i, k, maxparts = 1;
  int rc = -1;

  memset(out, 0, sizeof *out);
  out->decider = TAG " (temporary, not the mauisched policy)";
  for (i = 0; i < s->njobs; i++) {
    size_t parts = s->jobs[i].spread ? s->nnodes : (size_t)s->jobs[i].nodes;
    if (parts > maxparts)
      maxparts = parts;
  }
  ord = calloc(s->njobs + 1, sizeof *ord);
  freeslots = calloc(s->nnodes + 1, sizeof *freeslots);
  used = calloc(s->nnodes + 1, 1);
  hosts = calloc(maxparts, sizeof *hosts);
  slots = calloc(maxparts, sizeof *slots);
  if (!ord || !freeslots || !used || !hosts || !slots)
    goto oom;

  for (i = 0; i < s->nnodes; i++) {
    const struct tm_node *n = &s->nodes[i];
    freeslots[i] = tm_node_usable(n) && n->procs > n->used_slots ? n->procs - n->used_slots : 0;
  }
  for (i = 0; i < s->njobs; i++) {
    ord[i].j = &s->jobs[i];
    ord[i].idx = i;
    ord[i].num = strtol(s->jobs[i].id, NULL, 10);
  }
  qsort(ord, s->njobs, sizeof *ord, by_fifo);

  for (k = 0; k < s->njobs; k++) {
    const struct tm_job *j = ord[k].j;
    char why[TM_ERRLEN + 512], what[128];
    size_t nused;

    /* only queued, held or waiting jobs are the scheduler's business */
    if ((j->inelig & TM_INELIG_ARRAY) || strchr("QHW", j->state) == NULL)
      continue;
    if (j->inelig != 0) {
      char t[128];
      tm_inelig_text(j->inelig & ~(unsigned)TM_INELIG_STATE, t, sizeof t);
      snprintf(why, sizeof why, "[%s] not eligible: %s%s%s", TAG,
               t[0] ? t : (j->state == 'H' ? "held" : "waiting"),
               j->err[0] ? ": " : "", j->err);
      if (decisions_add(out, DECISION_WAIT, ord[k].idx, NULL, why, -1) != 0)
        goto oom;
      continue;
    }
    if (j->tasks <= 0 || !fit(s, j, freeslots, hosts, slots, &nused, used)) {
      describe(j, what, sizeof what);
      snprintf(why, sizeof why, "[%s] waiting for %s", TAG, what);
      if (decisions_add(out, DECISION_WAIT, ord[k].idx, NULL, why, -1) != 0)
        goto oom;
      continue;
    }
    {
      char *loc = decide_location(hosts, slots, nused);
      size_t h, n;
      if (loc == NULL || decisions_add(out, DECISION_START, ord[k].idx, loc, NULL, -1) != 0) {
        free(loc);
        goto oom;
      }
      free(loc);
      for (h = 0; h < nused; h++)
        for (n = 0; n < s->nnodes; n++)
          if (s->nodes[n].name == hosts[h])
            freeslots[n] -= j->exclusive ? freeslots[n] : slots[h];
    }
  }
  rc = 0;
  goto done;
oom:
  snprintf(err, errlen, "out of memory");
  decisions_free(out);
done:
  free(ord);
  free(freeslots);
  free(used);
  free(hosts);
  free(slots);
  return rc;
}
