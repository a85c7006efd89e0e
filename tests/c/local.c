/*
 * NODEALLOCATIONPOLICY LOCAL: the site's allocator is asked, its answer
 * used; a declined or invalid answer falls back to LASTAVAILABLE (logged),
 * and the job still starts.
 */
#include "testutil.h"

enum mode { PACK_LAST, TOO_MANY, DECLINE, CALL_BACK };

typedef struct site {
  enum mode mode;
  mauisched_t *h;
  int calls;
  int request_ok;
  int candidates_ok;
  mauisched_status_t nested;
} site;

static int32_t allocate(const mauisched_local_request_t *req,
                        const mauisched_local_candidate_t *const *cands, size_t count,
                        uint32_t *tasks_out, void *userdata) {
  site *s = (site *)userdata;
  size_t i;
  char name[8];
  s->calls++;
  s->request_ok = req->size == sizeof(mauisched_local_request_t) && strcmp(req->job_id, "J") == 0 &&
                  strcmp(req->user, "u1") == 0 && req->tasks == 2 && req->task_procs == 1 &&
                  req->immediate;
  s->candidates_ok = count == 4;
  for (i = 0; i < count; i++) {
    snprintf(name, sizeof name, "n%u", (unsigned)(i + 1));
    s->candidates_ok = s->candidates_ok && cands[i]->size == sizeof(mauisched_local_candidate_t) &&
                       strcmp(cands[i]->node, name) == 0 && cands[i]->max_tasks == 2 &&
                       cands[i]->free_procs == 2 && tasks_out[i] == 0;
  }
  switch (s->mode) {
    case PACK_LAST:
      tasks_out[count - 1] = 2;
      return 0;
    case TOO_MANY:
      tasks_out[0] = 3; /* more than the node's max_tasks */
      return 0;
    case CALL_BACK:
      s->nested = mauisched_snapshot_begin(s->h, T0);
      return 1;
    case DECLINE:
    default:
      return 1;
  }
}

/* Runs J (2 tasks) on four idle 2-processor nodes; gives the nodes it got. */
static void run_j(mauisched_t *h, const char *policy, char *got, size_t len) {
  mauisched_plan_t *plan = NULL;
  mauisched_node_t n;
  mauisched_job_t j = mk_job("J", "u1", 2, HOUR, T0 - 60);
  char name[8];
  size_t i, count = 0, nodes = 0;
  const char *id, *res, *node;
  bool backfill;
  uint32_t tasks;
  j.node_allocation_policy = policy;
  got[0] = 0;
  CHECK_OK(h, mauisched_snapshot_begin(h, T0));
  for (i = 1; i <= 4; i++) {
    snprintf(name, sizeof name, "n%u", (unsigned)i);
    n = mk_node(name, MAUISCHED_NODE_IDLE, 2);
    CHECK_OK(h, mauisched_snapshot_add_node(h, &n));
  }
  CHECK_OK(h, mauisched_snapshot_add_job(h, &j));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK_OK(h, mauisched_plan_start_count(plan, &count));
  CHECK(count == 1);
  if (count == 1) {
    CHECK_OK(h, mauisched_plan_start(plan, 0, &id, &backfill, &res, &nodes));
    for (i = 0; i < nodes; i++) {
      CHECK_OK(h, mauisched_plan_start_node(plan, 0, i, &node, &tasks));
      snprintf(got + strlen(got), len - strlen(got), "%s%s:%u", i ? "," : "", node, tasks);
    }
  }
  mauisched_plan_free(plan);
}

int main(int argc, char **argv) {
  char cfg[1024], state[1024], err[512], got[256];
  log_sink *sink = (log_sink *)calloc(1, sizeof(log_sink));
  mauisched_t *h = NULL;
  site s;
  if (argc != 2 || sink == NULL) return 2;
  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state");
  write_file(cfg, "NODEALLOCATIONPOLICY LOCAL\n");
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  if (h == NULL) return finish();
  memset(&s, 0, sizeof s);
  s.h = h;
  CHECK_OK(h, mauisched_set_local_allocator(h, allocate, &s));

  /* The site's answer is used. */
  s.mode = PACK_LAST;
  run_j(h, NULL, got, sizeof got);
  CHECK(s.calls >= 1);
  CHECK(s.request_ok);
  CHECK(s.candidates_ok);
  CHECK_STR(got, "n4:2");

  /* An answer that breaks the request: logged, LASTAVAILABLE decides. */
  s.mode = TOO_MANY;
  sink_clear(sink);
  run_j(h, NULL, got, sizeof got);
  CHECK_CONTAINS(sink->text, "job J: the LOCAL allocator's answer [n1:3]");
  CHECK(sink->warnings == 1);
  CHECK(strlen(got) > 0);

  /* Declined: LASTAVAILABLE decides too. */
  s.mode = DECLINE;
  sink_clear(sink);
  run_j(h, NULL, got, sizeof got);
  CHECK_CONTAINS(sink->text, "declined");
  CHECK(strlen(got) > 0);

  /* The callback may not call back into the handle. */
  s.mode = CALL_BACK;
  run_j(h, NULL, got, sizeof got);
  CHECK(s.nested == MAUISCHED_BUSY);

  /* A job's own LOCAL policy reaches the allocator under another default. */
  write_file(cfg, "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n");
  CHECK_OK(h, mauisched_reconfigure(h, NULL));
  s.mode = PACK_LAST;
  s.calls = 0;
  run_j(h, NULL, got, sizeof got);
  CHECK(s.calls == 0);
  CHECK_STR(got, "n1:2");
  run_j(h, "LOCAL", got, sizeof got);
  CHECK(s.calls >= 1);
  CHECK_STR(got, "n4:2");

  /* Unregistered: LOCAL falls back without asking. */
  CHECK_OK(h, mauisched_set_local_allocator(h, NULL, NULL));
  s.calls = 0;
  run_j(h, "LOCAL", got, sizeof got);
  CHECK(s.calls == 0);
  CHECK(strlen(got) > 0);

  mauisched_free(h);
  free(sink);
  return finish();
}
