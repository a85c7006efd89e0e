/*
 * rmconn.c - pbs_server connection with capped exponential backoff.
 */
#define _POSIX_C_SOURCE 200809L
#include "rmconn.h"

#include <stdio.h>
#include <string.h>

#include "log.h"

void rm_init(struct rmconn *rm, const struct ifl_api *api, const char *server,
             double backoff_min, double backoff_max, double now)
{
  memset(rm, 0, sizeof *rm);
  rm->api = api;
  rm->conn = -1;
  snprintf(rm->server, sizeof rm->server, "%s", server ? server : "");
  rm->backoff_min = backoff_min;
  rm->backoff_max = backoff_max;
  rm->backoff = backoff_min;
  rm->next_attempt = now;
}

const char *rm_server_name(const struct rmconn *rm)
{
  return rm->server[0] ? rm->server : "(default server)";
}

int rm_connected(const struct rmconn *rm)
{
  return rm->conn >= 0;
}

static void schedule_retry(struct rmconn *rm, double now)
{
  rm->next_attempt = now + rm->backoff;
  rm->backoff *= 2;
  if (rm->backoff > rm->backoff_max)
    rm->backoff = rm->backoff_max;
}

int rm_poll_connect(struct rmconn *rm, double now)
{
  char server[sizeof rm->server], why[256];
  int c, e;
  const char *msg;

  if (rm->conn >= 0 || now < rm->next_attempt)
    return 0;
  memcpy(server, rm->server, sizeof server);
  ifl_clear_errno(rm->api);
  /* NULL asks libtorque for its default server (pbs_default) */
  c = rm->api->connect(server[0] ? server : NULL);
  if (c >= 0) {
    rm->conn = c;
    rm->connects++;
    if (rm->failures > 0)
      log_msg(LOG_INFO, "connected to pbs_server %s after %lu failed attempt(s)",
              rm_server_name(rm), rm->failures);
    else
      log_msg(LOG_INFO, "connected to pbs_server %s", rm_server_name(rm));
    rm->failures = 0;
    return 1;
  }
  e = ifl_errno(rm->api);
  rm->failures++;
  /* Torque 6 returns the socket error negated (-111: connection refused)
   * and leaves pbs_errno 0; older releases return -1 with pbs_errno set */
  if (e == 0 && c < -1) {
    snprintf(why, sizeof why, "%s (pbs_connect returned %d)", strerror(-c), c);
  } else if (e == 0) {
    snprintf(why, sizeof why, "pbs_connect returned %d and no reason", c);
  } else {
    msg = ifl_strerror(rm->api, e);
    snprintf(why, sizeof why, "pbs_errno %d%s%s (pbs_connect returned %d)", e, *msg ? ": " : "",
             msg, c);
  }
  /* one line when the state changes; the retries themselves are debug */
  if (rm->failures == 1)
    log_msg(LOG_WARN, "cannot connect to pbs_server %s: %s; retrying in %gs, backing off to "
            "at most %gs", rm_server_name(rm), why, rm->backoff, rm->backoff_max);
  else
    log_msg(LOG_DEBUG, "connect attempt %lu to %s failed: %s; next in %gs", rm->failures,
            rm_server_name(rm), why, rm->backoff);
  schedule_retry(rm, now);
  return 0;
}

void rm_lost(struct rmconn *rm, double now, const char *why)
{
  if (rm->conn >= 0) {
    rm->api->disconnect(rm->conn);
    rm->conn = -1;
  }
  log_msg(LOG_WARN, "lost pbs_server %s: %s; reconnecting in %gs", rm_server_name(rm),
          why, rm->backoff);
  schedule_retry(rm, now);
}

void rm_healthy(struct rmconn *rm)
{
  rm->backoff = rm->backoff_min;
}

void rm_reconfigure(struct rmconn *rm, const char *server, double backoff_min,
                    double backoff_max, double now)
{
  rm->backoff_min = backoff_min;
  rm->backoff_max = backoff_max;
  if (rm->backoff < backoff_min || rm->backoff > backoff_max)
    rm->backoff = backoff_min;
  if (strcmp(rm->server, server ? server : "") != 0) {
    if (rm->conn >= 0) {
      rm->api->disconnect(rm->conn);
      rm->conn = -1;
    }
    log_msg(LOG_INFO, "pbs_server changed from %s to %s", rm_server_name(rm),
            server && *server ? server : "(default server)");
    snprintf(rm->server, sizeof rm->server, "%s", server ? server : "");
    rm->backoff = backoff_min;
    rm->failures = 0;
    rm->next_attempt = now;
  }
}

void rm_close(struct rmconn *rm)
{
  if (rm->conn >= 0) {
    rm->api->disconnect(rm->conn);
    log_msg(LOG_INFO, "disconnected from pbs_server %s", rm_server_name(rm));
  }
  rm->conn = -1;
}
