/*
 * decide.c - the decision boundary (see decide.h) and plan helpers.
 */
#define _POSIX_C_SOURCE 200809L
#include "decide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int decide(const struct tm_snapshot *s, struct decisions *out, char *err,
           size_t errlen)
{
  /* TO BE REPLACED by the mauisched library call (C ABI issue): convert s,
   * run the engine's iteration at s->now, convert its plan to *out. */
  return placeholder_fifo_firstfit(s, out, err, errlen);
}

int decisions_add(struct decisions *d, enum decision_kind kind, size_t job,
                  const char *location, const char *reason, long est_start)
{
  struct decision *nv = realloc(d->v, (d->n + 1) * sizeof *nv);
  struct decision *x;
  if (nv == NULL)
    return -1;
  d->v = nv;
  x = &d->v[d->n];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->job = job;
  x->est_start = est_start;
  if ((location != NULL && (x->location = strdup(location)) == NULL) ||
      (reason != NULL && (x->reason = strdup(reason)) == NULL)) {
    free(x->location);
    free(x->reason);
    return -1;
  }
  d->n++;
  return 0;
}

void decisions_free(struct decisions *d)
{
  size_t i;
  for (i = 0; i < d->n; i++) {
    free(d->v[i].location);
    free(d->v[i].reason);
  }
  free(d->v);
  d->v = NULL;
  d->n = 0;
}

char *decide_location(const char *const *hosts, const int *slots, size_t n)
{
  struct strbuf b = {0};
  size_t i;
  for (i = 0; i < n; i++) {
    if (slots[i] == 1)
      strbuf_printf(&b, "%s%s", i ? "+" : "", hosts[i]);
    else
      strbuf_printf(&b, "%s%s:ppn=%d", i ? "+" : "", hosts[i], slots[i]);
  }
  if (b.oom || b.s == NULL) {
    strbuf_free(&b);
    return NULL;
  }
  return b.s;
}
