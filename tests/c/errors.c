/*
 * Every error path: NULL arguments, bad configuration files, bad struct
 * sizes, bad UTF-8, bad values, calls out of order, inconsistent
 * snapshots, indexes out of range, too small buffers, a callback calling
 * back into its handle, and reconfigure with a broken file keeping the old
 * configuration. Outputs must be untouched on every error.
 */
#include "testutil.h"

/* Runs the A/B/C scenario and tells whether C was backfilled. */
static int backfills_c(mauisched_t *h) {
  mauisched_plan_t *plan = NULL;
  size_t n = 0;
  int started = 0;
  CHECK_OK(h, snapshot_abc(h, T0));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK_OK(h, mauisched_plan_start_count(plan, &n));
  started = n == 1;
  mauisched_plan_free(plan);
  return started;
}

typedef struct reentry {
  mauisched_t *h;
  int calls;
  mauisched_status_t nested;
  mauisched_status_t nested_error;
  char message[256];
} reentry;

/* A log callback that calls back into its own handle. */
static void reenter(uint32_t level, const char *message, void *userdata) {
  reentry *r = (reentry *)userdata;
  size_t w = 0;
  (void)level;
  (void)message;
  r->calls++;
  r->nested = mauisched_snapshot_begin(r->h, T0);
  r->nested_error = mauisched_last_error(r->h, r->message, sizeof r->message, &w);
}

static void create_errors(const char *dir) {
  char cfg[1024], state[1024], err[512], bad_utf8[8];
  mauisched_options_t o;
  mauisched_t *h = (mauisched_t *)&o; /* a sentinel: must stay untouched */
  mauisched_t *const sentinel = h;
  log_sink *sink = (log_sink *)calloc(1, sizeof(log_sink));

  join(cfg, sizeof cfg, dir, "maui.cfg");
  join(state, sizeof state, dir, "state");
  write_file(cfg, "");

  CHECK_STATUS(NULL, mauisched_new(NULL, &h, err, sizeof err), MAUISCHED_NULL_ARG);
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.config_path = cfg;
  o.state_dir = state;
  CHECK_STATUS(NULL, mauisched_new(&o, NULL, err, sizeof err), MAUISCHED_NULL_ARG);
  CHECK(h == sentinel);

  /* A struct from a caller that did not set the size. */
  o.size = 0;
  CHECK_STATUS(NULL, mauisched_new(&o, &h, err, sizeof err), MAUISCHED_BAD_STRUCT_SIZE);
  CHECK_CONTAINS(err, "sizeof(mauisched_options_t)");
  o.size = sizeof o;
  o.state_dir = NULL;
  CHECK_STATUS(NULL, mauisched_new(&o, &h, err, sizeof err), MAUISCHED_NULL_ARG);
  CHECK_CONTAINS(err, "options.state_dir is NULL");

  /* Bad UTF-8 in a path. */
  bad_utf8[0] = 'x';
  bad_utf8[1] = (char)0xff;
  bad_utf8[2] = (char)0xfe;
  bad_utf8[3] = 0;
  o.state_dir = state;
  o.config_path = bad_utf8;
  CHECK_STATUS(NULL, mauisched_new(&o, &h, err, sizeof err), MAUISCHED_BAD_UTF8);
  CHECK_CONTAINS(err, "not valid UTF-8");

  /* A missing file, then a file with errors: refused, with file:line. */
  o.config_path = "/nonexistent/maui.cfg";
  CHECK_STATUS(NULL, mauisched_new(&o, &h, err, sizeof err), MAUISCHED_IO_ERROR);
  CHECK_CONTAINS(err, "/nonexistent/maui.cfg");
  write_file(cfg, "RMPOLLINTERVAL 30\nRESERVATIONDEPTH banana\n");
  o.config_path = cfg;
  o.log = sink_log;
  o.log_userdata = sink;
  CHECK_STATUS(NULL, mauisched_new(&o, &h, err, sizeof err), MAUISCHED_CONFIG_ERROR);
  CHECK_CONTAINS(err, "maui.cfg:2");
  CHECK_CONTAINS(err, "RESERVATIONDEPTH");
  /* The failure went to the log too. */
  CHECK(sink->errors >= 1);
  CHECK_CONTAINS(sink->text, "mauisched_new failed");
  /* A short error buffer gets a truncated, terminated message. */
  CHECK_STATUS(NULL, mauisched_new(&o, &h, err, 5), MAUISCHED_CONFIG_ERROR);
  CHECK(strlen(err) == 4);
  CHECK_STATUS(NULL, mauisched_new(&o, &h, NULL, 0), MAUISCHED_CONFIG_ERROR);

  /* A state directory that is a file. */
  write_file(cfg, "");
  write_file(state, "not a directory");
  CHECK_STATUS(NULL, mauisched_new(&o, &h, err, sizeof err), MAUISCHED_STATE_ERROR);
  CHECK_CONTAINS(err, "not a directory");
  CHECK(h == sentinel);
  remove(state);
  free(sink);
}

static void handle_errors(const char *dir) {
  char cfg[1024], state[1024], err[512], buf[16], bad_utf8[8];
  mauisched_t *h = NULL;
  mauisched_plan_t *plan = NULL;
  mauisched_plan_t *const sentinel = (mauisched_plan_t *)buf;
  mauisched_node_t node, n1;
  mauisched_job_t job;
  size_t written = 0, n = 77;
  char big[sizeof(mauisched_node_t) + 64];

  join(cfg, sizeof cfg, dir, "maui.cfg");
  join(state, sizeof state, dir, "state");
  write_file(cfg, "BACKFILLPOLICY FIRSTFIT\n");
  CHECK_OK(NULL, open_handle(cfg, state, NULL, &h, err, sizeof err));
  if (h == NULL) return;

  /* NULL handles. */
  CHECK_STATUS(NULL, mauisched_snapshot_begin(NULL, T0), MAUISCHED_NULL_ARG);
  CHECK_STATUS(NULL, mauisched_run(NULL, &plan), MAUISCHED_NULL_ARG);
  CHECK_STATUS(NULL, mauisched_last_error(NULL, buf, sizeof buf, &written), MAUISCHED_NULL_ARG);
  CHECK_STATUS(NULL, mauisched_render(NULL, "showq", NULL, buf, sizeof buf, &written), MAUISCHED_NULL_ARG);
  CHECK_STATUS(NULL, mauisched_reconfigure(NULL, cfg), MAUISCHED_NULL_ARG);
  CHECK_STATUS(NULL, mauisched_set_log(NULL, NULL, NULL), MAUISCHED_NULL_ARG);
  CHECK_STATUS(NULL, mauisched_checkpoint(NULL), MAUISCHED_NULL_ARG);

  /* Calls out of order. */
  node = mk_node("n1", MAUISCHED_NODE_IDLE, 1);
  job = mk_job("1", "u", 1, HOUR, T0);
  CHECK_STATUS(h, mauisched_snapshot_add_node(h, &node), MAUISCHED_NO_SNAPSHOT);
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_NO_SNAPSHOT);
  plan = sentinel;
  CHECK_STATUS(h, mauisched_run(h, &plan), MAUISCHED_NO_SNAPSHOT);
  CHECK(plan == sentinel);
  CHECK_CONTAINS(last_error(h), "mauisched_snapshot_begin was not called");

  /* The last error: its size is told when the buffer is too small. */
  CHECK_STATUS(h, mauisched_last_error(h, buf, 4, &written), MAUISCHED_BUFFER_TOO_SMALL);
  CHECK(written == strlen("mauisched_snapshot_begin was not called") + 1);
  CHECK_STATUS(h, mauisched_last_error(h, NULL, 100, &written), MAUISCHED_NULL_ARG);

  /* NULL and malformed inputs. */
  CHECK_OK(h, mauisched_snapshot_begin(h, T0));
  CHECK_STATUS(h, mauisched_snapshot_add_node(h, NULL), MAUISCHED_NULL_ARG);
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, NULL), MAUISCHED_NULL_ARG);
  CHECK_STATUS(h, mauisched_run(h, NULL), MAUISCHED_NULL_ARG);
  node.size = 8;
  CHECK_STATUS(h, mauisched_snapshot_add_node(h, &node), MAUISCHED_BAD_STRUCT_SIZE);
  CHECK_CONTAINS(last_error(h), "mauisched_node_t.size is 8");
  node.size = sizeof node;
  job.size = 0;
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_BAD_STRUCT_SIZE);
  job.size = sizeof job;
  node.name = NULL;
  CHECK_STATUS(h, mauisched_snapshot_add_node(h, &node), MAUISCHED_NULL_ARG);
  CHECK_CONTAINS(last_error(h), "node.name is NULL");
  bad_utf8[0] = (char)0xc3;
  bad_utf8[1] = 0;
  node.name = bad_utf8;
  CHECK_STATUS(h, mauisched_snapshot_add_node(h, &node), MAUISCHED_BAD_UTF8);
  node.name = "n1";
  node.state = 99;
  CHECK_STATUS(h, mauisched_snapshot_add_node(h, &node), MAUISCHED_BAD_VALUE);
  CHECK_CONTAINS(last_error(h), "state 99");
  node.state = MAUISCHED_NODE_IDLE;
  job.tasks = 0;
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_BAD_VALUE);
  job.tasks = 1;
  job.task_procs = 0;
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_BAD_VALUE);
  CHECK_CONTAINS(last_error(h), "task_procs is 0");
  job.task_procs = 1;
  job.user = NULL;
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_NULL_ARG);
  job.user = "u";
  job.holds = 64;
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_BAD_VALUE);
  job.holds = 0;
  job.allocation = "n1:x";
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_BAD_VALUE);
  job.allocation = NULL;
  job.node_allocation_policy = "SIDEWAYS";
  CHECK_STATUS(h, mauisched_snapshot_add_job(h, &job), MAUISCHED_BAD_VALUE);
  job.node_allocation_policy = NULL;

  /* A struct from a newer header (larger) is accepted. */
  memset(big, 0, sizeof big);
  n1 = mk_node("n1", MAUISCHED_NODE_IDLE, 1);
  n1.size = sizeof big;
  memcpy(big, &n1, sizeof n1);
  CHECK_OK(h, mauisched_snapshot_add_node(h, (const mauisched_node_t *)(const void *)big));

  /* An inconsistent snapshot: refused by run, which writes no plan. */
  CHECK_OK(h, mauisched_snapshot_add_node(h, &node)); /* n1 again */
  plan = sentinel;
  CHECK_STATUS(h, mauisched_run(h, &plan), MAUISCHED_BAD_SNAPSHOT);
  CHECK(plan == sentinel);
  CHECK_CONTAINS(last_error(h), "node \"n1\" appears twice");
  CHECK_OK(h, mauisched_snapshot_begin(h, T0));
  job.allocation = "n9:1";
  job.state = MAUISCHED_JOB_RUNNING;
  CHECK_OK(h, mauisched_snapshot_add_node(h, &node));
  CHECK_OK(h, mauisched_snapshot_add_job(h, &job));
  CHECK_STATUS(h, mauisched_run(h, &plan), MAUISCHED_BAD_SNAPSHOT);
  CHECK_CONTAINS(last_error(h), "unknown node \"n9\"");

  /* Renderer arguments. */
  CHECK_STATUS(h, mauisched_render(h, NULL, NULL, buf, sizeof buf, &written), MAUISCHED_NULL_ARG);
  CHECK_STATUS(h, mauisched_render(h, "diagnose", "-f", NULL, 100, &written), MAUISCHED_NULL_ARG);
  CHECK_STATUS(h, mauisched_render(h, "nope", NULL, buf, sizeof buf, &written), MAUISCHED_BAD_VALUE);

  /* Administrative calls. */
  CHECK_STATUS(h, mauisched_set_system_priority(h, "1", -5), MAUISCHED_BAD_VALUE);
  CHECK_STATUS(h, mauisched_set_system_priority(h, NULL, 5), MAUISCHED_NULL_ARG);
  CHECK_STATUS(h, mauisched_clear_system_priority(h, "1"), MAUISCHED_NOT_FOUND);
  CHECK_STATUS(h, mauisched_admin_res_release(h, "nosuch"), MAUISCHED_NOT_FOUND);
  CHECK_STATUS(h, mauisched_admin_res_list(h, NULL), MAUISCHED_NULL_ARG);
  {
    mauisched_admin_res_request_t req;
    char id[64];
    memset(&req, 0, sizeof req);
    req.size = sizeof req;
    req.tasks = 1;
    CHECK_STATUS(h, mauisched_admin_res_create(h, &req, T0, id, sizeof id, &written),
                 MAUISCHED_NO_ITERATION);
    CHECK_STATUS(h, mauisched_admin_res_create(h, NULL, T0, id, sizeof id, &written),
                 MAUISCHED_NULL_ARG);
  }

  /* Reconfigure: a broken file is refused and the old configuration stays. */
  CHECK(backfills_c(h));
  write_file(cfg, "BACKFILLPOLICY NONE\nRESERVATIONDEPTH banana\n");
  CHECK_STATUS(h, mauisched_reconfigure(h, NULL), MAUISCHED_CONFIG_ERROR);
  CHECK_CONTAINS(last_error(h), "RESERVATIONDEPTH");
  CHECK(backfills_c(h));
  CHECK_STATUS(h, mauisched_reconfigure(h, "/nonexistent/maui.cfg"), MAUISCHED_IO_ERROR);
  CHECK(backfills_c(h));
  /* A good file takes effect. */
  write_file(cfg, "BACKFILLPOLICY NONE\n");
  CHECK_OK(h, mauisched_reconfigure(h, cfg));
  CHECK(!backfills_c(h));

  /* Plan accessors: NULL plan or output, index past the end, unknown job;
   * outputs untouched on error. */
  CHECK_OK(h, snapshot_abc(h, T0));
  CHECK_OK(h, mauisched_run(h, &plan));
  {
    const char *s = "untouched";
    int64_t t = 42;
    bool b = true;
    uint32_t u = 7;
    size_t i = 5;
    n = 77;
    CHECK_STATUS(NULL, mauisched_plan_start_count(NULL, &n), MAUISCHED_NULL_ARG);
    CHECK_STATUS(NULL, mauisched_plan_start_count(plan, NULL), MAUISCHED_NULL_ARG);
    CHECK_STATUS(NULL, mauisched_plan_now(plan, NULL), MAUISCHED_NULL_ARG);
    CHECK_STATUS(NULL, mauisched_plan_job(plan, 99, &s, &t, &b), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_job(plan, 0, &s, NULL, &b), MAUISCHED_NULL_ARG);
    CHECK_STATUS(NULL, mauisched_plan_job_reason(plan, 99, &u, &s, &s), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_job_schedule(plan, 99, &t, &s, &u), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_start(plan, 99, &s, &b, &s, &i), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_start_node(plan, 99, 0, &s, &u), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_priority_count(plan, 99, &i), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_priority_component(plan, 0, 99, &s, (double *)buf), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_reservation_node(plan, 99, 0, &s, &u), MAUISCHED_OUT_OF_RANGE);
    CHECK_STATUS(NULL, mauisched_plan_job_find(plan, "Z", &i), MAUISCHED_NOT_FOUND);
    CHECK_STATUS(NULL, mauisched_plan_job_find(plan, NULL, &i), MAUISCHED_NULL_ARG);
    CHECK_STATUS(NULL, mauisched_plan_state_status(plan, NULL, &b, &s), MAUISCHED_NULL_ARG);
    CHECK(n == 77 && t == 42 && b && u == 7 && i == 5);
    CHECK_STR(s, "untouched");
  }
  mauisched_plan_free(plan);

  /* A callback calling back into its handle gets MAUISCHED_BUSY; the
   * last error stays readable from inside. */
  {
    reentry r;
    memset(&r, 0, sizeof r);
    r.h = h;
    CHECK_OK(h, mauisched_set_log(h, reenter, &r));
    CHECK_OK(h, mauisched_reconfigure(h, NULL));
    CHECK(r.calls > 0);
    CHECK(r.nested == MAUISCHED_BUSY);
    CHECK(r.nested_error == MAUISCHED_OK);
    CHECK_CONTAINS(r.message, "busy");
    CHECK_OK(h, mauisched_set_log(h, NULL, NULL));
    /* The handle works normally afterwards. */
    CHECK(!backfills_c(h));
  }
  mauisched_free(h);
}

/* A maui.cfg that breaks while the scheduler is down (Slurm 24.11 restarts
 * slurmctld on `scontrol reconfigure`): the handle starts on the last good
 * copy kept in the state directory and says what is wrong, and where, in
 * the log and as the last error, as a refused reconfigure does. */
static void last_good_config(const char *dir) {
  char cfg[1024], state[1024], err[512];
  mauisched_t *h = NULL;
  mauisched_settings_t s;
  log_sink *sink = (log_sink *)calloc(1, sizeof(log_sink));

  join(cfg, sizeof cfg, dir, "last-good.cfg");
  join(state, sizeof state, dir, "state-last-good");
  write_file(cfg, "RMPOLLINTERVAL 45\n");
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  CHECK_STR(last_error(h), "");
  mauisched_free(h);
  h = NULL;

  write_file(cfg, "RMPOLLINTERVAL 30\nRESERVATIONDEPTH banana\n");
  sink_clear(sink);
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  if (h != NULL) {
    CHECK_CONTAINS(last_error(h), "last-good.cfg:2");
    CHECK_CONTAINS(last_error(h), "RESERVATIONDEPTH");
    CHECK_CONTAINS(last_error(h), "maui.cfg.last-good");
    CHECK(sink->errors >= 1);
    CHECK_CONTAINS(sink->text, "last-good.cfg:2");
    /* The copy is in force, not the broken file. */
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    CHECK_OK(h, mauisched_settings(h, &s));
    CHECK(s.rm_poll_interval_s == 45);
    /* Fixing the file and reconfiguring brings it in. */
    write_file(cfg, "RMPOLLINTERVAL 30\n");
    CHECK_OK(h, mauisched_reconfigure(h, NULL));
    CHECK_OK(h, mauisched_settings(h, &s));
    CHECK(s.rm_poll_interval_s == 30);
    mauisched_free(h);
  }
  free(sink);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  create_errors(argv[1]);
  handle_errors(argv[1]);
  last_good_config(argv[1]);
  return finish();
}
