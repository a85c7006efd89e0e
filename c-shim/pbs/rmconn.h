/*
 * rmconn.h - the connection to pbs_server: connect, notice a loss, retry
 * with a capped exponential backoff, one log line per state change.
 */
#ifndef MAUISCHED_PBS_RMCONN_H
#define MAUISCHED_PBS_RMCONN_H

#include "ifl.h"

/* Connection state. */
struct rmconn {
  const struct ifl_api *api;
  char server[512];      /* "" = the library's default server */
  int conn;              /* IFL handle, -1 when disconnected */
  double backoff_min;    /* seconds */
  double backoff_max;
  double backoff;        /* delay before the next attempt after a failure */
  double next_attempt;   /* monotonic seconds */
  unsigned long failures; /* attempts failed since the last success */
  unsigned long connects; /* successful connects, for the log */
};

/* Initialises a disconnected state whose first attempt is due now. */
void rm_init(struct rmconn *rm, const struct ifl_api *api, const char *server,
             double backoff_min, double backoff_max, double now);

/* Changes server/backoff (reconfigure); disconnects when the server changed. */
void rm_reconfigure(struct rmconn *rm, const char *server, double backoff_min,
                    double backoff_max, double now);

/* 1 when connected. */
int rm_connected(const struct rmconn *rm);

/* Connects when disconnected and an attempt is due.  Returns 1 when it has
 * just connected, 0 otherwise (still waiting, or failed: next attempt
 * scheduled after the current backoff, which then doubles up to the cap). */
int rm_poll_connect(struct rmconn *rm, double now);

/* The connection failed (why: for the log): disconnect and schedule the
 * next attempt after the current backoff. */
void rm_lost(struct rmconn *rm, double now, const char *why);

/* A full iteration succeeded: the next failure starts from backoff_min. */
void rm_healthy(struct rmconn *rm);

/* Disconnects (at exit). */
void rm_close(struct rmconn *rm);

/* Name of the server for log lines. */
const char *rm_server_name(const struct rmconn *rm);

#endif
