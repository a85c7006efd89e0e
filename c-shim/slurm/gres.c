/*
 * gres.c: Slurm's generic resource strings -> the library's form (gres.h).
 * The formats are taken from Slurm's node and job records at 22.05 and
 * 24.11 (node_mgr.c packs node_ptr->gres else config_ptr->gres; gres.c
 * builds a node's string as name[:type][:no_consume]:count[suffix][(S:..)];
 * slurm_opt.c prefixes a job's items with "gres:" at 22.05, "gres/" at
 * 24.11; slurm_get_next_tres reads a count after the last '=' or ':').
 */
#define _GNU_SOURCE
#include "gres.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

#define GRES_MAX_COUNT 4294967295ULL

struct entry {
	char *name;        /* name[:type] */
	uint64_t count;
};

struct item {
	char *name;        /* name[:type], in the item's own copy */
	uint64_t count;
	bool no_consume;
	bool other;        /* another TRES (cpu=, license/...): left out */
};

/* The bytes the library takes in a name or type. */
static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char) *s) && !strchr("_-./", *s))
			return false;
	return true;
}

/* A count as Slurm writes one: digits, then an optional K/M/G/T/P
 * (binary; "KB" and the like decimal, "KiB" binary) suffix. */
static bool parse_count(const char *s, uint64_t *v)
{
	static const struct {
		const char *sfx;
		uint64_t mult;
	} sfx[] = {
		{ "", 1 },
		{ "k", 1ULL << 10 }, { "kib", 1ULL << 10 }, { "kb", 1000ULL },
		{ "m", 1ULL << 20 }, { "mib", 1ULL << 20 }, { "mb", 1000000ULL },
		{ "g", 1ULL << 30 }, { "gib", 1ULL << 30 }, { "gb", 1000000000ULL },
		{ "t", 1ULL << 40 }, { "tib", 1ULL << 40 }, { "tb", 1000000000000ULL },
		{ "p", 1ULL << 50 }, { "pib", 1ULL << 50 }, { "pb", 1000000000000000ULL },
	};
	unsigned long long n;
	char *end;
	size_t k;

	if (!isdigit((unsigned char) *s))
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno == ERANGE)
		n = UINT64_MAX;
	for (k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++) {
		if (strcasecmp(end, sfx[k].sfx))
			continue;
		*v = n > UINT64_MAX / sfx[k].mult ? UINT64_MAX : n * sfx[k].mult;
		return true;
	}
	return false;
}

/* TRES of a job's lists that are no generic resource when written
 * without a type prefix ("cpu=2" in 24.11's tres_per_task). */
static bool other_tres(const char *key, size_t n)
{
	static const char *names[] = { "cpu", "mem", "node", "billing",
				       "energy", "vmem", "pages", NULL };
	int k;

	for (k = 0; names[k]; k++)
		if (strlen(names[k]) == n && !strncasecmp(key, names[k], n))
			return true;
	return false;
}

/* Reads one item `t` (a writable copy, trimmed, no comma outside
 * parentheses) into *it; -1 with the reason in err. */
static int parse_item(char *t, bool node, struct item *it, char *err,
		      size_t errlen)
{
	char *sep, *p, *q, *last;
	size_t first;

	memset(it, 0, sizeof(*it));
	if (node) {
		/* A socket suffix "(S:0-1)" says where, not how many. */
		if ((p = strchr(t, '(')))
			*p = '\0';
		/* The no_consume flag sits among the parts: taken out. */
		for (p = t; (q = strstr(p, "no_consume"));) {
			bool starts = q == t || q[-1] == ':';
			bool ends = q[10] == '\0' || q[10] == ':';
			if (!starts || !ends) {
				p = q + 10;
				continue;
			}
			it->no_consume = true;
			if (q[10] == ':')
				memmove(q, q + 11, strlen(q + 11) + 1);
			else if (q > t)
				q[-1] = '\0';
			else
				*q = '\0';
			p = q;
		}
	} else if (!strncasecmp(t, "gres/", 5) || !strncasecmp(t, "gres:", 5)) {
		t += 5;
	} else {
		first = strcspn(t, "/:=");
		if (t[first] == '/' || (t[first] == '=' && other_tres(t, first))) {
			it->other = true;
			return 0;
		}
	}
	/* The count: after the last '=', else after the last ':' when that
	 * part is a number (else it is the type, and the count one). */
	it->count = 1;
	if ((sep = strrchr(t, '=')) || (sep = strrchr(t, ':'))) {
		last = sep + 1;
		if (parse_count(last, &it->count))
			*sep = '\0';
		else if (*sep == '=' || !*last) {
			snprintf(err, errlen, "\"%s\": the count \"%s\" is not a number", t, last);
			return -1;
		} else
			it->count = 1;
	} else if (isdigit((unsigned char) *t)) {
		snprintf(err, errlen, "\"%s\" has a count but no name", t);
		return -1;
	}
	/* name[:type] */
	if ((p = strchr(t, ':')) && strchr(p + 1, ':')) {
		snprintf(err, errlen, "\"%s\" is not name[:type][:count]", t);
		return -1;
	}
	if (p)
		*p = '\0';
	if (!name_ok(t) || (p && !name_ok(p + 1))) {
		if (p)
			*p = ':';
		snprintf(err, errlen, "\"%s\": a name or type holds a character other than letters, digits, _-./", t);
		return -1;
	}
	if (p)
		*p = ':';
	it->name = t;
	return 0;
}

/* Whether `name` (name[:type]) has its base name listed in `skip`
 * (",a,b,"). */
static bool skipped(const char *skip, const char *name)
{
	size_t n = strcspn(name, ":");
	const char *p;

	if (!skip)
		return false;
	for (p = skip; (p = strchr(p, ',')); p++)
		if (!strncmp(p + 1, name, n) && (p[1 + n] == ',' || p[1 + n] == '\0'))
			return true;
	return false;
}

/* Calls fn on each item of `in` (commas inside parentheses do not split:
 * a node's "(S:0,2)"); stops at the first -1. */
static int each_item(const char *in, bool node,
		     int (*fn)(struct item *it, void *arg), void *arg,
		     char *err, size_t errlen)
{
	const char *s = in, *e;
	int depth, rc = 0;

	while (rc == 0 && s && *s) {
		char *copy, *t, *end;
		struct item it;

		for (e = s, depth = 0; *e && (*e != ',' || depth > 0); e++)
			depth += *e == '(' ? 1 : *e == ')' ? -1 : 0;
		copy = strndup(s, (size_t) (e - s));
		if (!copy) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (t = copy; isspace((unsigned char) *t); t++)
			;
		for (end = t + strlen(t); end > t && isspace((unsigned char) end[-1]); end--)
			;
		*end = '\0';
		if (*t) {
			rc = parse_item(t, node, &it, err, errlen);
			if (rc == 0 && !it.other)
				rc = fn(&it, arg);
		}
		free(copy);
		s = *e ? e + 1 : e;
	}
	return rc;
}

struct collect {
	bool node;
	const char *skip;
	struct entry *e;
	size_t n, cap;
};

static int collect_one(struct item *it, void *arg)
{
	struct collect *c = arg;
	size_t k;

	if (it->count == 0 || (c->node && it->no_consume) ||
	    skipped(c->skip, it->name))
		return 0;
	for (k = 0; k < c->n; k++) {
		if (strcmp(c->e[k].name, it->name))
			continue;
		c->e[k].count = c->e[k].count > UINT64_MAX - it->count ?
				UINT64_MAX : c->e[k].count + it->count;
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct entry *p = realloc(c->e, cap * sizeof(*p));
		if (!p)
			return -1;
		c->e = p;
		c->cap = cap;
	}
	c->e[c->n].name = strdup(it->name);
	if (!c->e[c->n].name)
		return -1;
	c->e[c->n++].count = it->count;
	return 0;
}

int gres_to_abi(const char *in, bool node, const char *skip, char **out,
		char *err, size_t errlen)
{
	struct collect c = { .node = node, .skip = skip };
	struct sbuf b = { 0 };
	size_t k;
	int rc;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!in || !*in)
		return 0;
	rc = each_item(in, node, collect_one, &c, err, errlen);
	if (rc == 0 && c.n) {
		for (k = 0; k < c.n; k++)
			sb_fmt(&b, "%s%s:%llu", k ? "," : "", c.e[k].name,
			       (unsigned long long) (c.e[k].count > GRES_MAX_COUNT ?
						     GRES_MAX_COUNT : c.e[k].count));
		*out = b.s ? astr(b.s) : NULL;
		if (!*out) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	} else if (rc != 0 && errlen && !err[0])
		snprintf(err, errlen, "out of memory");
	for (k = 0; k < c.n; k++)
		free(c.e[k].name);
	free(c.e);
	free(b.s);
	return rc;
}

static int add_no_consume(struct item *it, void *arg)
{
	char **skip = arg, *p;
	size_t n, have;

	if (!it->no_consume)
		return 0;
	n = strcspn(it->name, ":");
	it->name[n] = '\0';
	if (skipped(*skip, it->name))
		return 0;
	have = *skip ? strlen(*skip) : 0;
	p = realloc(*skip, have + n + 2);
	if (!p)
		return -1;
	p[have] = ',';
	memcpy(p + have + 1, it->name, n + 1);
	*skip = p;
	return 0;
}

void gres_no_consume(const char *in, char **skip)
{
	char err[160];

	/* A malformed item is reported by gres_to_abi, for the node; out of
	 * memory, a name is left out (its jobs then wait, as if the node had
	 * none). */
	if (in && *in)
		(void) each_item(in, true, add_no_consume, skip, err, sizeof(err));
}

static int any_one(struct item *it, void *arg)
{
	(void) it;
	*(bool *) arg = true;
	return 1; /* found: stop */
}

bool gres_any(const char *in)
{
	bool any = false;
	char err[160];

	if (!in || !*in)
		return false;
	/* An item that cannot be read counts too: it is no other TRES. */
	if (each_item(in, false, any_one, &any, err, sizeof(err)) < 0)
		return true;
	return any;
}
