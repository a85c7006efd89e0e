/*
 * strutil.h - small string helpers shared by the daemon's modules: an owned
 * string list and an append-only string buffer.  Allocation failures are
 * reported (-1), never ignored.
 */
#ifndef MAUISCHED_PBS_STRUTIL_H
#define MAUISCHED_PBS_STRUTIL_H

#include <stddef.h>

/* A growable list of owned, NUL-terminated strings. */
struct strlist {
  char **v;
  size_t n;
  size_t cap;
};

/* Appends a copy of s; -1 when out of memory. */
int strlist_add(struct strlist *l, const char *s);
/* Appends a copy of the first len bytes of s; -1 when out of memory. */
int strlist_addn(struct strlist *l, const char *s, size_t len);
/* 1 when an element equals s. */
int strlist_has(const struct strlist *l, const char *s);
/* Appends s unless already present; -1 when out of memory. */
int strlist_add_unique(struct strlist *l, const char *s);
/* Frees every element and the list itself, leaving it empty. */
void strlist_free(struct strlist *l);

/* An append-only string buffer; `s` is always NUL-terminated once any
 * append succeeded.  `oom` records an allocation failure. */
struct strbuf {
  char *s;
  size_t len;
  size_t cap;
  int oom;
};

/* Appends printf-style text (sets oom and returns -1 on failure). */
int strbuf_printf(struct strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Returns the text ("" when nothing was appended). */
const char *strbuf_str(const struct strbuf *b);
/* Frees the buffer, leaving it empty. */
void strbuf_free(struct strbuf *b);

/* strdup of a possibly-NULL string (NULL in, NULL out). */
char *xstrdup(const char *s);

#endif
