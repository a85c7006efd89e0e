/*
 * Administrative calls: reservations created, listed and released as
 * setres and releaseres do (checked as a whole, nothing changed on
 * error, in force from the next iteration), and system priorities.
 */
#include "testutil.h"

static size_t list_count(mauisched_t *h) {
  mauisched_admin_res_list_t *l = NULL;
  size_t n = 999;
  CHECK_OK(h, mauisched_admin_res_list(h, &l));
  CHECK_OK(h, mauisched_admin_res_list_count(l, &n));
  mauisched_admin_res_list_free(l);
  return n;
}

/* The plan's reservation by id: its kind, or NULL. */
static const char *plan_res_kind(const mauisched_plan_t *plan, const char *want, int64_t *start) {
  size_t n = 0, i, nodes;
  const char *id, *kind, *job;
  int64_t s, e;
  CHECK_OK(NULL, mauisched_plan_reservation_count(plan, &n));
  for (i = 0; i < n; i++) {
    CHECK_OK(NULL, mauisched_plan_reservation(plan, i, &id, &kind, &job, &s, &e, &nodes));
    if (strcmp(id, want) == 0) {
      *start = s;
      return kind;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  char cfg[1024], state[1024], err[512], id[64];
  mauisched_t *h = NULL;
  mauisched_plan_t *plan = NULL;
  mauisched_admin_res_request_t req;
  mauisched_admin_res_list_t *l = NULL;
  size_t written = 0, n = 0, nodes = 0;
  const char *s = NULL, *node = NULL;
  int64_t created = 0, start = 0, end = 0;
  uint32_t tasks = 0;
  if (argc != 2) return 2;
  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state");
  write_file(cfg, "");
  CHECK_OK(NULL, open_handle(cfg, state, NULL, &h, err, sizeof err));
  if (h == NULL) return finish();
  CHECK_OK(h, snapshot_abc(h, T0));
  CHECK_OK(h, mauisched_run(h, &plan));
  mauisched_plan_free(plan);

  /* One task on a whole node for user u9, two hours from now, for an hour. */
  memset(&req, 0, sizeof req);
  req.size = sizeof req;
  req.users = "u9";
  req.tasks = 1;
  req.start = T0 + 2 * HOUR;
  req.duration = HOUR;
  CHECK_OK(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written));
  CHECK_STR(id, "u9.1");
  CHECK(written == 5);

  CHECK_OK(h, mauisched_admin_res_list(h, &l));
  CHECK_OK(h, mauisched_admin_res_list_count(l, &n));
  CHECK(n == 1);
  CHECK_OK(h, mauisched_admin_res_list_get(l, 0, &s, &created, &start, &end, &nodes));
  CHECK_STR(s, "u9.1");
  CHECK(created == T0 && start == T0 + 2 * HOUR && end == T0 + 3 * HOUR);
  CHECK(nodes == 1);
  CHECK_OK(h, mauisched_admin_res_list_node(l, 0, 0, &node, &tasks));
  CHECK(tasks == 1);
  CHECK_STATUS(h, mauisched_admin_res_list_get(l, 1, &s, &created, &start, &end, &nodes),
               MAUISCHED_OUT_OF_RANGE);
  CHECK_STATUS(h, mauisched_admin_res_list_node(l, 0, 1, &node, &tasks), MAUISCHED_OUT_OF_RANGE);
  CHECK_STATUS(h, mauisched_admin_res_list_count(NULL, &n), MAUISCHED_NULL_ARG);
  mauisched_admin_res_list_free(l);

  /* Errors change nothing. */
  req.name = "u9.1";
  CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written), MAUISCHED_REFUSED);
  CHECK_CONTAINS(last_error(h), "already exists");
  req.name = "bad name!";
  CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written), MAUISCHED_BAD_VALUE);
  CHECK_CONTAINS(last_error(h), "name");
  req.name = NULL;
  req.hosts = "nosuch";
  CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written), MAUISCHED_BAD_VALUE);
  CHECK_CONTAINS(last_error(h), "no node named \"nosuch\"");
  req.hosts = NULL;
  req.tasks = 5;
  CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written), MAUISCHED_REFUSED);
  CHECK_CONTAINS(last_error(h), "of 5 tasks are available");
  req.tasks = 1;
  req.duration = -5;
  CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written), MAUISCHED_BAD_VALUE);
  req.duration = HOUR;
  req.size = 16;
  CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written), MAUISCHED_BAD_STRUCT_SIZE);
  req.size = sizeof req;
  /* A buffer too small for the name: refused, the size needed told, and
   * the reservation not made. (Later, when a node is free again.) */
  req.start = T0 + 5 * HOUR;
  strcpy(id, "x");
  CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, 3, &written), MAUISCHED_BUFFER_TOO_SMALL);
  CHECK(written == 5);
  CHECK_STR(id, "x");
  CHECK(list_count(h) == 1);

  /* In force from the next iteration: the plan lists it; the reservation
   * was placed around B's (n1 and n2 from T0 + 3 h). */
  CHECK_OK(h, snapshot_abc(h, T0 + 60));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK_STR(plan_res_kind(plan, "u9.1", &start), "User");
  CHECK(start == T0 + 2 * HOUR);
  mauisched_plan_free(plan);

  /* Released: gone from the list and, from the next iteration, the plan. */
  CHECK_OK(h, mauisched_admin_res_release(h, "u9.1"));
  CHECK_STATUS(h, mauisched_admin_res_release(h, "u9.1"), MAUISCHED_NOT_FOUND);
  CHECK(list_count(h) == 0);
  CHECK_OK(h, snapshot_abc(h, T0 + 120));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK(plan_res_kind(plan, "u9.1", &start) == NULL);
  mauisched_plan_free(plan);
  /* A released name is not given again. */
  CHECK_OK(h, mauisched_admin_res_create(h, &req, T0 + 120, id, sizeof id, &written));
  CHECK_STR(id, "u9.2");

  /* setspri: C now ranks first and starts in priority order, not by backfill. */
  CHECK_OK(h, mauisched_set_system_priority(h, "C", 10));
  CHECK_OK(h, snapshot_abc(h, T0 + 180));
  CHECK_OK(h, mauisched_run(h, &plan));
  {
    const char *job = NULL, *res = NULL;
    int64_t prio = 0;
    bool started = false, backfill = true;
    CHECK_OK(h, mauisched_plan_job(plan, 0, &job, &prio, &started));
    CHECK_STR(job, "C");
    CHECK(prio == 1000000000 + 10);
    CHECK(started);
    CHECK_OK(h, mauisched_plan_start(plan, 0, &job, &backfill, &res, &n));
    CHECK_STR(job, "C");
    CHECK(!backfill);
  }
  mauisched_plan_free(plan);
  /* Priority 0 clears, as setspri 0 does; clearing twice is NOT_FOUND. */
  CHECK_OK(h, mauisched_set_system_priority(h, "C", 0));
  CHECK_STATUS(h, mauisched_clear_system_priority(h, "C"), MAUISCHED_NOT_FOUND);
  CHECK_OK(h, mauisched_set_system_priority(h, "C", 3));
  CHECK_OK(h, mauisched_clear_system_priority(h, "C"));
  CHECK_STATUS(h, mauisched_set_system_priority(h, "C", 2000000000), MAUISCHED_BAD_VALUE);

  mauisched_free(h);
  return finish();
}
