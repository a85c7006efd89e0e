/*
 * fake_ifl.c - a test double of Torque's IFL client library.
 *
 * Exports the IFL functions mauisched-pbs and `mauictl sweep --pbs` use,
 * with Torque's names and signatures, and serves an in-memory cluster
 * instead of talking to a pbs_server.  Both load it with --libtorque,
 * exactly as they load libtorque.so.2, so everything above the IFL is
 * exercised for real.
 *
 * Environment (read at the first call):
 *   FAKE_IFL_FIXTURE  cluster to serve (format: README.md)     [required]
 *   FAKE_IFL_LOG      every call is appended here, one line each
 *   FAKE_IFL_CONTROL  commands appended by the test ("complete 12.vm",
 *                     "server down", ...) are applied before each call
 *   FAKE_IFL_STATE    the server, rewritten after every call and read back
 *                     (instead of the fixture) by the next process, so that
 *                     it outlives its clients as pbs_server does
 *
 * Not thread-safe (the daemon is single-threaded).  Written for this project
 * from the public IFL interface; no Torque code.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* ---- the public IFL types, as the daemon declares them ------------------- */

enum batch_op { SET, UNSET, INCR, DECR, EQ, NE, GE, GT, LE, LT, DFLT };

struct attrl {
  struct attrl *next;
  char *name;
  char *resource;
  char *value;
  enum batch_op op;
};

/* pbs_submit's attributes: the same layout (Torque's pbs_ifl.h). */
struct attropl {
  struct attropl *next;
  char *name;
  char *resource;
  char *value;
  enum batch_op op;
};

struct batch_status {
  struct batch_status *next;
  char *name;
  struct attrl *attribs;
  char *text;
};

/* Error numbers served.  15001 and 15046 are the values a real Torque 6.1.3
 * returned (unknown job; allocation exceeds available nodes); 15016, 15020,
 * 15044, 15082 and 15083 are Torque 6.1.3's (the order of its
 * pbs_error_db.h), for pbs_submit; the others are this double's choices,
 * the daemon does not rely on their values. */
#define E_UNKJOBID 15001
#define E_NOATTR 15002
#define E_BADATVAL 15016
#define E_BADSTATE 15018
#define E_UNKQUE 15020
#define E_PROTOCOL 15031
#define E_NOSERVER 15034
#define E_RESCUNAV 15046
#define E_NORERUN 15040
#define E_BADSCRIPT 15044
#define E_UNKARRAYID 15082
#define E_BAD_ARRAY_REQ 15083

int pbs_errno = 0;

/* ---- model --------------------------------------------------------------- */

struct kv {
  char *name;
  char *res;
  char *val;
};

struct obj {
  char *name;
  struct kv *a;
  size_t n;
};

struct fnode {
  struct obj o; /* fixture attributes other than state/np/jobs */
  int np;
  int down;
  int offline;
  int nomom;   /* pbs_server restarted, its mom has not reported: no status */
  char **slot; /* np entries: job id holding the slot, or NULL */
  int ngpus;   /* the fixture's `gpus` (served verbatim, as pbs_server does) */
  char **gpu;  /* ngpus entries: job id holding the GPU, or NULL */
};

struct inject {
  char call[16]; /* "runjob", "alterjob" */
  char *job;
  int code;     /* pbs_errno to return; 0 with lost = 1 */
  int lost;     /* drop the connection */
  int left;     /* remaining uses, -1 = always */
};

static int initialised;
static struct obj server;
static struct obj *queues;
static size_t nqueues;
static struct fnode *nodes;
static size_t nnodes;
static struct obj *jobs;
static size_t njobs;
static struct obj *arrays; /* job arrays ("12[].vm"): their request and counts */
static size_t narrays;
static struct inject *injects;
static size_t ninjects;

static FILE *logf;
static char control_path[4096];
static long control_off;
static char control_buf[8192];
static size_t control_len;
static char state_path[4096];

#define MAXCONN 4096
static unsigned char conn_alive[MAXCONN];
static int next_conn = 1;
static char conn_msg[MAXCONN][256];

static int server_down;        /* "server down" without a period */
static double down_until;      /* "server down N": monotonic deadline */
static long fail_calls;        /* "server fail-calls N" */

static double mono(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "fake-ifl: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(3);
}

static char *xdup(const char *s)
{
  char *d = strdup(s ? s : "");
  if (d == NULL)
    die("out of memory");
  return d;
}

static void *xrealloc(void *p, size_t n)
{
  void *q = realloc(p, n ? n : 1);
  if (q == NULL)
    die("out of memory");
  return q;
}

static void rec(const char *fmt, ...)
{
  va_list ap;
  if (logf == NULL)
    return;
  fprintf(logf, "%.0f ", mono() * 1000.0);
  va_start(ap, fmt);
  vfprintf(logf, fmt, ap);
  va_end(ap);
  fputc('\n', logf);
  fflush(logf);
}

static const char *obj_get(const struct obj *o, const char *name, const char *res)
{
  size_t i;
  for (i = 0; i < o->n; i++)
    if (strcmp(o->a[i].name, name) == 0 &&
        (res == NULL ? o->a[i].res == NULL
                     : (o->a[i].res != NULL && strcmp(o->a[i].res, res) == 0)))
      return o->a[i].val;
  return NULL;
}

static void obj_set(struct obj *o, const char *name, const char *res, const char *val)
{
  size_t i;
  for (i = 0; i < o->n; i++)
    if (strcmp(o->a[i].name, name) == 0 &&
        (res == NULL ? o->a[i].res == NULL
                     : (o->a[i].res != NULL && strcmp(o->a[i].res, res) == 0))) {
      if (val == NULL) {
        free(o->a[i].name);
        free(o->a[i].res);
        free(o->a[i].val);
        o->a[i] = o->a[--o->n];
      } else {
        free(o->a[i].val);
        o->a[i].val = xdup(val);
      }
      return;
    }
  if (val == NULL)
    return;
  o->a = xrealloc(o->a, (o->n + 1) * sizeof *o->a);
  o->a[o->n].name = xdup(name);
  o->a[o->n].res = res ? xdup(res) : NULL;
  o->a[o->n].val = xdup(val);
  o->n++;
}

static void obj_free(struct obj *o)
{
  size_t i;
  for (i = 0; i < o->n; i++) {
    free(o->a[i].name);
    free(o->a[i].res);
    free(o->a[i].val);
  }
  free(o->a);
  free(o->name);
  memset(o, 0, sizeof *o);
}

static struct obj *find_job(const char *id)
{
  size_t i;
  for (i = 0; i < njobs; i++)
    if (strcmp(jobs[i].name, id) == 0)
      return &jobs[i];
  return NULL;
}

static struct fnode *find_node(const char *name)
{
  size_t i;
  for (i = 0; i < nnodes; i++)
    if (strcmp(nodes[i].o.name, name) == 0)
      return &nodes[i];
  return NULL;
}

static void release_slots(const char *job)
{
  size_t i;
  int k;
  for (i = 0; i < nnodes; i++) {
    for (k = 0; k < nodes[i].np; k++)
      if (nodes[i].slot[k] != NULL && strcmp(nodes[i].slot[k], job) == 0) {
        free(nodes[i].slot[k]);
        nodes[i].slot[k] = NULL;
      }
    for (k = 0; k < nodes[i].ngpus; k++)
      if (nodes[i].gpu[k] != NULL && strcmp(nodes[i].gpu[k], job) == 0) {
        free(nodes[i].gpu[k]);
        nodes[i].gpu[k] = NULL;
      }
  }
}

static int free_gpus(const struct fnode *n)
{
  int k, f = 0;
  for (k = 0; k < n->ngpus; k++)
    f += n->gpu[k] == NULL;
  return f;
}

/* Assigns GPUs from an exec_gpus string ("g1-gpu/0+g1-gpu/2") at load time. */
static void claim_exec_gpus(const char *job, const char *eg)
{
  char *buf = xdup(eg), *part, *save = NULL;
  for (part = strtok_r(buf, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
    char *sfx = strstr(part, "-gpu/");
    struct fnode *n;
    int k;
    if (sfx == NULL || sscanf(sfx + 5, "%d", &k) != 1)
      die("fixture: job %s: bad exec_gpus \"%s\"", job, eg);
    *sfx = '\0';
    n = find_node(part);
    if (n == NULL || k < 0 || k >= n->ngpus || n->gpu[k] != NULL)
      die("fixture: job %s: GPU %d of %s is not available", job, k, part);
    n->gpu[k] = xdup(job);
  }
  free(buf);
}

static void delete_job(const char *id)
{
  size_t i;
  for (i = 0; i < njobs; i++)
    if (strcmp(jobs[i].name, id) == 0) {
      release_slots(id);
      obj_free(&jobs[i]);
      jobs[i] = jobs[--njobs];
      return;
    }
}

/* ---- job arrays and dependencies ------------------------------------------ */

static void change_holds(struct obj *j, const char *types, int hold);

static struct obj *find_array(const char *id)
{
  size_t i;
  for (i = 0; i < narrays; i++)
    if (strcmp(arrays[i].name, id) == 0)
      return &arrays[i];
  return NULL;
}

/* The array of a sub-job ("12[3].vm" -> "12[].vm"), or NULL. */
static struct obj *array_of(const char *id)
{
  const char *lb = strchr(id, '['), *rb;
  char name[1024];
  if (lb == NULL || !isdigit((unsigned char)lb[1]) || (rb = strchr(lb, ']')) == NULL)
    return NULL;
  snprintf(name, sizeof name, "%.*s[]%s", (int)(lb - id), id, rb + 1);
  return find_array(name);
}

static long num_of(const struct obj *o, const char *name)
{
  const char *v = obj_get(o, name, NULL);
  return v != NULL ? atol(v) : 0;
}

static void add_to(struct obj *o, const char *name, long d)
{
  char v[32];
  snprintf(v, sizeof v, "%ld", num_of(o, name) + d);
  obj_set(o, name, NULL, v);
}

/* A sub-job started: its array counts it (Torque's num_started). */
static void job_started(const char *id)
{
  struct obj *a = array_of(id);
  if (a != NULL)
    add_to(a, "num_started", 1);
}

/* A job ended: its array counts it done (jobs_done), and successful or
 * failed (num_successful, num_failed), as Torque's array does. */
static void job_ended(const char *id, int ok)
{
  struct obj *a = array_of(id);
  if (a == NULL)
    return;
  add_to(a, "jobs_done", 1);
  add_to(a, ok ? "num_successful" : "num_failed", 1);
}

/* Torque 6's dependency types (dependnames, src/server/req_register.c). */
static const char *const dep_types[] = {
    "after",           "afterok",         "afternotok",       "afterany",
    "before",          "beforeok",        "beforenotok",      "beforeany",
    "on",              "syncwith",        "synccount",        "afterstartarray",
    "afterokarray",    "afternotokarray", "afteranyarray",    "beforestartarray",
    "beforeokarray",   "beforenotokarray", "beforeanyarray"};

static int dep_type_known(const char *t)
{
  size_t i;
  for (i = 0; i < sizeof dep_types / sizeof dep_types[0]; i++)
    if (strcmp(t, dep_types[i]) == 0)
      return 1;
  return 0;
}

/* "12[].vm" -> the array, *need its number of jobs; "12[][5].vm" -> the
 * array, *need 5 (Torque's req_registerarray).  An id without server is
 * this server's. */
static struct obj *dep_array(const char *arg, long *need)
{
  char name[1024];
  const char *lb = strchr(arg, '['), *lb2 = lb != NULL ? strchr(lb + 1, '[') : NULL;
  struct obj *a;
  *need = -1;
  if (lb2 != NULL) {
    const char *rb = strchr(lb2, ']');
    if (rb == NULL)
      return NULL;
    if (rb > lb2 + 1)
      *need = atol(lb2 + 1);
    snprintf(name, sizeof name, "%.*s%s", (int)(lb2 - arg), arg, rb + 1);
  } else {
    snprintf(name, sizeof name, "%s", arg);
  }
  a = find_array(name);
  if (a == NULL && strchr(name, '.') == NULL) {
    char full[1300];
    snprintf(full, sizeof full, "%s.%s", name, server.name);
    a = find_array(full);
  }
  if (a != NULL && *need < 0)
    *need = num_of(a, "num_jobs");
  return a;
}

static struct obj *dep_job(const char *arg)
{
  struct obj *j = find_job(arg);
  if (j == NULL && strchr(arg, '.') == NULL) {
    char full[1300];
    snprintf(full, sizeof full, "%s.%s", arg, server.name);
    j = find_job(full);
  }
  return j;
}

/* One dependency (an after... type) on one job or array: 1 met, 0 not
 * yet, -1 never (pbs_server then deletes the dependent job).  The array
 * types count the array's jobs as Torque's set_array_depend_holds does
 * (all of them unless the id says how many: "12[][5].vm"); a job or array
 * no longer there has ended and been purged: met. */
static int dep_state(const char *type, const char *arg)
{
  if (strstr(type, "array") != NULL) {
    long need;
    struct obj *a = dep_array(arg, &need);
    long all, done, ok, failed, started;
    if (a == NULL)
      return 1;
    all = num_of(a, "num_jobs");
    done = num_of(a, "jobs_done");
    ok = num_of(a, "num_successful");
    failed = num_of(a, "num_failed");
    started = num_of(a, "num_started");
    if (strcmp(type, "afteranyarray") == 0)
      return done >= need;
    if (strcmp(type, "afterokarray") == 0)
      return ok >= need ? 1 : all - failed < need ? -1 : 0;
    if (strcmp(type, "afternotokarray") == 0)
      return failed >= need ? 1 : all - ok < need ? -1 : 0;
    return started >= need ? 1 : all - done < need ? -1 : 0; /* afterstartarray */
  } else {
    struct obj *j = dep_job(arg);
    const char *st, *ex;
    int ended, ok;
    if (j == NULL)
      return 1;
    st = obj_get(j, "job_state", NULL);
    ex = obj_get(j, "exit_status", NULL);
    ended = st != NULL && strcmp(st, "C") == 0;
    ok = ex == NULL || atoi(ex) == 0;
    if (strcmp(type, "after") == 0)
      return obj_get(j, "start_time", NULL) != NULL ||
                     (st != NULL && strchr("RES", st[0]) != NULL && st[0] != '\0')
                 ? 1
                 : ended ? -1 : 0;
    if (!ended)
      return 0;
    if (strcmp(type, "afterany") == 0)
      return 1;
    if (strcmp(type, "afterok") == 0)
      return ok ? 1 : -1;
    return ok ? -1 : 1; /* afternotok */
  }
}

/* Walks a depend value ("afterok:12.vm:13.vm,afteranyarray:14[].vm") and
 * returns it without the ids of after... types that are met (register:
 * that name no job or array, *unknown counting them); a clause left without
 * ids goes, as Torque's encode_depend leaves it out; other types (before...,
 * on, syncwith, synccount) are kept as they are and not acted on.
 * *pending counts the ids still waited for, *never is set when one can
 * never be met. */
static char *dep_walk(const char *value, int reg, int *pending, int *never, int *unknown)
{
  char *work = xdup(value), *clause, *s1 = NULL;
  char *out = calloc(strlen(value) + 2, 1);
  if (out == NULL)
    die("out of memory");
  *pending = *never = *unknown = 0;
  for (clause = strtok_r(work, ",", &s1); clause; clause = strtok_r(NULL, ",", &s1)) {
    char *colon = strchr(clause, ':'), *id, *s2 = NULL;
    size_t mark = strlen(out);
    int kept = 0;
    if (colon == NULL || strncmp(clause, "after", 5) != 0) {
      sprintf(out + mark, "%s%s", mark ? "," : "", clause);
      continue;
    }
    *colon = '\0';
    sprintf(out + mark, "%s%s", mark ? "," : "", clause);
    for (id = strtok_r(colon + 1, ":", &s2); id; id = strtok_r(NULL, ":", &s2)) {
      int keep;
      if (reg) {
        long need;
        keep = strstr(clause, "array") != NULL ? dep_array(id, &need) != NULL : dep_job(id) != NULL;
        *unknown += !keep;
      } else {
        int s = dep_state(clause, id);
        *never |= s < 0;
        keep = s == 0;
      }
      if (keep) {
        sprintf(out + strlen(out), ":%s", id);
        kept++;
      }
    }
    *pending += kept;
    if (kept == 0)
      out[mark] = '\0';
  }
  free(work);
  return out;
}

/* Jobs held on their dependencies (fake_depend_hold) are looked at again,
 * as pbs_server does when a job they depend on starts or ends: the met
 * ids leave `depend` and the last one releases the system hold (state Q
 * unless other holds remain); one that can never be met deletes the job
 * (Torque's job_abt: it completes).  Repeats while something changed, for
 * chains of dependencies. */
static void eval_depends(void)
{
  int changed = 1, rounds = 0;
  while (changed && rounds++ < 10000) {
    size_t i;
    changed = 0;
    for (i = 0; i < njobs; i++) {
      struct obj *j = &jobs[i];
      const char *dep = obj_get(j, "depend", NULL);
      char *left;
      int pending, never, unknown;
      if (obj_get(j, "fake_depend_hold", NULL) == NULL)
        continue;
      left = dep_walk(dep != NULL ? dep : "", 0, &pending, &never, &unknown);
      if (never) {
        char when[32];
        snprintf(when, sizeof when, "%ld", (long)time(NULL));
        rec("depend %s %s -> can never be met: deleted", j->name, dep);
        obj_set(j, "fake_depend_hold", NULL, NULL);
        release_slots(j->name);
        obj_set(j, "job_state", NULL, "C");
        obj_set(j, "comp_time", NULL, when);
        job_ended(j->name, 0);
        changed = 1;
      } else {
        if (dep == NULL || strcmp(left, dep) != 0) {
          obj_set(j, "depend", NULL, left[0] != '\0' ? left : NULL);
          changed = 1;
        }
        if (pending == 0) {
          obj_set(j, "fake_depend_hold", NULL, NULL);
          change_holds(j, "s", 0);
          rec("depend %s met -> %s Hold_Types=%s", j->name, obj_get(j, "job_state", NULL),
              obj_get(j, "Hold_Types", NULL));
          changed = 1;
        }
      }
      free(left);
    }
  }
}

/* Takes the slots of an exec_host string ("vm/0-1+runsc/0") again for a
 * resumed job, as Torque's set_old_nodes does (without checking, its
 * FIXME says): slots another job holds are left to it and counted. */
static int retake_exec_host(const char *job, const char *eh)
{
  char *buf = xdup(eh), *part, *save = NULL;
  int busy = 0;
  for (part = strtok_r(buf, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
    char *slash = strchr(part, '/'), *r, *s2 = NULL;
    struct fnode *n;
    if (slash == NULL)
      continue;
    *slash = '\0';
    if ((n = find_node(part)) == NULL)
      continue;
    for (r = strtok_r(slash + 1, ",", &s2); r; r = strtok_r(NULL, ",", &s2)) {
      int a, b, k;
      if (sscanf(r, "%d-%d", &a, &b) != 2) {
        if (sscanf(r, "%d", &a) != 1)
          continue;
        b = a;
      }
      for (k = a; k <= b && k < n->np; k++) {
        if (k < 0)
          continue;
        if (n->slot[k] != NULL && strcmp(n->slot[k], job) != 0)
          busy++;
        else if (n->slot[k] == NULL)
          n->slot[k] = xdup(job);
      }
    }
  }
  free(buf);
  return busy;
}

/* Assigns slots from an exec_host string ("vm/0-1+runsc/0") at load time. */
static void claim_exec_host(const char *job, const char *eh)
{
  char *buf = xdup(eh), *part, *save = NULL;
  for (part = strtok_r(buf, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
    char *slash = strchr(part, '/'), *r, *s2 = NULL;
    struct fnode *n;
    if (slash == NULL)
      die("fixture: job %s: bad exec_host \"%s\"", job, eh);
    *slash = '\0';
    n = find_node(part);
    if (n == NULL)
      die("fixture: job %s: exec_host names unknown node %s", job, part);
    for (r = strtok_r(slash + 1, ",", &s2); r; r = strtok_r(NULL, ",", &s2)) {
      int a, b, k;
      if (sscanf(r, "%d-%d", &a, &b) != 2) {
        if (sscanf(r, "%d", &a) != 1)
          die("fixture: job %s: bad exec_host \"%s\"", job, eh);
        b = a;
      }
      for (k = a; k <= b; k++) {
        if (k < 0 || k >= n->np || n->slot[k] != NULL)
          die("fixture: job %s: slot %d of %s is not available", job, k, n->o.name);
        n->slot[k] = xdup(job);
      }
    }
  }
  free(buf);
}

/* ---- fixture ------------------------------------------------------------- */

static char *trim(char *s)
{
  char *e;
  while (isspace((unsigned char)*s))
    s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

/* Sets "name[.resource]" = value on an object. */
static void set_dotted(struct obj *o, const char *key, const char *val)
{
  const char *dot = strchr(key, '.');
  if (dot != NULL) {
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(dot - key), key);
    obj_set(o, name, dot + 1, val);
  } else {
    obj_set(o, key, NULL, val);
  }
}

static void finish_node(struct fnode *n)
{
  const char *np = obj_get(&n->o, "np", NULL), *st = obj_get(&n->o, "state", NULL);
  n->np = np ? atoi(np) : 1;
  if (n->np < 0 || n->np > 100000)
    die("fixture: node %s: bad np", n->o.name);
  n->slot = calloc((size_t)n->np + 1, sizeof *n->slot);
  if (n->slot == NULL)
    die("out of memory");
  {
    const char *g = obj_get(&n->o, "gpus", NULL);
    n->ngpus = g ? atoi(g) : 0;
    if (n->ngpus < 0 || n->ngpus > 4096)
      die("fixture: node %s: bad gpus", n->o.name);
    n->gpu = calloc((size_t)n->ngpus + 1, sizeof *n->gpu);
    if (n->gpu == NULL)
      die("out of memory");
  }
  n->down = st != NULL && strstr(st, "down") != NULL;
  n->offline = st != NULL && strstr(st, "offline") != NULL;
  obj_set(&n->o, "np", NULL, NULL);
  obj_set(&n->o, "state", NULL, NULL);
  obj_set(&n->o, "jobs", NULL, NULL);
}

static void load_fixture(const char *path)
{
  FILE *f = fopen(path, "r");
  char line[16384];
  struct obj *cur = NULL;
  int lineno = 0;
  size_t i;

  if (f == NULL)
    die("cannot open fixture %s: %s", path, strerror(errno));
  while (fgets(line, sizeof line, f) != NULL) {
    char *t;
    lineno++;
    line[strcspn(line, "\n")] = '\0';
    t = trim(line);
    /* a state file (FAKE_IFL_STATE) says how much of the control file
     * the server has applied */
    if (strncmp(t, "#@ control_offset ", 18) == 0)
      control_off = atol(t + 18);
    if (*t == '\0' || *t == '#')
      continue;
    if (!isspace((unsigned char)line[0])) {
      char kind[32], name[1024];
      if (sscanf(t, "%31s %1023s", kind, name) != 2)
        die("%s:%d: expected \"server|queue|node|array|job NAME\"", path, lineno);
      if (strcmp(kind, "server") == 0) {
        cur = &server;
      } else if (strcmp(kind, "queue") == 0) {
        queues = xrealloc(queues, (nqueues + 1) * sizeof *queues);
        cur = &queues[nqueues++];
      } else if (strcmp(kind, "node") == 0) {
        nodes = xrealloc(nodes, (nnodes + 1) * sizeof *nodes);
        memset(&nodes[nnodes], 0, sizeof *nodes);
        cur = &nodes[nnodes++].o;
      } else if (strcmp(kind, "job") == 0) {
        jobs = xrealloc(jobs, (njobs + 1) * sizeof *jobs);
        cur = &jobs[njobs++];
      } else if (strcmp(kind, "array") == 0) {
        arrays = xrealloc(arrays, (narrays + 1) * sizeof *arrays);
        cur = &arrays[narrays++];
      } else {
        die("%s:%d: unknown object kind \"%s\"", path, lineno, kind);
      }
      if (cur != &server)
        memset(cur, 0, sizeof *cur);
      free(cur->name);
      cur->name = xdup(name);
    } else {
      char *eq = strstr(t, " = ");
      size_t tl = strlen(t);
      if (cur != NULL && eq == NULL && tl > 2 && strcmp(t + tl - 2, " =") == 0) {
        t[tl - 2] = '\0'; /* an empty value, as a state file writes it */
        set_dotted(cur, trim(t), "");
        continue;
      }
      if (cur == NULL || eq == NULL)
        die("%s:%d: expected \"    name[.resource] = value\" under an object", path, lineno);
      *eq = '\0';
      set_dotted(cur, trim(t), trim(eq + 3));
    }
  }
  fclose(f);
  for (i = 0; i < nnodes; i++)
    finish_node(&nodes[i]);
  for (i = 0; i < njobs; i++) {
    const char *st = obj_get(&jobs[i], "job_state", NULL), *eh = obj_get(&jobs[i], "exec_host", NULL);
    const char *eg = obj_get(&jobs[i], "exec_gpus", NULL);
    if (st != NULL && strcmp(st, "R") == 0 && eh != NULL)
      claim_exec_host(jobs[i].name, eh);
    if (st != NULL && strcmp(st, "R") == 0 && eg != NULL)
      claim_exec_gpus(jobs[i].name, eg);
  }
}

static void write_obj(FILE *f, const char *kind, const struct obj *o)
{
  size_t i;
  fprintf(f, "%s %s\n", kind, o->name);
  for (i = 0; i < o->n; i++)
    fprintf(f, "    %s%s%s =%s%s\n", o->a[i].name, o->a[i].res ? "." : "",
            o->a[i].res ? o->a[i].res : "", o->a[i].val[0] ? " " : "", o->a[i].val);
}

/* FAKE_IFL_STATE: the whole server in the fixture format (nodes with their
 * np and down/offline flags, arrays with their counts, jobs with the
 * double's own fake_ attributes) and how much of the control file it has
 * applied, written to a temporary file and renamed, so that a reader never
 * sees half of it. */
static void persist(void)
{
  char tmp[4200];
  FILE *f;
  size_t i;
  if (state_path[0] == '\0')
    return;
  snprintf(tmp, sizeof tmp, "%s.tmp", state_path);
  if ((f = fopen(tmp, "w")) == NULL)
    die("cannot write state %s: %s", tmp, strerror(errno));
  fprintf(f, "# fake-ifl state (FAKE_IFL_STATE), rewritten after every call\n");
  fprintf(f, "#@ control_offset %ld\n", control_off - (long)control_len);
  write_obj(f, "server", &server);
  for (i = 0; i < nqueues; i++)
    write_obj(f, "queue", &queues[i]);
  for (i = 0; i < nnodes; i++) {
    const struct fnode *n = &nodes[i];
    write_obj(f, "node", &n->o);
    fprintf(f, "    np = %d\n    state = %s%s%s\n", n->np, n->down ? "down" : "",
            n->down && n->offline ? "," : "", n->offline ? "offline" : n->down ? "" : "free");
  }
  for (i = 0; i < narrays; i++)
    write_obj(f, "array", &arrays[i]);
  for (i = 0; i < njobs; i++)
    write_obj(f, "job", &jobs[i]);
  if (fclose(f) != 0 || rename(tmp, state_path) != 0)
    die("cannot write state %s: %s", state_path, strerror(errno));
}

static void init(void)
{
  const char *fx, *lg, *ct, *st;
  if (initialised)
    return;
  initialised = 1;
  fx = getenv("FAKE_IFL_FIXTURE");
  lg = getenv("FAKE_IFL_LOG");
  ct = getenv("FAKE_IFL_CONTROL");
  st = getenv("FAKE_IFL_STATE");
  if (lg != NULL && *lg != '\0') {
    logf = fopen(lg, "a");
    if (logf == NULL)
      die("cannot open log %s: %s", lg, strerror(errno));
  }
  if (ct != NULL)
    snprintf(control_path, sizeof control_path, "%s", ct);
  if (st != NULL)
    snprintf(state_path, sizeof state_path, "%s", st);
  if (server.name == NULL)
    server.name = xdup("fake");
  if (state_path[0] != '\0' && access(state_path, F_OK) == 0) {
    /* the server as the last process left it */
    load_fixture(state_path);
    rec("init state=%s nodes=%zu jobs=%zu arrays=%zu control_offset=%ld", state_path, nnodes,
        njobs, narrays, control_off);
    return;
  }
  if (fx == NULL || *fx == '\0')
    die("FAKE_IFL_FIXTURE is not set");
  load_fixture(fx);
  rec("init fixture=%s nodes=%zu jobs=%zu", fx, nnodes, njobs);
}

/* ---- control commands ---------------------------------------------------- */

static void drop_connections(void)
{
  memset(conn_alive, 0, sizeof conn_alive);
}

static void control(char *line)
{
  char *w[16];
  int n = 0;
  char *save = NULL, *t;
  for (t = strtok_r(line, " \t", &save); t && n < 16; t = strtok_r(NULL, " \t", &save))
    w[n++] = t;
  if (n == 0)
    return;
  if (strcmp(w[0], "complete") == 0 && n >= 2 && n <= 4) {
    /* as pbs_server: state C, comp_time set, exec_host/exec_gpus kept;
     * `exit=N` is the exit status the mom reported */
    struct obj *j = find_job(w[1]);
    if (j != NULL) {
      char when[32];
      const char *st = obj_get(j, "job_state", NULL), *ex = NULL;
      long at = (long)time(NULL);
      int k;
      for (k = 2; k < n; k++) {
        if (strncmp(w[k], "exit=", 5) == 0)
          ex = w[k] + 5;
        else
          at = atol(w[k]);
      }
      snprintf(when, sizeof when, "%ld", at);
      release_slots(w[1]);
      if (ex != NULL)
        obj_set(j, "exit_status", NULL, ex);
      if (st == NULL || strcmp(st, "C") != 0)
        job_ended(w[1], ex == NULL || atoi(ex) == 0);
      obj_set(j, "job_state", NULL, "C");
      obj_set(j, "comp_time", NULL, when);
    }
  } else if (strcmp(w[0], "delete") == 0 && n == 2) {
    struct obj *j = find_job(w[1]);
    const char *st = j != NULL ? obj_get(j, "job_state", NULL) : NULL;
    if (j != NULL && (st == NULL || strcmp(st, "C") != 0))
      job_ended(w[1], 0); /* gone without completing: its array counts it failed */
    delete_job(w[1]);
  } else if (strcmp(w[0], "node") == 0 && n == 3) {
    struct fnode *nd = find_node(w[1]);
    if (nd == NULL)
      die("control: unknown node %s", w[1]);
    if (strcmp(w[2], "down") == 0)
      nd->down = 1;
    else if (strcmp(w[2], "up") == 0)
      nd->down = nd->nomom = 0; /* its mom reports; pbs_server sends no command */
    else if (strcmp(w[2], "offline") == 0)
      nd->offline = 1;
    else if (strcmp(w[2], "online") == 0)
      nd->offline = 0;
    else
      die("control: node %s: unknown state %s", w[1], w[2]);
  } else if (strcmp(w[0], "server") == 0 && n >= 2) {
    if (strcmp(w[1], "down") == 0) {
      drop_connections();
      if (n == 3)
        down_until = mono() + atof(w[2]);
      else
        server_down = 1;
    } else if (strcmp(w[1], "restart") == 0) {
      /* as pbs_server restarted: connections dropped, and every node down
       * without status until its mom reports (`node NAME up`) */
      size_t k;
      drop_connections();
      for (k = 0; k < nnodes; k++)
        nodes[k].down = nodes[k].nomom = 1;
    } else if (strcmp(w[1], "up") == 0) {
      server_down = 0;
      down_until = 0;
    } else if (strcmp(w[1], "fail-calls") == 0 && n == 3) {
      fail_calls = atol(w[2]);
      drop_connections();
    } else {
      die("control: unknown server command %s", w[1]);
    }
  } else if (strcmp(w[0], "disconnect") == 0) {
    drop_connections();
  } else if (strcmp(w[0], "fail") == 0 && (n == 4 || n == 5)) {
    struct inject *in;
    injects = xrealloc(injects, (ninjects + 1) * sizeof *injects);
    in = &injects[ninjects++];
    memset(in, 0, sizeof *in);
    snprintf(in->call, sizeof in->call, "%s", w[1]);
    in->job = xdup(w[2]);
    if (strcmp(w[3], "lost") == 0)
      in->lost = 1, in->code = E_PROTOCOL;
    else
      in->code = atoi(w[3]);
    in->left = n == 5 ? atoi(w[4]) : 1;
  } else if (strcmp(w[0], "submit") == 0 && n >= 2) {
    struct obj *j;
    int i;
    jobs = xrealloc(jobs, (njobs + 1) * sizeof *jobs);
    j = &jobs[njobs++];
    memset(j, 0, sizeof *j);
    j->name = xdup(w[1]);
    obj_set(j, "job_state", NULL, "Q");
    obj_set(j, "queue", NULL, "batch");
    obj_set(j, "euser", NULL, "alice");
    obj_set(j, "egroup", NULL, "users");
    for (i = 2; i < n; i++) {
      char *eq = strchr(w[i], '=');
      if (eq == NULL)
        die("control: submit: expected name=value, got %s", w[i]);
      *eq = '\0';
      set_dotted(j, w[i], eq + 1);
    }
  } else if (strcmp(w[0], "set") == 0 && n == 4) {
    /* set server|job-id attribute value (value without blanks) */
    struct obj *o = strcmp(w[1], "server") == 0 ? &server : find_job(w[1]);
    if (o == NULL)
      die("control: set: unknown object %s", w[1]);
    set_dotted(o, w[2], w[3]);
  } else {
    die("control: cannot understand \"%s\"", w[0]);
  }
}

/* Completed jobs leave keep_completed seconds after comp_time (the server's
 * attribute; 300 when unset, Torque 6's default; a fixture's completed job
 * without comp_time stays). */
static void purge_completed(void)
{
  const char *kc = obj_get(&server, "keep_completed", NULL);
  long keep = kc != NULL ? atol(kc) : 300, now = (long)time(NULL);
  size_t i = 0;
  while (i < njobs) {
    const char *st = obj_get(&jobs[i], "job_state", NULL), *ct = obj_get(&jobs[i], "comp_time", NULL);
    if (st != NULL && strcmp(st, "C") == 0 && ct != NULL && atol(ct) + keep <= now) {
      char *id = xdup(jobs[i].name);
      delete_job(id);
      free(id);
      continue;
    }
    i++;
  }
  /* an array goes with its last job, once all of them are done */
  i = 0;
  while (i < narrays) {
    size_t k;
    int left = 0;
    for (k = 0; k < njobs && !left; k++)
      left = array_of(jobs[k].name) == &arrays[i];
    if (!left && num_of(&arrays[i], "jobs_done") >= num_of(&arrays[i], "num_jobs")) {
      rec("purge array %s", arrays[i].name);
      obj_free(&arrays[i]);
      arrays[i] = arrays[--narrays];
      continue;
    }
    i++;
  }
}

/* Applies complete lines appended to the control file since the last call. */
static void poll_control(void)
{
  FILE *f;
  size_t got;
  char *nl;
  if (control_path[0] == '\0')
    return;
  f = fopen(control_path, "r");
  if (f == NULL)
    return;
  if (fseek(f, control_off, SEEK_SET) != 0) {
    fclose(f);
    return;
  }
  got = fread(control_buf + control_len, 1, sizeof control_buf - 1 - control_len, f);
  fclose(f);
  control_off += (long)got;
  control_len += got;
  control_buf[control_len] = '\0';
  while ((nl = strchr(control_buf, '\n')) != NULL) {
    size_t used = (size_t)(nl - control_buf) + 1;
    *nl = '\0';
    rec("control %s", control_buf);
    control(control_buf);
    memmove(control_buf, control_buf + used, control_len - used + 1);
    control_len -= used;
  }
}

/* Every call starts here: initialise, apply control lines, decide whether
 * the server is reachable.  Returns 0 when the call may proceed. */
static int enter(int conn, const char *call)
{
  init();
  poll_control();
  purge_completed();
  eval_depends();
  persist();
  pbs_errno = 0;
  /* a connect to a server that is not there: as Torque 6's pbs_connect,
   * minus the socket error (-111, ECONNREFUSED) with pbs_errno left 0 */
  if (fail_calls > 0) {
    fail_calls--;
    drop_connections();
    pbs_errno = conn < 0 ? 0 : E_PROTOCOL;
    return conn < 0 ? -ECONNREFUSED : -1;
  }
  if (server_down || (down_until > 0 && mono() < down_until)) {
    drop_connections();
    pbs_errno = conn < 0 ? 0 : E_PROTOCOL;
    return conn < 0 ? -ECONNREFUSED : -1;
  }
  if (conn >= 0 && (conn >= MAXCONN || !conn_alive[conn])) {
    pbs_errno = E_PROTOCOL;
    if (conn < MAXCONN)
      snprintf(conn_msg[conn], sizeof conn_msg[conn], "%s: connection closed", call);
    return -1;
  }
  return 0;
}

static void set_msg(int conn, const char *fmt, ...)
{
  va_list ap;
  if (conn < 0 || conn >= MAXCONN)
    return;
  va_start(ap, fmt);
  vsnprintf(conn_msg[conn], sizeof conn_msg[conn], fmt, ap);
  va_end(ap);
}

/* ---- status replies ------------------------------------------------------ */

static int wanted(const struct attrl *filter, const char *name)
{
  if (filter == NULL)
    return 1;
  for (; filter != NULL; filter = filter->next)
    if (filter->name != NULL && strcmp(filter->name, name) == 0)
      return 1;
  return 0;
}

static void push_attr(struct attrl **head, struct attrl **tail, const char *name,
                      const char *res, const char *val)
{
  struct attrl *a = calloc(1, sizeof *a);
  if (a == NULL)
    die("out of memory");
  a->name = xdup(name);
  a->resource = res ? xdup(res) : NULL;
  a->value = xdup(val);
  a->op = SET;
  if (*tail)
    (*tail)->next = a;
  else
    *head = a;
  *tail = a;
}

static struct batch_status *bs_of(const struct obj *o, const struct attrl *filter)
{
  struct batch_status *b = calloc(1, sizeof *b);
  struct attrl *tail = NULL;
  size_t i;
  if (b == NULL)
    die("out of memory");
  b->name = xdup(o->name);
  for (i = 0; i < o->n; i++)
    /* the double's own bookkeeping (fake_script, ...) is not served */
    if (wanted(filter, o->a[i].name) && strncmp(o->a[i].name, "fake_", 5) != 0)
      push_attr(&b->attribs, &tail, o->a[i].name, o->a[i].res, o->a[i].val);
  return b;
}

static void append(struct batch_status **head, struct batch_status **tail,
                   struct batch_status *b)
{
  if (*tail)
    (*tail)->next = b;
  else
    *head = b;
  *tail = b;
}

static int used_slots(const struct fnode *n)
{
  int k, u = 0;
  for (k = 0; k < n->np; k++)
    u += n->slot[k] != NULL;
  return u;
}

/* Node `state` and `jobs` as Torque 6 shows them. */
static void node_state(const struct fnode *n, char *buf, size_t len)
{
  int u = used_slots(n);
  buf[0] = '\0';
  if (n->down)
    snprintf(buf + strlen(buf), len - strlen(buf), "%sdown", buf[0] ? "," : "");
  if (n->offline)
    snprintf(buf + strlen(buf), len - strlen(buf), "%soffline", buf[0] ? "," : "");
  if (n->np > 0 && u == n->np)
    snprintf(buf + strlen(buf), len - strlen(buf), "%sjob-exclusive", buf[0] ? "," : "");
  if (buf[0] == '\0')
    snprintf(buf, len, "free");
}

static char *node_jobs(const struct fnode *n)
{
  size_t cap = 64, len = 0;
  char *out = calloc(cap, 1);
  char *done = calloc((size_t)n->np + 1, 1);
  int k;
  if (out == NULL || done == NULL)
    die("out of memory");
  for (k = 0; k < n->np; k++) {
    int m, first = 1;
    const char *job = n->slot[k];
    if (job == NULL || done[k])
      continue;
    /* every slot of this job: ranges joined by ',', then "/jobid" */
    for (m = k; m < n->np; m++) {
      int e = m;
      char piece[64];
      if (done[m] || n->slot[m] == NULL || strcmp(n->slot[m], job) != 0)
        continue;
      while (e + 1 < n->np && n->slot[e + 1] != NULL && strcmp(n->slot[e + 1], job) == 0)
        e++;
      if (e > m)
        snprintf(piece, sizeof piece, "%s%d-%d", first ? (len ? "," : "") : ",", m, e);
      else
        snprintf(piece, sizeof piece, "%s%d", first ? (len ? "," : "") : ",", m);
      first = 0;
      while (len + strlen(piece) + strlen(job) + 3 > cap)
        out = xrealloc(out, cap *= 2);
      strcpy(out + len, piece);
      len += strlen(piece);
      for (; m <= e; m++)
        done[m] = 1;
      m = e;
    }
    while (len + strlen(job) + 3 > cap)
      out = xrealloc(out, cap *= 2);
    out[len++] = '/';
    strcpy(out + len, job);
    len += strlen(job);
  }
  free(done);
  return out;
}

static struct batch_status *node_bs(const struct fnode *n, const struct attrl *filter)
{
  struct batch_status *b = bs_of(&n->o, filter);
  struct attrl *tail, **pp;
  char st[64], np[16];
  char *jl;
  /* until its mom reports after a server restart, a node has no status */
  for (pp = &b->attribs; n->nomom && *pp != NULL;) {
    struct attrl *a = *pp;
    if (strcmp(a->name, "status") != 0) {
      pp = &a->next;
      continue;
    }
    *pp = a->next;
    free(a->name);
    free(a->resource);
    free(a->value);
    free(a);
  }
  tail = b->attribs;
  while (tail && tail->next)
    tail = tail->next;
  node_state(n, st, sizeof st);
  snprintf(np, sizeof np, "%d", n->np);
  if (wanted(filter, "state"))
    push_attr(&b->attribs, &tail, "state", NULL, st);
  if (wanted(filter, "np"))
    push_attr(&b->attribs, &tail, "np", NULL, np);
  jl = node_jobs(n);
  if (jl[0] != '\0' && wanted(filter, "jobs"))
    push_attr(&b->attribs, &tail, "jobs", NULL, jl);
  free(jl);
  return b;
}

/* ---- the IFL ------------------------------------------------------------- */

int pbs_connect(char *srv)
{
  int c;
  if ((c = enter(-1, "connect")) != 0) {
    rec("connect server=%s -> %d errno=%d", srv ? srv : "(null)", c, pbs_errno);
    return c;
  }
  if (next_conn >= MAXCONN)
    next_conn = 1;
  c = next_conn++;
  conn_alive[c] = 1;
  conn_msg[c][0] = '\0';
  rec("connect server=%s -> %d", srv ? srv : "(null)", c);
  return c;
}

int pbs_disconnect(int conn)
{
  init();
  rec("disconnect %d", conn);
  if (conn > 0 && conn < MAXCONN)
    conn_alive[conn] = 0;
  return 0;
}

char *pbs_geterrmsg(int conn)
{
  if (conn < 0 || conn >= MAXCONN || conn_msg[conn][0] == '\0')
    return NULL;
  return conn_msg[conn];
}

char *pbs_strerror(int err)
{
  switch (err) {
  case E_UNKJOBID: return (char *)"Unknown Job Id";
  case E_BADSTATE: return (char *)"Request invalid for state of job";
  case E_PROTOCOL: return (char *)"Protocol error";
  case E_NOSERVER: return (char *)"No server to connect to";
  case E_RESCUNAV: return (char *)"Resources temporarily unavailable";
  case E_NORERUN: return (char *)"job is not rerunnable";
  case E_BADATVAL: return (char *)"Illegal attribute or resource value for";
  case E_UNKQUE: return (char *)"Unknown queue";
  case E_BADSCRIPT: return (char *)"(qsub) cannot access script file";
  case E_UNKARRAYID: return (char *)"Unknown Array ID";
  case E_BAD_ARRAY_REQ: return (char *)"Bad Job Array Request";
  default: return NULL;
  }
}

void pbs_statfree(struct batch_status *bs)
{
  while (bs != NULL) {
    struct batch_status *nb = bs->next;
    struct attrl *a = bs->attribs;
    while (a != NULL) {
      struct attrl *na = a->next;
      free(a->name);
      free(a->resource);
      free(a->value);
      free(a);
      a = na;
    }
    free(bs->name);
    free(bs->text);
    free(bs);
    bs = nb;
  }
}

struct batch_status *pbs_statserver(int conn, struct attrl *attrib, char *extend)
{
  (void)extend;
  if (enter(conn, "statserver") != 0) {
    rec("statserver %d -> NULL errno=%d", conn, pbs_errno);
    return NULL;
  }
  rec("statserver %d -> 1", conn);
  return bs_of(&server, attrib);
}

struct batch_status *pbs_statque(int conn, char *id, struct attrl *attrib, char *extend)
{
  struct batch_status *head = NULL, *tail = NULL;
  size_t i, n = 0;
  (void)extend;
  if (enter(conn, "statque") != 0) {
    rec("statque %d -> NULL errno=%d", conn, pbs_errno);
    return NULL;
  }
  for (i = 0; i < nqueues; i++)
    if (id == NULL || *id == '\0' || strcmp(id, queues[i].name) == 0)
      append(&head, &tail, bs_of(&queues[i], attrib)), n++;
  rec("statque %d -> %zu", conn, n);
  return head;
}

struct batch_status *pbs_statnode(int conn, char *id, struct attrl *attrib, char *extend)
{
  struct batch_status *head = NULL, *tail = NULL;
  size_t i, n = 0;
  (void)extend;
  if (enter(conn, "statnode") != 0) {
    rec("statnode %d -> NULL errno=%d", conn, pbs_errno);
    return NULL;
  }
  for (i = 0; i < nnodes; i++)
    if (id == NULL || *id == '\0' || strcmp(id, nodes[i].o.name) == 0)
      append(&head, &tail, node_bs(&nodes[i], attrib)), n++;
  rec("statnode %d -> %zu", conn, n);
  return head;
}

struct batch_status *pbs_statjob(int conn, char *id, struct attrl *attrib, char *extend)
{
  struct batch_status *head = NULL, *tail = NULL;
  size_t i, n = 0;
  if (enter(conn, "statjob") != 0) {
    rec("statjob %d -> NULL errno=%d", conn, pbs_errno);
    return NULL;
  }
  {
    /* FAKE_IFL_UNDEFINED_JOB_ATTRS=x,...: a server built without those
     * (site) attributes refuses a filter naming one, as pbs_server does */
    const char *undef = getenv("FAKE_IFL_UNDEFINED_JOB_ATTRS");
    const struct attrl *a;
    for (a = attrib; undef != NULL && a != NULL; a = a->next) {
      char list[1024], *w, *sv = NULL;
      snprintf(list, sizeof list, "%s", undef);
      for (w = strtok_r(list, ",", &sv); w; w = strtok_r(NULL, ",", &sv))
        if (a->name != NULL && strcmp(a->name, w) == 0) {
          pbs_errno = E_NOATTR;
          set_msg(conn, "Undefined attribute %s", w);
          rec("statjob %d -> NULL errno=%d", conn, pbs_errno);
          return NULL;
        }
    }
  }
  if (id != NULL && strstr(id, "[]") != NULL) {
    /* an array ("12[].vm"): its jobs, as Torque's req_stat_job */
    const struct obj *a = find_array(id);
    if (a == NULL) {
      pbs_errno = E_UNKARRAYID;
      set_msg(conn, "unable to find array");
      rec("statjob %d %s -> NULL errno=%d", conn, id, pbs_errno);
      return NULL;
    }
    for (i = 0; i < njobs; i++)
      if (array_of(jobs[i].name) == a)
        append(&head, &tail, bs_of(&jobs[i], attrib)), n++;
    rec("statjob %d %s extend=%s -> %zu", conn, id, extend ? extend : "(null)", n);
    return head;
  }
  for (i = 0; i < njobs; i++)
    if (id == NULL || *id == '\0' || strcmp(id, jobs[i].name) == 0)
      append(&head, &tail, bs_of(&jobs[i], attrib)), n++;
  if (id != NULL && *id != '\0' && n == 0) {
    pbs_errno = E_UNKJOBID;
    set_msg(conn, "Unknown Job Id %s", id);
  }
  rec("statjob %d extend=%s -> %zu", conn, extend ? extend : "(null)", n);
  return head;
}

/* Consumes an injected error for (call, job); returns its code or 0. */
static int injected(const char *call, const char *job, int *lost)
{
  size_t i;
  *lost = 0;
  for (i = 0; i < ninjects; i++) {
    struct inject *in = &injects[i];
    if (in->left == 0 || strcmp(in->call, call) != 0 || strcmp(in->job, job) != 0)
      continue;
    if (in->left > 0)
      in->left--;
    *lost = in->lost;
    return in->code;
  }
  return 0;
}

int pbs_runjob(int conn, char *jobid, char *location, char *extend)
{
  struct obj *j;
  const char *st;
  int code, lost;
  char *buf, *part, *save = NULL;
  struct { struct fnode *n; int want, gpus; } take[256];
  size_t nt = 0, i;
  char eh[8192] = "", eg[8192] = "";
  (void)extend;

  if (enter(conn, "runjob") != 0) {
    rec("runjob %d %s %s -> -1 errno=%d", conn, jobid, location ? location : "", pbs_errno);
    return -1;
  }
  code = injected("runjob", jobid, &lost);
  if (code != 0) {
    if (lost)
      drop_connections();
    if (code == E_UNKJOBID)
      delete_job(jobid); /* the job went away between stat and run */
    pbs_errno = code;
    set_msg(conn, "%s", pbs_strerror(code) ? pbs_strerror(code) : "injected error");
    rec("runjob %d %s %s -> %d injected", conn, jobid, location ? location : "", code);
    return code;
  }
  j = find_job(jobid);
  if (j == NULL) {
    pbs_errno = E_UNKJOBID;
    set_msg(conn, "Unknown Job Id %s", jobid);
    rec("runjob %d %s %s -> %d", conn, jobid, location ? location : "", pbs_errno);
    return pbs_errno;
  }
  st = obj_get(j, "job_state", NULL);
  if (st == NULL || strcmp(st, "Q") != 0) {
    pbs_errno = E_BADSTATE;
    set_msg(conn, "Request invalid for state of job");
    rec("runjob %d %s %s -> %d", conn, jobid, location ? location : "", pbs_errno);
    return pbs_errno;
  }
  /* location: host[:ppn=N][:gpus=G][:mics=M], joined by '+'; pbs_server
   * gives GPUs only for the location's gpus= (mics= is accepted, not
   * tracked) */
  buf = xdup(location ? location : "");
  for (part = strtok_r(buf, "+", &save); part && nt < 256; part = strtok_r(NULL, "+", &save)) {
    char *colon = strchr(part, ':'), *opt, *s2 = NULL;
    int want = 1, gpus = 0, bad = 0;
    if (colon != NULL) {
      *colon = '\0';
      for (opt = strtok_r(colon + 1, ":", &s2); opt; opt = strtok_r(NULL, ":", &s2)) {
        if (strncmp(opt, "ppn=", 4) == 0)
          bad |= (want = atoi(opt + 4)) < 1;
        else if (strncmp(opt, "gpus=", 5) == 0)
          bad |= (gpus = atoi(opt + 5)) < 1;
        else if (strncmp(opt, "mics=", 5) != 0 || atoi(opt + 5) < 1)
          bad = 1;
      }
    }
    take[nt].n = find_node(part);
    take[nt].want = want;
    take[nt].gpus = gpus;
    if (take[nt].n == NULL || bad) {
      nt = 0;
      break;
    }
    nt++;
  }
  free(buf);
  for (i = 0; i < nt; i++) {
    size_t k;
    int need = take[i].want, gneed = take[i].gpus;
    for (k = 0; k < nt; k++) /* one host listed twice needs both amounts */
      if (k != i && take[k].n == take[i].n) {
        need += take[k].want;
        gneed += take[k].gpus;
      }
    if (take[i].n->down || take[i].n->offline || take[i].n->np - used_slots(take[i].n) < need ||
        free_gpus(take[i].n) < gneed)
      break;
  }
  if (nt == 0 || i < nt) {
    pbs_errno = E_RESCUNAV;
    set_msg(conn, "job allocation request exceeds currently available cluster nodes, "
            "%s requested", location ? location : "");
    rec("runjob %d %s %s -> %d", conn, jobid, location ? location : "", pbs_errno);
    return pbs_errno;
  }
  for (i = 0; i < nt; i++) {
    struct fnode *n = take[i].n;
    int k, got = 0, start = -1;
    for (k = 0; k <= n->np; k++) {
      /* take free slots, lowest first; write them as host/a-b runs */
      int taken = k < n->np && got < take[i].want && n->slot[k] == NULL;
      if (taken) {
        n->slot[k] = xdup(jobid);
        got++;
        if (start < 0)
          start = k;
        continue;
      }
      if (start >= 0) {
        if (k - 1 > start)
          snprintf(eh + strlen(eh), sizeof eh - strlen(eh), "%s%s/%d-%d", eh[0] ? "+" : "",
                   n->o.name, start, k - 1);
        else
          snprintf(eh + strlen(eh), sizeof eh - strlen(eh), "%s%s/%d", eh[0] ? "+" : "",
                   n->o.name, start);
        start = -1;
      }
    }
    for (k = 0, got = 0; k < n->ngpus && got < take[i].gpus; k++)
      if (n->gpu[k] == NULL) {
        n->gpu[k] = xdup(jobid);
        got++;
        snprintf(eg + strlen(eg), sizeof eg - strlen(eg), "%s%s-gpu/%d", eg[0] ? "+" : "",
                 n->o.name, k);
      }
  }
  obj_set(j, "job_state", NULL, "R");
  obj_set(j, "exec_host", NULL, eh);
  if (eg[0] != '\0')
    obj_set(j, "exec_gpus", NULL, eg);
  {
    /* pbs_server records when the job started (epoch seconds) */
    char now[32];
    snprintf(now, sizeof now, "%ld", (long)time(NULL));
    obj_set(j, "start_time", NULL, now);
  }
  conn_msg[conn][0] = '\0';
  if (eg[0] != '\0')
    rec("runjob %d %s %s -> 0 exec_host=%s exec_gpus=%s start_time=%s", conn, jobid, location,
        eh, eg, obj_get(j, "start_time", NULL));
  else
    rec("runjob %d %s %s -> 0 exec_host=%s start_time=%s", conn, jobid, location, eh,
        obj_get(j, "start_time", NULL));
  job_started(jobid);
  eval_depends();
  persist();
  return 0;
}

int pbs_alterjob(int conn, char *jobid, struct attrl *attrib, char *extend)
{
  struct obj *j;
  struct attrl *a;
  int code, lost;
  char what[1024] = "";
  (void)extend;

  for (a = attrib; a != NULL; a = a->next)
    snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s%s%s=\"%s\"",
             what[0] ? " " : "", a->name ? a->name : "", a->resource ? "." : "",
             a->resource ? a->resource : "", a->value ? a->value : "");
  if (enter(conn, "alterjob") != 0) {
    rec("alterjob %d %s %s -> -1 errno=%d", conn, jobid, what, pbs_errno);
    return -1;
  }
  code = injected("alterjob", jobid, &lost);
  if (code != 0) {
    if (lost)
      drop_connections();
    if (code == E_UNKJOBID)
      delete_job(jobid);
    pbs_errno = code;
    set_msg(conn, "%s", pbs_strerror(code) ? pbs_strerror(code) : "injected error");
    rec("alterjob %d %s %s -> %d injected", conn, jobid, what, code);
    return code;
  }
  j = find_job(jobid);
  if (j == NULL) {
    pbs_errno = E_UNKJOBID;
    set_msg(conn, "Unknown Job Id %s", jobid);
    rec("alterjob %d %s %s -> %d", conn, jobid, what, pbs_errno);
    return pbs_errno;
  }
  for (a = attrib; a != NULL; a = a->next)
    if (a->name != NULL)
      obj_set(j, a->name, a->resource, a->value);
  rec("alterjob %d %s %s -> 0", conn, jobid, what);
  persist();
  return 0;
}

/* Hold_Types after adding (hold) or removing (release) the letters of
 * `types`; "n" when none is left.  The job is H while a hold is in place and
 * goes back to Q (from H) when the last one is released. */
static void change_holds(struct obj *j, const char *types, int hold)
{
  const char *cur = obj_get(j, "Hold_Types", NULL), *st;
  char next[16] = "";
  const char *all = "uosp";
  size_t k, n = 0;
  for (k = 0; all[k] != '\0'; k++) {
    int had = cur != NULL && strchr(cur, all[k]) != NULL;
    int asked = strchr(types, all[k]) != NULL;
    if (hold ? (had || asked) : (had && !asked))
      next[n++] = all[k];
  }
  if (n == 0)
    next[n++] = 'n';
  next[n] = '\0';
  obj_set(j, "Hold_Types", NULL, next);
  st = obj_get(j, "job_state", NULL);
  if (hold && st != NULL && strcmp(st, "Q") == 0)
    obj_set(j, "job_state", NULL, "H");
  else if (!hold && next[0] == 'n' && st != NULL && strcmp(st, "H") == 0)
    obj_set(j, "job_state", NULL, "Q");
}

static int hold_call(const char *call, int conn, char *jobid, char *hold_type, int hold)
{
  struct obj *j;
  int code, lost;
  const char *types = hold_type != NULL && *hold_type != '\0' ? hold_type : "u";
  if (enter(conn, call) != 0) {
    rec("%s %d %s %s -> -1 errno=%d", call, conn, jobid, types, pbs_errno);
    return -1;
  }
  code = injected(call, jobid, &lost);
  if (code != 0) {
    if (lost)
      drop_connections();
    if (code == E_UNKJOBID)
      delete_job(jobid);
    pbs_errno = code;
    set_msg(conn, "%s", pbs_strerror(code) ? pbs_strerror(code) : "injected error");
    rec("%s %d %s %s -> %d injected", call, conn, jobid, types, code);
    return code;
  }
  j = find_job(jobid);
  if (j == NULL) {
    pbs_errno = E_UNKJOBID;
    set_msg(conn, "Unknown Job Id %s", jobid);
    rec("%s %d %s %s -> %d", call, conn, jobid, types, pbs_errno);
    return pbs_errno;
  }
  change_holds(j, types, hold);
  rec("%s %d %s %s -> 0 Hold_Types=%s", call, conn, jobid, types,
      obj_get(j, "Hold_Types", NULL));
  persist();
  return 0;
}

int pbs_holdjob(int conn, char *jobid, char *hold_type, char *extend)
{
  (void)extend;
  return hold_call("holdjob", conn, jobid, hold_type, 1);
}

int pbs_rlsjob(int conn, char *jobid, char *hold_type, char *extend)
{
  (void)extend;
  return hold_call("rlsjob", conn, jobid, hold_type, 0);
}

/* As Torque 6's req_deletejob (src/server/req_delete.c): an unknown job is
 * refused 15001; a job exiting or completed 15018, "invalid state for job -
 * COMPLETE"; a queued or held job completes at once; a running job's mom
 * kills it (SIGTERM, then SIGKILL after kill_delay) and it completes when
 * it exits, here at once, its slots freed, exit_status 271 (killed by
 * SIGTERM).  A completed job stays keep_completed seconds. */
int pbs_deljob(int conn, char *jobid, char *extend)
{
  struct obj *j;
  const char *st;
  int code, lost;
  char when[32];
  (void)extend;
  if (enter(conn, "deljob") != 0) {
    rec("deljob %d %s -> -1 errno=%d", conn, jobid, pbs_errno);
    return -1;
  }
  code = injected("deljob", jobid, &lost);
  if (code != 0) {
    if (lost)
      drop_connections();
    pbs_errno = code;
    set_msg(conn, "%s", pbs_strerror(code) ? pbs_strerror(code) : "injected error");
    rec("deljob %d %s -> %d injected", conn, jobid, code);
    return code;
  }
  j = find_job(jobid);
  if (j == NULL) {
    pbs_errno = E_UNKJOBID;
    set_msg(conn, "Unknown Job Id %s", jobid);
    rec("deljob %d %s -> %d", conn, jobid, pbs_errno);
    return pbs_errno;
  }
  st = obj_get(j, "job_state", NULL);
  if (st != NULL && (strcmp(st, "C") == 0 || strcmp(st, "E") == 0)) {
    pbs_errno = E_BADSTATE;
    set_msg(conn, "invalid state for job - %s", strcmp(st, "C") == 0 ? "COMPLETE" : "EXITING");
    rec("deljob %d %s -> %d state=%s", conn, jobid, pbs_errno, st);
    return pbs_errno;
  }
  if (st != NULL && strcmp(st, "R") == 0)
    obj_set(j, "exit_status", NULL, "271");
  rec("deljob %d %s -> 0 was=%s", conn, jobid, st != NULL ? st : "?");
  release_slots(jobid);
  snprintf(when, sizeof when, "%ld", (long)time(NULL));
  obj_set(j, "job_state", NULL, "C");
  obj_set(j, "comp_time", NULL, when);
  job_ended(jobid, 0);
  eval_depends();
  persist();
  return 0;
}

/* Refuses a call an injection names or whose job is unknown: the error
 * (recorded as `call`), or 0 with *out the job. */
static int job_call(const char *call, int conn, char *jobid, const char *what, struct obj **out)
{
  int code, lost;
  if (enter(conn, call) != 0) {
    rec("%s %d %s%s -> -1 errno=%d", call, conn, jobid, what, pbs_errno);
    return -1;
  }
  code = injected(call, jobid, &lost);
  if (code != 0) {
    if (lost)
      drop_connections();
    pbs_errno = code;
    set_msg(conn, "%s", pbs_strerror(code) ? pbs_strerror(code) : "injected error");
    rec("%s %d %s%s -> %d injected", call, conn, jobid, what, code);
    return code;
  }
  *out = find_job(jobid);
  if (*out == NULL) {
    pbs_errno = E_UNKJOBID;
    set_msg(conn, "Unknown Job Id %s", jobid);
    rec("%s %d %s%s -> %d", call, conn, jobid, what, pbs_errno);
    return pbs_errno;
  }
  return 0;
}

/* As Torque 6's req_rerunjob (src/server/req_rerun.c): a queued job is
 * left as it is; a job neither queued nor running is refused 15018; a job
 * whose Rerunable is False 15040, "job is not rerunnable"; a running one
 * is killed and queued again (here at once), its slots freed, exec_host
 * and start_time gone, its qtime kept. */
int pbs_rerunjob(int conn, char *jobid, char *extend)
{
  struct obj *j = NULL;
  const char *st, *rr;
  int code = job_call("rerunjob", conn, jobid, "", &j);
  (void)extend;
  if (code != 0)
    return code;
  st = obj_get(j, "job_state", NULL);
  if (st != NULL && strcmp(st, "Q") == 0) {
    rec("rerunjob %d %s -> 0 was=Q", conn, jobid);
    return 0;
  }
  if (st == NULL || (strcmp(st, "R") != 0 && strcmp(st, "S") != 0)) {
    pbs_errno = E_BADSTATE;
    set_msg(conn, "job %s is in a bad state", jobid);
    rec("rerunjob %d %s -> %d state=%s", conn, jobid, pbs_errno, st ? st : "?");
    return pbs_errno;
  }
  rr = obj_get(j, "Rerunable", NULL);
  if (rr != NULL && (rr[0] == 'F' || rr[0] == 'f' || rr[0] == 'n' || rr[0] == 'N')) {
    pbs_errno = E_NORERUN;
    set_msg(conn, "job %s not rerunnable", jobid);
    rec("rerunjob %d %s -> %d Rerunable=%s", conn, jobid, pbs_errno, rr);
    return pbs_errno;
  }
  rec("rerunjob %d %s -> 0 was=%s", conn, jobid, st);
  release_slots(jobid);
  obj_set(j, "job_state", NULL, "Q");
  obj_set(j, "exec_host", NULL, NULL);
  obj_set(j, "exec_gpus", NULL, NULL);
  obj_set(j, "start_time", NULL, NULL);
  persist();
  return 0;
}

/* As Torque 6's req_signaljob (src/server/req_signal.c): the job must be
 * running (R, or S: suspended is running to pbs_server) else 15018.
 * "suspend" makes it S and frees its slots (free_nodes); "resume" makes it
 * R and takes its exec_host's slots again (set_old_nodes, unchecked: a
 * slot another job holds is counted as busy= in the log line). Other
 * signals are delivered (recorded). */
int pbs_sigjob(int conn, char *jobid, char *signal, char *extend)
{
  struct obj *j = NULL;
  const char *st, *sig = signal ? signal : "";
  char what[64];
  int code;
  (void)extend;
  snprintf(what, sizeof what, " %s", sig);
  code = job_call("sigjob", conn, jobid, what, &j);
  if (code != 0)
    return code;
  st = obj_get(j, "job_state", NULL);
  if (st == NULL || (strcmp(st, "R") != 0 && strcmp(st, "S") != 0)) {
    pbs_errno = E_BADSTATE;
    set_msg(conn, "Request invalid for state of job");
    rec("sigjob %d %s %s -> %d state=%s", conn, jobid, sig, pbs_errno, st ? st : "?");
    return pbs_errno;
  }
  if (strcmp(sig, "suspend") == 0 && strcmp(st, "R") == 0) {
    rec("sigjob %d %s %s -> 0 was=%s", conn, jobid, sig, st);
    release_slots(jobid);
    obj_set(j, "job_state", NULL, "S");
  } else if (strcmp(sig, "resume") == 0 && strcmp(st, "S") == 0) {
    const char *eh = obj_get(j, "exec_host", NULL);
    int busy = eh ? retake_exec_host(jobid, eh) : 0;
    rec("sigjob %d %s %s -> 0 was=%s busy=%d", conn, jobid, sig, st, busy);
    obj_set(j, "job_state", NULL, "R");
  } else {
    rec("sigjob %d %s %s -> 0 was=%s", conn, jobid, sig, st);
  }
  persist();
  return 0;
}

/* ---- pbs_submit -------------------------------------------------------- */

static int cmp_long_pos(const void *a, const void *b)
{
  const long *x = a, *y = b;
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* job_array_request as Torque's translate_range_string_to_vector reads it
 * ("0-8", "1,10,50-100"; a slot limit "%5" is dropped): the indexes in
 * order, each once.  -1 when malformed (a range downwards, a word, an
 * empty request) or over this double's limit of 100000 jobs. */
static int array_indexes(const char *req, long **out, size_t *n)
{
  char *s = xdup(req), *p = s, *pct = strchr(s, '%');
  long *v = NULL, *pairs;
  size_t cap = 0, k, m;
  int rc = 0;
  *n = 0;
  if (pct != NULL)
    *pct = '\0';
  while (isspace((unsigned char)*p))
    p++;
  while (*p != '\0' && rc == 0) {
    char *q;
    long a = strtol(p, &q, 10), b = a;
    if (q == p) {
      rc = -1;
      break;
    }
    p = q;
    if (*p == '-') {
      p++;
      if (!isdigit((unsigned char)*p)) {
        rc = -1;
        break;
      }
      b = strtol(p, &q, 10);
      p = q;
      if (a > b || b - a >= 100000) {
        rc = -1;
        break;
      }
    }
    for (; a <= b; a++) {
      if (*n == 100000) {
        rc = -1;
        break;
      }
      if (*n == cap)
        v = xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
      v[(*n)++] = a;
    }
    while (*p == ',' || isspace((unsigned char)*p))
      p++;
  }
  free(s);
  if (rc == 0 && *n == 0)
    rc = -1;
  if (rc != 0) {
    free(v);
    *out = NULL;
    *n = 0;
    return -1;
  }
  /* duplicates: the first one stays, where it was */
  pairs = xrealloc(NULL, 2 * *n * sizeof *pairs);
  for (k = 0; k < *n; k++)
    pairs[2 * k] = v[k], pairs[2 * k + 1] = (long)k;
  qsort(pairs, *n, 2 * sizeof *pairs, cmp_long_pos);
  for (k = 1; k < *n; k++)
    if (pairs[2 * k] == pairs[2 * k - 2])
      v[pairs[2 * k + 1]] = LONG_MIN;
  for (k = m = 0; k < *n; k++)
    if (v[k] != LONG_MIN)
      v[m++] = v[k];
  *n = m;
  free(pairs);
  *out = v;
  return 0;
}

/* A depend value's types are all Torque's (else 15016, as its build_depend). */
static int depend_syntax_ok(const char *value)
{
  char *work = xdup(value), *clause, *save = NULL;
  int ok = *value != '\0';
  for (clause = strtok_r(work, ",", &save); clause && ok; clause = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(clause, ':');
    if (colon != NULL)
      *colon = '\0';
    ok = dep_type_known(clause);
  }
  free(work);
  return ok;
}

/* One variable of a Variable_List ("A=1,B=x\,y"), into buf; NULL if absent. */
static const char *var_of(const char *list, const char *name, char *buf, size_t len)
{
  size_t nl = strlen(name);
  const char *p = list;
  while (p != NULL && *p != '\0') {
    const char *e = p;
    while (*e != '\0' && !(*e == ',' && (e == p || e[-1] != '\\')))
      e++;
    if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
      snprintf(buf, len, "%.*s", (int)(e - p - (ptrdiff_t)nl - 1), p + nl + 1);
      return buf;
    }
    p = *e != '\0' ? e + 1 : e;
  }
  return NULL;
}

/* Output_Path / Error_Path as Torque 6's req_quejob completes them: unset,
 * or only "host:", is host:$PBS_O_WORKDIR/NAME.oSEQ; one ending in '/', or
 * naming a directory (on this host), gets /NAME.oSEQ; any other is kept.
 * NAME is the last component of Job_Name (default_std). */
static void std_path(struct obj *j, const char *attr, char key, long seq, const char *host,
                     const char *workdir)
{
  const char *p = obj_get(j, attr, NULL), *jn = obj_get(j, "Job_Name", NULL), *base;
  char out[8192];
  size_t l = p != NULL ? strlen(p) : 0;
  base = jn == NULL ? "STDIN" : strrchr(jn, '/') != NULL ? strrchr(jn, '/') + 1 : jn;
  if (l == 0 || p[l - 1] == ':') {
    snprintf(out, sizeof out, "%.*s:%s%s%s.%c%ld", l ? (int)(l - 1) : (int)strlen(host),
             l ? p : host, workdir ? workdir : "", workdir ? "/" : "", base, key, seq);
  } else if (p[l - 1] == '/') {
    snprintf(out, sizeof out, "%.*s/%s.%c%ld", (int)(l - 1), p, base, key, seq);
  } else {
    const char *path = strchr(p, ':') != NULL ? strchr(p, ':') + 1 : p;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
      return;
    snprintf(out, sizeof out, "%s/%s.%c%ld", p, base, key, seq);
  }
  obj_set(j, attr, NULL, out);
}

/* The next job number: the server's next_job_number, else one more than
 * the highest number among the jobs and arrays it has. */
static long next_seq(void)
{
  const char *v = obj_get(&server, "next_job_number", NULL);
  long n = 0;
  char buf[32];
  size_t i;
  if (v != NULL) {
    n = atol(v);
  } else {
    for (i = 0; i < njobs; i++)
      if (atol(jobs[i].name) >= n)
        n = atol(jobs[i].name) + 1;
    for (i = 0; i < narrays; i++)
      if (atol(arrays[i].name) >= n)
        n = atol(arrays[i].name) + 1;
  }
  snprintf(buf, sizeof buf, "%ld", n + 1);
  obj_set(&server, "next_job_number", NULL, buf);
  return n;
}

static struct obj *new_job(const char *id, const struct obj *from)
{
  struct obj *j;
  size_t i;
  jobs = xrealloc(jobs, (njobs + 1) * sizeof *jobs);
  j = &jobs[njobs++];
  memset(j, 0, sizeof *j);
  j->name = xdup(id);
  for (i = 0; i < from->n; i++)
    obj_set(j, from->a[i].name, from->a[i].res, from->a[i].val);
  return j;
}

/* As pbs_server queues a job with `depend`: the ids of after... types that
 * name no job or array are dropped and the job gets a user hold (Torque
 * 6's post_doq: "Job held for unknown job dep, use 'qrls' to release");
 * for the others it is held (Hold_Types s, state H) until they are met. */
static void dep_register(struct obj *j)
{
  const char *dep = obj_get(j, "depend", NULL);
  char *left;
  int pending, never, unknown;
  if (dep == NULL)
    return;
  left = dep_walk(dep, 1, &pending, &never, &unknown);
  obj_set(j, "depend", NULL, left[0] != '\0' ? left : NULL);
  if (unknown > 0)
    change_holds(j, "u", 1);
  if (pending > 0) {
    obj_set(j, "fake_depend_hold", NULL, "1");
    change_holds(j, "s", 1);
  }
  free(left);
}

static char *submit_fail(int conn, const char *what, struct obj *t, long *idx, int code,
                         const char *msg)
{
  obj_free(t);
  free(idx);
  pbs_errno = code;
  set_msg(conn, "%s", msg);
  rec("submit %d %s -> NULL errno=%d", conn, what, code);
  return NULL;
}

/* pbs_submit(conn, attributes, script path, destination, extend), as
 * Torque's client library and pbs_server answer it: a job "SEQ.server", or
 * with job_array_request an array "SEQ[].server" of jobs "SEQ[i].server",
 * queued (held on `depend`, see dep_register); the id is malloc'ed, the
 * caller frees it.  The script must be readable (else 15044); the
 * destination ("queue", "queue@server", "" for the server's default_queue)
 * must be a queue of the fixture's (else 15020); a malformed
 * job_array_request, or one over max_job_array_size, is refused 15083, a
 * depend with a type Torque does not know 15016.  The double keeps the
 * script's path (fake_script), not a copy. */
char *pbs_submit(int conn, struct attropl *attrib, char *script, char *destination, char *extend)
{
  struct attropl *a;
  struct obj t, *j = NULL;
  char what[8192] = "", qname[256], id[1200], host[256], var[4096], now[32], owner[600];
  const char *req, *vl, *workdir, *ht;
  long *idx = NULL, seq, maxsize;
  size_t nidx = 0, i;
  struct passwd *pw = getpwuid(getuid());
  struct group *gr = getgrgid(getgid());
  struct utsname un;
  (void)extend;

  memset(&t, 0, sizeof t);
  snprintf(what, sizeof what, "script=%s dest=%s", script ? script : "(null)",
           destination ? destination : "(null)");
  for (a = attrib; a != NULL; a = a->next)
    snprintf(what + strlen(what), sizeof what - strlen(what), " %s%s%s=%s",
             a->name ? a->name : "", a->resource && *a->resource ? "." : "",
             a->resource && *a->resource ? a->resource : "", a->value ? a->value : "");
  if (enter(conn, "submit") != 0) {
    rec("submit %d %s -> NULL errno=%d", conn, what, pbs_errno);
    return NULL;
  }
  conn_msg[conn][0] = '\0';
  if (script != NULL && *script != '\0' && access(script, R_OK) != 0)
    return submit_fail(conn, what, &t, idx, E_BADSCRIPT, "");
  /* the queue: named, or the server's default_queue */
  if (destination != NULL && *destination != '\0' && *destination != '@')
    snprintf(qname, sizeof qname, "%.*s", (int)strcspn(destination, "@"), destination);
  else if (obj_get(&server, "default_queue", NULL) != NULL)
    snprintf(qname, sizeof qname, "%s", obj_get(&server, "default_queue", NULL));
  else
    snprintf(qname, sizeof qname, "%s", nqueues > 0 ? queues[0].name : "batch");
  for (i = 0; i < nqueues && strcmp(queues[i].name, qname) != 0; i++)
    ;
  if (nqueues > 0 && i == nqueues)
    return submit_fail(conn, what, &t, idx, E_UNKQUE, "");
  for (a = attrib; a != NULL; a = a->next)
    if (a->name != NULL)
      obj_set(&t, a->name, a->resource && *a->resource ? a->resource : NULL,
              a->value ? a->value : "");
  req = obj_get(&t, "job_array_request", NULL);
  if (req != NULL && array_indexes(req, &idx, &nidx) != 0)
    return submit_fail(conn, what, &t, idx, E_BAD_ARRAY_REQ, "");
  maxsize = obj_get(&server, "max_job_array_size", NULL) != NULL
                ? num_of(&server, "max_job_array_size")
                : -1;
  if (req != NULL && maxsize >= 0 && (long)nidx > maxsize) {
    char m[128];
    snprintf(m, sizeof m, "Requested array size too large, limit is %ld", maxsize);
    return submit_fail(conn, what, &t, idx, E_BAD_ARRAY_REQ, m);
  }
  if (obj_get(&t, "depend", NULL) != NULL && !depend_syntax_ok(obj_get(&t, "depend", NULL)))
    return submit_fail(conn, what, &t, idx, E_BADATVAL,
                       "Illegal attribute or resource value for depend");

  /* what pbs_server adds: the queue, the owner, the times, PBS_O_QUEUE and
   * (when the client sent none) PBS_O_HOST, the standard files' names */
  seq = next_seq();
  vl = obj_get(&t, "Variable_List", NULL);
  ht = var_of(vl, "PBS_O_HOST", host, sizeof host);
  if (ht == NULL)
    snprintf(host, sizeof host, "%s", uname(&un) == 0 ? un.nodename : "localhost");
  {
    char *nv = malloc(strlen(vl ? vl : "") + strlen(qname) + strlen(host) + 40);
    if (nv == NULL)
      die("out of memory");
    sprintf(nv, "%s%sPBS_O_QUEUE=%s", vl ? vl : "", vl && *vl ? "," : "", qname);
    if (ht == NULL)
      sprintf(nv + strlen(nv), ",PBS_O_HOST=%s", host);
    obj_set(&t, "Variable_List", NULL, nv);
    free(nv);
  }
  workdir = var_of(obj_get(&t, "Variable_List", NULL), "PBS_O_WORKDIR", var, sizeof var);
  snprintf(now, sizeof now, "%ld", (long)time(NULL));
  snprintf(owner, sizeof owner, "%s@%s", pw ? pw->pw_name : "nobody", host);
  obj_set(&t, "queue", NULL, qname);
  obj_set(&t, "Job_Owner", NULL, owner);
  obj_set(&t, "euser", NULL, pw ? pw->pw_name : "nobody");
  obj_set(&t, "egroup", NULL, gr ? gr->gr_name : "nogroup");
  obj_set(&t, "ctime", NULL, now);
  obj_set(&t, "qtime", NULL, now);
  obj_set(&t, "mtime", NULL, now);
  if (obj_get(&t, "Hold_Types", NULL) == NULL)
    obj_set(&t, "Hold_Types", NULL, "n");
  obj_set(&t, "job_state", NULL, strcmp(obj_get(&t, "Hold_Types", NULL), "n") != 0 ? "H" : "Q");
  if (script != NULL && *script != '\0')
    obj_set(&t, "fake_script", NULL, script);
  std_path(&t, "Output_Path", 'o', seq, host, workdir);
  std_path(&t, "Error_Path", 'e', seq, host, workdir);

  if (req != NULL) {
    /* the array keeps the request and counts its jobs; each job is the
     * request with "-i" after its Job_Name, Output_Path and Error_Path,
     * job_array_id i and PBS_ARRAYID=i (Torque's job_clone) */
    struct obj *arr;
    snprintf(id, sizeof id, "%ld[].%s", seq, server.name);
    arrays = xrealloc(arrays, (narrays + 1) * sizeof *arrays);
    arr = &arrays[narrays++];
    memset(arr, 0, sizeof *arr);
    arr->name = xdup(id);
    for (i = 0; i < t.n; i++)
      obj_set(arr, t.a[i].name, t.a[i].res, t.a[i].val);
    snprintf(var, sizeof var, "%zu", nidx);
    obj_set(arr, "num_jobs", NULL, var);
    obj_set(arr, "jobs_done", NULL, "0");
    obj_set(arr, "num_started", NULL, "0");
    obj_set(arr, "num_successful", NULL, "0");
    obj_set(arr, "num_failed", NULL, "0");
    obj_set(&t, "job_array_request", NULL, NULL);
    for (i = 0; i < nidx; i++) {
      char sid[1300], v[8300];
      const char *const suffixed[] = {"Job_Name", "Output_Path", "Error_Path"};
      size_t k;
      snprintf(sid, sizeof sid, "%ld[%ld].%s", seq, idx[i], server.name);
      j = new_job(sid, &t);
      for (k = 0; k < 3; k++)
        if (obj_get(j, suffixed[k], NULL) != NULL) {
          snprintf(v, sizeof v, "%s-%ld", obj_get(j, suffixed[k], NULL), idx[i]);
          obj_set(j, suffixed[k], NULL, v);
        }
      snprintf(v, sizeof v, "%ld", idx[i]);
      obj_set(j, "job_array_id", NULL, v);
      snprintf(v, sizeof v, "%s,PBS_ARRAYID=%ld", obj_get(j, "Variable_List", NULL), idx[i]);
      obj_set(j, "Variable_List", NULL, v);
      dep_register(j);
    }
  } else {
    snprintf(id, sizeof id, "%ld.%s", seq, server.name);
    j = new_job(id, &t);
    dep_register(j);
  }
  eval_depends(); /* on arrays and jobs already done */
  rec("submit %d %s -> %s jobs=%zu state=%s Hold_Types=%s", conn, what, id,
      req != NULL ? nidx : (size_t)1, obj_get(j, "job_state", NULL), obj_get(j, "Hold_Types", NULL));
  persist();
  obj_free(&t);
  free(idx);
  return xdup(id);
}
