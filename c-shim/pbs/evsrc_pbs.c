/*
 * evsrc_pbs.c - Torque's scheduler port.
 *
 * When scheduling is on and something happened, pbs_server connects to the
 * scheduler port (15004) on its own host from a privileged source port,
 * writes one 4-byte big-endian command and closes; nothing is sent back.
 * Every command means "schedule soon": the main loop merges bursts.  Only
 * loopback, this host, the server's addresses (and --allow-host ones) from
 * ports below 1024 are accepted unless configured otherwise, because anyone
 * who can reach the port could otherwise make the daemon iterate at will.
 */
#define _POSIX_C_SOURCE 200809L
#include "evsrc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#ifndef HOST_NAME_MAX
#define HOST_NAME_MAX 255
#endif

/* Most connections taken per read_events call, so a flood cannot keep the
 * loop from its timers. */
#define MAX_ACCEPT_PER_CALL 1024
/* How long an accepted (allowed) peer has to deliver its 4 bytes. */
#define READ_TIMEOUT_MS 500

struct pbs_priv {
  int port;
  int allow_any_host;
  int allow_unprivileged;
  struct in_addr *addrs; /* accepted sources besides loopback */
  size_t naddrs;
};

static const char *const command_names[] = {
    "NULL", "NEW", "TERM", "TIME", "RECYC", "CMD", "6", "CONFIGURE",
    "QUIT", "RULESET", "FIRST"};

const char *evsrc_pbs_command_name(long cmd)
{
  if (cmd >= 0 && cmd < (long)(sizeof command_names / sizeof command_names[0]))
    return command_names[cmd];
  return "unknown";
}

static int add_addrs_of(struct pbs_priv *p, const char *host)
{
  struct addrinfo hints, *res = NULL, *ai;
  int rc;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  rc = getaddrinfo(host, NULL, &hints, &res);
  if (rc != 0) {
    log_msg(LOG_WARN, "event filter: cannot resolve %s: %s", host, gai_strerror(rc));
    return 0;
  }
  for (ai = res; ai != NULL; ai = ai->ai_next) {
    struct in_addr a = ((const struct sockaddr_in *)(const void *)ai->ai_addr)->sin_addr;
    struct in_addr *na;
    size_t i;
    for (i = 0; i < p->naddrs; i++)
      if (p->addrs[i].s_addr == a.s_addr)
        break;
    if (i < p->naddrs)
      continue;
    na = realloc(p->addrs, (p->naddrs + 1) * sizeof *na);
    if (na == NULL) {
      freeaddrinfo(res);
      return -1;
    }
    p->addrs = na;
    p->addrs[p->naddrs++] = a;
  }
  freeaddrinfo(res);
  return 0;
}

static int pbs_set_filter(struct event_source *es, const char *server_host,
                          int allow_any_host, int allow_unprivileged,
                          const struct strlist *allow_hosts)
{
  struct pbs_priv *p = es->priv;
  char self[HOST_NAME_MAX + 1];
  size_t i;

  free(p->addrs);
  p->addrs = NULL;
  p->naddrs = 0;
  p->allow_any_host = allow_any_host;
  p->allow_unprivileged = allow_unprivileged;
  if (allow_any_host)
    return 0;
  /* pbs_server connects to the scheduler port on its own host: from this
   * host's address when it runs here, from server_host's otherwise */
  if (gethostname(self, sizeof self) == 0) {
    self[sizeof self - 1] = '\0';
    if (add_addrs_of(p, self) != 0)
      return -1;
  }
  if (server_host != NULL && server_host[0] != '\0' && add_addrs_of(p, server_host) != 0)
    return -1;
  for (i = 0; allow_hosts != NULL && i < allow_hosts->n; i++)
    if (add_addrs_of(p, allow_hosts->v[i]) != 0)
      return -1;
  return 0;
}

int evsrc_pbs_peer_allowed(const struct event_source *es,
                           const struct sockaddr_in *peer, const char **why)
{
  const struct pbs_priv *p = es->priv;
  size_t i;
  int port = ntohs(peer->sin_port);
  uint32_t a = ntohl(peer->sin_addr.s_addr);
  if (!p->allow_unprivileged && port >= 1024) {
    *why = "source port is not privileged";
    return 0;
  }
  if (p->allow_any_host || (a >> 24) == 127)
    return 1;
  for (i = 0; i < p->naddrs; i++)
    if (p->addrs[i].s_addr == peer->sin_addr.s_addr)
      return 1;
  *why = "address is neither loopback, this host nor the server";
  return 0;
}

static long mono_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Reads the 4-byte command; -1 when the peer sent less in time. */
static long read_command(int fd)
{
  unsigned char b[4];
  size_t got = 0;
  long deadline = mono_ms() + READ_TIMEOUT_MS;
  while (got < 4) {
    struct pollfd pfd;
    long left = deadline - mono_ms();
    ssize_t r;
    if (left <= 0)
      return -1;
    pfd.fd = fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    r = poll(&pfd, 1, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    r = read(fd, b + got, 4 - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    got += (size_t)r;
  }
  return ((long)b[0] << 24) | ((long)b[1] << 16) | ((long)b[2] << 8) | (long)b[3];
}

static int pbs_read_events(struct event_source *es)
{
  int n = 0, i;

  for (i = 0; i < MAX_ACCEPT_PER_CALL; i++) {
    struct sockaddr_in peer;
    socklen_t pl = sizeof peer;
    const char *why = NULL;
    char addr[INET_ADDRSTRLEN];
    long cmd;
    int cs = accept(es->fd, (struct sockaddr *)&peer, &pl);
    if (cs < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        break;
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
        continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        log_msg(LOG_WARN, "scheduler port: accept: %s", strerror(errno));
        break;
      }
      log_msg(LOG_ERR, "scheduler port: accept: %s", strerror(errno));
      return -1;
    }
    fcntl(cs, F_SETFD, FD_CLOEXEC);
    inet_ntop(AF_INET, &peer.sin_addr, addr, sizeof addr);
    if (peer.sin_family != AF_INET || !evsrc_pbs_peer_allowed(es, &peer, &why)) {
      es->rejected++;
      /* a flood of refused peers must not flood the log as well */
      if (es->rejected <= 10 || es->rejected % 1000 == 0)
        log_msg(LOG_WARN, "scheduler port: refused %s:%d: %s (%lu refused so far)",
                addr, ntohs(peer.sin_port), why ? why : "not IPv4", es->rejected);
      close(cs);
      continue;
    }
    es->accepted++;
    cmd = read_command(cs);
    close(cs);
    if (cmd < 0) {
      log_msg(LOG_DEBUG, "scheduler port: %s:%d sent no complete command", addr,
              ntohs(peer.sin_port));
      continue;
    }
    es->commands++;
    n++;
    log_msg(LOG_DEBUG, "scheduler port: command %ld (%s) from %s:%d", cmd,
            evsrc_pbs_command_name(cmd), addr, ntohs(peer.sin_port));
  }
  return n;
}

static void pbs_close(struct event_source *es)
{
  struct pbs_priv *p = es->priv;
  if (es->fd >= 0)
    close(es->fd);
  es->fd = -1;
  if (p != NULL) {
    free(p->addrs);
    free(p);
  }
  es->priv = NULL;
}

int evsrc_pbs_port(const struct event_source *es)
{
  const struct pbs_priv *p = es->priv;
  return p ? p->port : -1;
}

int evsrc_pbs_open(struct event_source *es, const struct evsrc_pbs_opts *o,
                   char *err, size_t errlen)
{
  struct sockaddr_in sa;
  socklen_t sl = sizeof sa;
  struct pbs_priv *p;
  int fd, one = 1, fl;

  memset(es, 0, sizeof *es);
  es->fd = -1;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((unsigned short)o->port);
  if (inet_pton(AF_INET, o->listen_addr ? o->listen_addr : "0.0.0.0", &sa.sin_addr) != 1) {
    snprintf(err, errlen, "listen address %s is not an IPv4 address", o->listen_addr);
    return -1;
  }
  p = calloc(1, sizeof *p);
  if (p == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    snprintf(err, errlen, "socket: %s", strerror(errno));
    free(p);
    return -1;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  fl = fcntl(fd, F_GETFL);
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 512) != 0 ||
      fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
    int e = errno;
    snprintf(err, errlen, "cannot listen on %s:%d: %s%s",
             o->listen_addr ? o->listen_addr : "0.0.0.0", o->port, strerror(e),
             e == EADDRINUSE ? " (pbs_sched, which owns this port, must not run beside "
                               "mauisched-pbs)" : "");
    close(fd);
    free(p);
    return -1;
  }
  p->port = ntohs(sa.sin_port);
  es->kind = "torque-scheduler-port";
  es->fd = fd;
  es->priv = p;
  es->read_events = pbs_read_events;
  es->set_filter = pbs_set_filter;
  es->close = pbs_close;
  if (pbs_set_filter(es, o->server_host, o->allow_any_host, o->allow_unprivileged,
                     o->allow_hosts) != 0) {
    snprintf(err, errlen, "out of memory");
    pbs_close(es);
    return -1;
  }
  return 0;
}
