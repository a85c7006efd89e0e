/*
 * A full iteration on the backfill guide's A/B/C scenario, read through
 * every plan accessor, then the renderers.
 */
#include "testutil.h"

static size_t job_index(const mauisched_plan_t *plan, const char *id) {
  size_t i = (size_t)-1;
  CHECK_OK(NULL, mauisched_plan_job_find(plan, id, &i));
  return i;
}

static void check_plan(const mauisched_plan_t *plan) {
  size_t n = 0, nodes = 0, i, b, c, k, found = 0;
  const char *id = NULL, *res = NULL, *node = NULL, *summary = NULL, *detail = NULL, *kind = NULL,
             *job = NULL, *name = NULL;
  bool backfill = false, started = true;
  uint32_t tasks = 0, code = 99, bypass = 99;
  int64_t now = 0, prio_b = 0, prio_c = 0, est = 0, start = 0, end = 0, prio = 0;
  double sum = 0, contribution = 0;

  CHECK_OK(NULL, mauisched_plan_now(plan, &now));
  CHECK(now == T0);

  /* One start: C, by backfill, on n2. */
  CHECK_OK(NULL, mauisched_plan_start_count(plan, &n));
  CHECK(n == 1);
  CHECK_OK(NULL, mauisched_plan_start(plan, 0, &id, &backfill, &res, &nodes));
  CHECK_STR(id, "C");
  CHECK(backfill);
  CHECK_STR(res, "");
  CHECK(nodes == 1);
  CHECK_OK(NULL, mauisched_plan_start_node(plan, 0, 0, &node, &tasks));
  CHECK_STR(node, "n2");
  CHECK(tasks == 1);

  /* Both idle jobs, B first (it has waited longer). */
  CHECK_OK(NULL, mauisched_plan_job_count(plan, &n));
  CHECK(n == 2);
  b = job_index(plan, "B");
  c = job_index(plan, "C");
  CHECK(b == 0 && c == 1);
  CHECK_OK(NULL, mauisched_plan_job(plan, b, &id, &prio_b, &started));
  CHECK_STR(id, "B");
  CHECK(!started);
  CHECK_OK(NULL, mauisched_plan_job(plan, c, &id, &prio_c, &started));
  CHECK(started);
  CHECK(prio_b > prio_c);

  /* B waits for resources, reserved for when A's limit is reached. */
  CHECK_OK(NULL, mauisched_plan_job_reason(plan, b, &code, &summary, &detail));
  CHECK(code == MAUISCHED_REASON_RESOURCES);
  CHECK_STR(summary, "Resources");
  CHECK_STR(detail, "insufficient idle procs");
  CHECK_OK(NULL, mauisched_plan_job_schedule(plan, b, &est, &res, &bypass));
  CHECK(est == T0 + 3 * HOUR);
  CHECK_STR(res, "B");
  CHECK(bypass == 1); /* C went past it */
  CHECK_OK(NULL, mauisched_plan_job_reason(plan, c, &code, &summary, &detail));
  CHECK(code == MAUISCHED_REASON_NONE);
  CHECK_STR(summary, "");
  CHECK_OK(NULL, mauisched_plan_job_schedule(plan, c, &est, &res, &bypass));
  CHECK(est == T0);

  /* The priority breakdown: Maui's six components, summing to the priority. */
  CHECK_OK(NULL, mauisched_plan_priority_count(plan, b, &n));
  CHECK(n == 6);
  for (k = 0; k < n; k++) {
    CHECK_OK(NULL, mauisched_plan_priority_component(plan, b, k, &name, &contribution));
    sum += contribution;
    if (k == 0) CHECK_STR(name, "CRED");
    if (k == 3) CHECK_STR(name, "SERV");
  }
  prio = (int64_t)(sum + 0.5);
  CHECK(prio == prio_b);
  /* Queue time in minutes under the default weights: 30 for B, 20 for C. */
  CHECK(prio_b == 30 && prio_c == 20);

  /* B's reservation: both nodes from when A must end, for an hour. */
  CHECK_OK(NULL, mauisched_plan_reservation_count(plan, &n));
  for (i = 0; i < n; i++) {
    CHECK_OK(NULL, mauisched_plan_reservation(plan, i, &id, &kind, &job, &start, &end, &nodes));
    if (strcmp(id, "B") != 0) continue;
    found++;
    CHECK_STR(kind, "Job");
    CHECK_STR(job, "B");
    CHECK(start == T0 + 3 * HOUR && end == T0 + 4 * HOUR);
    CHECK(nodes == 2);
    CHECK_OK(NULL, mauisched_plan_reservation_node(plan, i, 0, &node, &tasks));
    CHECK_STR(node, "n1");
    CHECK(tasks == 1);
    CHECK_OK(NULL, mauisched_plan_reservation_node(plan, i, 1, &node, &tasks));
    CHECK_STR(node, "n2");
  }
  CHECK(found == 1);

  /* The state was written by this first iteration. */
  {
    mauisched_status_t st = MAUISCHED_PANIC;
    bool saved = false;
    const char *msg = NULL;
    CHECK_OK(NULL, mauisched_plan_state_status(plan, &st, &saved, &msg));
    CHECK(st == MAUISCHED_OK);
    CHECK(saved);
    CHECK_STR(msg, "");
  }
}

/* Renders into a heap buffer of the size the library asks for. */
static char *render(mauisched_t *h, const char *cmd, const char *args) {
  size_t need = 0;
  char small[8];
  char *buf;
  CHECK_STATUS(h, mauisched_render(h, cmd, args, small, sizeof small, &need),
               MAUISCHED_BUFFER_TOO_SMALL);
  CHECK(need > sizeof small);
  buf = (char *)malloc(need);
  if (buf == NULL) exit(2);
  CHECK_OK(h, mauisched_render(h, cmd, args, buf, need, &need));
  CHECK(strlen(buf) + 1 == need);
  return buf;
}

static void check_renderers(mauisched_t *h) {
  char *t;
  char buf[64];
  size_t need = 0;

  t = render(h, "showq", NULL);
  CHECK_CONTAINS(t, "ACTIVE JOBS");
  CHECK_CONTAINS(t, "Running");
  CHECK_CONTAINS(t, "Starting");
  CHECK_CONTAINS(t, "IDLE JOBS");
  CHECK_CONTAINS(t, "BLOCKED JOBS");
  CHECK_CONTAINS(t, "   2 of    2 Processors Active (100.00%)");
  CHECK_CONTAINS(t, "Total Jobs: 3   Active Jobs: 2   Idle Jobs: 1   Blocked Jobs: 0");
  free(t);

  t = render(h, "checkjob", "B");
  CHECK_CONTAINS(t, "job B");
  CHECK_CONTAINS(t, "Reason: Resources");
  CHECK_CONTAINS(t, "StartPriority:  30");
  free(t);
  t = render(h, "checkjob", "-v B");
  CHECK_CONTAINS(t, "Node availability:");
  free(t);

  t = render(h, "showstart", "B");
  CHECK_CONTAINS(t, "job B requires 2 procs for 01:00:00");
  CHECK_CONTAINS(t, "Earliest start in          03:00:00");
  free(t);

  t = render(h, "showbf", "");
  CHECK_CONTAINS(t, "partition ALL:");
  free(t);

  t = render(h, "showres", NULL);
  CHECK_CONTAINS(t, "reservations located");
  CHECK_CONTAINS(t, "A ");
  CHECK_CONTAINS(t, "B ");
  free(t);
  t = render(h, "showres", "-n B");
  CHECK_CONTAINS(t, "n1");
  free(t);

  t = render(h, "diagnose", "-p");
  CHECK_CONTAINS(t, "B");
  free(t);
  t = render(h, "diagnose", "-f");
  CHECK_CONTAINS(t, "FS");
  free(t);

  /* Errors: unknown command or arguments, unknown job or reservation. */
  CHECK_STATUS(h, mauisched_render(h, "showqq", NULL, buf, sizeof buf, &need), MAUISCHED_BAD_VALUE);
  CHECK_CONTAINS(last_error(h), "unknown command \"showqq\"");
  CHECK_STATUS(h, mauisched_render(h, "checkjob", NULL, buf, sizeof buf, &need), MAUISCHED_BAD_VALUE);
  CHECK_CONTAINS(last_error(h), "usage: checkjob [-v] JOBID");
  CHECK_STATUS(h, mauisched_render(h, "showbf", "-d banana", buf, sizeof buf, &need), MAUISCHED_BAD_VALUE);
  CHECK_STATUS(h, mauisched_render(h, "diagnose", "-x", buf, sizeof buf, &need), MAUISCHED_BAD_VALUE);
  CHECK_STATUS(h, mauisched_render(h, "checkjob", "Z", buf, sizeof buf, &need), MAUISCHED_NOT_FOUND);
  CHECK_CONTAINS(last_error(h), "job Z is not known");
  CHECK_STATUS(h, mauisched_render(h, "showres", "nosuch", buf, sizeof buf, &need), MAUISCHED_NOT_FOUND);
  /* `written` may be NULL. */
  CHECK_STATUS(h, mauisched_render(h, "showq", NULL, buf, 4, NULL), MAUISCHED_BUFFER_TOO_SMALL);
}

int main(int argc, char **argv) {
  char cfg[1024], state[1024], err[512];
  mauisched_t *h = NULL;
  mauisched_plan_t *plan = NULL;
  char buf[64];
  size_t need = 0;
  if (argc != 2) return 2;
  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state");
  write_file(cfg, "RESERVATIONDEPTH 1\n");
  CHECK_OK(NULL, open_handle(cfg, state, NULL, &h, err, sizeof err));
  if (h == NULL) return finish();

  /* Before any iteration the renderers that read one say so. */
  CHECK_STATUS(h, mauisched_render(h, "showq", NULL, buf, sizeof buf, &need), MAUISCHED_NO_ITERATION);
  CHECK_STATUS(h, mauisched_start_result(h, "C", true, NULL), MAUISCHED_NO_ITERATION);
  /* diagnose -f reads the fairshare history only. */
  CHECK_STATUS(h, mauisched_render(h, "diagnose", "-f", buf, sizeof buf, &need), MAUISCHED_BUFFER_TOO_SMALL);

  CHECK_OK(h, snapshot_abc(h, T0));
  CHECK_OK(h, mauisched_run(h, &plan));
  if (plan != NULL) check_plan(plan);
  mauisched_plan_free(plan);
  check_renderers(h);

  /* What became of the starts (ABI 1.5): C, started, shows running until
   * the next snapshot; not started, it waits again with the cause. */
  {
    char *t;
    CHECK_STATUS(h, mauisched_start_result(h, "B", true, NULL), MAUISCHED_NOT_FOUND);
    CHECK_OK(h, mauisched_start_result(h, "C", true, NULL));
    t = render(h, "showq", NULL);
    CHECK(strstr(t, "Starting") == NULL);
    CHECK_CONTAINS(t, "Active Jobs: 2   Idle Jobs: 1");
    free(t);
    t = render(h, "checkjob", "C");
    CHECK_CONTAINS(t, "State: Running");
    CHECK_CONTAINS(t, "Started ");
    free(t);
    CHECK_OK(h, mauisched_start_result(h, "C", false, "Invalid node name specified"));
    t = render(h, "showq", NULL);
    CHECK_CONTAINS(t, "Active Jobs: 1   Idle Jobs: 2");
    free(t);
    t = render(h, "checkjob", "C");
    CHECK_CONTAINS(t, "State: Idle");
    CHECK_CONTAINS(t, "not carried out: Invalid node name specified");
    free(t);
  }

  /* The snapshot was consumed: running again needs a new one. */
  plan = NULL;
  CHECK_STATUS(h, mauisched_run(h, &plan), MAUISCHED_NO_SNAPSHOT);
  CHECK(plan == NULL);

  /* An hour later A has ended and C runs: B's reservation slides to C's end. */
  {
    mauisched_node_t n1 = mk_node("n1", MAUISCHED_NODE_IDLE, 1);
    mauisched_node_t n2 = mk_node("n2", MAUISCHED_NODE_BUSY, 1);
    mauisched_job_t b = mk_job("B", "u2", 2, HOUR, T0 - 1800);
    mauisched_job_t c = mk_running(mk_job("C", "u3", 1, 2 * HOUR, T0 - 1200), T0, "n2:1");
    size_t n = 9, i = 9;
    int64_t est = 0;
    const char *res = NULL;
    uint32_t bypass = 0;
    CHECK_OK(h, mauisched_snapshot_begin(h, T0 + HOUR));
    CHECK_OK(h, mauisched_snapshot_add_node(h, &n1));
    CHECK_OK(h, mauisched_snapshot_add_node(h, &n2));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &c));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &b));
    CHECK_OK(h, mauisched_run(h, &plan));
    CHECK_OK(h, mauisched_plan_start_count(plan, &n));
    CHECK(n == 0);
    CHECK_OK(h, mauisched_plan_job_find(plan, "B", &i));
    CHECK_OK(h, mauisched_plan_job_schedule(plan, i, &est, &res, &bypass));
    CHECK(est == T0 + 2 * HOUR);
    CHECK(bypass == 1);
    mauisched_plan_free(plan);
  }

  /* Beyond RESERVATIONDEPTH: W2 gets no reservation, and its expected start
   * is showstart's estimate (n1 is reserved for W1 from R1's end, n2 is
   * free when R2 ends); the held W3 gets none. */
  {
    mauisched_node_t n1 = mk_node("n1", MAUISCHED_NODE_BUSY, 1);
    mauisched_node_t n2 = mk_node("n2", MAUISCHED_NODE_BUSY, 1);
    mauisched_job_t a = mk_running(mk_job("R1", "u1", 1, HOUR, T0), T0 + 4 * HOUR, "n1:1");
    mauisched_job_t c = mk_running(mk_job("R2", "u3", 1, 2 * HOUR, T0), T0 + 4 * HOUR, "n2:1");
    mauisched_job_t b = mk_job("W1", "u2", 1, HOUR, T0);
    mauisched_job_t d = mk_job("W2", "u4", 1, HOUR, T0 + HOUR);
    mauisched_job_t e = mk_job("W3", "u5", 1, HOUR, T0 + HOUR);
    size_t i = 9;
    int64_t est = 0;
    const char *res = NULL;
    uint32_t bypass = 0;
    char *t;
    e.holds = MAUISCHED_HOLD_USER;
    CHECK_OK(h, mauisched_snapshot_begin(h, T0 + 4 * HOUR));
    CHECK_OK(h, mauisched_snapshot_add_node(h, &n1));
    CHECK_OK(h, mauisched_snapshot_add_node(h, &n2));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &a));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &c));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &b));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &d));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &e));
    CHECK_OK(h, mauisched_run(h, &plan));
    CHECK_OK(h, mauisched_plan_job_find(plan, "W1", &i));
    CHECK_OK(h, mauisched_plan_job_schedule(plan, i, &est, &res, &bypass));
    CHECK(est == T0 + 5 * HOUR);
    CHECK_STR(res, "W1");
    CHECK_OK(h, mauisched_plan_job_find(plan, "W2", &i));
    CHECK_OK(h, mauisched_plan_job_schedule(plan, i, &est, &res, &bypass));
    CHECK(est == T0 + 6 * HOUR);
    CHECK_STR(res, "");
    CHECK_OK(h, mauisched_plan_job_find(plan, "W3", &i));
    CHECK_OK(h, mauisched_plan_job_schedule(plan, i, &est, &res, &bypass));
    CHECK(est == -1);
    mauisched_plan_free(plan);
    t = render(h, "showstart", "W2");
    CHECK_CONTAINS(t, "Earliest start in          02:00:00");
    free(t);
  }

  mauisched_free(h);
  return finish();
}
