/*
 * mauisched_settings (ABI 1.2): what a front end's loop needs from the
 * maui.cfg in force, so that no front end reads maui.cfg itself. Defaults,
 * values from the file, a reconfigure (accepted and refused), an older and
 * smaller struct, and the argument checks.
 */
#include <stddef.h>

#include "testutil.h"

int main(int argc, char **argv) {
  char cfg[1024], state[1024], err[512];
  log_sink *sink = (log_sink *)calloc(1, sizeof(log_sink));
  mauisched_t *h = NULL;
  mauisched_settings_t s;
  size_t old_size;
  if (argc != 2 || sink == NULL) return 2;

  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state/mauisched");

  /* Maui's defaults: RMPOLLINTERVAL 60 s, no JOBNODEMATCHPOLICY. */
  write_file(cfg, "# nothing set\n");
  CHECK_OK(NULL, open_handle(cfg, state, sink, &h, err, sizeof err));
  memset(&s, 0xab, sizeof s);
  s.size = sizeof s;
  CHECK_OK(h, mauisched_settings(h, &s));
  CHECK(s.size == sizeof s);
  CHECK(s.rm_poll_interval_s == 60);
  CHECK(!s.exact_node);
  CHECK(!s.exact_proc);

  /* Reconfigured: the new values, in Maui's duration syntax. */
  write_file(cfg, "RMPOLLINTERVAL 00:01:30\nJOBNODEMATCHPOLICY EXACTNODE\n");
  CHECK_OK(h, mauisched_reconfigure(h, NULL));
  s.size = sizeof s;
  CHECK_OK(h, mauisched_settings(h, &s));
  CHECK(s.rm_poll_interval_s == 90);
  CHECK(s.exact_node);
  CHECK(!s.exact_proc);

  /* A refused file changes nothing: the values in force stay. */
  write_file(cfg, "RMPOLLINTERVAL banana\n");
  CHECK_STATUS(h, mauisched_reconfigure(h, NULL), MAUISCHED_CONFIG_ERROR);
  s.size = sizeof s;
  CHECK_OK(h, mauisched_settings(h, &s));
  CHECK(s.rm_poll_interval_s == 90);
  CHECK(s.exact_node);

  /* A caller compiled with a smaller struct (only size and the poll
   * interval): nothing past it is written. */
  memset(&s, 0xab, sizeof s);
  old_size = offsetof(mauisched_settings_t, exact_node);
  s.size = old_size;
  CHECK_OK(h, mauisched_settings(h, &s));
  CHECK(s.rm_poll_interval_s == 90);
  CHECK(((unsigned char *)&s)[old_size] == 0xab);

  /* Argument checks; the output is not touched on failure. */
  CHECK_STATUS(NULL, mauisched_settings(NULL, &s), MAUISCHED_NULL_ARG);
  CHECK_STATUS(h, mauisched_settings(h, NULL), MAUISCHED_NULL_ARG);
  memset(&s, 0, sizeof s);
  s.size = 1;
  CHECK_STATUS(h, mauisched_settings(h, &s), MAUISCHED_BAD_STRUCT_SIZE);
  CHECK(s.rm_poll_interval_s == 0);

  mauisched_free(h);
  free(sink);
  return finish();
}
