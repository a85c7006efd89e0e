/*
 * The admin socket from C (ABI 1.1): a handle serves it at
 * options.admin_socket; what an operator asks there reaches the next
 * plan (sethold as a MAUISCHED_ACTION_HOLD with its author, schedctl -s
 * as MAUISCHED_REASON_STOPPED) and the log; "" serves no socket and
 * NULL serves it under the state directory.
 */
#define _POSIX_C_SOURCE 200809L
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "testutil.h"

/* Sends one request line to the socket at `path`; the response goes to
 * `buf`. Returns 0 when the exchange happened. */
static int ask(const char *path, const char *request, char *buf, size_t len) {
  struct sockaddr_un a;
  size_t got = 0, sent = 0, n = strlen(request);
  ssize_t r;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  buf[0] = 0;
  if (fd < 0) return -1;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  strncpy(a.sun_path, path, sizeof a.sun_path - 1);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  while (sent < n && (r = write(fd, request + sent, n - sent)) > 0) sent += (size_t)r;
  while (got + 1 < len && (r = read(fd, buf + got, len - 1 - got)) > 0) got += (size_t)r;
  buf[got] = 0;
  close(fd);
  return 0;
}

static int is_socket(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* The reason code of an idle job in a plan, or 999. */
static uint32_t reason_of(const mauisched_plan_t *plan, const char *job) {
  size_t i = 0;
  uint32_t code = 999;
  const char *summary = NULL, *detail = NULL;
  if (mauisched_plan_job_find(plan, job, &i) != MAUISCHED_OK) return 999;
  if (mauisched_plan_job_reason(plan, i, &code, &summary, &detail) != MAUISCHED_OK) return 999;
  return code;
}

static mauisched_status_t open_with_socket(const char *config, const char *state, log_sink *sink,
                                           const char *socket_path, mauisched_t **out) {
  char err[512];
  mauisched_options_t o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.config_path = config;
  o.state_dir = state;
  o.log = sink ? sink_log : NULL;
  o.log_userdata = sink;
  o.admin_socket = socket_path;
  return mauisched_new(&o, out, err, sizeof err);
}

int main(int argc, char **argv) {
  static log_sink sink;
  static char resp[1 << 16];
  char cfg[1024], state[1024], sock[128], deflt[1200];
  mauisched_t *h = NULL;
  mauisched_plan_t *plan = NULL;
  size_t n = 99;
  uint32_t kind = 0;
  const char *job = NULL, *by = NULL;
  struct passwd *me = getpwuid(geteuid());
  struct stat st;
  if (argc != 2) return 2;
  join(cfg, sizeof cfg, argv[1], "maui.cfg");
  join(state, sizeof state, argv[1], "state");
  write_file(cfg, "");
  snprintf(sock, sizeof sock, "/tmp/mauisched-c-%ld.sock", (long)getpid());
  CHECK(MAUISCHED_ABI_MINOR >= 1);

  CHECK_OK(NULL, open_with_socket(cfg, state, &sink, sock, &h));
  if (h == NULL) return finish();
  CHECK(is_socket(sock));
  CHECK(stat(sock, &st) == 0 && (st.st_mode & 0777) == 0666);
  CHECK_CONTAINS(sink.text, "admin socket listening on");

  /* Before any iteration the socket answers, and says why showq cannot. */
  CHECK(ask(sock, "{\"v\":1,\"cmd\":\"showq\"}\n", resp, sizeof resp) == 0);
  CHECK_CONTAINS(resp, "\"code\":\"no_iteration\"");

  CHECK_OK(h, snapshot_abc(h, T0));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK_OK(h, mauisched_plan_start_count(plan, &n));
  CHECK(n == 1); /* C backfills */
  mauisched_plan_free(plan);

  CHECK(ask(sock, "{\"v\":1,\"cmd\":\"sethold\",\"args\":[\"B\"]}\n", resp, sizeof resp) == 0);
  CHECK_CONTAINS(resp, "\"ok\":true");
  CHECK_CONTAINS(resp, "System Hold Placed on All Specified Jobs");
  CHECK(ask(sock, "{\"v\":1,\"cmd\":\"schedctl\",\"args\":[\"-s\"]}\n", resp, sizeof resp) == 0);
  CHECK_CONTAINS(resp, "scheduling will stop immediately at iteration 1");
  CHECK(ask(sock, "{\"v\":1,\"cmd\":\"showq\"}\n", resp, sizeof resp) == 0);
  CHECK_CONTAINS(resp, "NOTE:  scheduling is stopped");
  CHECK(ask(sock, "garbage\n", resp, sizeof resp) == 0);
  CHECK_CONTAINS(resp, "\"code\":\"bad_request\"");

  /* The next plan: the hold, with its author; no start while stopped. */
  CHECK_OK(h, snapshot_abc(h, T0 + 60));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK_OK(h, mauisched_plan_action_count(plan, &n));
  CHECK(n == 1);
  CHECK_OK(h, mauisched_plan_action(plan, 0, &kind, &job, &by));
  CHECK(kind == MAUISCHED_ACTION_HOLD);
  CHECK_STR(job, "B");
  if (me != NULL) CHECK_STR(by, me->pw_name);
  CHECK_OK(h, mauisched_plan_start_count(plan, &n));
  CHECK(n == 0);
  CHECK(reason_of(plan, "C") == MAUISCHED_REASON_STOPPED);
  mauisched_plan_free(plan);
  /* Logged with who made them, through the host's callback, during run. */
  CHECK_CONTAINS(sink.text, "sethold by ");
  CHECK_CONTAINS(sink.text, "schedctl -s by ");

  /* Maui's meaning: schedctl -r resumes. */
  CHECK(ask(sock, "{\"v\":1,\"cmd\":\"schedctl\",\"args\":[\"-r\"]}\n", resp, sizeof resp) == 0);
  CHECK_CONTAINS(resp, "scheduling will resume immediately");
  CHECK_OK(h, snapshot_abc(h, T0 + 120));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK_OK(h, mauisched_plan_start_count(plan, &n));
  CHECK(n == 1);
  CHECK_OK(h, mauisched_plan_action_count(plan, &n));
  CHECK(n == 0);
  mauisched_plan_free(plan);

  /* ABI 1.6: canceljob and sethold -u go out as their own actions. */
  CHECK(MAUISCHED_ABI_MINOR >= 6);
  CHECK(ask(sock, "{\"v\":1,\"cmd\":\"canceljob\",\"args\":[\"B\"]}\n", resp, sizeof resp) == 0);
  CHECK_CONTAINS(resp, "job 'B' cancelled");
  CHECK_OK(h, snapshot_abc(h, T0 + 180));
  CHECK_OK(h, mauisched_run(h, &plan));
  CHECK_OK(h, mauisched_plan_action_count(plan, &n));
  CHECK(n == 1);
  CHECK_OK(h, mauisched_plan_action(plan, 0, &kind, &job, &by));
  CHECK(kind == MAUISCHED_ACTION_CANCEL);
  CHECK_STR(job, "B");
  mauisched_plan_free(plan);
  CHECK(MAUISCHED_ACTION_USER_HOLD == 3 && MAUISCHED_ACTION_USER_RELEASE == 4);

  mauisched_free(h);
  CHECK(!is_socket(sock));

  /* "" serves no socket; NULL serves it under the state directory. */
  h = NULL;
  join(deflt, sizeof deflt, state, "run/mauisched.sock");
  CHECK_OK(NULL, open_with_socket(cfg, state, NULL, "", &h));
  CHECK(!is_socket(deflt));
  mauisched_free(h);
  h = NULL;
  CHECK_OK(NULL, open_with_socket(cfg, state, NULL, NULL, &h));
  if (strlen(deflt) < sizeof(((struct sockaddr_un *)0)->sun_path)) {
    CHECK(is_socket(deflt));
    CHECK(ask(deflt, "{\"v\":1,\"cmd\":\"showstats\"}\n", resp, sizeof resp) == 0);
    CHECK_CONTAINS(resp, "\"ok\":true");
  }
  mauisched_free(h);
  CHECK(!is_socket(deflt));
  return finish();
}
