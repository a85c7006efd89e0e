/*
 * torque_map.c - parsers for Torque's node and job attribute formats and the
 * mapping of a status reply into the plain model of torque_map.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "torque_map.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Writes a message into err (when given) and returns -1. */
static int fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Keeps the first problem of an object: later ones are usually consequences. */
static void keep_err(char *dst, const char *attr, const char *msg)
{
  /* "attr: msg", cut to the buffer (a long message is still useful) */
  const char *parts[3];
  size_t pos = 0, i;
  if (dst[0] != '\0')
    return;
  parts[0] = attr;
  parts[1] = ": ";
  parts[2] = msg;
  for (i = 0; i < 3; i++) {
    size_t l = strlen(parts[i]);
    if (l > TM_ERRLEN - 1 - pos)
      l = TM_ERRLEN - 1 - pos;
    memcpy(dst + pos, parts[i], l);
    pos += l;
  }
  dst[pos] = '\0';
}

static const char *skip_ws(const char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* Parses digits [p, end) as a non-negative long; -1 on empty/overflow/junk. */
static int digits_to_long(const char *p, const char *end, long *out)
{
  long v = 0;
  if (p == end)
    return -1;
  for (; p < end; p++) {
    if (*p < '0' || *p > '9')
      return -1;
    if (v > (LONG_MAX - (*p - '0')) / 10)
      return -1;
    v = v * 10 + (*p - '0');
  }
  *out = v;
  return 0;
}

int tm_parse_int(const char *s, long min, long max, long *out, char *err,
                 size_t errlen)
{
  const char *p, *e;
  long v;
  int neg = 0;
  if (s == NULL)
    return fail(err, errlen, "missing value");
  p = skip_ws(s);
  if (*p == '-' || *p == '+') {
    neg = *p == '-';
    p++;
  }
  e = p;
  while (*e >= '0' && *e <= '9')
    e++;
  if (*skip_ws(e) != '\0' || digits_to_long(p, e, &v) != 0)
    return fail(err, errlen, "expected an integer, got \"%s\"", s);
  if (neg)
    v = -v;
  if (v < min || v > max)
    return fail(err, errlen, "%ld is out of range [%ld, %ld]", v, min, max);
  *out = v;
  return 0;
}

int tm_parse_epoch(const char *s, long *out, char *err, size_t errlen)
{
  if (tm_parse_int(s, 0, LONG_MAX, out, NULL, 0) != 0)
    return fail(err, errlen, "expected epoch seconds, got \"%s\"",
                s ? s : "");
  return 0;
}

int tm_parse_size_mb(const char *s, int round_up, long *out, char *err,
                     size_t errlen)
{
  const char *p, *e;
  long v;
  int shift; /* power of 1024 of the unit: 0 bytes, 1 kb, 2 mb, ... */
  char unit[4] = {0};
  size_t ul;

  if (s == NULL)
    return fail(err, errlen, "missing size");
  p = skip_ws(s);
  e = p;
  while (*e >= '0' && *e <= '9')
    e++;
  if (digits_to_long(p, e, &v) != 0)
    return fail(err, errlen, "expected a size such as 512mb, got \"%s\"", s);
  ul = strlen(e);
  while (ul > 0 && (e[ul - 1] == ' ' || e[ul - 1] == '\t'))
    ul--;
  if (ul > 2)
    return fail(err, errlen, "unknown size unit in \"%s\"", s);
  memcpy(unit, e, ul);
  unit[0] = (char)tolower((unsigned char)unit[0]);
  unit[1] = (char)tolower((unsigned char)unit[1]);
  if (strchr(unit, 'w') != NULL)
    return fail(err, errlen,
                "size \"%s\" is in words; only byte units are supported", s);
  switch (unit[0]) {
  case '\0': case 'b': shift = 0; break;
  case 'k': shift = 1; break;
  case 'm': shift = 2; break;
  case 'g': shift = 3; break;
  case 't': shift = 4; break;
  case 'p': shift = 5; break;
  default:
    return fail(err, errlen, "unknown size unit in \"%s\"", s);
  }
  if ((unit[0] == 'b' && unit[1] != '\0') ||
      (unit[0] != 'b' && unit[0] != '\0' && unit[1] != '\0' && unit[1] != 'b'))
    return fail(err, errlen, "unknown size unit in \"%s\"", s);

  if (shift >= 2) {
    int k = 10 * (shift - 2);
    if (k > 0 && v > (LONG_MAX >> k))
      return fail(err, errlen, "size \"%s\" is too large", s);
    *out = v << k;
  } else {
    long div = 1L << (10 * (2 - shift));
    *out = v / div + ((round_up && v % div) ? 1 : 0);
  }
  return 0;
}

int tm_parse_duration(const char *s, long *out, char *err, size_t errlen)
{
  long f[4];
  int nf = 0, i;
  const char *p, *e;
  long total = 0;
  static const long mult[4] = {1, 60, 3600, 86400};

  if (s == NULL)
    return fail(err, errlen, "missing duration");
  p = skip_ws(s);
  for (;;) {
    e = p;
    while (*e >= '0' && *e <= '9')
      e++;
    if (nf == 4 || digits_to_long(p, e, &f[nf]) != 0)
      return fail(err, errlen,
                  "expected a duration [[[DD:]HH:]MM:]SS, got \"%s\"", s);
    nf++;
    if (*e == ':') {
      p = e + 1;
      continue;
    }
    if (*e == '.') { /* fraction of a second: dropped */
      e++;
      if (!(*e >= '0' && *e <= '9'))
        return fail(err, errlen,
                    "expected a duration [[[DD:]HH:]MM:]SS, got \"%s\"", s);
      while (*e >= '0' && *e <= '9')
        e++;
    }
    if (*skip_ws(e) != '\0')
      return fail(err, errlen,
                  "expected a duration [[[DD:]HH:]MM:]SS, got \"%s\"", s);
    break;
  }
  for (i = 0; i < nf; i++) {
    long m = mult[nf - 1 - i];
    if (f[i] > (LONG_MAX - total) / m)
      return fail(err, errlen, "duration \"%s\" is too large", s);
    total += f[i] * m;
  }
  *out = total;
  return 0;
}

/* ---- generic resources ---------------------------------------------------- */

int tm_gres_add(struct tm_greslist *l, const char *name, size_t len, long count)
{
  size_t i;
  struct tm_gres *nv;
  for (i = 0; i < l->n; i++)
    if (strlen(l->v[i].name) == len && strncmp(l->v[i].name, name, len) == 0)
      return 1;
  nv = realloc(l->v, (l->n + 1) * sizeof *nv);
  if (nv == NULL)
    return -1;
  l->v = nv;
  nv[l->n].name = malloc(len + 1);
  if (nv[l->n].name == NULL)
    return -1;
  memcpy(nv[l->n].name, name, len);
  nv[l->n].name[len] = '\0';
  nv[l->n].count = count;
  l->n++;
  return 0;
}

long tm_gres_get(const struct tm_greslist *l, const char *name)
{
  size_t i;
  for (i = 0; i < l->n; i++)
    if (strcmp(l->v[i].name, name) == 0)
      return l->v[i].count;
  return 0;
}

void tm_gres_free(struct tm_greslist *l)
{
  size_t i;
  for (i = 0; i < l->n; i++)
    free(l->v[i].name);
  free(l->v);
  l->v = NULL;
  l->n = 0;
}

/* The engine's rule for a generic resource name: letters, digits, _ - . /,
 * with at most one ':' before a type ("gpu:a100"). */
static int gres_name_ok(const char *p, size_t len, int allow_type)
{
  size_t i, part = 0;
  int colons = 0;
  if (len == 0)
    return 0;
  for (i = 0; i < len; i++, part++) {
    unsigned char c = (unsigned char)p[i];
    if (c == ':') {
      if (!allow_type || colons++ > 0 || part == 0)
        return 0;
      part = (size_t)-1;
      continue;
    }
    if (!isalnum(c) && c != '_' && c != '-' && c != '.' && c != '/')
      return 0;
  }
  return part > 0;
}

/* Adds one parsed item; "given twice" is an error, as the count meant is
 * not known. */
static int gres_item(struct tm_greslist *out, const char *name, size_t len, long count,
                     const char *whole, char *err, size_t errlen)
{
  int r = tm_gres_add(out, name, len, count);
  if (r < 0)
    return fail(err, errlen, "out of memory");
  if (r > 0)
    return fail(err, errlen, "generic resource \"%.*s\" is given twice in \"%s\"", (int)len,
                name, whole);
  return 0;
}

/* A count: digits only, 1 .. UINT32_MAX (what the engine counts in). */
static int gres_count(const char *p, size_t len, long *out)
{
  long v;
  if (digits_to_long(p, p + len, &v) != 0 || v < 1 || v > 4294967295L)
    return -1;
  *out = v;
  return 0;
}

static int all_digits(const char *p, size_t len)
{
  size_t i;
  for (i = 0; i < len; i++)
    if (p[i] < '0' || p[i] > '9')
      return 0;
  return len > 0;
}

int tm_parse_gres_request(const char *s, struct tm_greslist *out, char *err,
                          size_t errlen)
{
  const char *p;
  if (s == NULL || *skip_ws(s) == '\0')
    return fail(err, errlen, "empty generic resource request");
  p = skip_ws(s);
  for (;;) {
    const char *e = p, *colon;
    size_t len, nlen;
    long count = 1;
    while (*e != '\0' && *e != '+' && *e != ',')
      e++;
    len = (size_t)(e - p);
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
      len--;
    if (len == 0)
      return fail(err, errlen, "empty item in \"%s\"", s);
    nlen = len;
    colon = NULL;
    {
      size_t i;
      for (i = len; i > 0; i--)
        if (p[i - 1] == ':') {
          colon = p + i - 1;
          break;
        }
    }
    if (colon != NULL && all_digits(colon + 1, (size_t)(p + len - colon - 1))) {
      nlen = (size_t)(colon - p);
      if (gres_count(colon + 1, (size_t)(p + len - colon - 1), &count) != 0)
        return fail(err, errlen, "\"%.*s\": the count must be a whole number from 1 to "
                    "4294967295", (int)len, p);
    }
    if (!gres_name_ok(p, nlen, 1))
      return fail(err, errlen, "\"%.*s\" is not name[:count] (a name is letters, digits, "
                  "_ - . /)", (int)len, p);
    if (gres_item(out, p, nlen, count, s, err, errlen) != 0)
      return -1;
    if (*e == '\0')
      break;
    p = skip_ws(e + 1);
  }
  return 0;
}

int tm_parse_x_gres(const char *s, struct tm_greslist *out, char *err, size_t errlen)
{
  const char *p = s;
  int seen = 0;
  if (s == NULL)
    return 0;
  while (*p != '\0') {
    const char *e = p, *v;
    while (*e != '\0' && *e != ';' && *e != '\n')
      e++;
    while (p < e && (isspace((unsigned char)*p) || *p == '"'))
      p++;
    if (e - p >= 5 && strncasecmp(p, "GRES", 4) == 0 && (p[4] == ':' || p[4] == '=')) {
      const char *q, *ve = e;
      const char *last = NULL; /* the previous name, for "GRES:tape:2" */
      int last_counted = 0;
      if (seen++)
        return fail(err, errlen, "GRES is given twice in \"%s\"", s);
      v = p + 5;
      while (ve > v && (isspace((unsigned char)ve[-1]) || ve[-1] == '"'))
        ve--;
      if (v == ve)
        return fail(err, errlen, "GRES without resources in \"%s\"", s);
      for (q = v; q <= ve; ) {
        const char *te = q, *at;
        size_t tl;
        long count = 1;
        while (te < ve && *te != ':' && *te != ',')
          te++;
        tl = (size_t)(te - q);
        if (tl == 0)
          return fail(err, errlen, "empty item in GRES of \"%s\"", s);
        at = memchr(q, '@', tl);
        if (at == NULL && all_digits(q, tl)) {
          /* a number after a name: that name's count (GRES:tape:2) */
          if (last == NULL || last_counted)
            return fail(err, errlen, "GRES count \"%.*s\" follows no resource name in \"%s\"",
                        (int)tl, q, s);
          if (gres_count(q, tl, &count) != 0)
            return fail(err, errlen, "GRES count \"%.*s\" must be from 1 to 4294967295",
                        (int)tl, q);
          out->v[out->n - 1].count = count;
          last_counted = 1;
        } else {
          size_t nl = at != NULL ? (size_t)(at - q) : tl;
          if (at != NULL && gres_count(at + 1, (size_t)(te - at - 1), &count) != 0)
            return fail(err, errlen, "\"%.*s\": the count after '@' must be a whole number "
                        "from 1 to 4294967295", (int)tl, q);
          if (!gres_name_ok(q, nl, 0))
            return fail(err, errlen, "\"%.*s\" is not name[@count] (a name is letters, "
                        "digits, _ - . /)", (int)tl, q);
          if (gres_item(out, q, nl, count, s, err, errlen) != 0)
            return -1;
          last = q;
          last_counted = at != NULL;
        }
        q = te + 1;
      }
    }
    p = *e ? e + 1 : e;
  }
  return 0;
}

int tm_parse_status_gres(const char *status, struct tm_greslist *out, char *err,
                         size_t errlen)
{
  const char *p = status;
  if (status == NULL)
    return 0;
  while (*p != '\0') {
    const char *e = strchr(p, ','), *q;
    if (e == NULL)
      e = p + strlen(p);
    if (e - p >= 5 && strncmp(p, "gres=", 5) == 0) {
      for (q = p + 5; q < e;) {
        const char *ie = q, *colon;
        while (ie < e && *ie != '+')
          ie++;
        colon = NULL;
        {
          const char *c;
          for (c = ie; c > q; c--)
            if (c[-1] == ':') {
              colon = c - 1;
              break;
            }
        }
        /* "name:value"; only whole counts are consumable resources (a
         * static resource such as "ostype:linux" is not) */
        if (colon != NULL && all_digits(colon + 1, (size_t)(ie - colon - 1))) {
          long count;
          size_t nl = (size_t)(colon - q);
          if (gres_count(colon + 1, (size_t)(ie - colon - 1), &count) == 0 &&
              gres_name_ok(q, nl, 0)) {
            if (tm_gres_add(out, q, nl, count) < 0)
              return fail(err, errlen, "out of memory");
          }
        }
        q = ie < e ? ie + 1 : ie;
      }
    }
    p = *e ? e + 1 : e;
  }
  return 0;
}

/* ---- node attributes ----------------------------------------------------- */

int tm_parse_node_state(const char *s, unsigned *flags, char *err,
                        size_t errlen)
{
  static const struct {
    const char *word;
    unsigned flag;
  } words[] = {
      {"free", TM_NS_FREE},           {"down", TM_NS_DOWN},
      {"offline", TM_NS_OFFLINE},     {"job-exclusive", TM_NS_JOB_EXCLUSIVE},
      {"job-sharing", TM_NS_JOB_SHARING}, {"busy", TM_NS_BUSY},
      {"reserve", TM_NS_RESERVE},     {"state-unknown", TM_NS_UNKNOWN},
      {"unknown", TM_NS_UNKNOWN},     {"time-shared", TM_NS_TIME_SHARED},
  };
  const char *p = s;
  unsigned f = 0;
  int rc = 0;

  if (s == NULL || *skip_ws(s) == '\0') {
    *flags = TM_NS_UNKNOWN;
    return fail(err, errlen, "empty node state");
  }
  while (*p != '\0') {
    const char *e;
    size_t len, i;
    int known = 0;
    p = skip_ws(p);
    e = p;
    while (*e != '\0' && *e != ',' && *e != ' ' && *e != '\t')
      e++;
    len = (size_t)(e - p);
    if (len > 0) {
      for (i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].word) == len && strncasecmp(p, words[i].word, len) == 0) {
          f |= words[i].flag;
          known = 1;
        }
      if (!known) {
        f |= TM_NS_OTHER;
        if (rc == 0)
          rc = fail(err, errlen, "unknown node state \"%.*s\"", (int)len, p);
      }
    }
    p = e;
    while (*p == ',' || *p == ' ' || *p == '\t')
      p++;
  }
  *flags = f;
  return rc;
}

/* Counts the slots of "N", "N-M" (inclusive) or a comma list of those. */
static int count_slots(const char *p, const char *end, long *count)
{
  long total = 0;
  if (p == end)
    return -1;
  for (;;) {
    const char *e = p, *dash = NULL;
    long a, b;
    while (e < end && *e != ',') {
      if (*e == '-' && dash == NULL)
        dash = e;
      e++;
    }
    if (dash != NULL) {
      if (digits_to_long(p, dash, &a) != 0 || digits_to_long(dash + 1, e, &b) != 0 || b < a ||
          b - a >= INT_MAX)
        return -1;
      total += b - a + 1;
    } else {
      if (digits_to_long(p, e, &a) != 0)
        return -1;
      total += 1;
    }
    if (total > INT_MAX)
      return -1;
    if (e == end)
      break;
    p = e + 1;
    if (p == end) /* trailing comma */
      return -1;
  }
  *count = total;
  return 0;
}

static int add_node_job(struct tm_node_job **jobs, size_t *n, const char *id,
                        size_t idlen, int slots)
{
  size_t i;
  struct tm_node_job *nj;
  for (i = 0; i < *n; i++)
    if (strlen((*jobs)[i].job_id) == idlen && strncmp((*jobs)[i].job_id, id, idlen) == 0) {
      (*jobs)[i].slots += slots;
      return 0;
    }
  nj = realloc(*jobs, (*n + 1) * sizeof *nj);
  if (nj == NULL)
    return -1;
  *jobs = nj;
  nj[*n].job_id = malloc(idlen + 1);
  if (nj[*n].job_id == NULL)
    return -1;
  memcpy(nj[*n].job_id, id, idlen);
  nj[*n].job_id[idlen] = '\0';
  nj[*n].slots = slots;
  (*n)++;
  return 0;
}

int tm_parse_node_jobs(const char *s, struct tm_node_job **jobs, size_t *n,
                       int *used, char *err, size_t errlen)
{
  const char *p = s;
  long pending = 0; /* slots of "0,2/12.vm" seen before the '/' token */
  int have_pending = 0;
  long total = 0;

  *jobs = NULL;
  *n = 0;
  *used = 0;
  if (s == NULL)
    return 0;
  while (*p != '\0') {
    const char *e, *slash;
    long cnt;
    while (*p == ',' || *p == ' ' || *p == '\t')
      p++;
    if (*p == '\0')
      break;
    e = p;
    while (*e != '\0' && *e != ',' && *e != ' ' && *e != '\t')
      e++;
    slash = memchr(p, '/', (size_t)(e - p));
    if (slash == NULL) {
      if (count_slots(p, e, &cnt) != 0)
        goto bad;
      pending += cnt;
      have_pending = 1;
    } else {
      if (count_slots(p, slash, &cnt) != 0 || slash + 1 == e)
        goto bad;
      cnt += pending;
      pending = 0;
      have_pending = 0;
      if (cnt > INT_MAX || total + cnt > INT_MAX)
        goto bad;
      if (add_node_job(jobs, n, slash + 1, (size_t)(e - slash - 1), (int)cnt) != 0) {
        fail(err, errlen, "out of memory");
        goto out_free;
      }
      total += cnt;
    }
    p = e;
  }
  if (have_pending)
    goto bad;
  *used = (int)total;
  return 0;

bad:
  fail(err, errlen, "expected slots/jobid entries such as 0-1/12.vm,3/13.vm, got \"%s\"", s);
out_free:
  {
    size_t i;
    for (i = 0; i < *n; i++)
      free((*jobs)[i].job_id);
    free(*jobs);
    *jobs = NULL;
    *n = 0;
  }
  return -1;
}

int tm_parse_node_status(const char *s, struct tm_node_status *st, char *err,
                         size_t errlen)
{
  const char *p = s;
  int rc = 0;

  st->physmem_mb = st->availmem_mb = st->totmem_mb = -1;
  st->loadave = -1.0;
  st->ncpus = -1;
  if (s == NULL)
    return 0;
  while (*p != '\0') {
    const char *e = strchr(p, ','), *eq;
    char val[128];
    size_t klen, vlen;
    if (e == NULL)
      e = p + strlen(p);
    eq = memchr(p, '=', (size_t)(e - p));
    /* pieces without '=' belong to the previous value (a comma inside it,
     * e.g. in uname); none of the keys read here has one. */
    if (eq != NULL) {
      klen = (size_t)(eq - p);
      vlen = (size_t)(e - eq - 1);
      if (vlen >= sizeof val)
        vlen = sizeof val - 1;
      memcpy(val, eq + 1, vlen);
      val[vlen] = '\0';
#define KEY(k) (klen == strlen(k) && strncmp(p, k, klen) == 0)
      if (KEY("physmem") || KEY("availmem") || KEY("totmem")) {
        long mb;
        char m[TM_ERRLEN];
        if (tm_parse_size_mb(val, 0, &mb, m, sizeof m) != 0) {
          if (rc == 0)
            rc = fail(err, errlen, "%.*s: %s", (int)klen, p, m);
        } else if (KEY("physmem")) {
          st->physmem_mb = mb;
        } else if (KEY("availmem")) {
          st->availmem_mb = mb;
        } else {
          st->totmem_mb = mb;
        }
      } else if (KEY("loadave")) {
        char *end;
        double d;
        errno = 0;
        d = strtod(val, &end);
        if (errno != 0 || end == val || *skip_ws(end) != '\0' || d < 0) {
          if (rc == 0)
            rc = fail(err, errlen, "loadave: expected a number, got \"%s\"", val);
        } else {
          st->loadave = d;
        }
      } else if (KEY("ncpus")) {
        long v;
        if (tm_parse_int(val, 0, INT_MAX, &v, NULL, 0) != 0) {
          if (rc == 0)
            rc = fail(err, errlen, "ncpus: expected an integer, got \"%s\"", val);
        } else {
          st->ncpus = (int)v;
        }
      }
#undef KEY
    }
    p = *e ? e + 1 : e;
  }
  return rc;
}

/* ---- job attributes ------------------------------------------------------ */

static void nodereqs_free(struct tm_nodereq *r, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++) {
    free(r[i].name);
    strlist_free(&r[i].features);
  }
  free(r);
}

/* The words that follow gpus=N in a nodes= part to choose the GPUs' mode. */
static int is_gpu_mode(const char *w)
{
  static const char *const modes[] = {"exclusive_thread", "exclusive", "exclusive_process",
                                      "default", "shared", "reseterr", "prohibited"};
  size_t i;
  for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (strcasecmp(w, modes[i]) == 0)
      return 1;
  return 0;
}

/* Parses one '+'-part "2:ppn=4:bigmem" or "vm:ppn=1" (NUL-terminated copy). */
static int parse_nodepart(char *part, struct tm_nodereq *r, const char *whole,
                          char *err, size_t errlen)
{
  char *tok = part, *next;
  int first = 1, have_gpus = 0;

  memset(r, 0, sizeof *r);
  r->count = 1;
  r->ppn = 1;
  for (; tok != NULL; tok = next, first = 0) {
    next = strchr(tok, ':');
    if (next != NULL)
      *next++ = '\0';
    if (*tok == '\0')
      return fail(err, errlen, "empty element in nodes \"%s\"", whole);
    if (first && isdigit((unsigned char)*tok)) {
      long v;
      if (tm_parse_int(tok, 1, 1000000, &v, NULL, 0) != 0)
        return fail(err, errlen, "bad node count \"%s\" in nodes \"%s\"", tok, whole);
      r->count = (int)v;
    } else if (strchr(tok, '=') != NULL) {
      char *eq = strchr(tok, '=');
      long v;
      *eq = '\0';
      if (first)
        return fail(err, errlen, "nodes \"%s\" must start with a count or a name", whole);
      if (strcmp(tok, "ppn") == 0 || strcmp(tok, "gpus") == 0 || strcmp(tok, "mics") == 0) {
        if (tm_parse_int(eq + 1, strcmp(tok, "ppn") == 0 ? 1 : 0, 1000000, &v, NULL, 0) != 0)
          return fail(err, errlen, "bad %s value \"%s\" in nodes \"%s\"", tok, eq + 1, whole);
        if (strcmp(tok, "ppn") == 0)
          r->ppn = (int)v;
        else if (strcmp(tok, "gpus") == 0)
          r->gpus = (int)v, have_gpus = 1;
        else
          r->mics = (int)v;
      }
      /* other key=value items do not concern placement here */
    } else if (first) {
      r->name = strdup(tok);
      if (r->name == NULL)
        return fail(err, errlen, "out of memory");
    } else if (have_gpus && is_gpu_mode(tok)) {
      /* after gpus=, pbs_server reads these as the GPUs' mode, not as
       * properties (node_manager.c proplist) */
      if (strcasecmp(tok, "prohibited") == 0)
        return fail(err, errlen, "gpu mode \"prohibited\" cannot be requested (nodes \"%s\")",
                    whole);
    } else if (strlist_add_unique(&r->features, tok) != 0) {
      return fail(err, errlen, "out of memory");
    }
  }
  return 0;
}

int tm_parse_nodespec(const char *s, struct tm_nodereq **reqs, size_t *n,
                      int *exclusive, char *err, size_t errlen)
{
  char *buf, *hash, *part, *next;
  struct tm_nodereq *out = NULL;
  size_t cnt = 0;

  *reqs = NULL;
  *n = 0;
  *exclusive = 0;
  if (s == NULL || *skip_ws(s) == '\0')
    return fail(err, errlen, "empty nodes specification");
  buf = strdup(skip_ws(s));
  if (buf == NULL)
    return fail(err, errlen, "out of memory");
  {
    size_t l = strlen(buf);
    while (l > 0 && (buf[l - 1] == ' ' || buf[l - 1] == '\t'))
      buf[--l] = '\0';
  }
  /* trailing "#excl" / "#shared" apply to the whole request */
  while ((hash = strrchr(buf, '#')) != NULL) {
    if (strcmp(hash + 1, "excl") == 0)
      *exclusive = 1;
    else if (strcmp(hash + 1, "shared") != 0) {
      fail(err, errlen, "unknown node flag \"#%s\" in nodes \"%s\"", hash + 1, s);
      goto bad;
    }
    *hash = '\0';
  }
  for (part = buf; part != NULL; part = next) {
    struct tm_nodereq *nr;
    next = strchr(part, '+');
    if (next != NULL)
      *next++ = '\0';
    if (*part == '\0') {
      fail(err, errlen, "empty part in nodes \"%s\"", s);
      goto bad;
    }
    nr = realloc(out, (cnt + 1) * sizeof *nr);
    if (nr == NULL) {
      fail(err, errlen, "out of memory");
      goto bad;
    }
    out = nr;
    if (parse_nodepart(part, &out[cnt], s, err, errlen) != 0) {
      cnt++;
      goto bad;
    }
    cnt++;
  }
  free(buf);
  *reqs = out;
  *n = cnt;
  return 0;

bad:
  free(buf);
  nodereqs_free(out, cnt);
  return -1;
}

static void allocs_free(struct tm_alloc *a, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    free(a[i].host);
  free(a);
}

int tm_parse_exec_host(const char *s, struct tm_alloc **alloc, size_t *n,
                       char *err, size_t errlen)
{
  const char *p = s;
  struct tm_alloc *out = NULL;
  size_t cnt = 0;

  *alloc = NULL;
  *n = 0;
  if (s == NULL || *s == '\0')
    return 0;
  while (*p != '\0') {
    const char *e = strchr(p, '+'), *slash;
    long slots;
    size_t hl, i;
    if (e == NULL)
      e = p + strlen(p);
    slash = memchr(p, '/', (size_t)(e - p));
    if (slash == NULL || slash == p || count_slots(slash + 1, e, &slots) != 0) {
      fail(err, errlen, "expected host/slots entries such as vm/0+runsc/0-1, got \"%s\"", s);
      goto bad;
    }
    hl = (size_t)(slash - p);
    for (i = 0; i < cnt; i++)
      if (strlen(out[i].host) == hl && strncmp(out[i].host, p, hl) == 0)
        break;
    if (i == cnt) {
      struct tm_alloc *na = realloc(out, (cnt + 1) * sizeof *na);
      if (na == NULL)
        goto oom;
      out = na;
      out[cnt].host = malloc(hl + 1);
      if (out[cnt].host == NULL)
        goto oom;
      memcpy(out[cnt].host, p, hl);
      out[cnt].host[hl] = '\0';
      out[cnt].slots = 0;
      cnt++;
    }
    if (out[i].slots + slots > INT_MAX) {
      fail(err, errlen, "too many slots in exec_host \"%s\"", s);
      goto bad;
    }
    out[i].slots += (int)slots;
    if (*e == '+' && e[1] == '\0') {
      fail(err, errlen, "trailing '+' in exec_host \"%s\"", s);
      goto bad;
    }
    p = *e ? e + 1 : e;
  }
  *alloc = out;
  *n = cnt;
  return 0;
oom:
  fail(err, errlen, "out of memory");
bad:
  allocs_free(out, cnt);
  return -1;
}

int tm_parse_exec_gpus(const char *s, struct tm_alloc **alloc, size_t *n, char *err,
                       size_t errlen)
{
  size_t i;
  if (tm_parse_exec_host(s, alloc, n, err, errlen) != 0) {
    if (strstr(err, "out of memory") == NULL)
      fail(err, errlen, "expected host-gpu/index entries such as g1-gpu/0+g1-gpu/1, got \"%s\"",
           s);
    return -1;
  }
  for (i = 0; i < *n; i++) {
    size_t l = strlen((*alloc)[i].host);
    if (l <= 4 || strcmp((*alloc)[i].host + l - 4, "-gpu") != 0) {
      fail(err, errlen, "expected host-gpu/index entries such as g1-gpu/0+g1-gpu/1, got \"%s\"",
           s);
      allocs_free(*alloc, *n);
      *alloc = NULL;
      *n = 0;
      return -1;
    }
    (*alloc)[i].host[l - 4] = '\0';
  }
  return 0;
}

int tm_parse_depend(const char *s, struct strlist *after,
                    struct strlist *afterstart, char *err, size_t errlen)
{
  static const char *const wait_types[] = {"after", "afterok", "afternotok",
                                           "afterany"};
  static const char *const other_types[] = {
      "before", "beforeok", "beforenotok", "beforeany", "on", "syncwith",
      "syncct", "afterokarray", "afternotokarray", "afteranyarray",
      "beforeokarray", "beforenotokarray", "beforeanyarray"};
  const char *p = s;

  if (s == NULL)
    return 0;
  while (*p != '\0') {
    const char *e = strchr(p, ','), *colon;
    size_t tl, i;
    struct strlist *dst = NULL;
    int known = 0;
    if (e == NULL)
      e = p + strlen(p);
    colon = memchr(p, ':', (size_t)(e - p));
    if (colon == NULL || colon == p || colon + 1 == e)
      return fail(err, errlen, "expected type:jobid[:jobid...] entries, got \"%s\"", s);
    tl = (size_t)(colon - p);
    for (i = 0; i < sizeof wait_types / sizeof wait_types[0]; i++)
      if (strlen(wait_types[i]) == tl && strncmp(p, wait_types[i], tl) == 0) {
        dst = after;
        known = 1;
      }
    if (tl == 10 && strncmp(p, "afterstart", 10) == 0) {
      dst = afterstart;
      known = 1;
    }
    for (i = 0; !known && i < sizeof other_types / sizeof other_types[0]; i++)
      if (strlen(other_types[i]) == tl && strncmp(p, other_types[i], tl) == 0)
        known = 1;
    if (!known)
      return fail(err, errlen, "unknown dependency type \"%.*s\" in \"%s\"", (int)tl, p, s);
    if (dst != NULL) {
      const char *q = colon + 1;
      while (q < e) {
        const char *qe = memchr(q, ':', (size_t)(e - q)), *at;
        if (qe == NULL)
          qe = e;
        at = memchr(q, '@', (size_t)(qe - q)); /* "12.vm@server" */
        if (at == NULL)
          at = qe;
        if (at == q)
          return fail(err, errlen, "empty job id in dependency \"%s\"", s);
        if (strlist_addn(dst, q, (size_t)(at - q)) != 0)
          return fail(err, errlen, "out of memory");
        q = qe < e ? qe + 1 : qe;
      }
    }
    p = *e ? e + 1 : e;
  }
  return 0;
}

int tm_parse_hold_types(const char *s, char *err, size_t errlen)
{
  const char *p;
  int held = 0;
  if (s == NULL)
    return 0;
  for (p = skip_ws(s); *p != '\0' && *p != ' '; p++) {
    if (*p == 'n')
      continue;
    if (strchr("uosp", *p) == NULL)
      return fail(err, errlen, "unknown hold type '%c' in \"%s\"", *p, s);
    held = 1;
  }
  if (*skip_ws(p) != '\0')
    return fail(err, errlen, "unexpected text in hold types \"%s\"", s);
  return held;
}

unsigned tm_hold_bits(const char *s)
{
  unsigned bits = 0;
  for (; s != NULL && *s != '\0'; s++) {
    switch (*s) {
    case 'u': bits |= TM_HOLD_USER; break;
    case 'o': bits |= TM_HOLD_OPERATOR; break;
    case 's': bits |= TM_HOLD_SYSTEM; break;
    case 'p': bits |= TM_HOLD_BADPW; break;
    default: break;
    }
  }
  return bits;
}

int tm_parse_array_id(const char *id, char **parent, int *index)
{
  const char *lb = strchr(id, '['), *rb;
  long v;
  *parent = NULL;
  *index = -1;
  if (lb == NULL || (rb = strchr(lb, ']')) == NULL)
    return 0;
  if (rb == lb + 1)
    return 2;
  if (digits_to_long(lb + 1, rb, &v) != 0 || v > INT_MAX)
    return 0;
  *parent = malloc(strlen(id) + 1);
  if (*parent != NULL) {
    size_t pl = (size_t)(lb - id) + 1;
    memcpy(*parent, id, pl);
    strcpy(*parent + pl, rb);
  }
  *index = (int)v;
  return 1;
}

/* ---- objects ------------------------------------------------------------- */

const char *tm_attr(const struct attrl *a, const char *name,
                    const char *resource)
{
  for (; a != NULL; a = a->next) {
    if (a->name == NULL || strcmp(a->name, name) != 0)
      continue;
    if (resource == NULL ? (a->resource == NULL || a->resource[0] == '\0')
                         : (a->resource != NULL && strcmp(a->resource, resource) == 0))
      return a->value ? a->value : "";
  }
  return NULL;
}

int tm_node_from_attrs(struct tm_node *node, const char *name,
                       const struct attrl *attrs)
{
  const char *v;
  char m[TM_ERRLEN];
  struct tm_node_status st;

  memset(node, 0, sizeof *node);
  node->name = strdup(name ? name : "");
  if (node->name == NULL)
    return -1;
  node->procs = 1;

  v = tm_attr(attrs, "state", NULL);
  if (v == NULL) {
    node->state = TM_NS_UNKNOWN;
  } else if (tm_parse_node_state(v, &node->state, m, sizeof m) != 0) {
    keep_err(node->err, "state", m);
    node->state |= TM_NS_INVALID;
  }
  v = tm_attr(attrs, "np", NULL);
  if (v != NULL) {
    long np;
    if (tm_parse_int(v, 0, INT_MAX, &np, m, sizeof m) != 0) {
      keep_err(node->err, "np", m);
      node->state |= TM_NS_INVALID;
    } else {
      node->procs = (int)np;
    }
  }
  v = tm_attr(attrs, "properties", NULL);
  if (v != NULL) {
    const char *p = v;
    while (*p != '\0') {
      const char *e;
      p = skip_ws(p);
      e = p;
      while (*e != '\0' && *e != ',')
        e++;
      {
        const char *te = e;
        while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
          te--;
        if (te > p && strlist_addn(&node->features, p, (size_t)(te - p)) != 0)
          return -1;
      }
      p = *e ? e + 1 : e;
    }
  }
  v = tm_attr(attrs, "jobs", NULL);
  if (v != NULL && tm_parse_node_jobs(v, &node->jobs, &node->njobs,
                                      &node->used_slots, m, sizeof m) != 0) {
    if (strcmp(m, "out of memory") == 0)
      return -1;
    keep_err(node->err, "jobs", m);
    node->state |= TM_NS_INVALID;
  }
  /* generic resources: gpus and mics (reported only when the node has
   * some), Torque 6.1's plugin resources (attributes "gres:NAME"), then the
   * mom's static resources in status; a name from an earlier source wins */
  {
    static const struct {
      const char *attr, *gres;
    } counted[] = {{"gpus", "gpu"}, {"mics", "mic"}};
    size_t i;
    const struct attrl *a;
    for (i = 0; i < sizeof counted / sizeof counted[0]; i++) {
      long c;
      v = tm_attr(attrs, counted[i].attr, NULL);
      if (v == NULL)
        continue;
      if (tm_parse_int(v, 0, 4294967295L, &c, m, sizeof m) != 0) {
        /* an unknown count of devices: placing device jobs there could
         * oversubscribe them */
        keep_err(node->err, counted[i].attr, m);
        node->state |= TM_NS_INVALID;
      } else if (c > 0 && tm_gres_add(&node->gres, counted[i].gres,
                                      strlen(counted[i].gres), c) < 0) {
        return -1;
      }
    }
    for (a = attrs; a != NULL; a = a->next) {
      long c;
      if (a->name == NULL || strncmp(a->name, "gres:", 5) != 0 || a->name[5] == '\0')
        continue;
      if (!gres_name_ok(a->name + 5, strlen(a->name + 5), 0) ||
          tm_parse_int(a->value, 0, 4294967295L, &c, NULL, 0) != 0) {
        snprintf(m, sizeof m, "expected a generic resource count, got \"%s\"",
                 a->value ? a->value : "");
        keep_err(node->err, a->name, m);
        continue;
      }
      if (c > 0 && tm_gres_add(&node->gres, a->name + 5, strlen(a->name + 5), c) < 0)
        return -1;
    }
    if (tm_parse_status_gres(tm_attr(attrs, "status", NULL), &node->gres, m, sizeof m) != 0)
      return -1;
  }
  /* status is informative (memory, load): a malformed value makes that
   * figure unknown, it does not take the node out of service */
  if (tm_parse_node_status(tm_attr(attrs, "status", NULL), &st, m, sizeof m) != 0)
    keep_err(node->err, "status", m);
  node->mem_mb = st.physmem_mb;
  node->avail_mem_mb = st.availmem_mb;
  node->total_mem_mb = st.totmem_mb;
  node->load = st.loadave;
  node->status_ncpus = st.ncpus;
  return 0;
}

static int dup_attr(char **dst, const struct attrl *attrs, const char *name)
{
  const char *v = tm_attr(attrs, name, NULL);
  *dst = NULL;
  if (v != NULL && (*dst = strdup(v)) == NULL)
    return -1;
  return 0;
}

#define OOM_MSG "out of memory"

/* nodes= gpus=/mics= of every part -> the job's per-node or per-task
 * request.  The engine takes one request for all the job's nodes: every
 * part asking the same is that per node; every part asking the same
 * multiple of its ppn is that per task (the devices follow the tasks);
 * anything else cannot be said exactly and is refused. */
static int job_devices(struct tm_job *job, char *err, size_t errlen)
{
  static const struct {
    const char *word, *gres;
  } kinds[] = {{"gpus", "gpu"}, {"mics", "mic"}};
  size_t kind, k;
  for (kind = 0; kind < 2; kind++) {
    int v0 = kind == 0 ? job->reqs[0].gpus : job->reqs[0].mics, same = 1, ratio = -1;
    int per_node = 0, per_task = 0;
    for (k = 0; k < job->nreqs; k++)
      if ((kind == 0 ? job->reqs[k].gpus : job->reqs[k].mics) != v0)
        same = 0;
    if (same) {
      per_node = v0;
    } else {
      for (k = 0; k < job->nreqs; k++) {
        int v = kind == 0 ? job->reqs[k].gpus : job->reqs[k].mics, p = job->reqs[k].ppn;
        if (p <= 0 || v % p != 0 || (ratio >= 0 && v / p != ratio)) {
          ratio = -1;
          break;
        }
        ratio = v / p;
      }
      if (ratio < 0) {
        int other = 0;
        for (k = 0; k < job->nreqs; k++)
          if ((other = kind == 0 ? job->reqs[k].gpus : job->reqs[k].mics) != v0)
            break;
        return fail(err, errlen, "the parts ask for different %s per node (%d and %d); "
                    "mauisched places a job with one %s count per node (or per processor), "
                    "so this request cannot be described", kinds[kind].word, v0, other,
                    kinds[kind].word);
      }
      per_task = ratio;
    }
    if (per_node > 0 &&
        tm_gres_add(&job->gres_node, kinds[kind].gres, strlen(kinds[kind].gres), per_node) < 0)
      return fail(err, errlen, OOM_MSG);
    if (per_task > 0 &&
        tm_gres_add(&job->gres_task, kinds[kind].gres, strlen(kinds[kind].gres), per_task) < 0)
      return fail(err, errlen, OOM_MSG);
    if (kind == 0) {
      job->gpus_node = per_node;
      job->gpus_task = per_task;
    } else {
      job->mics_node = per_node;
      job->mics_task = per_task;
    }
  }
  return 0;
}

/* Drops name from a list. */
static void gres_remove(struct tm_greslist *l, const char *name)
{
  size_t i;
  for (i = 0; i < l->n; i++)
    if (strcmp(l->v[i].name, name) == 0) {
      free(l->v[i].name);
      l->v[i] = l->v[--l->n];
      return;
    }
}

/* A started job holds the GPUs of its exec_gpus, whatever it asked for
 * (pbs_server gives none when the run location names none): those are
 * what the engine must count as taken, per node when every exec_host node
 * holds the same number, per task when each holds the same number per
 * slot, else the most any node holds on each (never fewer than taken). */
static int held_gpus(struct tm_job *job, const char *exec_gpus, char *err, size_t errlen)
{
  struct tm_alloc *g = NULL;
  size_t ng = 0, i, k;
  long first = -1, ratio = -1, most = 0;
  int same = 1, proportional = 1;
  if (tm_parse_exec_gpus(exec_gpus, &g, &ng, err, errlen) != 0)
    return -1;
  gres_remove(&job->gres_node, "gpu");
  gres_remove(&job->gres_task, "gpu");
  job->gpus_node = job->gpus_task = 0;
  for (i = 0; i < job->nalloc; i++) {
    long held = 0, slots = job->alloc[i].slots;
    for (k = 0; k < ng; k++)
      if (strcmp(g[k].host, job->alloc[i].host) == 0)
        held = g[k].slots;
    if (first < 0)
      first = held;
    same &= held == first;
    if (slots <= 0 || held % slots != 0 || (ratio >= 0 && held / slots != ratio))
      proportional = 0;
    else
      ratio = held / slots;
    if (held > most)
      most = held;
  }
  allocs_free(g, ng);
  if (same || !proportional) {
    if (most > 0 && tm_gres_add(&job->gres_node, "gpu", 3, most) < 0)
      return fail(err, errlen, OOM_MSG);
    job->gpus_node = (int)most;
  } else if (ratio > 0) {
    if (tm_gres_add(&job->gres_task, "gpu", 3, ratio) < 0)
      return fail(err, errlen, OOM_MSG);
    job->gpus_task = (int)ratio;
  }
  return 0;
}

int tm_job_from_attrs(struct tm_job *job, const char *id,
                      const struct attrl *attrs)
{
  const char *v, *nodes, *procs, *ncpus;
  char m[TM_ERRLEN];
  long l;

  memset(job, 0, sizeof *job);
  job->id = strdup(id ? id : "");
  if (job->id == NULL)
    return -1;
  job->state = '?';
  job->walltime = -1;
  if (tm_parse_array_id(job->id, &job->array_parent, &job->array_index) == 2)
    job->inelig |= TM_INELIG_ARRAY;

  if (dup_attr(&job->name, attrs, "Job_Name") || dup_attr(&job->user, attrs, "euser") ||
      dup_attr(&job->owner, attrs, "Job_Owner") ||
      dup_attr(&job->group, attrs, "egroup") || dup_attr(&job->account, attrs, "Account_Name") ||
      dup_attr(&job->cls, attrs, "queue") || dup_attr(&job->comment, attrs, "comment") ||
      dup_attr(&job->depend, attrs, "depend") || dup_attr(&job->hold_types, attrs, "Hold_Types"))
    return -1;

  v = tm_attr(attrs, "job_state", NULL);
  if (v != NULL && v[0] != '\0' && v[1] == '\0' && isupper((unsigned char)v[0]))
    job->state = v[0];
  else if (v != NULL)
    keep_err(job->err, "job_state", "expected one capital letter");

  v = tm_attr(attrs, "qtime", NULL);
  if (v != NULL && tm_parse_epoch(v, &job->submit_time, m, sizeof m) != 0)
    keep_err(job->err, "qtime", m);
  v = tm_attr(attrs, "Execution_Time", NULL);
  if (v != NULL && tm_parse_epoch(v, &job->exec_time, m, sizeof m) != 0)
    keep_err(job->err, "Execution_Time", m);
  v = tm_attr(attrs, "start_time", NULL);
  if (v != NULL && tm_parse_epoch(v, &job->start_time, m, sizeof m) != 0)
    keep_err(job->err, "start_time", m);
  v = tm_attr(attrs, "comp_time", NULL);
  if (v != NULL && tm_parse_epoch(v, &job->comp_time, m, sizeof m) != 0)
    keep_err(job->err, "comp_time", m);
  v = tm_attr(attrs, "Priority", NULL);
  if (v != NULL && tm_parse_int(v, LONG_MIN + 1, LONG_MAX, &job->priority, m, sizeof m) != 0)
    keep_err(job->err, "Priority", m);

  v = tm_attr(attrs, "Resource_List", "walltime");
  if (v != NULL && tm_parse_duration(v, &job->walltime, m, sizeof m) != 0)
    keep_err(job->err, "Resource_List.walltime", m);

  nodes = tm_attr(attrs, "Resource_List", "nodes");
  procs = tm_attr(attrs, "Resource_List", "procs");
  ncpus = tm_attr(attrs, "Resource_List", "ncpus");
  if (nodes != NULL) {
    /* nodes= is the placement request; ncpus/procs beside it are ignored,
     * as pbs_server allocates by nodes= */
    if (tm_parse_nodespec(nodes, &job->reqs, &job->nreqs, &job->exclusive, m, sizeof m) != 0) {
      if (strcmp(m, OOM_MSG) == 0)
        return -1;
      keep_err(job->err, "Resource_List.nodes", m);
    }
  } else if (procs != NULL) {
    /* procs=N: N processors anywhere, any number per node */
    if (tm_parse_int(procs, 1, 1000000, &l, m, sizeof m) != 0) {
      keep_err(job->err, "Resource_List.procs", m);
    } else {
      job->spread = 1;
      job->tasks = (int)l;
      job->ppn = 1;
    }
  }
  if (nodes == NULL && !job->spread) {
    /* ncpus=N means N processors on one node; nothing at all means one */
    long cpus = 1;
    if (ncpus != NULL && tm_parse_int(ncpus, 1, 1000000, &cpus, m, sizeof m) != 0) {
      keep_err(job->err, "Resource_List.ncpus", m);
      cpus = 1;
    }
    job->reqs = calloc(1, sizeof *job->reqs);
    if (job->reqs == NULL)
      return -1;
    job->nreqs = 1;
    job->reqs[0].count = 1;
    job->reqs[0].ppn = (int)cpus;
  }
  if (job->nreqs > 0) {
    size_t i;
    long tasks = 0, nn = 0;
    job->ppn = job->reqs[0].ppn;
    for (i = 0; i < job->nreqs; i++) {
      nn += job->reqs[i].count;
      tasks += (long)job->reqs[i].count * job->reqs[i].ppn;
      if (job->reqs[i].ppn != job->ppn)
        job->ppn = 0;
    }
    if (tasks > INT_MAX || nn > INT_MAX) {
      keep_err(job->err, "Resource_List.nodes", "too many processors");
      tasks = nn = 0;
    }
    job->nodes = (int)nn;
    job->tasks = (int)tasks;
    if (job_devices(job, m, sizeof m) != 0) {
      if (strcmp(m, OOM_MSG) == 0)
        return -1;
      keep_err(job->err, "Resource_List.nodes", m);
    }
  }

  /* generic resources per task: -l gres= and Maui's -W x=GRES: */
  {
    static const struct {
      const char *name, *resource, *field;
      int (*parse)(const char *, struct tm_greslist *, char *, size_t);
    } sources[] = {{"Resource_List", "gres", "Resource_List.gres", tm_parse_gres_request},
                   {"x", NULL, "x", tm_parse_x_gres}};
    size_t i, k;
    for (i = 0; i < sizeof sources / sizeof sources[0]; i++) {
      struct tm_greslist g = {0};
      v = tm_attr(attrs, sources[i].name, sources[i].resource);
      if (v == NULL)
        continue;
      if (sources[i].parse(v, &g, m, sizeof m) != 0) {
        tm_gres_free(&g);
        if (strcmp(m, OOM_MSG) == 0)
          return -1;
        keep_err(job->err, sources[i].field, m);
        continue;
      }
      for (k = 0; k < g.n; k++) {
        int r = tm_gres_add(&job->gres_task, g.v[k].name, strlen(g.v[k].name), g.v[k].count);
        if (r < 0) {
          tm_gres_free(&g);
          return -1;
        }
        if (r > 0 || tm_gres_get(&job->gres_node, g.v[k].name) > 0) {
          snprintf(m, sizeof m, "generic resource \"%s\" is asked for twice (among nodes= "
                   "gpus/mics, Resource_List.gres and x=GRES:); give it once", g.v[k].name);
          keep_err(job->err, sources[i].field, m);
        }
      }
      tm_gres_free(&g);
    }
  }

  v = tm_attr(attrs, "Resource_List", "pmem");
  if (v != NULL) {
    if (tm_parse_size_mb(v, 1, &job->mem_per_task_mb, m, sizeof m) != 0)
      keep_err(job->err, "Resource_List.pmem", m);
    else
      job->mem_total_mb = job->mem_per_task_mb * (job->tasks > 0 ? job->tasks : 1);
  }
  v = tm_attr(attrs, "Resource_List", "mem");
  if (v != NULL) {
    if (tm_parse_size_mb(v, 1, &job->mem_total_mb, m, sizeof m) != 0) {
      keep_err(job->err, "Resource_List.mem", m);
    } else if (job->mem_per_task_mb == 0) {
      /* mem is for the whole job; the model counts memory per task */
      long t = job->tasks > 0 ? job->tasks : 1;
      job->mem_per_task_mb = (job->mem_total_mb + t - 1) / t;
    }
  }

  v = tm_attr(attrs, "exec_host", NULL);
  if (v != NULL && tm_parse_exec_host(v, &job->alloc, &job->nalloc, m, sizeof m) != 0) {
    if (strcmp(m, OOM_MSG) == 0)
      return -1;
    keep_err(job->err, "exec_host", m);
  }
  if (job->depend != NULL &&
      tm_parse_depend(job->depend, &job->after, &job->afterstart, m, sizeof m) != 0) {
    if (strcmp(m, OOM_MSG) == 0)
      return -1;
    keep_err(job->err, "depend", m);
  }
  if (job->hold_types != NULL && tm_parse_hold_types(job->hold_types, m, sizeof m) < 0)
    keep_err(job->err, "Hold_Types", m);
  v = tm_attr(attrs, "exec_gpus", NULL);
  if (v != NULL && job->nalloc > 0 && held_gpus(job, v, m, sizeof m) != 0) {
    if (strcmp(m, OOM_MSG) == 0)
      return -1;
    keep_err(job->err, "exec_gpus", m);
  }
  return 0;
}

/* A dependency names "12.vm" (or just "12"); finds that job. */
static const struct tm_job *find_job(const struct tm_snapshot *s, const char *id)
{
  size_t i, il = strlen(id);
  for (i = 0; i < s->njobs; i++)
    if (strcmp(s->jobs[i].id, id) == 0)
      return &s->jobs[i];
  if (strchr(id, '.') == NULL)
    for (i = 0; i < s->njobs; i++)
      if (strncmp(s->jobs[i].id, id, il) == 0 && s->jobs[i].id[il] == '.')
        return &s->jobs[i];
  return NULL;
}

static int is_node_name(const struct tm_snapshot *s, const char *name)
{
  size_t i;
  for (i = 0; i < s->nnodes; i++)
    if (strcmp(s->nodes[i].name, name) == 0)
      return 1;
  return 0;
}

int tm_snapshot_resolve(struct tm_snapshot *s)
{
  size_t i, k, f;
  for (i = 0; i < s->njobs; i++) {
    struct tm_job *j = &s->jobs[i];
    strlist_free(&j->req_hosts);
    strlist_free(&j->features);
    for (k = 0; k < j->nreqs; k++) {
      struct tm_nodereq *r = &j->reqs[k];
      if (r->name != NULL) {
        /* Torque reads the leading word of a nodes= part as a host name when
         * such a node exists, otherwise as a property */
        r->is_host = is_node_name(s, r->name);
        if (strlist_add_unique(r->is_host ? &j->req_hosts : &j->features, r->name) != 0)
          return -1;
      }
      for (f = 0; f < r->features.n; f++)
        if (strlist_add_unique(&j->features, r->features.v[f]) != 0)
          return -1;
    }

    j->inelig &= TM_INELIG_ARRAY;
    if (j->state != 'Q')
      j->inelig |= TM_INELIG_STATE;
    if (j->hold_types != NULL && tm_parse_hold_types(j->hold_types, NULL, 0) == 1)
      j->inelig |= TM_INELIG_HOLD;
    if (j->exec_time > s->now)
      j->inelig |= TM_INELIG_EXECTIME;
    for (k = 0; k < j->after.n; k++) {
      const struct tm_job *d = find_job(s, j->after.v[k]);
      if (d != NULL && d->state != 'C')
        j->inelig |= TM_INELIG_DEPEND;
    }
    for (k = 0; k < j->afterstart.n; k++) {
      const struct tm_job *d = find_job(s, j->afterstart.v[k]);
      if (d != NULL && strchr("QHWT", d->state) != NULL)
        j->inelig |= TM_INELIG_DEPEND;
    }
    if (j->err[0] != '\0')
      j->inelig |= TM_INELIG_BADSPEC;
  }
  return 0;
}

int tm_node_usable(const struct tm_node *n)
{
  return (n->state & (TM_NS_DOWN | TM_NS_OFFLINE | TM_NS_UNKNOWN | TM_NS_RESERVE |
                      TM_NS_BUSY | TM_NS_JOB_EXCLUSIVE | TM_NS_INVALID)) == 0;
}

void tm_node_free(struct tm_node *n)
{
  size_t i;
  free(n->name);
  strlist_free(&n->features);
  tm_gres_free(&n->gres);
  for (i = 0; i < n->njobs; i++)
    free(n->jobs[i].job_id);
  free(n->jobs);
  memset(n, 0, sizeof *n);
}

void tm_job_free(struct tm_job *j)
{
  free(j->id);
  free(j->name);
  free(j->user);
  free(j->owner);
  free(j->group);
  free(j->account);
  free(j->cls);
  free(j->depend);
  free(j->hold_types);
  free(j->comment);
  free(j->array_parent);
  nodereqs_free(j->reqs, j->nreqs);
  strlist_free(&j->req_hosts);
  strlist_free(&j->features);
  strlist_free(&j->after);
  strlist_free(&j->afterstart);
  tm_gres_free(&j->gres_task);
  tm_gres_free(&j->gres_node);
  allocs_free(j->alloc, j->nalloc);
  memset(j, 0, sizeof *j);
}

void tm_snapshot_free(struct tm_snapshot *s)
{
  size_t i;
  free(s->server.name);
  free(s->server.state);
  for (i = 0; i < s->nqueues; i++)
    free(s->queues[i].name);
  free(s->queues);
  for (i = 0; i < s->nnodes; i++)
    tm_node_free(&s->nodes[i]);
  free(s->nodes);
  for (i = 0; i < s->njobs; i++)
    tm_job_free(&s->jobs[i]);
  free(s->jobs);
  memset(s, 0, sizeof *s);
}

void tm_inelig_text(unsigned inelig, char *buf, size_t len)
{
  static const struct {
    unsigned bit;
    const char *text;
  } names[] = {
      {TM_INELIG_STATE, "not queued"},
      {TM_INELIG_HOLD, "held"},
      {TM_INELIG_DEPEND, "waiting for a dependency"},
      {TM_INELIG_EXECTIME, "execution time not reached"},
      {TM_INELIG_BADSPEC, "unreadable request"},
      {TM_INELIG_ARRAY, "array summary"},
  };
  size_t i, used = 0;
  if (len == 0)
    return;
  buf[0] = '\0';
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (inelig & names[i].bit) {
      int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i].text);
      if (w < 0 || (size_t)w >= len - used)
        return;
      used += (size_t)w;
    }
}
