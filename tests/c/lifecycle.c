/*
 * Lifecycle: version, create, use, free; the status names. Also compiled
 * as C++ (the header must be usable from both).
 */
#include "testutil.h"

int main(int argc, char **argv) {
  char cfg[1024], state[1024], err[512];
  log_sink *sink = (log_sink *)calloc(1, sizeof(log_sink));
  mauisched_t *h = NULL;
  mauisched_plan_t *plan = NULL;
  size_t n = 0;
  if (argc != 2 || sink == NULL) return 2;

  /* The library is the version this header describes. */
  CHECK(MAUISCHED_ABI_COMPATIBLE());
  CHECK((mauisched_abi_version() >> 16) == MAUISCHED_ABI_MAJOR);
  CHECK((mauisched_abi_version() & 0xffffu) == MAUISCHED_ABI_MINOR);

  /* Status names: fixed numbers, OK is 0. */
  CHECK(MAUISCHED_OK == 0);
  CHECK(MAUISCHED_NULL_ARG == 7001);
  CHECK(MAUISCHED_POISONED == 7091);
  CHECK_STR(mauisched_status_name(MAUISCHED_OK), "MAUISCHED_OK");
  CHECK_STR(mauisched_status_name(MAUISCHED_BUFFER_TOO_SMALL), "MAUISCHED_BUFFER_TOO_SMALL");
  CHECK_STR(mauisched_status_name(MAUISCHED_BUSY), "MAUISCHED_BUSY");
  CHECK_STR(mauisched_status_name(12345), "MAUISCHED_UNKNOWN_STATUS");

  /* Freeing NULL is a no-op. */
  mauisched_free(NULL);
  mauisched_plan_free(NULL);
  mauisched_admin_res_list_free(NULL);

  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state/mauisched");
  write_file(cfg, "# an empty configuration: Maui's defaults\n");
  err[0] = 0;
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  CHECK(h != NULL);
  CHECK_STR(err, "");
  /* The log said what was found: a new state directory, no checkpoint. */
  CHECK_CONTAINS(sink->text, "created state directory");
  CHECK_CONTAINS(sink->text, "first start");
  CHECK(sink->errors == 0);
  /* No failed call yet: the last error is empty. */
  CHECK_STR(last_error(h), "");

  /* One iteration on an empty cluster. */
  CHECK_OK(h, mauisched_snapshot_begin(h, T0));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK(plan != NULL);
  CHECK_OK(h, mauisched_plan_start_count(plan, &n));
  CHECK(n == 0);
  CHECK_OK(h, mauisched_plan_job_count(plan, &n));
  CHECK(n == 0);
  mauisched_plan_free(plan);

  /* A plan outlives its handle. */
  CHECK_OK(h, snapshot_abc(h, T0));
  CHECK_OK(h, mauisched_run(h, &plan));
  mauisched_free(h);
  h = NULL;
  CHECK_OK(NULL, mauisched_plan_start_count(plan, &n));
  CHECK(n == 1);
  mauisched_plan_free(plan);

  /* Freeing wrote the state: a second handle resumes from it. */
  sink_clear(sink);
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  CHECK_CONTAINS(sink->text, "resumed from the checkpoint");
  mauisched_free(h);
  free(sink);
  return finish();
}
