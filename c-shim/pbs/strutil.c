/*
 * strutil.c - string list and buffer helpers.
 */
#define _POSIX_C_SOURCE 200809L
#include "strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *xstrdup(const char *s)
{
  return s ? strdup(s) : NULL;
}

int strlist_addn(struct strlist *l, const char *s, size_t len)
{
  char *c;
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 4;
    char **nv = realloc(l->v, nc * sizeof *nv);
    if (nv == NULL)
      return -1;
    l->v = nv;
    l->cap = nc;
  }
  c = malloc(len + 1);
  if (c == NULL)
    return -1;
  memcpy(c, s, len);
  c[len] = '\0';
  l->v[l->n++] = c;
  return 0;
}

int strlist_add(struct strlist *l, const char *s)
{
  return strlist_addn(l, s, strlen(s));
}

int strlist_has(const struct strlist *l, const char *s)
{
  size_t i;
  for (i = 0; i < l->n; i++)
    if (strcmp(l->v[i], s) == 0)
      return 1;
  return 0;
}

int strlist_add_unique(struct strlist *l, const char *s)
{
  return strlist_has(l, s) ? 0 : strlist_add(l, s);
}

void strlist_free(struct strlist *l)
{
  size_t i;
  for (i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

int strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
  va_list ap;
  int need;
  if (b->oom)
    return -1;
  va_start(ap, fmt);
  need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (need < 0) {
    b->oom = 1;
    return -1;
  }
  if (b->len + (size_t)need + 1 > b->cap) {
    size_t nc = b->cap ? b->cap : 64;
    char *ns;
    while (nc < b->len + (size_t)need + 1)
      nc *= 2;
    ns = realloc(b->s, nc);
    if (ns == NULL) {
      b->oom = 1;
      return -1;
    }
    b->s = ns;
    b->cap = nc;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)need;
  return 0;
}

const char *strbuf_str(const struct strbuf *b)
{
  return b->s ? b->s : "";
}

void strbuf_free(struct strbuf *b)
{
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}
