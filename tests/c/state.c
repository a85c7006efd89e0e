/*
 * State across handles: fairshare usage (the FS.<epoch> files), bypass
 * counts, administrative reservations and effective queue time survive
 * freeing a handle and creating a new one on the same state directory; a
 * corrupt checkpoint is moved aside and reported, and the engine starts
 * from the fairshare files; a state directory is used by one handle at a
 * time; a failed write (the checkpoint's folder does not exist) is
 * reported without losing the plan.
 */
#include "testutil.h"

/* Window start of T0 under FSINTERVAL 24:00:00. */
#define FS_FILE "state/stats/FS.1699920000"

/* The A/B/C cluster at `now`, later in its life: A still runs on n1, C
 * runs on n2 since T0, B waits, H (held at T0) is released. */
static void snapshot_later(mauisched_t *h, int64_t now) {
  mauisched_node_t n1 = mk_node("n1", MAUISCHED_NODE_BUSY, 1);
  mauisched_node_t n2 = mk_node("n2", MAUISCHED_NODE_BUSY, 1);
  mauisched_job_t a = mk_running(mk_job("A", "u1", 1, 4 * HOUR, T0 - 2 * HOUR), T0 - HOUR, "n1:1");
  mauisched_job_t b = mk_job("B", "u2", 2, HOUR, T0 - 1800);
  mauisched_job_t c = mk_running(mk_job("C", "u3", 1, 2 * HOUR, T0 - 1200), T0, "n2:1");
  mauisched_job_t hj = mk_job("H", "u4", 1, HOUR, T0 - HOUR);
  CHECK_OK(h, mauisched_snapshot_begin(h, now));
  CHECK_OK(h, mauisched_snapshot_add_node(h, &n1));
  CHECK_OK(h, mauisched_snapshot_add_node(h, &n2));
  CHECK_OK(h, mauisched_snapshot_add_job(h, &a));
  CHECK_OK(h, mauisched_snapshot_add_job(h, &b));
  CHECK_OK(h, mauisched_snapshot_add_job(h, &c));
  CHECK_OK(h, mauisched_snapshot_add_job(h, &hj));
}

static void state_status(const mauisched_plan_t *plan, mauisched_status_t *st, bool *saved) {
  const char *msg = NULL;
  CHECK_OK(NULL, mauisched_plan_state_status(plan, st, saved, &msg));
}

static uint32_t bypass_of(const mauisched_plan_t *plan, const char *id) {
  size_t i = 0;
  int64_t est = 0;
  const char *res = NULL;
  uint32_t bypass = 999;
  CHECK_OK(NULL, mauisched_plan_job_find(plan, id, &i));
  CHECK_OK(NULL, mauisched_plan_job_schedule(plan, i, &est, &res, &bypass));
  return bypass;
}

static size_t admin_count(mauisched_t *h) {
  mauisched_admin_res_list_t *l = NULL;
  size_t n = 999;
  CHECK_OK(h, mauisched_admin_res_list(h, &l));
  CHECK_OK(h, mauisched_admin_res_list_count(l, &n));
  mauisched_admin_res_list_free(l);
  return n;
}

int main(int argc, char **argv) {
  char cfg[1024], state[1024], err[512], path[1024], text[1 << 14];
  log_sink *sink = (log_sink *)calloc(1, sizeof(log_sink));
  mauisched_t *h = NULL, *h2 = NULL;
  mauisched_plan_t *plan = NULL;
  mauisched_status_t st = MAUISCHED_PANIC;
  bool saved = false;
  size_t written = 0;
  if (argc != 2 || sink == NULL) return 2;
  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state");
  write_file(cfg, "FSPOLICY DEDICATEDPS\nFSINTERVAL 24:00:00\nCHECKPOINTINTERVAL 1:00:00\n");

  /* Handle 1. */
  CHECK_OK(NULL, open_handle(cfg, state, NULL, &h, err, sizeof err));
  if (h == NULL) return finish();
  /* One handle per state directory. */
  CHECK_STATUS(NULL, open_handle(cfg, state, NULL, &h2, err, sizeof err), MAUISCHED_STATE_ERROR);
  CHECK_CONTAINS(err, "in use by another handle");
  CHECK(h2 == NULL);

  /* T0: C is backfilled past B (B's bypass count 1); H is held. */
  {
    mauisched_job_t hj = mk_job("H", "u4", 1, HOUR, T0 - HOUR);
    hj.holds = MAUISCHED_HOLD_USER;
    CHECK_OK(h, snapshot_abc(h, T0));
    CHECK_OK(h, mauisched_snapshot_add_job(h, &hj));
  }
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK(bypass_of(plan, "B") == 1);
  state_status(plan, &st, &saved);
  CHECK(st == MAUISCHED_OK && saved); /* a handle's first iteration writes */
  mauisched_plan_free(plan);

  /* T0 + 10 min: A and C ran for 600 s (fairshare), H was released. */
  snapshot_later(h, T0 + 600);
  CHECK_OK(h, mauisched_run(h, &plan));
  state_status(plan, &st, &saved);
  CHECK(st == MAUISCHED_OK && !saved); /* within CHECKPOINTINTERVAL */
  CHECK(bypass_of(plan, "B") == 1);
  mauisched_plan_free(plan);

  /* An administrative reservation a day ahead. */
  {
    mauisched_admin_res_request_t req;
    char id[64];
    memset(&req, 0, sizeof req);
    req.size = sizeof req;
    req.name = "maint";
    req.hosts = "n2";
    req.start = T0 + 24 * HOUR;
    req.duration = HOUR;
    CHECK_OK(h, mauisched_admin_res_create(h, &req, T0 + 600, id, sizeof id, &written));
  }
  /* Freeing writes what is pending. */
  mauisched_free(h);
  h = NULL;
  read_file(join(path, sizeof path, argv[1], FS_FILE), text, sizeof text);
  CHECK_CONTAINS(text, "User u1 600.000");
  CHECK_CONTAINS(text, "User u3 600.000");
  CHECK_CONTAINS(text, "TOTAL 1200.000");

  /* Handle 2 on the same directory resumes. */
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  if (h == NULL) return finish();
  CHECK_CONTAINS(sink->text, "resumed from the checkpoint, 1 fairshare window(s)");
  CHECK(admin_count(h) == 1);
  snapshot_later(h, T0 + 1200);
  CHECK_OK(h, mauisched_run(h, &plan));
  /* Bypass count kept. */
  CHECK(bypass_of(plan, "B") == 1);
  mauisched_plan_free(plan);
  /* Effective queue time kept: H accrues from its release (T0 + 600) only,
   * 10 minutes, not the 80 since its submission. */
  CHECK_OK(h, mauisched_render(h, "checkjob", "H", text, sizeof text, &written));
  CHECK_CONTAINS(text, "Eligible: 00:10:00");
  CHECK_OK(h, mauisched_render(h, "diagnose", "-f", text, sizeof text, &written));
  CHECK_CONTAINS(text, "u1");
  /* An explicit checkpoint writes now; the usage has grown to 1200 s. */
  CHECK_OK(h, mauisched_checkpoint(h));
  read_file(join(path, sizeof path, argv[1], FS_FILE), text, sizeof text);
  CHECK_CONTAINS(text, "User u1 1200.000");
  mauisched_free(h);
  h = NULL;

  /* A corrupt checkpoint: moved aside, reported, and the engine starts
   * from the fairshare files alone. */
  write_file(join(path, sizeof path, argv[1], "state/maui.ck"), "{\"version\": 1, \"saved_at\": tru");
  sink_clear(sink);
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  if (h == NULL) return finish();
  CHECK(sink->errors == 1);
  CHECK_CONTAINS(sink->text, "maui.ck cannot be read");
  CHECK_CONTAINS(sink->text, "starting from the fairshare files alone");
  {
    const char *at = strstr(sink->text, "moved aside to ");
    char moved[1024];
    size_t n = 0;
    if (at != NULL) {
      at += strlen("moved aside to ");
      while (at[n] && at[n] != ';' && n + 1 < sizeof moved) {
        moved[n] = at[n];
        n++;
      }
    }
    moved[n] = 0;
    CHECK_CONTAINS(moved, "maui.ck.corrupt-");
    CHECK_STR(read_file(moved, text, sizeof text), "{\"version\": 1, \"saved_at\": tru");
  }
  CHECK(admin_count(h) == 0);
  CHECK_OK(h, mauisched_render(h, "diagnose", "-f", text, sizeof text, &written));
  CHECK_CONTAINS(text, "u1");
  mauisched_free(h);
  h = NULL;

  /* A checkpoint that cannot be written: the iteration still gives its
   * plan; the failure is logged and reported with the plan. */
  write_file(cfg, "CHECKPOINTFILE nowhere/blocked.ck\n");
  sink_clear(sink);
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  if (h == NULL) return finish();
  CHECK_OK(h, snapshot_abc(h, T0 + 1800));
  CHECK_OK(h, mauisched_run(h, &plan));
  {
    const char *msg = NULL;
    size_t n = 0;
    CHECK_OK(h, mauisched_plan_state_status(plan, &st, &saved, &msg));
    CHECK(st == MAUISCHED_IO_ERROR);
    CHECK(!saved);
    CHECK_CONTAINS(msg, "blocked.ck");
    CHECK_OK(h, mauisched_plan_start_count(plan, &n));
    CHECK(n == 1);
  }
  mauisched_plan_free(plan);
  CHECK(sink->errors == 1);
  CHECK_CONTAINS(sink->text, "state not saved");
  CHECK_STATUS(h, mauisched_checkpoint(h), MAUISCHED_IO_ERROR);
  CHECK_CONTAINS(last_error(h), "blocked.ck");
  sink_clear(sink);
  mauisched_free(h);
  CHECK_CONTAINS(sink->text, "state not saved at shutdown");
  free(sink);
  return finish();
}
