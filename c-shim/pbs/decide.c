/*
 * decide.c - the decision boundary (see decide.h): the mauisched library.
 *
 * One handle lives as long as the daemon.  Each iteration: begin a
 * snapshot at the time it was taken, add every node and every job the
 * engine should know (abi_map.c), run, and read the plan back.  A node or
 * job the library refuses is logged and left out; a failed run applies
 * nothing.  Nothing here decides policy: order, placement, reasons and
 * estimates are the engine's.
 */
#define _POSIX_C_SOURCE 200809L
#include "decide.h"

#include "apply.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_map.h"
#include "log.h"
#include "mauisched.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct decider {
  mauisched_t *h; /* NULL after a caught panic, until the next decide() */
  char config_path[PATH_MAX];
  char state_dir[PATH_MAX];
  char name[64];
};

/* ---- the library's log ---------------------------------------------------- */

/* The library's messages, one daemon log line per line of text (config
 * diagnostics span several). */
static void lib_log(uint32_t level, const char *message, void *userdata)
{
  enum log_level lvl;
  const char *p = message;
  (void)userdata;
  switch (level) {
  case MAUISCHED_LOG_ERROR: lvl = LOG_ERR; break;
  case MAUISCHED_LOG_WARN: lvl = LOG_WARN; break;
  case MAUISCHED_LOG_INFO: lvl = LOG_INFO; break;
  default: lvl = LOG_DEBUG; break;
  }
  if (!log_enabled(lvl) || message == NULL)
    return;
  for (;;) {
    size_t n = strcspn(p, "\n");
    if (n > 0)
      log_msg(lvl, "engine: %.*s", (int)n, p);
    if (p[n] == '\0')
      break;
    p += n + 1;
  }
}

/* ---- the handle ------------------------------------------------------------ */

static int open_handle(struct decider *d, char *err, size_t errlen)
{
  mauisched_options_t o;
  char why[1024] = "";
  mauisched_status_t st;

  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.config_path = d->config_path;
  o.state_dir = d->state_dir;
  o.log = lib_log;
  o.rm = "pbs";
  o.log_userdata = d;
  st = mauisched_new(&o, &d->h, why, sizeof why);
  if (st != MAUISCHED_OK) {
    d->h = NULL;
    snprintf(err, errlen, "cannot start the mauisched engine (%s): %s",
             mauisched_status_name(st), why);
    return -1;
  }
  return 0;
}

int decider_open(struct decider **out, const char *config_path, const char *state_dir,
                 char *err, size_t errlen)
{
  struct decider *d;
  uint32_t v = mauisched_abi_version();

  *out = NULL;
  if (!MAUISCHED_ABI_COMPATIBLE()) {
    snprintf(err, errlen,
             "libmauisched has ABI version %u.%u, this daemon was built for %u.%u: "
             "refusing to run with another major version",
             (unsigned)(v >> 16), (unsigned)(v & 0xffff), (unsigned)MAUISCHED_ABI_MAJOR,
             (unsigned)MAUISCHED_ABI_MINOR);
    return -1;
  }
  if ((v & 0xffff) < 3)
    /* an older 1.x reads the structs up to its own size: the gres fields
     * (ABI 1.3) are not seen, and pbs_server refuses GPU jobs the engine
     * then places on nodes without free GPUs */
    log_msg(LOG_WARN, "libmauisched has ABI version %u.%u, older than 1.3: its decisions do "
            "not count GPUs or other generic resources", (unsigned)(v >> 16),
            (unsigned)(v & 0xffff));
  d = calloc(1, sizeof *d);
  if (d == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  snprintf(d->config_path, sizeof d->config_path, "%s", config_path);
  snprintf(d->state_dir, sizeof d->state_dir, "%s", state_dir);
  snprintf(d->name, sizeof d->name, "mauisched ABI %u.%u", (unsigned)(v >> 16),
           (unsigned)(v & 0xffff));
  if (open_handle(d, err, errlen) != 0) {
    free(d);
    return -1;
  }
  *out = d;
  return 0;
}

const char *decider_name(const struct decider *d)
{
  return d->name;
}

/* The handle's last error, for log lines. */
static const char *last_error(const struct decider *d, char *buf, size_t len)
{
  size_t need = 0;
  buf[0] = '\0';
  if (d->h == NULL || len == 0)
    return buf;
  if (mauisched_last_error(d->h, buf, len, &need) == MAUISCHED_BUFFER_TOO_SMALL) {
    /* keep what fits: the start of the message says what went wrong */
    buf[0] = '\0';
    snprintf(buf, len, "(message of %zu bytes)", need);
  }
  return buf;
}

/* After a failed call: a poisoned handle is dropped (it writes nothing when
 * freed, its state is not trusted) and recreated from the state directory
 * by the next decide(). */
static void after_failure(struct decider *d, mauisched_status_t st)
{
  if (st == MAUISCHED_PANIC || st == MAUISCHED_POISONED) {
    log_msg(LOG_ERR, "the mauisched engine failed inside (%s); it is restarted from its "
            "state directory at the next iteration", mauisched_status_name(st));
    mauisched_free(d->h);
    d->h = NULL;
  }
}

int decider_reconfigure(struct decider *d, const char *config_path)
{
  mauisched_status_t st;
  snprintf(d->config_path, sizeof d->config_path, "%s", config_path);
  if (d->h == NULL)
    return 0; /* read when the handle is created again */
  st = mauisched_reconfigure(d->h, config_path);
  if (st == MAUISCHED_OK)
    return 0;
  /* the library logged the file's errors; the old policy stays */
  log_msg(LOG_ERR, "reconfigure: the scheduling policy of %s was refused (%s); the "
          "previous one stays in force", config_path, mauisched_status_name(st));
  after_failure(d, st);
  return -1;
}

int decider_wakeup_fd(struct decider *d)
{
  int fd = -1;
  if (d == NULL || d->h == NULL || mauisched_wakeup_fd(d->h, &fd) != MAUISCHED_OK)
    return -1;
  return fd;
}

int decider_wakeup_take(struct decider *d)
{
  bool pending = false;
  if (d == NULL || d->h == NULL || mauisched_wakeup_take(d->h, &pending) != MAUISCHED_OK)
    return 0;
  return pending ? 1 : 0;
}

void decider_close(struct decider *d)
{
  if (d == NULL)
    return;
  mauisched_free(d->h);
  free(d);
}

/* ---- one iteration ----------------------------------------------------------- */

int decisions_add(struct decisions *d, enum decision_kind kind, size_t job, const char *id,
                  const char *location, const char *reason, long est_start)
{
  struct decision *nv = realloc(d->v, (d->n + 1) * sizeof *nv);
  struct decision *x;
  if (nv == NULL)
    return -1;
  d->v = nv;
  x = &d->v[d->n];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->job = job;
  x->est_start = est_start;
  if ((id != NULL && (x->id = strdup(id)) == NULL) ||
      (location != NULL && (x->location = strdup(location)) == NULL) ||
      (reason != NULL && (x->reason = strdup(reason)) == NULL)) {
    free(x->id);
    free(x->location);
    free(x->reason);
    return -1;
  }
  d->n++;
  return 0;
}

void decider_report(struct decider *d, const struct decisions *plan)
{
  size_t i;
  if (d == NULL || d->h == NULL)
    return;
  for (i = 0; i < plan->n; i++) {
    const struct decision *x = &plan->v[i];
    mauisched_status_t st;
    if (x->kind != DECISION_START || x->outcome == 0 || x->id == NULL)
      continue;
    st = mauisched_start_result(d->h, x->id, x->outcome > 0, x->refusal);
    if (st != MAUISCHED_OK)
      log_msg(LOG_WARN, "job %s: the outcome of its start not recorded: %s", x->id,
              mauisched_status_name(st));
  }
}

void decisions_free(struct decisions *d)
{
  size_t i;
  for (i = 0; i < d->n; i++) {
    free(d->v[i].id);
    free(d->v[i].location);
    free(d->v[i].reason);
    free(d->v[i].by);
    free(d->v[i].refusal);
    for (size_t k = 0; k < d->v[i].nafter; k++)
      free(d->v[i].after[k]);
    free(d->v[i].after);
  }
  free(d->v);
  d->v = NULL;
  d->n = 0;
}

char *decide_location(const char *const *hosts, const int *slots, const int *gpus,
                      const int *mics, size_t n)
{
  struct strbuf b = {0};
  size_t i;
  for (i = 0; i < n; i++) {
    if (slots[i] == 1)
      strbuf_printf(&b, "%s%s", i ? "+" : "", hosts[i]);
    else
      strbuf_printf(&b, "%s%s:ppn=%d", i ? "+" : "", hosts[i], slots[i]);
    /* pbs_server gives a job GPUs (exec_gpus) only for the gpus= of the
     * location it is run at, as it did for Moab */
    if (gpus != NULL && gpus[i] > 0)
      strbuf_printf(&b, ":gpus=%d", gpus[i]);
    if (mics != NULL && mics[i] > 0)
      strbuf_printf(&b, ":mics=%d", mics[i]);
  }
  if (b.oom || b.s == NULL) {
    strbuf_free(&b);
    return NULL;
  }
  return b.s;
}

/* Job ids of the snapshot, sorted, to find a plan's job in it. */
struct job_ref {
  const char *id;
  size_t idx;
};

static int by_id(const void *a, const void *b)
{
  return strcmp(((const struct job_ref *)a)->id, ((const struct job_ref *)b)->id);
}

static size_t find_job(const struct job_ref *refs, size_t n, const char *id)
{
  struct job_ref key, *hit;
  key.id = id;
  key.idx = 0;
  hit = n ? bsearch(&key, refs, n, sizeof *refs, by_id) : NULL;
  return hit ? hit->idx : DECISION_NO_JOB;
}

/* a * b, at most INT_MAX (a, b >= 0). */
static int clamp_mul(int a, int b)
{
  if (a <= 0 || b <= 0)
    return 0;
  return a > INT_MAX / b ? INT_MAX : a * b;
}

/* The preemptions start `index` waits for, into `x->after`. */
static int read_after(const mauisched_plan_t *plan, size_t index, struct decision *x)
{
  const char *job = NULL;
  while (mauisched_plan_start_after(plan, index, x->nafter, &job) == MAUISCHED_OK) {
    char **nv = realloc(x->after, (x->nafter + 1) * sizeof *nv);
    if (nv == NULL)
      return -1;
    x->after = nv;
    if ((x->after[x->nafter] = strdup(job)) == NULL)
      return -1;
    x->nafter++;
  }
  return 0;
}

/* The plan -> decisions, in the order to apply them. */
static int read_plan(const mauisched_plan_t *plan, const struct tm_snapshot *s,
                     const struct job_ref *refs, size_t nrefs, struct decisions *out)
{
  size_t n = 0, i, k;

  if (mauisched_plan_action_count(plan, &n) != MAUISCHED_OK)
    return -1;
  for (i = 0; i < n; i++) {
    uint32_t kind = 0;
    const char *job = NULL, *by = NULL;
    if (mauisched_plan_action(plan, i, &kind, &job, &by) != MAUISCHED_OK)
      return -1;
    enum decision_kind dk;
    char type = 's';
    switch (kind) {
    case MAUISCHED_ACTION_HOLD:
      dk = DECISION_HOLD;
      break;
    case MAUISCHED_ACTION_RELEASE:
      dk = DECISION_RELEASE;
      break;
    case MAUISCHED_ACTION_USER_HOLD:
      dk = DECISION_HOLD;
      type = 'u';
      break;
    case MAUISCHED_ACTION_USER_RELEASE:
      dk = DECISION_RELEASE;
      type = 'u';
      break;
    case MAUISCHED_ACTION_CANCEL:
      dk = DECISION_CANCEL;
      break;
    case MAUISCHED_ACTION_REQUEUE:
      dk = DECISION_REQUEUE;
      break;
    case MAUISCHED_ACTION_SUSPEND:
      dk = DECISION_SUSPEND;
      break;
    case MAUISCHED_ACTION_CHECKPOINT:
      dk = DECISION_CHECKPOINT;
      break;
    case MAUISCHED_ACTION_RESUME:
      dk = DECISION_RESUME;
      break;
    default:
      log_msg(LOG_WARN, "engine asked for action %u on job %s, which this daemon does not "
              "know; ignored", (unsigned)kind, job);
      continue;
    }
    if (decisions_add(out, dk, find_job(refs, nrefs, job), job, NULL, NULL, -1) != 0 ||
        (out->v[out->n - 1].by = strdup(by)) == NULL)
      return -1;
    out->v[out->n - 1].hold_type = type;
  }

  if (mauisched_plan_start_count(plan, &n) != MAUISCHED_OK)
    return -1;
  for (i = 0; i < n; i++) {
    const char *job = NULL, *res = NULL;
    bool backfill = false;
    size_t nodes = 0, idx;
    const char **hosts;
    int *slots, *gpus, *mics;
    const struct tm_job *j;
    char *loc;
    if (mauisched_plan_start(plan, i, &job, &backfill, &res, &nodes) != MAUISCHED_OK)
      return -1;
    idx = find_job(refs, nrefs, job);
    if (idx == DECISION_NO_JOB || nodes == 0) {
      log_msg(LOG_ERR, "engine started job %s, which the snapshot lacks; ignored", job);
      continue;
    }
    j = &s->jobs[idx];
    hosts = calloc(nodes, sizeof *hosts);
    slots = calloc(nodes, sizeof *slots);
    gpus = calloc(nodes, sizeof *gpus);
    mics = calloc(nodes, sizeof *mics);
    if (hosts == NULL || slots == NULL || gpus == NULL || mics == NULL) {
      free(hosts);
      free(slots);
      free(gpus);
      free(mics);
      return -1;
    }
    for (k = 0; k < nodes; k++) {
      uint32_t tasks = 0;
      if (mauisched_plan_start_node(plan, i, k, &hosts[k], &tasks) != MAUISCHED_OK) {
        free(hosts);
        free(slots);
        free(gpus);
        free(mics);
        return -1;
      }
      /* a task is one processor (abi_map.h): slots = tasks */
      slots[k] = tasks > INT_MAX ? INT_MAX : (int)tasks;
      /* the devices nodes= asked for, per node or per task (torque_map.h) */
      gpus[k] = j->gpus_node > 0 ? j->gpus_node : clamp_mul(j->gpus_task, slots[k]);
      mics[k] = j->mics_node > 0 ? j->mics_node : clamp_mul(j->mics_task, slots[k]);
    }
    loc = decide_location(hosts, slots, gpus, mics, nodes);
    free(hosts);
    free(slots);
    free(gpus);
    free(mics);
    if (loc == NULL || decisions_add(out, DECISION_START, idx, job, loc, NULL, -1) != 0) {
      free(loc);
      return -1;
    }
    free(loc);
    out->v[out->n - 1].backfill = backfill;
    if (read_after(plan, i, &out->v[out->n - 1]) != 0)
      return -1;
  }

  if (mauisched_plan_job_count(plan, &n) != MAUISCHED_OK)
    return -1;
  for (i = 0; i < n; i++) {
    const char *job = NULL, *summary = NULL, *detail = NULL, *res = NULL;
    int64_t prio = 0, est = -1;
    bool started = false;
    uint32_t code = 0, bypass = 0;
    size_t idx;
    if (mauisched_plan_job(plan, i, &job, &prio, &started) != MAUISCHED_OK)
      return -1;
    if (started)
      continue;
    if (mauisched_plan_job_reason(plan, i, &code, &summary, &detail) != MAUISCHED_OK ||
        mauisched_plan_job_schedule(plan, i, &est, &res, &bypass) != MAUISCHED_OK)
      return -1;
    idx = find_job(refs, nrefs, job);
    if (idx == DECISION_NO_JOB)
      continue;
    if (decisions_add(out, DECISION_WAIT, idx, job, NULL,
                      summary[0] ? summary : detail[0] ? detail : "waiting",
                      est >= 0 ? (long)est : -1) != 0)
      return -1;
  }
  return 0;
}

int decide(struct decider *d, const struct tm_snapshot *s, struct decisions *out, char *err,
           size_t errlen)
{
  struct am_text text;
  struct decisions unreadable;
  struct job_ref *refs = NULL;
  mauisched_plan_t *plan = NULL;
  mauisched_status_t st;
  char why[TM_ERRLEN + 128], msg[2048];
  size_t i, nrefs = 0, left_out = 0;
  int rc = -1;

  memset(out, 0, sizeof *out);
  memset(&text, 0, sizeof text);
  memset(&unreadable, 0, sizeof unreadable);
  out->decider = d->name;
  if (d->h == NULL && open_handle(d, err, errlen) != 0)
    return -1;

  st = mauisched_snapshot_begin(d->h, (int64_t)s->now);
  if (st != MAUISCHED_OK) {
    snprintf(err, errlen, "mauisched_snapshot_begin: %s: %s", mauisched_status_name(st),
             last_error(d, msg, sizeof msg));
    after_failure(d, st);
    return -1;
  }
  for (i = 0; i < s->nnodes; i++) {
    mauisched_node_t n;
    if (am_node(&s->nodes[i], &n, &text) != 0)
      goto oom;
    st = mauisched_snapshot_add_node(d->h, &n);
    if (st == MAUISCHED_PANIC || st == MAUISCHED_POISONED)
      goto lib_failed;
    if (st != MAUISCHED_OK) {
      /* the node is left out: nothing is placed on it this iteration */
      log_msg(LOG_WARN, "node %s left out of the iteration: %s", s->nodes[i].name,
              last_error(d, msg, sizeof msg));
      left_out++;
    }
  }

  refs = calloc(s->njobs + 1, sizeof *refs);
  if (refs == NULL)
    goto oom;
  for (i = 0; i < s->njobs; i++) {
    const struct tm_job *j = &s->jobs[i];
    mauisched_job_t mj;
    enum am_result r = am_job(s, j, &mj, &text, why, sizeof why);
    if (r == AM_OOM)
      goto oom;
    if (r == AM_SKIP) {
      log_msg(LOG_DEBUG, "job %s: not for the scheduler (%s)", j->id, why);
      continue;
    }
    refs[nrefs].id = j->id;
    refs[nrefs++].idx = i;
    if (r == AM_UNREADABLE) {
      /* said once in the log (the job's comment keeps saying it) */
      if (j->comment == NULL || strstr(j->comment, why) == NULL)
        log_msg(LOG_WARN, "job %s: %s", j->id, why);
      if (decisions_add(&unreadable, DECISION_WAIT, i, j->id, NULL, why, -1) != 0)
        goto oom;
      continue;
    }
    st = mauisched_snapshot_add_job(d->h, &mj);
    if (st == MAUISCHED_PANIC || st == MAUISCHED_POISONED)
      goto lib_failed;
    if (st != MAUISCHED_OK) {
      const char *e = last_error(d, msg, sizeof msg);
      log_msg(LOG_WARN, "job %s left out of the iteration: %s", j->id, e);
      left_out++;
      if (mj.state == MAUISCHED_JOB_IDLE) {
        snprintf(why, sizeof why, "cannot describe the request: %s", e);
        if (decisions_add(&unreadable, DECISION_WAIT, i, j->id, NULL, why, -1) != 0)
          goto oom;
      }
    }
  }
  qsort(refs, nrefs, sizeof *refs, by_id);

  st = mauisched_run(d->h, &plan);
  if (st != MAUISCHED_OK)
    goto lib_failed;
  if (read_plan(plan, s, refs, nrefs, out) != 0) {
    snprintf(err, errlen, "reading the plan failed (out of memory, or a library bug)");
    decisions_free(out);
    goto done;
  }
  for (i = 0; i < unreadable.n; i++) {
    const struct decision *u = &unreadable.v[i];
    if (decisions_add(out, DECISION_WAIT, u->job, u->id, NULL, u->reason, -1) != 0)
      goto oom;
  }
  /* a job started by someone else (qrun) still showing mauisched's wait
   * reason: the comment says it runs */
  for (i = 0; i < s->njobs; i++) {
    const struct tm_job *j = &s->jobs[i];
    char when[64], text[160];
    if ((j->state != 'R' && j->state != 'E') || !apply_comment_is_wait_reason(j->comment))
      continue;
    apply_format_time(j->start_time > 0 ? j->start_time : s->now, when, sizeof when);
    snprintf(text, sizeof text, APPLY_COMMENT_RUNNING "%s (not started by mauisched)", when);
    if (decisions_add(out, DECISION_WAIT, i, j->id, NULL, text, -1) != 0)
      goto oom;
  }
  if (left_out > 0)
    log_msg(LOG_INFO, "%zu object(s) left out of this iteration (see above)", left_out);
  rc = 0;
  goto done;

lib_failed:
  snprintf(err, errlen, "the mauisched engine refused the snapshot (%s): %s",
           mauisched_status_name(st), last_error(d, msg, sizeof msg));
  after_failure(d, st);
  goto done;
oom:
  snprintf(err, errlen, "out of memory");
  decisions_free(out);
done:
  mauisched_plan_free(plan);
  decisions_free(&unreadable);
  am_text_free(&text);
  free(refs);
  return rc;
}
