/*
 * util.c: log lines, the string arena, growing strings, host expressions,
 * uid/gid names and FNV-1a for sched/maui. Only the scheduling thread
 * calls these (mlog also at init), so none of them locks.
 */
#define _GNU_SOURCE
#include "util.h"

#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mauisched.h"
#include "slurm_compat.h"

static void vmlog(int level, const char *fmt, va_list ap)
{
	char buf[4096];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	switch (level) {
	case MAUISCHED_LOG_ERROR:
		slurm_error(LOG_PREFIX "%s", buf);
		break;
	case MAUISCHED_LOG_WARN:
		slurm_info(LOG_PREFIX "warning: %s", buf);
		break;
	case MAUISCHED_LOG_INFO:
		slurm_info(LOG_PREFIX "%s", buf);
		break;
	default:
		slurm_verbose(LOG_PREFIX "%s", buf);
		break;
	}
}

void mlog(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmlog(level, fmt, ap);
	va_end(ap);
}

/* The causes already logged, as hashes. Bounded: when it is full it starts
 * over, which at worst logs a cause a second time. */
#define ONCE_CAP 1024
static uint64_t once_seen[ONCE_CAP];
static size_t once_n;

bool mlog_once(int level, const char *cause, const char *fmt, ...)
{
	uint64_t h = fnv_str(1469598103934665603ULL, cause);
	va_list ap;
	size_t i;

	for (i = 0; i < once_n; i++)
		if (once_seen[i] == h)
			return false;
	if (once_n == ONCE_CAP)
		once_n = 0;
	once_seen[once_n++] = h;
	va_start(ap, fmt);
	vmlog(level, fmt, ap);
	va_end(ap);
	return true;
}

void mlog_once_reset(void)
{
	once_n = 0;
}

unsigned long lib_errors;

void lib_log(uint32_t level, const char *message, void *userdata)
{
	const char *p = message, *nl;

	(void) userdata;
	if (!p)
		return;
	if (level == MAUISCHED_LOG_ERROR)
		lib_errors++;
	/* Config errors span lines: one log line each. */
	do {
		nl = strchr(p, '\n');
		mlog((int) level, "%.*s", nl ? (int) (nl - p) : (int) strlen(p), p);
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
}

double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---------------------------------------------------------------- arena */

struct arena {
	char *buf;
	size_t len, cap;
	struct arena *prev;
};

static struct arena *arena_top;

char *astr_n(const char *s, size_t n)
{
	struct arena *a = arena_top;
	char *p;

	if (!a || a->len + n + 1 > a->cap) {
		size_t cap = n + 1 > 1 << 20 ? n + 1 : 1 << 20;
		struct arena *na = calloc(1, sizeof(*na));
		if (!na || !(na->buf = malloc(cap))) {
			free(na);
			return NULL;
		}
		na->cap = cap;
		na->prev = a;
		arena_top = a = na;
	}
	p = a->buf + a->len;
	memcpy(p, s, n);
	p[n] = '\0';
	a->len += n + 1;
	return p;
}

char *astr(const char *s)
{
	return s ? astr_n(s, strlen(s)) : NULL;
}

void arena_reset(void)
{
	while (arena_top) {
		struct arena *p = arena_top->prev;
		free(arena_top->buf);
		free(arena_top);
		arena_top = p;
	}
}

/* ----------------------------------------------------------------- sbuf */

void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		char *p;
		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(p = realloc(b->s, cap)))
			return;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_fmt(struct sbuf *b, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_add(b, buf, (size_t) n < sizeof(buf) ? (size_t) n : sizeof(buf) - 1);
}

/* ---------------------------------------------------------------- hosts */

char *expand_hosts(const char *expr)
{
	maui_hostlist_t hl;
	struct sbuf b = { 0 };
	char *h, *out;

	if (!expr || !*expr)
		return NULL;
	if (!(hl = slurm_hostlist_create(expr)))
		return NULL;
	while ((h = slurm_hostlist_shift(hl))) {
		if (b.len)
			sb_str(&b, ",");
		sb_str(&b, h);
		free(h);
	}
	slurm_hostlist_destroy(hl);
	out = b.s ? astr(b.s) : NULL;
	free(b.s);
	return out;
}

char *compress_hosts(const char *names)
{
	maui_hostlist_t hl = slurm_hostlist_create(names);
	char *s;

	if (!hl)
		return strdup(names);
	s = maui_hostlist_ranged(hl);
	slurm_hostlist_destroy(hl);
	return s ? s : strdup(names);
}

void fmt_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	/* Maui's layout, as the engine writes a BeginTime, and the zone named:
	 * the comment is read away from the scheduler host. Fixed English
	 * names: slurmctld's locale is not the reader's. */
	static const char *const wday[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	char zone[16] = "";

	if (!localtime_r(&t, &tm) || tm.tm_wday < 0 || tm.tm_wday > 6 ||
	    tm.tm_mon < 0 || tm.tm_mon > 11) {
		snprintf(buf, len, "@%ld", (long) t);
		return;
	}
	strftime(zone, sizeof(zone), "%Z", &tm);
	snprintf(buf, len, "%s %s %2d %02d:%02d:%02d%s%s", wday[tm.tm_wday],
		 mon[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 zone[0] ? " " : "", zone);
}

/* ---------------------------------------------------------------- names */

struct name_cache {
	uint32_t *ids;
	char **names;
	size_t n, cap;
};

static struct name_cache users, groups;

static const char *cached_name(struct name_cache *c, uint32_t id, bool user)
{
	size_t i;
	char buf[16384], num[16];
	const char *name = NULL;

	for (i = 0; i < c->n; i++)
		if (c->ids[i] == id)
			return c->names[i];
	if (user) {
		struct passwd pw, *res = NULL;
		if (!getpwuid_r(id, &pw, buf, sizeof(buf), &res) && res)
			name = res->pw_name;
	} else {
		struct group gr, *res = NULL;
		if (!getgrgid_r(id, &gr, buf, sizeof(buf), &res) && res)
			name = res->gr_name;
	}
	if (!name) {
		snprintf(num, sizeof(num), "%u", id);
		name = num;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		uint32_t *ids = realloc(c->ids, cap * sizeof(*ids));
		char **names;
		if (!ids)
			return "?";
		c->ids = ids;
		names = realloc(c->names, cap * sizeof(*names));
		if (!names)
			return "?";
		c->names = names;
		c->cap = cap;
	}
	c->ids[c->n] = id;
	c->names[c->n] = strdup(name);
	if (!c->names[c->n])
		return "?";
	return c->names[c->n++];
}

static void cache_free(struct name_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->ids);
	free(c->names);
	memset(c, 0, sizeof(*c));
}

const char *user_name(uint32_t uid)
{
	return cached_name(&users, uid, true);
}

const char *group_name(uint32_t gid)
{
	return cached_name(&groups, gid, false);
}

void names_free(void)
{
	cache_free(&users);
	cache_free(&groups);
}

/* ----------------------------------------------------------------- hash */

uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 1099511628211ULL;
	}
	return h;
}

uint64_t fnv_str(uint64_t h, const char *s)
{
	return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "\xff", 1);
}
