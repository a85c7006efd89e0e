/*
 * abi_map.c - Torque model -> mauisched snapshot structs (see abi_map.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "abi_map.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

void am_text_free(struct am_text *t)
{
  strbuf_free(&t->features);
  strbuf_free(&t->hostlist);
  strbuf_free(&t->allocation);
  strbuf_free(&t->gres);
  strbuf_free(&t->gres_node);
}

/* Empties a buffer for reuse, keeping its memory. */
static void reset(struct strbuf *b)
{
  b->len = 0;
  if (b->s != NULL)
    b->s[0] = '\0';
}

/* The text, or NULL when nothing was appended (the ABI's "not set"). */
static const char *or_null(const struct strbuf *b)
{
  return b->len > 0 ? b->s : NULL;
}

static int join(struct strbuf *b, const struct strlist *l)
{
  size_t i;
  reset(b);
  for (i = 0; i < l->n; i++)
    strbuf_printf(b, "%s%s", i ? "," : "", l->v[i]);
  return b->oom ? -1 : 0;
}

/* "name:count,..." in the engine's syntax, NULL when the list is empty. */
static int gres_text(struct strbuf *b, const struct tm_greslist *l, const char **out)
{
  size_t i;
  reset(b);
  for (i = 0; i < l->n; i++)
    strbuf_printf(b, "%s%s:%ld", i ? "," : "", l->v[i].name, l->v[i].count);
  if (b->oom)
    return -1;
  *out = or_null(b);
  return 0;
}

uint32_t am_node_state(const struct tm_node *n)
{
  unsigned st = n->state;
  int busy_jobs = n->njobs > 0 || n->used_slots > 0;
  if (st & TM_NS_INVALID)
    return MAUISCHED_NODE_UNKNOWN;
  if (st & TM_NS_DOWN)
    return MAUISCHED_NODE_DOWN;
  if (st & TM_NS_UNKNOWN)
    return MAUISCHED_NODE_UNKNOWN;
  if (st & (TM_NS_OFFLINE | TM_NS_RESERVE | TM_NS_BUSY))
    return busy_jobs ? MAUISCHED_NODE_DRAINING : MAUISCHED_NODE_DRAINED;
  if (st & TM_NS_JOB_EXCLUSIVE)
    /* every slot used, or an exclusive (#excl) job that leaves no room */
    return n->used_slots >= n->procs ? MAUISCHED_NODE_BUSY : MAUISCHED_NODE_DRAINING;
  return busy_jobs ? MAUISCHED_NODE_RUNNING : MAUISCHED_NODE_IDLE;
}

int am_node(const struct tm_node *n, mauisched_node_t *out, struct am_text *t)
{
  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  out->name = n->name;
  out->state = am_node_state(n);
  out->procs = n->procs > 0 ? (uint32_t)n->procs : 0;
  out->mem_mb = n->mem_mb > 0 ? (uint64_t)n->mem_mb : 0;
  if (n->total_mem_mb > 0 && n->mem_mb > 0 && n->total_mem_mb > n->mem_mb)
    out->swap_mb = (uint64_t)(n->total_mem_mb - n->mem_mb);
  if (n->avail_mem_mb >= 0) {
    /* what the mom measured: the engine keeps it for display */
    out->avail_valid = true;
    out->avail_procs = n->procs > n->used_slots ? (uint32_t)(n->procs - n->used_slots) : 0;
    out->avail_mem_mb = (uint64_t)n->avail_mem_mb;
  }
  out->load = n->load > 0 ? n->load : 0;
  if (join(&t->features, &n->features) != 0)
    return -1;
  out->features = or_null(&t->features);
  return gres_text(&t->gres, &n->gres, &out->gres);
}

uint32_t am_holds(const char *hold_types, char state)
{
  unsigned bits = tm_hold_bits(hold_types);
  uint32_t h = 0;
  if (bits & TM_HOLD_USER)
    h |= MAUISCHED_HOLD_USER;
  /* operator, system and bad-password holds are all released by an
   * administrator, which is what Maui's system hold means */
  if (bits & (TM_HOLD_OPERATOR | TM_HOLD_SYSTEM | TM_HOLD_BADPW))
    h |= MAUISCHED_HOLD_SYSTEM;
  if (state == 'H' && h == 0)
    h = MAUISCHED_HOLD_SYSTEM;
  return h;
}

static int node_known(const struct tm_snapshot *s, const char *name)
{
  size_t i;
  for (i = 0; i < s->nnodes; i++)
    if (strcmp(s->nodes[i].name, name) == 0)
      return 1;
  return 0;
}

/* "node:slots,..." of a started job into t->allocation; returns the slots
 * (0 when no listed node holds it), -1 when out of memory. */
static long allocation(const struct tm_snapshot *s, const struct tm_job *j, struct am_text *t)
{
  long total = 0;
  size_t i, k;
  reset(&t->allocation);
  for (i = 0; i < j->nalloc; i++) {
    if (j->alloc[i].slots <= 0 || !node_known(s, j->alloc[i].host))
      continue; /* a node pbs_server no longer lists cannot be placed on */
    strbuf_printf(&t->allocation, "%s%s:%d", total ? "," : "", j->alloc[i].host,
                  j->alloc[i].slots);
    total += j->alloc[i].slots;
  }
  if (total == 0) {
    /* no (usable) exec_host: the nodes' `jobs` lists say where it runs */
    for (i = 0; i < s->nnodes; i++)
      for (k = 0; k < s->nodes[i].njobs; k++) {
        const struct tm_node_job *nj = &s->nodes[i].jobs[k];
        if (nj->slots <= 0 || strcmp(nj->job_id, j->id) != 0)
          continue;
        strbuf_printf(&t->allocation, "%s%s:%d", total ? "," : "", s->nodes[i].name,
                      nj->slots);
        total += nj->slots;
      }
  }
  if (t->allocation.oom)
    return -1;
  return total;
}

/* Copies "user" out of Job_Owner "user@host" into buf. */
static const char *owner_user(const char *owner, char *buf, size_t len)
{
  size_t n;
  if (owner == NULL || *owner == '\0' || *owner == '@')
    return NULL;
  n = strcspn(owner, "@");
  if (n >= len)
    n = len - 1;
  memcpy(buf, owner, n);
  buf[n] = '\0';
  return buf;
}

enum am_result am_job(const struct tm_snapshot *s, const struct tm_job *j,
                      mauisched_job_t *out, struct am_text *t, char *why,
                      size_t whylen)
{
  const char *user;
  int idle = 0;
  size_t k;

  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  why[0] = '\0';
  if (j->inelig & TM_INELIG_ARRAY) {
    snprintf(why, whylen, "array summary");
    return AM_SKIP;
  }
  switch (j->state) {
  case 'Q':
  case 'H':
  case 'W':
    idle = 1;
    out->state = MAUISCHED_JOB_IDLE;
    break;
  case 'R':
  case 'E': /* exiting: still on its nodes */
    out->state = MAUISCHED_JOB_RUNNING;
    break;
  case 'S':
    out->state = MAUISCHED_JOB_SUSPENDED;
    break;
  case 'C':
    /* kept by pbs_server for keep_completed seconds: reported with its
     * start and end, so fairshare charges its exact use */
    if (j->start_time <= 0 || j->comp_time <= 0) {
      snprintf(why, whylen, "completed%s", j->start_time <= 0 ? " without running" : "");
      return AM_SKIP;
    }
    out->state = MAUISCHED_JOB_COMPLETED;
    break;
  case 'T':
    snprintf(why, whylen, "in transit");
    return AM_SKIP;
  default:
    snprintf(why, whylen, "job_state %c", j->state);
    return AM_SKIP;
  }

  user = j->user != NULL ? j->user : owner_user(j->owner, t->owner, sizeof t->owner);
  out->id = j->id;
  out->user = user != NULL ? user : "unknown";
  out->group = j->group != NULL ? j->group : "unknown";
  out->account = j->account;
  out->class_name = j->cls;
  out->submit_time = j->submit_time;
  out->walltime = j->walltime > 0 ? j->walltime : 0;
  out->task_procs = 1;
  if (gres_text(&t->gres, &j->gres_task, &out->gres_per_task) != 0 ||
      gres_text(&t->gres_node, &j->gres_node, &out->gres_per_node) != 0)
    return AM_OOM;

  if (out->state == MAUISCHED_JOB_COMPLETED) {
    /* where it ran, else (its nodes gone) what it asked for */
    long slots = allocation(s, j, t);
    if (slots < 0)
      return AM_OOM;
    out->tasks = slots > 0 ? (uint32_t)(slots > UINT32_MAX ? UINT32_MAX : slots)
                           : (uint32_t)(j->tasks > 0 ? j->tasks : 1);
    out->allocation = slots > 0 ? t->allocation.s : NULL;
    out->start_time = j->start_time;
    out->end_time = j->comp_time >= j->start_time ? j->comp_time : j->start_time;
    if (j->mem_total_mb > 0)
      out->task_mem_mb = (uint64_t)((j->mem_total_mb + out->tasks - 1) / out->tasks);
    return AM_ADD;
  }
  if (!idle) {
    long slots = allocation(s, j, t);
    if (slots < 0)
      return AM_OOM;
    if (slots == 0) {
      snprintf(why, whylen, "started, but no listed node holds it");
      return AM_SKIP;
    }
    if (slots > UINT32_MAX)
      slots = UINT32_MAX;
    out->tasks = (uint32_t)slots;
    out->allocation = t->allocation.s;
    out->start_time = j->start_time;
    if (j->mem_total_mb > 0)
      out->task_mem_mb = (uint64_t)((j->mem_total_mb + slots - 1) / slots);
    return AM_ADD;
  }

  if (j->inelig & TM_INELIG_BADSPEC) {
    snprintf(why, whylen, "cannot read the request: %s", j->err);
    return AM_UNREADABLE;
  }
  if (j->tasks <= 0) {
    snprintf(why, whylen, "the request asks for no processors");
    return AM_UNREADABLE;
  }
  if (user == NULL) {
    snprintf(why, whylen, "pbs_server reports no euser or Job_Owner");
    return AM_UNREADABLE;
  }
  out->holds = am_holds(j->hold_types, j->state);
  out->dependency_pending = (j->inelig & TM_INELIG_DEPEND) != 0;
  out->earliest_start = j->exec_time > 0 ? j->exec_time : 0;
  out->tasks = (uint32_t)j->tasks;
  out->task_mem_mb = j->mem_per_task_mb > 0 ? (uint64_t)j->mem_per_task_mb : 0;
  if (!j->spread) {
    out->nodes = j->nodes > 0 ? (uint32_t)j->nodes : 0;
    out->tasks_per_node = j->ppn > 0 ? (uint32_t)j->ppn : 0;
  }
  if (join(&t->features, &j->features) != 0)
    return AM_OOM;
  out->features = or_null(&t->features);
  reset(&t->hostlist);
  if (j->nreqs > 0) {
    for (k = 0; k < j->nreqs && j->reqs[k].is_host; k++)
      ;
    if (k == j->nreqs && join(&t->hostlist, &j->req_hosts) != 0)
      return AM_OOM;
  }
  out->hostlist = or_null(&t->hostlist);
  return AM_ADD;
}
