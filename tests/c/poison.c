/*
 * The panic boundary: run with MAUISCHED_TEST_PANIC=mauisched_run (a debug
 * build of the library then panics inside mauisched_run). The panic must
 * come back as MAUISCHED_PANIC, poison the handle, be logged, and leave
 * the handle freeable. Run against a release build (MAUISCHED_TEST_RELEASE
 * set), the variable must change nothing.
 */
#include "testutil.h"

int main(int argc, char **argv) {
  char cfg[1024], state[1024], err[512], buf[256];
  log_sink *sink = (log_sink *)calloc(1, sizeof(log_sink));
  mauisched_t *h = NULL;
  mauisched_plan_t *plan = (mauisched_plan_t *)buf;
  mauisched_plan_t *const sentinel = plan;
  size_t written = 0;
  if (argc != 2 || sink == NULL) return 2;
  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state");
  write_file(cfg, "");
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  if (h == NULL) return finish();
  CHECK(getenv("MAUISCHED_TEST_PANIC") != NULL);

  if (getenv("MAUISCHED_TEST_RELEASE") != NULL) {
    /* A release build has no test hook: the variable changes nothing. */
    CHECK_OK(h, snapshot_abc(h, T0));
    CHECK_OK(h, mauisched_run(h, &plan));
    CHECK(plan != sentinel);
    mauisched_plan_free(plan);
    mauisched_free(h);
    free(sink);
    return finish();
  }

  CHECK_OK(h, snapshot_abc(h, T0));
  CHECK_STATUS(h, mauisched_run(h, &plan), MAUISCHED_PANIC);
  CHECK(plan == sentinel);
  CHECK_CONTAINS(last_error(h), "panic");
  CHECK_CONTAINS(last_error(h), "poisoned");
  CHECK(sink->errors == 1);
  CHECK_CONTAINS(sink->text, "deliberate panic");

  /* Every later call is refused; the last error stays readable. */
  CHECK_STATUS(h, mauisched_snapshot_begin(h, T0), MAUISCHED_POISONED);
  CHECK_STATUS(h, mauisched_run(h, &plan), MAUISCHED_POISONED);
  CHECK_STATUS(h, mauisched_render(h, "showq", NULL, buf, sizeof buf, &written), MAUISCHED_POISONED);
  CHECK_STATUS(h, mauisched_reconfigure(h, NULL), MAUISCHED_POISONED);
  CHECK_STATUS(h, mauisched_checkpoint(h), MAUISCHED_POISONED);
  CHECK_STATUS(h, mauisched_set_log(h, NULL, NULL), MAUISCHED_POISONED);
  CHECK_OK(h, mauisched_last_error(h, buf, sizeof buf, &written));
  CHECK_CONTAINS(buf, "panic");
  CHECK(plan == sentinel);

  /* Freeing a poisoned handle is fine and writes nothing. */
  mauisched_free(h);
  h = NULL;
  {
    char ck[1024];
    FILE *f = fopen(join(ck, sizeof ck, argv[1], "state/maui.ck"), "r");
    CHECK(f == NULL);
    if (f != NULL) fclose(f);
  }

  /* A new handle on the same state works, up to the next run. */
  CHECK_OK(NULL, open_handle(cfg, state, NULL, &h, err, sizeof err));
  {
    char text[4096];
    CHECK_OK(h, mauisched_render(h, "diagnose", "-f", text, sizeof text, &written));
    CHECK_CONTAINS(text, "FairShare Information");
  }
  mauisched_free(h);
  free(sink);
  return finish();
}
