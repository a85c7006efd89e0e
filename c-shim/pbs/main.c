/*
 * main.c - mauisched-pbs: the external scheduler daemon for PBS/Torque.
 *
 * Thin by design: each iteration gathers pbs_server's state through the IFL
 * (gather.c), hands the snapshot to decide() (decide.c: the mauisched
 * library's policy engine, one handle for the daemon's life) and applies the
 * plan (apply.c).  This file holds the loop around that: when to iterate
 * (scheduler-port commands merged into one iteration, and every
 * RMPOLLINTERVAL), the server connection with backoff (rmconn.c), signals
 * (SIGTERM/SIGINT exit, SIGHUP reconfigure) and start-up.
 */
#define _GNU_SOURCE /* getopt_long */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "config.h"
#include "decide.h"
#include "evsrc.h"
#include "gather.h"
#include "ifl.h"
#include "log.h"
#include "rmconn.h"

#define VERSION "0.1.0"

/* Everything the loop owns. */
struct daemon {
  struct pbs_cli cli;
  struct pbs_config cfg;
  struct ifl_api api;
  struct rmconn rm;
  struct event_source es;
  int have_es;
  struct decider *dec; /* the mauisched library */
  unsigned long iterations;
  int scheduling_off; /* server said scheduling=False (logged once) */
  long keep_completed_warned; /* keep_completed last warned about; -1 none */
  double keep_warned_poll;    /* ... under this RMPOLLINTERVAL */
  /* commands not yet served by an iteration */
  int pending;
  unsigned long pending_commands;
  double first_pending; /* when the oldest unserved command came */
  double last_command;
  double last_iter_end;
  double next_poll;
  const char *force; /* "start", "connect", "reconfigure": iterate now */
  double connected_at; /* when the connection to pbs_server was made */
  size_t awaiting_moms; /* nodes down with no pbs_mom report, last iteration */
};

/* After pbs_server (re)starts its nodes are down, without status, until
 * their pbs_moms report, and no command comes when they do: while some
 * are, for MOM_WAIT_S after the connection, the daemon looks again every
 * MOM_RECHECK_S instead of waiting for the next poll. */
#define MOM_RECHECK_S 5.0
#define MOM_WAIT_S 600.0

static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
  unsigned char c = (unsigned char)sig;
  int saved = errno;
  /* the pipe is non-blocking: a full pipe already holds a wake-up */
  if (write(sig_pipe[1], &c, 1) < 0) {
  }
  errno = saved;
}

static double mono(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: mauisched-pbs [options]\n"
          "External scheduler for PBS/Torque driven by the mauisched policy engine.\n\n"
          "  -c, --config FILE        maui.cfg to read (default " CONFIG_DEFAULT_PATH ")\n"
          "  -s, --server HOST[:PORT] pbs_server (default: RMCFG HOST=, SERVERHOST,\n"
          "                           then libtorque's default server)\n"
          "  -p, --port N             scheduler port to listen on (default RMCFG EPORT=\n"
          "                           or 15004; 0 = any free port)\n"
          "      --listen ADDR        IPv4 address to listen on (default 0.0.0.0: all;\n"
          "                           pbs_server connects to the address of its host name)\n"
          "  -P, --poll SECONDS       iterate at least this often (default RMPOLLINTERVAL)\n"
          "      --minetime SECONDS   least time between command-driven iterations\n"
          "                           (default RMCFG MINETIME= or 1)\n"
          "      --quiet SECONDS      merge commands until none came for this long (0.2)\n"
          "      --backoff-min SECONDS, --backoff-max SECONDS\n"
          "                           reconnect delay, doubling from min to max (1, 60)\n"
          "  -L, --libtorque PATH     IFL client library (default " IFL_DEFAULT_LIBRARY ")\n"
          "  -S, --state-dir DIR      the engine's checkpoint and fairshare files\n"
          "                           (default " CONFIG_DEFAULT_STATE_DIR ")\n"
          "  -l, --log-file FILE      log here (default: stderr when in the foreground)\n"
          "  -f, --foreground         do not detach\n"
          "  -v, --verbose            debug log\n"
          "  -n, --dry-run            decide and log, never start jobs or write comments\n"
          "  -1, --once               one iteration, then exit (0 on success)\n"
          "      --allow-host HOST    also accept scheduler commands from HOST\n"
          "      --allow-any-host     accept scheduler commands from any address\n"
          "      --allow-unprivileged accept scheduler commands from ports >= 1024\n"
          "  -h, --help, -V, --version\n");
}

/* Parses argv into d->cli; exits on --help/--version/errors. */
static void parse_args(struct daemon *d, int argc, char **argv)
{
  enum { O_LISTEN = 256, O_MINETIME, O_QUIET, O_BMIN, O_BMAX, O_AHOST, O_ANY, O_UNPRIV };
  static const struct option opts[] = {
      {"config", required_argument, NULL, 'c'},
      {"server", required_argument, NULL, 's'},
      {"port", required_argument, NULL, 'p'},
      {"listen", required_argument, NULL, O_LISTEN},
      {"poll", required_argument, NULL, 'P'},
      {"minetime", required_argument, NULL, O_MINETIME},
      {"quiet", required_argument, NULL, O_QUIET},
      {"backoff-min", required_argument, NULL, O_BMIN},
      {"backoff-max", required_argument, NULL, O_BMAX},
      {"libtorque", required_argument, NULL, 'L'},
      {"state-dir", required_argument, NULL, 'S'},
      {"log-file", required_argument, NULL, 'l'},
      {"foreground", no_argument, NULL, 'f'},
      {"verbose", no_argument, NULL, 'v'},
      {"dry-run", no_argument, NULL, 'n'},
      {"once", no_argument, NULL, '1'},
      {"allow-host", required_argument, NULL, O_AHOST},
      {"allow-any-host", no_argument, NULL, O_ANY},
      {"allow-unprivileged", no_argument, NULL, O_UNPRIV},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  struct pbs_cli *c = &d->cli;
  int o;
  long v;

#define SECONDS(field, has)                                                 \
  do {                                                                      \
    if (config_parse_seconds(optarg, &c->field) != 0) {                     \
      fprintf(stderr, "mauisched-pbs: %s: expected seconds, got \"%s\"\n",  \
              argv[optind - 1], optarg);                                    \
      exit(2);                                                              \
    }                                                                       \
    c->has = 1;                                                             \
  } while (0)

  while ((o = getopt_long(argc, argv, "c:s:p:P:L:S:l:fvn1hV", opts, NULL)) != -1) {
    switch (o) {
    case 'c': c->config_path = optarg; break;
    case 's': c->server = optarg; break;
    case 'p': {
      char *end;
      errno = 0;
      v = strtol(optarg, &end, 10);
      if (errno != 0 || *end != '\0' || end == optarg || v < 0 || v > 65535) {
        fprintf(stderr, "mauisched-pbs: --port: expected 0-65535, got \"%s\"\n", optarg);
        exit(2);
      }
      c->port = (int)v;
      c->has_port = 1;
      break;
    }
    case O_LISTEN: c->listen_addr = optarg; break;
    case 'P': SECONDS(poll, has_poll); break;
    case O_MINETIME: SECONDS(minetime, has_minetime); break;
    case O_QUIET: SECONDS(quiet, has_quiet); break;
    case O_BMIN: SECONDS(backoff_min, has_backoff_min); break;
    case O_BMAX: SECONDS(backoff_max, has_backoff_max); break;
    case 'L': c->libtorque = optarg; break;
    case 'S': c->state_dir = optarg; break;
    case 'l': c->log_file = optarg; break;
    case 'f': c->foreground = 1; break;
    case 'v': c->verbose = 1; break;
    case 'n': c->dry_run = 1; break;
    case '1': c->once = 1; break;
    case O_AHOST:
      if (strlist_add(&c->allow_hosts, optarg) != 0) {
        fprintf(stderr, "mauisched-pbs: out of memory\n");
        exit(1);
      }
      break;
    case O_ANY: c->allow_any_host = 1; break;
    case O_UNPRIV: c->allow_unprivileged = 1; break;
    case 'h': usage(stdout); exit(0);
    case 'V': printf("mauisched-pbs " VERSION "\n"); exit(0);
    default: usage(stderr); exit(2);
    }
  }
#undef SECONDS
  if (optind < argc) {
    fprintf(stderr, "mauisched-pbs: unexpected argument \"%s\"\n", argv[optind]);
    usage(stderr);
    exit(2);
  }
}

static int open_events(struct daemon *d, struct event_source *es, char *err, size_t errlen)
{
  struct evsrc_pbs_opts o;
  o.listen_addr = d->cfg.listen_addr;
  o.port = d->cfg.event_port;
  o.server_host = d->cfg.server_host;
  o.allow_any_host = d->cfg.allow_any_host;
  o.allow_unprivileged = d->cfg.allow_unprivileged;
  o.allow_hosts = &d->cfg.allow_hosts;
  if (evsrc_pbs_open(es, &o, err, errlen) != 0)
    return -1;
  log_msg(LOG_INFO, "listening for pbs_server commands on %s:%d (%s%s)", d->cfg.listen_addr,
          evsrc_pbs_port(es),
          d->cfg.allow_any_host ? "any address" : "loopback, this host and the server",
          d->cfg.allow_unprivileged ? ", any source port" : ", privileged source ports only");
  return 0;
}

/* With -v: the snapshot as the daemon understood it, one line per object,
 * to compare with qstat -f / pbsnodes on a real server. */
/* "gpu:4,tape:2" of a list into b ("-" when empty). */
static void gres_str(struct strbuf *b, const struct tm_greslist *l)
{
  size_t k;
  for (k = 0; k < l->n; k++)
    strbuf_printf(b, "%s%s:%ld", k ? "," : "", l->v[k].name, l->v[k].count);
  if (l->n == 0)
    strbuf_printf(b, "-");
}

static void dump_snapshot(const struct tm_snapshot *s)
{
  size_t i, k;
  for (i = 0; i < s->nnodes; i++) {
    const struct tm_node *n = &s->nodes[i];
    struct strbuf b = {0}, g = {0};
    for (k = 0; k < n->features.n; k++)
      strbuf_printf(&b, "%s%s", k ? "," : "", n->features.v[k]);
    gres_str(&g, &n->gres);
    log_msg(LOG_DEBUG, "node %s: state=0x%x usable=%d np=%d used=%d jobs=%zu mem=%ldMB "
            "avail=%ldMB load=%.2f features=%s gres=%s%s%s", n->name, n->state,
            tm_node_usable(n), n->procs, n->used_slots, n->njobs, n->mem_mb,
            n->avail_mem_mb, n->load, strbuf_str(&b), strbuf_str(&g),
            n->err[0] ? " error=" : "", n->err);
    strbuf_free(&b);
    strbuf_free(&g);
  }
  for (i = 0; i < s->njobs; i++) {
    const struct tm_job *j = &s->jobs[i];
    struct strbuf b = {0}, gt = {0}, gn = {0};
    gres_str(&gt, &j->gres_task);
    gres_str(&gn, &j->gres_node);
    for (k = 0; k < j->req_hosts.n; k++)
      strbuf_printf(&b, "%shost:%s", b.len ? "," : "", j->req_hosts.v[k]);
    for (k = 0; k < j->features.n; k++)
      strbuf_printf(&b, "%s%s", b.len ? "," : "", j->features.v[k]);
    log_msg(LOG_DEBUG, "job %s: state=%c class=%s user=%s group=%s account=%s qtime=%ld "
            "nodes=%d tasks=%d ppn=%d spread=%d walltime=%ld mem/task=%ldMB needs=%s "
            "gres/task=%s gres/node=%s alloc=%zu host(s) inelig=0x%x%s%s", j->id, j->state,
            j->cls ? j->cls : "-", j->user ? j->user : "-", j->group ? j->group : "-",
            j->account ? j->account : "-", j->submit_time, j->nodes, j->tasks, j->ppn,
            j->spread, j->walltime, j->mem_per_task_mb, b.len ? strbuf_str(&b) : "-",
            strbuf_str(&gt), strbuf_str(&gn), j->nalloc, j->inelig,
            j->err[0] ? " error=" : "", j->err);
    strbuf_free(&b);
    strbuf_free(&gt);
    strbuf_free(&gn);
  }
}

/* One gather -> decide -> apply.  Returns 0, -1 when the server was lost. */
static int iterate(struct daemon *d, const char *trigger, unsigned long commands)
{
  struct tm_snapshot s;
  struct decisions plan;
  struct apply_stats st;
  char err[1024];
  size_t i, eligible = 0, unreadable = 0;
  double now_m;
  int rc;

  memset(&plan, 0, sizeof plan);
  memset(&st, 0, sizeof st);
  d->iterations++;
  if (gather_snapshot(&d->api, d->rm.conn, (long)time(NULL), &s, err, sizeof err) != 0) {
    log_msg(LOG_INFO, "iteration %lu trigger=%s commands=%lu aborted: %s", d->iterations,
            trigger, commands, err);
    rm_lost(&d->rm, mono(), err);
    return -1;
  }
  if (log_enabled(LOG_DEBUG))
    dump_snapshot(&s);
  {
    size_t awaiting = 0;
    for (i = 0; i < s.nnodes; i++) {
      const struct tm_node *n = &s.nodes[i];
      if ((n->state & (TM_NS_DOWN | TM_NS_UNKNOWN)) && !(n->state & TM_NS_OFFLINE) &&
          n->status_ncpus < 0 && n->load < 0 && n->mem_mb < 0)
        awaiting++;
    }
    if (awaiting > 0 && d->awaiting_moms == 0 && mono() - d->connected_at < MOM_WAIT_S)
      log_msg(LOG_INFO, "%zu node(s) down with no report from their pbs_mom yet (pbs_server "
              "restarted?): looking again every %gs, as pbs_server sends no command when "
              "they come back", awaiting, MOM_RECHECK_S);
    d->awaiting_moms = awaiting;
  }
  {
    /* Fairshare charges a job up to its comp_time only if the daemon sees
     * it completed: pbs_server must keep it past the next poll. Unset, it
     * is Torque 6's 300 s. */
    long kc = s.server.keep_completed >= 0 ? s.server.keep_completed : 300;
    int short_kc = kc < d->cfg.poll_interval + 1;
    if (short_kc &&
        (kc != d->keep_completed_warned || d->cfg.poll_interval != d->keep_warned_poll))
      log_msg(LOG_WARN, "pbs_server keeps completed jobs %ld s (keep_completed%s), less than "
              "RMPOLLINTERVAL (%gs): a job that ends and is purged between two polls is "
              "charged fairshare only up to the last poll; qmgr -c 'set server "
              "keep_completed = %.0f' keeps them long enough", kc,
              s.server.keep_completed >= 0 ? "" : " unset: Torque's default", d->cfg.poll_interval,
              d->cfg.poll_interval * 2 > 300 ? d->cfg.poll_interval * 2 : 300);
    d->keep_completed_warned = short_kc ? kc : -1;
    d->keep_warned_poll = d->cfg.poll_interval;
  }
  for (i = 0; i < s.njobs; i++) {
    if (s.jobs[i].inelig == 0)
      eligible++;
    if (s.jobs[i].inelig & TM_INELIG_BADSPEC)
      unreadable++;
  }
  if (s.server.scheduling == 0 && !d->cfg.dry_run) {
    /* the administrator switched scheduling off (qmgr): start nothing */
    if (!d->scheduling_off)
      log_msg(LOG_INFO, "pbs_server has scheduling=False: not starting jobs until it is True");
    d->scheduling_off = 1;
    log_msg(LOG_INFO, "iteration %lu trigger=%s commands=%lu nodes=%zu jobs=%zu "
            "eligible=%zu skipped=scheduling-off", d->iterations, trigger, commands,
            s.nnodes, s.njobs, eligible);
    tm_snapshot_free(&s);
    rm_healthy(&d->rm);
    return 0;
  }
  if (s.server.scheduling == 0) {
    /* a dry run starts nothing anyway: it decides and logs as usual */
    if (!d->scheduling_off)
      log_msg(LOG_INFO, "pbs_server has scheduling=False: dry run, deciding anyway");
    d->scheduling_off = 1;
  } else {
    if (d->scheduling_off)
      log_msg(LOG_INFO, "pbs_server has scheduling=True again");
    d->scheduling_off = 0;
  }

  if (decide(d->dec, &s, &plan, err, sizeof err) != 0) {
    log_msg(LOG_ERR, "iteration %lu: decide failed: %s; nothing applied", d->iterations, err);
    tm_snapshot_free(&s);
    rm_healthy(&d->rm);
    return 0;
  }
  rc = apply_decisions(&d->api, d->rm.conn, &s, &plan, d->cfg.dry_run, &st, err, sizeof err);
  decider_report(d->dec, &plan);
  if (rc != 0) {
    now_m = mono();
    log_msg(LOG_INFO, "iteration %lu trigger=%s commands=%lu interrupted: started=%d",
            d->iterations, trigger, commands, st.started);
    rm_lost(&d->rm, now_m, err);
    decisions_free(&plan);
    tm_snapshot_free(&s);
    return -1;
  }
  rm_healthy(&d->rm);
  log_msg(LOG_INFO, "iteration %lu trigger=%s commands=%lu nodes=%zu jobs=%zu eligible=%zu "
          "unreadable=%zu started=%d refused=%d comments=%d unchanged=%d comment_refused=%d "
          "held=%d released=%d cancelled=%d action_refused=%d preempted=%d resumed=%d "
          "preempt_refused=%d decider=\"%s\"", d->iterations, trigger,
          commands, s.nnodes, s.njobs, eligible, unreadable, st.started, st.start_failed,
          st.comments, st.comments_kept, st.comment_failed, st.held, st.released,
          st.cancelled, st.action_failed, st.preempted, st.resumed, st.preempt_failed,
          plan.decider ? plan.decider : "?");
  decisions_free(&plan);
  tm_snapshot_free(&s);
  return 0;
}

/* SIGHUP: re-read maui.cfg (command-line options still win), reopen the
 * log, apply what changed.  A broken file keeps the running settings. */
static void reconfigure(struct daemon *d)
{
  struct pbs_config nc;
  char err[1024];
  int port_changed;

  memset(&nc, 0, sizeof nc);
  log_reopen();
  if (config_build(&nc, &d->cli, err, sizeof err) != 0) {
    log_msg(LOG_ERR, "reconfigure: %s; keeping the current settings", err);
    /* the library rereads the same file and says what it makes of it */
    decider_reconfigure(d->dec, config_engine_path(&d->cfg));
    return;
  }
  if (decider_reconfigure(d->dec, config_engine_path(&nc)) == 0)
    log_msg(LOG_INFO, "reconfigure: scheduling policy reread from %s", config_engine_path(&nc));
  if (strcmp(nc.libtorque, d->cfg.libtorque) != 0)
    log_msg(LOG_WARN, "reconfigure: a new IFL library path takes effect at restart");
  port_changed = nc.event_port != d->cfg.event_port ||
                 strcmp(nc.listen_addr, d->cfg.listen_addr) != 0;
  config_free(&d->cfg);
  d->cfg = nc;
  log_set_level(d->cfg.verbose ? LOG_DEBUG : LOG_INFO);
  rm_reconfigure(&d->rm, d->cfg.server, d->cfg.backoff_min, d->cfg.backoff_max, mono());
  if (port_changed || !d->have_es) {
    struct event_source ne;
    if (open_events(d, &ne, err, sizeof err) != 0) {
      log_msg(LOG_ERR, "reconfigure: %s; %s", err,
              d->have_es ? "still listening on the old port" : "polling only");
    } else {
      if (d->have_es)
        d->es.close(&d->es);
      d->es = ne;
      d->have_es = 1;
    }
  } else if (d->es.set_filter(&d->es, d->cfg.server_host, d->cfg.allow_any_host,
                              d->cfg.allow_unprivileged, &d->cfg.allow_hosts) != 0) {
    log_msg(LOG_ERR, "reconfigure: out of memory updating the command filter");
  }
  log_msg(LOG_INFO, "reconfigured from %s: server %s, poll every %.1fs",
          d->cfg.config_found ? d->cfg.config_path : "defaults",
          d->cfg.server[0] ? d->cfg.server : "(default)", d->cfg.poll_interval);
  d->force = "reconfigure";
}

static int daemonize(void)
{
  pid_t pid = fork();
  int fd;
  if (pid < 0)
    return -1;
  if (pid > 0)
    _exit(0);
  if (setsid() < 0)
    return -1;
  pid = fork();
  if (pid < 0)
    return -1;
  if (pid > 0)
    _exit(0);
  if (chdir("/") != 0)
    return -1;
  fd = open("/dev/null", O_RDWR);
  if (fd >= 0) {
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    if (fd > 2)
      close(fd);
  }
  return 0;
}

static int setup_signals(void)
{
  struct sigaction sa;
  int i;
  if (pipe(sig_pipe) != 0)
    return -1;
  for (i = 0; i < 2; i++) {
    int fl = fcntl(sig_pipe[i], F_GETFL);
    fcntl(sig_pipe[i], F_SETFL, fl | O_NONBLOCK);
    fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);
  return 0;
}

/* When the next command-driven iteration is due: after a quiet period with
 * no new command, but at the latest `minetime` after the first one, and
 * never sooner than `minetime` after the previous iteration ended.  A burst
 * of any size thus costs at most one iteration per minetime. */
static double command_due(const struct daemon *d)
{
  double due = d->last_command + d->cfg.quiet;
  if (due > d->first_pending + d->cfg.minetime)
    due = d->first_pending + d->cfg.minetime;
  if (due < d->last_iter_end + d->cfg.minetime)
    due = d->last_iter_end + d->cfg.minetime;
  return due;
}

/* The path as an absolute one (the daemon changes to / when it detaches,
 * and the library keeps the paths it is given).  Returns 0, -1 when the
 * working directory cannot be read or the result is too long. */
static int absolute(const char *path, char *out, size_t len)
{
  char cwd[PATH_MAX];
  if (path[0] == '/') {
    return snprintf(out, len, "%s", path) < (int)len ? 0 : -1;
  }
  if (getcwd(cwd, sizeof cwd) == NULL)
    return -1;
  return snprintf(out, len, "%s/%s", cwd, path) < (int)len ? 0 : -1;
}

static int run_once(struct daemon *d)
{
  if (!rm_poll_connect(&d->rm, mono()))
    return 1;
  return iterate(d, "once", 0) == 0 ? 0 : 1;
}

static int run_loop(struct daemon *d)
{
  int stop_sig = 0;
  double now = mono();

  d->next_poll = now; /* first iteration as soon as connected */
  d->last_iter_end = now - 1e9;
  while (!stop_sig) {
    struct pollfd pfd[3];
    nfds_t nfd = 1, es_at = 0, wake_at = 0;
    double deadline, due;
    int timeout_ms, r, wake_fd = decider_wakeup_fd(d->dec);

    now = mono();
    deadline = d->next_poll;
    if (!rm_connected(&d->rm)) {
      deadline = d->rm.next_attempt;
    } else if (d->force != NULL) {
      deadline = now;
    } else if (d->pending) {
      due = command_due(d);
      if (due < deadline)
        deadline = due;
    }
    timeout_ms = deadline <= now ? 0 : (int)((deadline - now) * 1000.0) + 1;
    if (timeout_ms > 60000)
      timeout_ms = 60000;

    pfd[0].fd = sig_pipe[0];
    pfd[0].events = POLLIN;
    pfd[0].revents = 0;
    if (d->have_es && d->es.fd >= 0) {
      es_at = nfd++;
      pfd[es_at].fd = d->es.fd;
      pfd[es_at].events = POLLIN;
      pfd[es_at].revents = 0;
    }
    if (wake_fd >= 0) {
      /* an operator's change (sethold, runjob, ...) is applied at once */
      wake_at = nfd++;
      pfd[wake_at].fd = wake_fd;
      pfd[wake_at].events = POLLIN;
      pfd[wake_at].revents = 0;
    }
    r = poll(pfd, nfd, timeout_ms);
    if (r < 0 && errno != EINTR) {
      log_msg(LOG_ERR, "poll: %s", strerror(errno));
      return 1;
    }
    if (r > 0 && (pfd[0].revents & POLLIN)) {
      unsigned char c;
      int hup = 0;
      while (read(sig_pipe[0], &c, 1) == 1) {
        if (c == SIGHUP)
          hup = 1;
        else
          stop_sig = c;
      }
      if (stop_sig)
        break;
      if (hup) {
        log_msg(LOG_INFO, "SIGHUP: reconfiguring");
        reconfigure(d);
      }
    }
    if (r > 0 && wake_at > 0 && (pfd[wake_at].revents & POLLIN) &&
        decider_wakeup_take(d->dec) && d->force == NULL)
      d->force = "operator";
    if (r > 0 && es_at > 0 && (pfd[es_at].revents & (POLLIN | POLLERR | POLLHUP))) {
      int n = d->es.read_events(&d->es);
      now = mono();
      if (n > 0) {
        if (!d->pending) {
          d->pending = 1;
          d->first_pending = now;
        }
        d->pending_commands += (unsigned long)n;
        d->last_command = now;
      } else if (n < 0) {
        char err[512];
        struct event_source ne;
        log_msg(LOG_ERR, "%s failed; reopening it", d->es.kind);
        d->es.close(&d->es);
        d->have_es = 0;
        if (open_events(d, &ne, err, sizeof err) != 0)
          log_msg(LOG_ERR, "%s; polling only until the next SIGHUP", err);
        else {
          d->es = ne;
          d->have_es = 1;
        }
      }
    }

    now = mono();
    if (!rm_connected(&d->rm)) {
      if (!rm_poll_connect(&d->rm, now))
        continue;
      if (d->force == NULL)
        d->force = d->iterations == 0 ? "start" : "connect";
      d->connected_at = now;
    }
    {
      const char *trigger = NULL;
      if (d->force != NULL)
        trigger = d->force;
      else if (d->pending && now >= command_due(d))
        trigger = "commands";
      else if (now >= d->next_poll)
        trigger = "poll";
      if (trigger != NULL) {
        unsigned long commands = d->pending_commands;
        d->pending = 0;
        d->pending_commands = 0;
        d->force = NULL;
        if (iterate(d, trigger, commands) != 0) {
          /* serve the commands once reconnected */
          d->pending = 1;
        }
        d->last_iter_end = mono();
        d->next_poll = d->last_iter_end + d->cfg.poll_interval;
        if (d->awaiting_moms > 0 && d->last_iter_end - d->connected_at < MOM_WAIT_S &&
            MOM_RECHECK_S < d->cfg.poll_interval)
          d->next_poll = d->last_iter_end + MOM_RECHECK_S;
      }
    }
  }
  log_msg(LOG_INFO, "exiting on %s after %lu iteration(s)",
          stop_sig == SIGTERM ? "SIGTERM" : stop_sig == SIGINT ? "SIGINT" : "signal",
          d->iterations);
  return 0;
}

int main(int argc, char **argv)
{
  static struct daemon d;
  static char cfg_abs[PATH_MAX], state_abs[PATH_MAX];
  char err[1024];
  int rc;

  parse_args(&d, argc, argv);
  d.keep_completed_warned = -1;
  if (d.cli.config_path != NULL) {
    if (absolute(d.cli.config_path, cfg_abs, sizeof cfg_abs) != 0) {
      fprintf(stderr, "mauisched-pbs: cannot make %s an absolute path\n", d.cli.config_path);
      return 1;
    }
    d.cli.config_path = cfg_abs;
  }
  if (d.cli.state_dir != NULL) {
    if (absolute(d.cli.state_dir, state_abs, sizeof state_abs) != 0) {
      fprintf(stderr, "mauisched-pbs: cannot make %s an absolute path\n", d.cli.state_dir);
      return 1;
    }
    d.cli.state_dir = state_abs;
  }
  if (config_build(&d.cfg, &d.cli, err, sizeof err) != 0) {
    fprintf(stderr, "mauisched-pbs: %s\n", err);
    return 1;
  }
  if (!d.cfg.foreground && !d.cfg.once && d.cfg.log_file[0] != '\0' &&
      d.cfg.log_file[0] != '/') {
    fprintf(stderr, "mauisched-pbs: --log-file must be an absolute path when detaching\n");
    return 2;
  }
  if (log_open(d.cfg.log_file[0] ? d.cfg.log_file : NULL) != 0) {
    fprintf(stderr, "mauisched-pbs: cannot open log file %s: %s\n", d.cfg.log_file,
            strerror(errno));
    return 1;
  }
  log_set_level(d.cfg.verbose ? LOG_DEBUG : LOG_INFO);
  if (ifl_load(&d.api, d.cfg.libtorque[0] ? d.cfg.libtorque : NULL, err, sizeof err) != 0) {
    log_msg(LOG_ERR, "%s", err);
    if (d.cfg.log_file[0])
      fprintf(stderr, "mauisched-pbs: %s\n", err);
    return 1;
  }
  log_msg(LOG_INFO, "mauisched-pbs " VERSION " starting: IFL library %s, config %s, "
          "server %s, poll every %.1fs", d.api.path,
          d.cfg.config_found ? d.cfg.config_path : "(none, defaults)",
          d.cfg.server[0] ? d.cfg.server : "(libtorque default)", d.cfg.poll_interval);
  if (decider_open(&d.dec, config_engine_path(&d.cfg), d.cfg.state_dir, err, sizeof err) != 0) {
    log_msg(LOG_ERR, "%s", err);
    if (d.cfg.log_file[0])
      fprintf(stderr, "mauisched-pbs: %s\n", err);
    return 1;
  }
  log_msg(LOG_INFO, "scheduling policy: %s reading %s, state in %s", decider_name(d.dec),
          config_engine_path(&d.cfg), d.cfg.state_dir);
  rm_init(&d.rm, &d.api, d.cfg.server, d.cfg.backoff_min, d.cfg.backoff_max, mono());

  if (d.cfg.once) {
    rc = run_once(&d);
    rm_close(&d.rm);
    decider_close(d.dec);
    /* libtorque stays loaded until exit: unloading it gains nothing and
     * would hide its allocations from leak checkers */
    return rc;
  }
  if (setup_signals() != 0) {
    log_msg(LOG_ERR, "cannot set up signal handling: %s", strerror(errno));
    return 1;
  }
  if (open_events(&d, &d.es, err, sizeof err) != 0) {
    log_msg(LOG_ERR, "%s", err);
    if (d.cfg.log_file[0])
      fprintf(stderr, "mauisched-pbs: %s\n", err);
    decider_close(d.dec);
    return 1;
  }
  d.have_es = 1;
  if (!d.cfg.foreground && daemonize() != 0) {
    log_msg(LOG_ERR, "cannot detach: %s", strerror(errno));
    return 1;
  }
  rc = run_loop(&d);
  if (d.have_es)
    d.es.close(&d.es);
  rm_close(&d.rm);
  decider_close(d.dec); /* writes the engine's state */
  config_free(&d.cfg);
  strlist_free(&d.cli.allow_hosts);
  return rc;
}
