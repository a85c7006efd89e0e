/*
 * evsrc.h - where "something happened, schedule soon" comes from.
 *
 * The main loop only sees this interface: a descriptor to poll and a
 * function that drains what arrived.  Torque's pbs_server connects to the
 * scheduler port and writes one 4-byte command (evsrc_pbs.c).  OpenPBS
 * instead has the scheduler connect to the server, register with
 * pbs_register_sched and acknowledge each cycle on a second connection; an
 * adapter for it implements this same struct without touching the rest.
 */
#ifndef MAUISCHED_PBS_EVSRC_H
#define MAUISCHED_PBS_EVSRC_H

#include <netinet/in.h>
#include <stddef.h>

#include "strutil.h"

/* An event source. */
struct event_source {
  const char *kind; /* for log lines, e.g. "torque-15004" */
  int fd;           /* poll for POLLIN; -1 when closed */
  /* Drains what is pending without blocking for long; returns the number of
   * scheduling commands received (each one means "schedule soon"), or -1
   * when the source failed and must be reopened. */
  int (*read_events)(struct event_source *es);
  /* Updates who may send commands (after a reconfigure). */
  int (*set_filter)(struct event_source *es, const char *server_host,
                    int allow_any_host, int allow_unprivileged,
                    const struct strlist *allow_hosts);
  /* Closes the source and frees its state. */
  void (*close)(struct event_source *es);
  void *priv;
  /* counters, for the log and tests */
  unsigned long accepted;
  unsigned long rejected;
  unsigned long commands;
};

/* Options of Torque's scheduler-port listener. */
struct evsrc_pbs_opts {
  const char *listen_addr; /* IPv4 address, "0.0.0.0" for all */
  int port;                /* 15004; 0 = a free port (tests) */
  const char *server_host; /* its addresses may send commands */
  int allow_any_host;      /* else only loopback, this host, server_host,
                              allow_hosts */
  int allow_unprivileged;  /* else only source ports < 1024 */
  const struct strlist *allow_hosts;
};

/* Opens the listener.  -1 with a message on failure. */
int evsrc_pbs_open(struct event_source *es, const struct evsrc_pbs_opts *o,
                   char *err, size_t errlen);

/* The port actually bound (useful with port 0). */
int evsrc_pbs_port(const struct event_source *es);

/* Whether the listener accepts a command from `peer` (why: the reason when
 * not).  Exposed for the unit tests of the filter. */
int evsrc_pbs_peer_allowed(const struct event_source *es,
                           const struct sockaddr_in *peer, const char **why);

/* Name of a Torque scheduler command (1 NEW, 2 TERM, ...). */
const char *evsrc_pbs_command_name(long cmd);

#endif
