/*
 * config.h - the daemon's settings: built-in defaults, then the few maui.cfg
 * parameters that concern the PBS front end, then command-line overrides.
 *
 * The maui.cfg reader here is deliberately minimal (SERVERHOST, RMCFG[x]
 * TYPE/HOST/PORT/EPORT/MINETIME, RMPOLLINTERVAL): the connection to
 * pbs_server is this daemon's plumbing.  Everything else in the same file
 * (the scheduling policy) is read by the mauisched library, which loads the
 * same file (decide.c); the library's reader accepts these lines and leaves
 * them to the front end.  The two readers agree on their syntax (names in
 * any case, '#' comments, quotes, [[[DD:]HH:]MM:]SS durations).
 */
#ifndef MAUISCHED_PBS_CONFIG_H
#define MAUISCHED_PBS_CONFIG_H

#include <limits.h>
#include <stddef.h>

#include "strutil.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Default maui.cfg location. */
#define CONFIG_DEFAULT_PATH "/etc/maui/maui.cfg"
/* Default state directory of the library (checkpoint, fairshare files). */
#define CONFIG_DEFAULT_STATE_DIR "/var/lib/mauisched/pbs"
/* What the library reads when there is no maui.cfg: an empty file (Maui's
 * defaults throughout). */
#define CONFIG_EMPTY_PATH "/dev/null"
/* pbs_server's scheduler port. */
#define CONFIG_DEFAULT_EVENT_PORT 15004

/* The effective settings. */
struct pbs_config {
  char config_path[PATH_MAX]; /* maui.cfg read ("" when none) */
  int config_found;           /* 0: no file, defaults used */
  char server[512];           /* pbs_server "host[:port]", "" = library default */
  char server_host[256];      /* host part of server, for the event filter */
  char rm_name[64];           /* RMCFG index used, "" if none */
  int event_port;             /* where pbs_server sends commands (0: any free) */
  char listen_addr[64];       /* IPv4 address to listen on */
  double poll_interval;       /* RMPOLLINTERVAL, seconds */
  double minetime;            /* RMCFG MINETIME: least time between
                                 event-driven iterations, seconds */
  double quiet;               /* merge commands until this long without one */
  double backoff_min;         /* first reconnect delay, seconds */
  double backoff_max;         /* cap of the doubling delay, seconds */
  char libtorque[PATH_MAX];   /* IFL library, "" = libtorque.so.2 */
  char state_dir[PATH_MAX];   /* the library's state directory */
  char log_file[PATH_MAX];    /* "" = stderr */
  int foreground;
  int verbose;
  int dry_run;                /* decide and log, never runjob/alterjob */
  int once;                   /* one iteration, then exit */
  int allow_any_host;         /* accept commands from any address */
  int allow_unprivileged;     /* accept commands from ports >= 1024 */
  struct strlist allow_hosts; /* more addresses/names to accept */
};

/* Command-line settings; each `has_*` says the option was given and wins
 * over maui.cfg (also after SIGHUP re-reads the file). */
struct pbs_cli {
  const char *config_path;
  const char *server;
  int has_port;
  int port;
  const char *listen_addr;
  int has_poll;
  double poll;
  int has_minetime;
  double minetime;
  int has_quiet;
  double quiet;
  int has_backoff_min;
  double backoff_min;
  int has_backoff_max;
  double backoff_max;
  const char *libtorque;
  const char *state_dir;
  const char *log_file;
  int foreground;
  int verbose;
  int dry_run;
  int once;
  int allow_any_host;
  int allow_unprivileged;
  struct strlist allow_hosts;
};

/* Builds the settings: defaults, the maui.cfg (cli->config_path, or the
 * default path when it exists), then cli.  On error (unreadable file, bad
 * value) returns -1 with "file:line: message" in err and leaves *cfg
 * untouched, so a reconfigure with a broken file keeps the old settings. */
int config_build(struct pbs_config *cfg, const struct pbs_cli *cli, char *err,
                 size_t errlen);

/* The maui.cfg the library reads: the file found, else CONFIG_EMPTY_PATH. */
const char *config_engine_path(const struct pbs_config *cfg);

/* Frees what a config owns. */
void config_free(struct pbs_config *cfg);

/* Parses "[[[DD:]HH:]MM:]SS" into seconds; -1 on error. */
int config_parse_duration(const char *s, long *out);

/* Parses a non-negative number of seconds with an optional fraction
 * ("0.25"); -1 on error. */
int config_parse_seconds(const char *s, double *out);

#endif
