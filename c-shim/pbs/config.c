/*
 * config.c - minimal maui.cfg reader for the PBS front end's own parameters,
 * and the merge of defaults, file and command line.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "torque_map.h"

int config_parse_duration(const char *s, long *out)
{
  return tm_parse_duration(s, out, NULL, 0);
}

int config_parse_seconds(const char *s, double *out)
{
  char *end;
  double d;
  if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
    return -1;
  errno = 0;
  d = strtod(s, &end);
  if (errno != 0 || *end != '\0' || !(d >= 0) || d > 1e9)
    return -1;
  *out = d;
  return 0;
}

/* One RMCFG[index]; lines with the same index accumulate. */
struct rmcfg {
  char name[64];
  char type[32];
  char host[256];
  long port;     /* 0: the RM's default */
  long eport;    /* 0: not given */
  double minetime;
  int has_minetime;
};

struct file_values {
  char serverhost[256];
  long poll; /* -1: not given */
  struct rmcfg *rm;
  size_t nrm;
};

/* Splits a maui.cfg line into at most `max` tokens in place: blanks
 * separate, quotes group (and are removed), '#' outside quotes ends it. */
static int tokenize(char *line, char **tok, int max, const char **why)
{
  int n = 0;
  char *r = line, *w;
  *why = NULL;
  while (*r != '\0') {
    char q = 0;
    while (*r == ' ' || *r == '\t' || *r == '\r')
      r++;
    if (*r == '\0' || *r == '#')
      break;
    if (n == max) {
      *why = "too many words";
      return -1;
    }
    tok[n++] = w = r;
    while (*r != '\0') {
      if (q) {
        if (*r == q)
          q = 0;
        else
          *w++ = *r;
        r++;
        continue;
      }
      if (*r == '\'' || *r == '"') {
        q = *r++;
        continue;
      }
      if (*r == ' ' || *r == '\t' || *r == '\r' || *r == '#')
        break;
      *w++ = *r++;
    }
    if (q) {
      *why = "unterminated quote";
      return -1;
    }
    if (*r == '#') {
      *w = '\0';
      break;
    }
    if (*r != '\0')
      r++;
    *w = '\0';
  }
  return n;
}

static struct rmcfg *rm_entry(struct file_values *fv, const char *name)
{
  size_t i;
  struct rmcfg *n;
  for (i = 0; i < fv->nrm; i++)
    if (strcasecmp(fv->rm[i].name, name) == 0)
      return &fv->rm[i];
  n = realloc(fv->rm, (fv->nrm + 1) * sizeof *n);
  if (n == NULL)
    return NULL;
  fv->rm = n;
  memset(&n[fv->nrm], 0, sizeof *n);
  snprintf(n[fv->nrm].name, sizeof n[fv->nrm].name, "%s", name);
  return &n[fv->nrm++];
}

static int read_file(const char *path, struct file_values *fv, char *err,
                     size_t errlen)
{
  FILE *f = fopen(path, "r");
  char line[8192];
  int lineno = 0;

  if (f == NULL) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  while (fgets(line, sizeof line, f) != NULL) {
    char *tok[64], *lb;
    const char *why;
    char name[64], index[64] = "";
    int n, i;

    lineno++;
    if (strchr(line, '\n') == NULL && !feof(f)) {
      snprintf(err, errlen, "%s:%d: line too long", path, lineno);
      goto bad;
    }
    line[strcspn(line, "\n")] = '\0';
    n = tokenize(line, tok, 64, &why);
    if (n < 0) {
      snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
      goto bad;
    }
    if (n == 0)
      continue;
    lb = strchr(tok[0], '[');
    if (lb != NULL) {
      char *rb = strchr(lb, ']');
      if (rb == NULL || rb[1] != '\0')
        continue; /* not ours; the library's reader reports it */
      snprintf(index, sizeof index, "%.*s", (int)(rb - lb - 1), lb + 1);
      *lb = '\0';
    }
    snprintf(name, sizeof name, "%s", tok[0]);

    if (strcasecmp(name, "SERVERHOST") == 0 && lb == NULL) {
      if (n < 2) {
        snprintf(err, errlen, "%s:%d: SERVERHOST: missing host name", path, lineno);
        goto bad;
      }
      snprintf(fv->serverhost, sizeof fv->serverhost, "%s", tok[1]);
    } else if (strcasecmp(name, "RMPOLLINTERVAL") == 0) {
      long v;
      if (n < 2 || config_parse_duration(tok[1], &v) != 0 || v < 1) {
        snprintf(err, errlen,
                 "%s:%d: RMPOLLINTERVAL: expected a duration [[[DD:]HH:]MM:]SS "
                 "of at least 1 second, got \"%s\"",
                 path, lineno, n < 2 ? "" : tok[1]);
        goto bad;
      }
      fv->poll = v;
    } else if (strcasecmp(name, "RMCFG") == 0) {
      struct rmcfg *rm = rm_entry(fv, lb != NULL ? index : "0");
      if (rm == NULL) {
        snprintf(err, errlen, "out of memory");
        goto bad;
      }
      for (i = 1; i < n; i++) {
        char *eq = strchr(tok[i], '='), *v;
        long num;
        if (eq == NULL)
          continue;
        *eq = '\0';
        v = eq + 1;
        if (strcasecmp(tok[i], "TYPE") == 0) {
          snprintf(rm->type, sizeof rm->type, "%s", v);
        } else if (strcasecmp(tok[i], "HOST") == 0) {
          snprintf(rm->host, sizeof rm->host, "%s", v);
        } else if (strcasecmp(tok[i], "PORT") == 0 || strcasecmp(tok[i], "EPORT") == 0) {
          if (tm_parse_int(v, 0, 65535, &num, NULL, 0) != 0) {
            snprintf(err, errlen, "%s:%d: RMCFG[%s] %s: expected a port number, got \"%s\"",
                     path, lineno, rm->name, tok[i], v);
            goto bad;
          }
          if (strcasecmp(tok[i], "PORT") == 0)
            rm->port = num;
          else
            rm->eport = num;
        } else if (strcasecmp(tok[i], "MINETIME") == 0) {
          if (config_parse_seconds(v, &rm->minetime) != 0) {
            snprintf(err, errlen, "%s:%d: RMCFG[%s] MINETIME: expected seconds, got \"%s\"",
                     path, lineno, rm->name, v);
            goto bad;
          }
          rm->has_minetime = 1;
        }
        /* other RMCFG attributes do not concern this front end */
      }
    }
  }
  if (ferror(f)) {
    snprintf(err, errlen, "%s: read error", path);
    goto bad;
  }
  fclose(f);
  return 0;
bad:
  fclose(f);
  return -1;
}

/* Splits "host:port" (port all digits) into the host part. */
static void host_part(const char *server, char *host, size_t len)
{
  const char *c = strrchr(server, ':');
  size_t hl = strlen(server);
  if (c != NULL && c[1] != '\0' && strspn(c + 1, "0123456789") == strlen(c + 1))
    hl = (size_t)(c - server);
  snprintf(host, len, "%.*s", (int)hl, server);
}

int config_build(struct pbs_config *cfg, const struct pbs_cli *cli, char *err,
                 size_t errlen)
{
  struct pbs_config c;
  struct file_values fv;
  const struct rmcfg *rm = NULL;
  const char *path = cli->config_path;
  size_t i;

  memset(&c, 0, sizeof c);
  memset(&fv, 0, sizeof fv);
  fv.poll = -1;
  c.event_port = CONFIG_DEFAULT_EVENT_PORT;
  snprintf(c.listen_addr, sizeof c.listen_addr, "0.0.0.0");
  c.poll_interval = 60;  /* Maui's RMPOLLINTERVAL default */
  c.minetime = 1;        /* Maui's RMCFG MINETIME default */
  c.quiet = 0.2;
  c.backoff_min = 1;
  c.backoff_max = 60;

  if (path == NULL) {
    FILE *f = fopen(CONFIG_DEFAULT_PATH, "r");
    if (f != NULL) {
      fclose(f);
      path = CONFIG_DEFAULT_PATH;
    }
  }
  if (path != NULL) {
    if (read_file(path, &fv, err, errlen) != 0) {
      free(fv.rm);
      return -1;
    }
    snprintf(c.config_path, sizeof c.config_path, "%s", path);
    c.config_found = 1;
  }

  /* the PBS resource manager: the first RMCFG of TYPE PBS (Maui's default
   * type when none is given) */
  for (i = 0; i < fv.nrm && rm == NULL; i++)
    if (fv.rm[i].type[0] == '\0' || strncasecmp(fv.rm[i].type, "PBS", 3) == 0)
      rm = &fv.rm[i];
  if (rm != NULL) {
    const char *host = rm->host[0] ? rm->host : fv.serverhost;
    snprintf(c.rm_name, sizeof c.rm_name, "%s", rm->name);
    if (host[0] != '\0' && rm->port > 0)
      snprintf(c.server, sizeof c.server, "%s:%ld", host, rm->port);
    else
      snprintf(c.server, sizeof c.server, "%s", host);
    if (rm->eport > 0)
      c.event_port = (int)rm->eport;
    if (rm->has_minetime)
      c.minetime = rm->minetime;
  } else {
    snprintf(c.server, sizeof c.server, "%s", fv.serverhost);
  }
  if (fv.poll > 0)
    c.poll_interval = (double)fv.poll;
  free(fv.rm);

  if (cli->server != NULL)
    snprintf(c.server, sizeof c.server, "%s", cli->server);
  if (cli->has_port)
    c.event_port = cli->port;
  if (cli->listen_addr != NULL)
    snprintf(c.listen_addr, sizeof c.listen_addr, "%s", cli->listen_addr);
  if (cli->has_poll)
    c.poll_interval = cli->poll;
  if (cli->has_minetime)
    c.minetime = cli->minetime;
  if (cli->has_quiet)
    c.quiet = cli->quiet;
  if (cli->has_backoff_min)
    c.backoff_min = cli->backoff_min;
  if (cli->has_backoff_max)
    c.backoff_max = cli->backoff_max;
  if (cli->libtorque != NULL)
    snprintf(c.libtorque, sizeof c.libtorque, "%s", cli->libtorque);
  snprintf(c.state_dir, sizeof c.state_dir, "%s",
           cli->state_dir != NULL ? cli->state_dir : CONFIG_DEFAULT_STATE_DIR);
  if (cli->log_file != NULL)
    snprintf(c.log_file, sizeof c.log_file, "%s", cli->log_file);
  c.foreground = cli->foreground;
  c.verbose = cli->verbose;
  c.dry_run = cli->dry_run;
  c.once = cli->once;
  c.allow_any_host = cli->allow_any_host;
  c.allow_unprivileged = cli->allow_unprivileged;

  if (c.poll_interval < 0.01) {
    snprintf(err, errlen, "poll interval must be positive");
    return -1;
  }
  if (c.backoff_min <= 0 || c.backoff_max < c.backoff_min) {
    snprintf(err, errlen, "backoff: need 0 < minimum <= maximum");
    return -1;
  }
  for (i = 0; i < cli->allow_hosts.n; i++)
    if (strlist_add(&c.allow_hosts, cli->allow_hosts.v[i]) != 0) {
      strlist_free(&c.allow_hosts);
      snprintf(err, errlen, "out of memory");
      return -1;
    }
  host_part(c.server, c.server_host, sizeof c.server_host);

  config_free(cfg);
  *cfg = c;
  return 0;
}

const char *config_engine_path(const struct pbs_config *cfg)
{
  return cfg->config_found ? cfg->config_path : CONFIG_EMPTY_PATH;
}

void config_free(struct pbs_config *cfg)
{
  strlist_free(&cfg->allow_hosts);
}
