/*
 * Helpers shared by the C ABI test programs in tests/c.
 *
 * Each program is run by tests/c_abi.rs as `prog DIR`, where DIR is an
 * empty scratch directory; it prints every failed check and ends with
 * "N passed, M failed", exiting 1 when a check failed.
 *
 * Written in the common subset of C99 and C++ (no designated
 * initializers, casts on void pointers) so any program can also be
 * compiled as C++.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Included twice on purpose: the include guard must hold. */
#include "mauisched.h"
#include "mauisched.h"

static int t_passed = 0;
static int t_failed = 0;

/* The last error of a handle, or a placeholder. */
static inline const char *last_error(const mauisched_t *h) {
  static char buf[8192];
  size_t w = 0;
  if (h == NULL) return "(no handle)";
  if (mauisched_last_error(h, buf, sizeof buf, &w) != MAUISCHED_OK) return "(message too long)";
  return buf;
}

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (cond) {                                                                  \
      t_passed++;                                                                \
    } else {                                                                     \
      t_failed++;                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
    }                                                                            \
  } while (0)

/* `expr` must return `want`; on a mismatch the handle's last error is shown. */
#define CHECK_STATUS(h, expr, want)                                              \
  do {                                                                           \
    mauisched_status_t st_ = (expr);                                             \
    if (st_ == (want)) {                                                         \
      t_passed++;                                                                \
    } else {                                                                     \
      t_failed++;                                                                \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (last error: %s)\n",   \
              __FILE__, __LINE__, #expr, mauisched_status_name(st_),             \
              mauisched_status_name(want), last_error(h));                       \
    }                                                                            \
  } while (0)

#define CHECK_OK(h, expr) CHECK_STATUS(h, expr, MAUISCHED_OK)

#define CHECK_STR(got, want)                                                     \
  do {                                                                           \
    const char *g_ = (got);                                                      \
    const char *w_ = (want);                                                     \
    if (g_ != NULL && strcmp(g_, w_) == 0) {                                     \
      t_passed++;                                                                \
    } else {                                                                     \
      t_failed++;                                                                \
      fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__,        \
              __LINE__, #got, g_ ? g_ : "(null)", w_);                           \
    }                                                                            \
  } while (0)

#define CHECK_CONTAINS(text, part)                                               \
  do {                                                                           \
    const char *t_ = (text);                                                     \
    const char *p_ = (part);                                                     \
    if (t_ != NULL && strstr(t_, p_) != NULL) {                                  \
      t_passed++;                                                                \
    } else {                                                                     \
      t_failed++;                                                                \
      fprintf(stderr, "%s:%d: \"%s\" not found in:\n%s\n", __FILE__, __LINE__,   \
              p_, t_ ? t_ : "(null)");                                           \
    }                                                                            \
  } while (0)

/* Prints the summary line and gives the exit status. */
static inline int finish(void) {
  printf("%d passed, %d failed\n", t_passed, t_failed);
  return t_failed == 0 ? 0 : 1;
}

/* DIR/NAME into `buf`. */
static inline const char *join(char *buf, size_t len, const char *dir, const char *name) {
  snprintf(buf, len, "%s/%s", dir, name);
  return buf;
}

static inline void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
}

/* The whole file as a NUL-terminated string in `buf`; "" when missing. */
static inline const char *read_file(const char *path, char *buf, size_t len) {
  size_t n;
  FILE *f = fopen(path, "r");
  buf[0] = 0;
  if (f == NULL) return buf;
  n = fread(buf, 1, len - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* A log callback that keeps every message (userdata: a log_sink). */
typedef struct log_sink {
  int count;
  int errors;
  int warnings;
  size_t len;
  char text[1 << 16];
} log_sink;

static inline void sink_log(uint32_t level, const char *message, void *userdata) {
  log_sink *s = (log_sink *)userdata;
  size_t n = strlen(message);
  s->count++;
  if (level == MAUISCHED_LOG_ERROR) s->errors++;
  if (level == MAUISCHED_LOG_WARN) s->warnings++;
  if (getenv("MAUISCHED_TEST_VERBOSE") != NULL) fprintf(stderr, "log %u: %s\n", level, message);
  if (s->len + n + 2 < sizeof s->text) {
    memcpy(s->text + s->len, message, n);
    s->len += n;
    s->text[s->len++] = '\n';
    s->text[s->len] = 0;
  }
}

static inline void sink_clear(log_sink *s) {
  memset(s, 0, sizeof *s);
}

/* Opens a handle on CONFIG and STATE with `sink` (may be NULL) as its log. */
static inline mauisched_status_t open_handle(const char *config, const char *state, log_sink *sink,
                                      mauisched_t **out, char *err, size_t err_len) {
  mauisched_options_t o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.config_path = config;
  o.state_dir = state;
  o.log = sink ? sink_log : NULL;
  o.log_userdata = sink;
  return mauisched_new(&o, out, err, err_len);
}

static inline mauisched_node_t mk_node(const char *name, uint32_t state, uint32_t procs) {
  mauisched_node_t n;
  memset(&n, 0, sizeof n);
  n.size = sizeof n;
  n.name = name;
  n.state = state;
  n.procs = procs;
  n.mem_mb = 1000u * procs;
  return n;
}

/* An idle job of `tasks` one-processor tasks. */
static inline mauisched_job_t mk_job(const char *id, const char *user, uint32_t tasks, int64_t walltime,
                              int64_t submit) {
  mauisched_job_t j;
  memset(&j, 0, sizeof j);
  j.size = sizeof j;
  j.id = id;
  j.user = user;
  j.group = "g";
  j.state = MAUISCHED_JOB_IDLE;
  j.submit_time = submit;
  j.walltime = walltime;
  j.tasks = tasks;
  j.task_procs = 1;
  return j;
}

/* A running job: started at `start` on `allocation` ("n1:1,n2:1"). */
static inline mauisched_job_t mk_running(mauisched_job_t j, int64_t start, const char *allocation) {
  j.state = MAUISCHED_JOB_RUNNING;
  j.start_time = start;
  j.allocation = allocation;
  return j;
}

/* An epoch time to run the scenarios at (Tue Nov 14 2023 22:13:20 UTC). */
#define T0 ((int64_t)1700000000)
#define HOUR ((int64_t)3600)

/*
 * The backfill guide's scenario (8.2.1) on two one-processor nodes: A
 * (1 proc, 4 h limit) started an hour ago on n1; B (2 procs, 1 h) is the
 * highest-priority idle job; C (1 proc, 2 h) is next. B gets a reservation
 * for when A's limit is reached (now + 3 h) and C is backfilled on n2.
 */
static inline mauisched_status_t snapshot_abc(mauisched_t *h, int64_t now) {
  mauisched_status_t st;
  mauisched_node_t n1 = mk_node("n1", MAUISCHED_NODE_BUSY, 1);
  mauisched_node_t n2 = mk_node("n2", MAUISCHED_NODE_IDLE, 1);
  mauisched_job_t a = mk_running(mk_job("A", "u1", 1, 4 * HOUR, now - 2 * HOUR), now - HOUR, "n1:1");
  mauisched_job_t b = mk_job("B", "u2", 2, HOUR, now - 1800);
  mauisched_job_t c = mk_job("C", "u3", 1, 2 * HOUR, now - 1200);
  if ((st = mauisched_snapshot_begin(h, now)) != MAUISCHED_OK) return st;
  if ((st = mauisched_snapshot_add_node(h, &n1)) != MAUISCHED_OK) return st;
  if ((st = mauisched_snapshot_add_node(h, &n2)) != MAUISCHED_OK) return st;
  if ((st = mauisched_snapshot_add_job(h, &a)) != MAUISCHED_OK) return st;
  if ((st = mauisched_snapshot_add_job(h, &b)) != MAUISCHED_OK) return st;
  return mauisched_snapshot_add_job(h, &c);
}

#endif
