/*
 * util.h: what every part of sched/maui uses: log lines, the per-iteration
 * string arena, a growing string, host expressions, uid/gid names, and the
 * hash that tells whether the engine's inputs changed.
 */
#ifndef MAUI_UTIL_H
#define MAUI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define LOG_PREFIX "sched/maui: "

/* One log line at a MAUISCHED_LOG_* level, through slurmctld's log. */
void mlog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like mlog, but once per `cause` (any stable text naming the cause) until
 * mlog_once_reset(): an error that repeats every iteration, or for every
 * job, fills the log with one line instead of thousands. Returns whether
 * it logged. */
bool mlog_once(int level, const char *cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Forgets the causes logged (the next occurrence of each is logged). */
void mlog_once_reset(void);

/* The library's log callback: one line per line of its message. */
void lib_log(uint32_t level, const char *message, void *userdata);
/* Messages the library logged at error level (lib_log), counted. */
extern unsigned long lib_errors;

double mono_ms(void);
/* CPU time of the calling thread, in ms (what an iteration itself costs,
 * against the wall time other threads and processes add). */
double thread_cpu_ms(void);

/* Strings that live until arena_reset(): the library copies what it is
 * given, so one iteration's snapshot strings all go at once. NULL for a
 * NULL input or when memory runs out. */
char *astr(const char *s);
char *astr_n(const char *s, size_t n);
void arena_reset(void);

/* A growing string; s is NULL until something is added. free(b.s). */
struct sbuf {
	char *s;
	size_t len, cap;
};
void sb_add(struct sbuf *b, const char *s, size_t n);
void sb_str(struct sbuf *b, const char *s);
void sb_fmt(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* n[001-004],x -> "n001,n002,n003,n004,x" in the arena; NULL for NULL or "". */
char *expand_hosts(const char *expr);
/* "n001,n002" -> "n[001-002]", malloc()ed. */
char *compress_hosts(const char *names);

/* Local time in Maui's layout, the zone named: "Thu Nov 26 05:18:09 CST". */
void fmt_time(time_t t, char *buf, size_t len);

/* uid and gid names, cached until names_free() (the number when unknown). */
const char *user_name(uint32_t uid);
const char *group_name(uint32_t gid);
void names_free(void);

/* FNV-1a. */
uint64_t fnv(uint64_t h, const void *p, size_t n);
uint64_t fnv_str(uint64_t h, const char *s);

#endif /* MAUI_UTIL_H */
