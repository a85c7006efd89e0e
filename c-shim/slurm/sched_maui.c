/*
 * sched/maui: mauisched makes the scheduling decisions of a Slurm 22.05
 * cluster; Slurm keeps running the jobs.
 *
 * slurm.conf:  SchedulerType=sched/maui
 *              JobSubmitPlugins=maui        (the gate: job_submit_maui.c)
 *              SchedulerParameters=maui_config=/etc/slurm/maui.cfg,...
 *
 * How it works. The gate holds every new job (priority 0), so Slurm's own
 * main scheduler, which runs whatever SchedulerType is, never starts one by
 * itself. init() starts one thread, the only one that touches the
 * library's handle and the only one here that calls Slurm's API (RPCs to
 * this very slurmctld; never from a slurmctld callback, which may hold
 * locks). The thread polls Slurm cheaply (last_update), and when something
 * changed, a job was submitted, a hold was asked for, or RMPOLLINTERVAL has
 * passed, it builds a snapshot of nodes and jobs, runs one mauisched
 * iteration and applies the plan:
 *   - operator holds and releases (plan actions) become marker changes;
 *   - each start is one update: priority INFINITE (a release) with the node
 *     list chosen, then schedule(0) allocates it at once;
 *   - a pending job with a non-zero priority that the plan does not start
 *     (requeued, or a start Slurm did not carry out) is held again;
 *   - every waiting job's reason and estimated start go to its AdminComment
 *     after the marker (maui_gate.h), only when they change.
 * fini() stops and joins the thread and frees the handle (which writes the
 * state). sched_p_reconfig() only signals the thread, which rereads
 * maui.cfg; a broken file is logged and the previous configuration stays.
 * Any error from the library is logged and leaves Slurm and its jobs as
 * they are; the thread keeps trying.
 *
 * The library is loaded with dlopen (SchedulerParameters maui_library=,
 * default libmauisched.so.1 from the loader's path, then beside this
 * plugin), so a missing or incompatible library never stops slurmctld
 * from starting: it is logged at error level every minute and retried.
 *
 * Built against the installed Slurm headers only, without -lslurm: the
 * slurm_* functions resolve inside slurmctld (libslurmfull).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include <slurm/spank.h> /* slurm_info & co., exported to plugins */

#include "mauisched.h"
#include "maui_gate.h"

/* The sched plugin interface and schedule(bool) are those of 22.05; the
 * gate has the same guard. */
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || \
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 6, 0)
#error "sched/maui: written and tested for Slurm 22.05 only"
#endif

const char plugin_name[] = "mauisched: Maui-compatible scheduling policy";
const char plugin_type[] = "sched/maui";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* slurmctld's main scheduling pass, exported by the slurmctld binary.
 * Weak: the plugin loads even where it is missing (then Slurm's own pass,
 * every sched_interval, picks the released jobs up). It takes the locks
 * itself; call it holding none. */
extern void schedule(bool full_queue) __attribute__((weak));

/* ------------------------------------------------------------ constants */

#define LOG_PREFIX "sched/maui: "
#define DEFAULT_CONFIG "/etc/slurm/maui.cfg"
#define DEFAULT_LIBRARY "libmauisched.so.1"
#define DEFAULT_POLL_MS 250        /* change detection */
#define DEFAULT_RMPOLL 60          /* Maui's RMPOLLINTERVAL default */
#define DEFAULT_REASON_MS 100      /* budget for reason-only updates */
#define REASON_DEFER_MS 10000      /* longest wait of reasons behind starts */
#define START_BATCH 16             /* starts released between schedule() calls */
#define RETRY_OPEN_S 10            /* library or handle not usable */
#define EVENT_CAP 4096
#define ID_LEN 64

/* ------------------------------------------------------------- logging */

static void mlog(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void mlog(int level, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
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

/* The library's messages, one line each (config errors span lines). */
static void lib_log(uint32_t level, const char *message, void *userdata)
{
	const char *p = message, *nl;

	(void) userdata;
	if (!p)
		return;
	do {
		nl = strchr(p, '\n');
		mlog((int) level, "%.*s", nl ? (int) (nl - p) : (int) strlen(p), p);
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------- library */

/* Every library function used, called through pointers: the library is
 * dlopen()ed. __typeof__ of the header's declarations keeps the types
 * exact without referencing the symbols. */
#define MAUI_FNS(X)                                                          \
	X(abi_version) X(status_name) X(new) X(free) X(last_error)           \
	X(reconfigure) X(snapshot_begin) X(snapshot_add_node)                \
	X(snapshot_add_job) X(run) X(plan_free) X(plan_state_status)         \
	X(plan_start_count) X(plan_start) X(plan_start_node)                 \
	X(plan_job_count) X(plan_job_find) X(plan_job) X(plan_job_reason)    \
	X(plan_job_schedule) X(plan_action_count) X(plan_action)

struct maui_lib {
	void *dl;
#define MAUI_FIELD(n) __typeof__(&mauisched_##n) n;
	MAUI_FNS(MAUI_FIELD)
#undef MAUI_FIELD
};

static struct maui_lib L;

/* Opens the library and checks its ABI major; on failure `err` says why. */
static int lib_open(const char *path, char *err, size_t errlen)
{
	void *dl;
	char beside[PATH_MAX];
	Dl_info self;
	const char *tried = path;
	uint32_t v;

	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl && !strchr(path, '/') && dladdr((void *) &lib_open, &self) &&
	    self.dli_fname) {
		/* Not in the loader's path: try the plugin's own directory. */
		const char *slash = strrchr(self.dli_fname, '/');
		if (slash) {
			snprintf(beside, sizeof(beside), "%.*s/%s",
				 (int) (slash - self.dli_fname), self.dli_fname,
				 path);
			dl = dlopen(beside, RTLD_NOW | RTLD_LOCAL);
			tried = beside;
		}
	}
	if (!dl) {
		snprintf(err, errlen, "cannot load %s: %s", tried, dlerror());
		return -1;
	}
	memset(&L, 0, sizeof(L));
#define MAUI_RESOLVE(n)                                                      \
	*(void **) (&L.n) = dlsym(dl, "mauisched_" #n);                      \
	if (!L.n) {                                                          \
		snprintf(err, errlen, "%s lacks mauisched_" #n               \
			 " (a library older than this plugin?)", tried);     \
		dlclose(dl);                                                 \
		return -1;                                                   \
	}
	MAUI_FNS(MAUI_RESOLVE)
#undef MAUI_RESOLVE
	v = L.abi_version();
	if ((v >> 16) != MAUISCHED_ABI_MAJOR) {
		snprintf(err, errlen,
			 "%s has ABI %u.%u, this plugin was built for ABI %u.x: "
			 "install the library and plugin of the same release",
			 tried, v >> 16, v & 0xffff, MAUISCHED_ABI_MAJOR);
		dlclose(dl);
		return -1;
	}
	L.dl = dl;
	mlog(MAUISCHED_LOG_INFO, "loaded %s (ABI %u.%u)", tried, v >> 16,
	     v & 0xffff);
	return 0;
}

/* ------------------------------------------------------ shared state */

struct gate_event {
	char ref[ID_LEN];
	int kind;
	uint32_t uid;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static bool thread_started;
static bool stop_req;        /* fini */
static bool reconfig_req;    /* sched_p_reconfig */
static bool wake_req;        /* a gate event */
static bool accepting;       /* the thread takes gate events */
static struct gate_event events[EVENT_CAP];
static size_t nevents;

/* The holds of the pending jobs as of the last iteration, for the gate:
 * a user may release only a user hold. */
#define HT_UHOLD 1
#define HT_SHOLD 2
struct hold_entry {
	char id[ID_LEN];
	uint8_t flags;
};
static struct hold_entry *holdtab;
static size_t nholdtab;

/* Whether `ref` (a job, an array, a task) is known and has no user hold,
 * counting a user hold still queued. Under `mu`. */
static bool known_without_user_hold(const char *ref)
{
	size_t i, n = strlen(ref);
	bool known = false;

	for (i = 0; i < nevents; i++)
		if (events[i].kind == MAUI_EV_USER_HOLD &&
		    !strcmp(events[i].ref, ref))
			return false;
	for (i = 0; i < nholdtab; i++) {
		const char *id = holdtab[i].id;
		if (!strcmp(id, ref) ||
		    (!strchr(ref, '_') && !strncmp(id, ref, n) && id[n] == '_')) {
			if (holdtab[i].flags & HT_UHOLD)
				return false;
			known = true;
		}
	}
	return known;
}

int sched_maui_gate_event(const char *job_ref, int kind, uint32_t uid);

/* Called by job_submit/maui under slurmctld's locks: only our mutex.
 * Returns 1 when the event is taken, 2 when a user's release is refused
 * (the job has no user hold to release), 0 when the scheduler does not
 * run. */
int sched_maui_gate_event(const char *job_ref, int kind, uint32_t uid)
{
	int taken = 0;

	pthread_mutex_lock(&mu);
	if (accepting) {
		if (kind == MAUI_EV_SUBMIT) {
			taken = 1;
		} else if (kind == MAUI_EV_USER_RELEASE && job_ref &&
			   known_without_user_hold(job_ref)) {
			taken = 2;
		} else if (job_ref && nevents < EVENT_CAP) {
			struct gate_event *e = &events[nevents++];
			snprintf(e->ref, sizeof(e->ref), "%s", job_ref);
			e->kind = kind;
			e->uid = uid;
			taken = 1;
		}
		if (taken == 1) {
			wake_req = true;
			pthread_cond_signal(&cv);
		}
	}
	pthread_mutex_unlock(&mu);
	return taken;
}

/* --------------------------------------------------------------- options */

struct options {
	char config[PATH_MAX];
	char library[PATH_MAX];
	char state[PATH_MAX];
	long poll_ms;
	long reason_ms;
};

/* SchedulerParameters: maui_config=, maui_library=, maui_state=,
 * maui_poll_ms=, maui_reason_ms= (comma-separated, like Slurm's own; Slurm
 * ignores what it does not know). */
static void read_options(struct options *o, const char *sched_params,
			 const char *state_save)
{
	char *copy, *tok, *save = NULL;

	snprintf(o->config, sizeof(o->config), "%s", DEFAULT_CONFIG);
	snprintf(o->library, sizeof(o->library), "%s", DEFAULT_LIBRARY);
	snprintf(o->state, sizeof(o->state), "%s/mauisched",
		 state_save ? state_save : "/var/spool/slurmctld");
	o->poll_ms = DEFAULT_POLL_MS;
	o->reason_ms = DEFAULT_REASON_MS;
	if (!sched_params)
		return;
	copy = strdup(sched_params);
	if (!copy)
		return;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char) *tok))
			tok++;
		if (!strncmp(tok, "maui_config=", 12))
			snprintf(o->config, sizeof(o->config), "%s", tok + 12);
		else if (!strncmp(tok, "maui_library=", 13))
			snprintf(o->library, sizeof(o->library), "%s", tok + 13);
		else if (!strncmp(tok, "maui_state=", 11))
			snprintf(o->state, sizeof(o->state), "%s", tok + 11);
		else if (!strncmp(tok, "maui_poll_ms=", 13) && atol(tok + 13) > 0)
			o->poll_ms = atol(tok + 13);
		else if (!strncmp(tok, "maui_reason_ms=", 15) &&
			 atol(tok + 15) >= 0)
			o->reason_ms = atol(tok + 15);
	}
	free(copy);
}

/* What the plugin itself needs from maui.cfg (the ABI has no call for a
 * parameter's value): RMPOLLINTERVAL, [[[DD:]HH:]MM:]SS, and whether
 * JOBNODEMATCHPOLICY has EXACTNODE. The last value of each wins. Read only
 * after the library accepted the file. */
struct cfg_bits {
	long rmpoll;
	bool exact_node;
};

static long parse_duration(const char *v)
{
	long f[4] = { 0, 0, 0, 0 };
	int n = 0;
	const char *p = v;

	while (*p && !isspace((unsigned char) *p)) {
		if (!isdigit((unsigned char) *p))
			return -1;
		if (n == 4)
			return -1;
		f[n] = strtol(p, (char **) &p, 10);
		n++;
		if (*p == ':')
			p++;
		else if (*p && !isspace((unsigned char) *p))
			return -1;
	}
	switch (n) {
	case 1: return f[0];
	case 2: return f[0] * 60 + f[1];
	case 3: return f[0] * 3600 + f[1] * 60 + f[2];
	case 4: return f[0] * 86400 + f[1] * 3600 + f[2] * 60 + f[3];
	default: return -1;
	}
}

static struct cfg_bits read_cfg_bits(const char *path)
{
	struct cfg_bits out = { DEFAULT_RMPOLL, false };
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		return out;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *hash = strchr(line, '#'), *v;
		size_t klen;

		if (hash)
			*hash = '\0';
		while (isspace((unsigned char) *p))
			p++;
		for (v = p; *v && !isspace((unsigned char) *v); v++)
			;
		klen = (size_t) (v - p);
		while (isspace((unsigned char) *v))
			v++;
		if (klen == 14 && !strncasecmp(p, "RMPOLLINTERVAL", 14)) {
			long d = parse_duration(v);
			if (d > 0)
				out.rmpoll = d;
		} else if (klen == 18 && !strncasecmp(p, "JOBNODEMATCHPOLICY", 18)) {
			char *q;
			for (q = v; *q; q++)
				*q = (char) toupper((unsigned char) *q);
			out.exact_node = strstr(v, "EXACTNODE") != NULL;
		}
	}
	fclose(f);
	return out;
}

/* Slurm reads -N and --ntasks-per-node exactly; Maui, without EXACTNODE,
 * as minimums, and may pack a job on fewer nodes (Slurm would then add
 * nodes of its own choosing). */
static long read_rmpoll_and_check(const char *path)
{
	struct cfg_bits b = read_cfg_bits(path);

	if (!b.exact_node)
		slurm_info(LOG_PREFIX "warning: %s does not set JOBNODEMATCHPOLICY "
			   "EXACTNODE: jobs' node counts (-N) and tasks per node are "
			   "then minimums, as in Maui, and a job may be planned on "
			   "fewer nodes than Slurm gives it", path);
	return b.rmpoll;
}

/* ------------------------------------------------------- small helpers */

/* A growing arena for the strings of one iteration's snapshot: the
 * library copies what it is given, so everything goes at once. */
struct arena {
	char *buf;
	size_t len, cap;
	struct arena *prev;
};

static struct arena *arena_top;

static char *astr_n(const char *s, size_t n)
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

static char *astr(const char *s)
{
	return s ? astr_n(s, strlen(s)) : NULL;
}

static void arena_reset(void)
{
	while (arena_top) {
		struct arena *p = arena_top->prev;
		free(arena_top->buf);
		free(arena_top);
		arena_top = p;
	}
}

/* A dynamic string. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
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

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_fmt(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sb_fmt(struct sbuf *b, const char *fmt, ...)
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

/* Expands a Slurm host expression (n[001-004],x) into comma-separated
 * names, in the arena; NULL for NULL or empty. */
static char *expand_hosts(const char *expr)
{
	hostlist_t hl;
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

/* Compresses comma-separated names into a Slurm host expression
 * (malloc'ed; the caller frees). */
static char *compress_hosts(const char *names)
{
	hostlist_t hl = slurm_hostlist_create(names);
	char *s;

	if (!hl)
		return strdup(names);
	s = slurm_hostlist_ranged_string_malloc(hl);
	slurm_hostlist_destroy(hl);
	return s ? s : strdup(names);
}

static void fmt_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* uid and gid names, cached for the life of the thread. */
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

/* FNV-1a over the engine's inputs: an iteration whose inputs did not
 * change is skipped (RMPOLLINTERVAL still forces one). */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "\xff", 1);
}

/* ------------------------------------------------------------ the marker */

struct marker {
	bool present;   /* AdminComment starts with MAUI_MARKER */
	bool started;
	bool uhold, shold;
	char req[1024]; /* req= */
	const char *text;
};

static void parse_marker(const char *ac, struct marker *m)
{
	const char *p, *end;

	memset(m, 0, sizeof(*m));
	if (!ac || strncmp(ac, MAUI_MARKER, strlen(MAUI_MARKER)))
		return;
	p = ac + strlen(MAUI_MARKER);
	end = strchr(p, ')');
	if (!end)
		return;
	m->present = true;
	while (p < end) {
		const char *t = p;
		size_t n;
		while (t < end && *t != ' ')
			t++;
		n = (size_t) (t - p);
		if (n == 7 && !strncmp(p, "started", 7))
			m->started = true;
		else if (n == 5 && !strncmp(p, "uhold", 5))
			m->uhold = true;
		else if (n == 5 && !strncmp(p, "shold", 5))
			m->shold = true;
		else if (n > 4 && !strncmp(p, "req=", 4))
			snprintf(m->req, sizeof(m->req), "%.*s", (int) (n - 4),
				 p + 4);
		p = t + 1;
	}
	m->text = end[1] == ' ' ? end + 2 : end + 1;
}

static void marker_tags(struct sbuf *b, const struct marker *m, bool started)
{
	sb_str(b, MAUI_MARKER);
	sb_str(b, started ? "started" : "gated");
	if (!started && m->uhold)
		sb_str(b, " uhold");
	if (!started && m->shold)
		sb_str(b, " shold");
	if (m->req[0])
		sb_fmt(b, " req=%s", m->req);
	sb_str(b, ") ");
}

/* ----------------------------------------------------------- the thread */

/* One Slurm job record as this iteration sees it. */
struct jrec {
	slurm_job_info_t *ji;
	char id[ID_LEN];         /* "123" or "123_4" */
	bool meta_task;          /* a task still inside a pending array record */
	bool pending;
	bool reported;           /* given to the engine */
	bool started_now;        /* started by this iteration's plan */
	bool regate;             /* must be held again (priority 0) */
	struct marker mk;        /* as found in Slurm */
	struct marker want;      /* holds after gate events and actions */
	const char *skip_why;    /* not scheduled by mauisched, and why */
	mauisched_job_t mj;
};

struct ctx {
	struct options opt;
	mauisched_t *h;
	long rmpoll;
	job_info_msg_t *jobs;
	node_info_msg_t *nodes;
	partition_info_msg_t *parts;
	uint64_t last_fp;
	time_t last_iter;
	unsigned long iterations;
	time_t next_open;        /* when to retry opening the library/handle */
	time_t next_begin;       /* earliest future begin time of a pending job */
	time_t last_open_error;
	bool cosmetic_backlog;   /* reason updates left for the next round */
	double last_reasons;     /* mono_ms() of the last reason pass */
	/* Built per iteration. */
	struct jrec *jr;
	size_t njr, capjr;
	size_t *by_id;           /* indices of jr sorted by id */
	int32_t *node_part;      /* per node: index of its only partition, or -1 */
	char **part_nodes;       /* per partition: its nodes, comma-separated */
	bool *part_exclusive;    /* per partition: none of its nodes elsewhere */
	bool *part_up;
};

static void free_slurm_data(struct ctx *c)
{
	if (c->jobs)
		slurm_free_job_info_msg(c->jobs);
	if (c->nodes)
		slurm_free_node_info_msg(c->nodes);
	if (c->parts)
		slurm_free_partition_info_msg(c->parts);
	c->jobs = NULL;
	c->nodes = NULL;
	c->parts = NULL;
}

/* Loads what changed since the last load; *changed says whether any did. */
static int poll_slurm(struct ctx *c, bool *changed)
{
	job_info_msg_t *j = NULL;
	node_info_msg_t *n = NULL;
	partition_info_msg_t *p = NULL;
	int rc;

	*changed = false;
	rc = slurm_load_jobs(c->jobs ? c->jobs->last_update : 0, &j,
			     SHOW_ALL | SHOW_DETAIL);
	if (rc == SLURM_SUCCESS) {
		if (c->jobs)
			slurm_free_job_info_msg(c->jobs);
		c->jobs = j;
		*changed = true;
	} else if (slurm_get_errno() != SLURM_NO_CHANGE_IN_DATA) {
		mlog(MAUISCHED_LOG_ERROR, "loading jobs: %s",
		     slurm_strerror(slurm_get_errno()));
		return -1;
	}
	rc = slurm_load_node(c->nodes ? c->nodes->last_update : 0, &n,
			     SHOW_ALL);
	if (rc == SLURM_SUCCESS) {
		if (c->nodes)
			slurm_free_node_info_msg(c->nodes);
		c->nodes = n;
		*changed = true;
	} else if (slurm_get_errno() != SLURM_NO_CHANGE_IN_DATA) {
		mlog(MAUISCHED_LOG_ERROR, "loading nodes: %s",
		     slurm_strerror(slurm_get_errno()));
		return -1;
	}
	rc = slurm_load_partitions(c->parts ? c->parts->last_update : 0, &p,
				   SHOW_ALL);
	if (rc == SLURM_SUCCESS) {
		if (c->parts)
			slurm_free_partition_info_msg(c->parts);
		c->parts = p;
		*changed = true;
	} else if (slurm_get_errno() != SLURM_NO_CHANGE_IN_DATA) {
		mlog(MAUISCHED_LOG_ERROR, "loading partitions: %s",
		     slurm_strerror(slurm_get_errno()));
		return -1;
	}
	return 0;
}

/* Slurm node state -> mauisched's. */
static uint32_t node_state(const node_info_t *n)
{
	uint32_t s = n->node_state, base = s & NODE_STATE_BASE;
	bool busy = base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED ||
		    (s & NODE_STATE_COMPLETING);

	if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE ||
	    (s & (NODE_STATE_NO_RESPOND | NODE_STATE_POWERED_DOWN |
		  NODE_STATE_POWERING_DOWN | NODE_STATE_POWERING_UP |
		  NODE_STATE_REBOOT_ISSUED | NODE_STATE_INVALID_REG)))
		return MAUISCHED_NODE_DOWN;
	if (s & (NODE_STATE_DRAIN | NODE_STATE_FAIL))
		return busy ? MAUISCHED_NODE_DRAINING : MAUISCHED_NODE_DRAINED;
	switch (base) {
	case NODE_STATE_IDLE:
		return MAUISCHED_NODE_IDLE;
	case NODE_STATE_MIXED:
	case NODE_STATE_ERROR:
		return MAUISCHED_NODE_RUNNING;
	case NODE_STATE_ALLOCATED:
		return MAUISCHED_NODE_BUSY;
	default:
		return MAUISCHED_NODE_UNKNOWN;
	}
}

/* Which partitions each node is in (node_inx pairs index the node table,
 * which slurm_load_node returns in order). */
static void map_partitions(struct ctx *c)
{
	uint32_t nn = c->nodes->record_count, np = c->parts ? c->parts->record_count : 0;
	uint32_t i, k;
	int32_t *count = calloc(nn ? nn : 1, sizeof(int32_t));

	free(c->node_part);
	free(c->part_exclusive);
	free(c->part_up);
	free(c->part_nodes);
	c->node_part = calloc(nn ? nn : 1, sizeof(int32_t));
	c->part_exclusive = calloc(np ? np : 1, sizeof(bool));
	c->part_up = calloc(np ? np : 1, sizeof(bool));
	c->part_nodes = calloc(np ? np : 1, sizeof(char *));
	if (!count || !c->node_part || !c->part_exclusive || !c->part_up ||
	    !c->part_nodes) {
		free(count);
		return;
	}
	for (i = 0; i < nn; i++)
		c->node_part[i] = -1;
	for (k = 0; k < np; k++) {
		partition_info_t *p = &c->parts->partition_array[k];
		int32_t *inx = p->node_inx;
		c->part_up[k] = p->state_up == PARTITION_UP;
		for (i = 0; inx && inx[i] >= 0; i += 2) {
			int32_t a;
			for (a = inx[i]; a <= inx[i + 1] && a < (int32_t) nn; a++) {
				count[a]++;
				c->node_part[a] = (int32_t) k;
			}
		}
		c->part_nodes[k] = expand_hosts(p->nodes);
	}
	for (i = 0; i < nn; i++)
		if (count[i] != 1)
			c->node_part[i] = -1;
	for (k = 0; k < np; k++) {
		partition_info_t *p = &c->parts->partition_array[k];
		int32_t *inx = p->node_inx;
		bool excl = true;
		for (i = 0; inx && inx[i] >= 0; i += 2) {
			int32_t a;
			for (a = inx[i]; a <= inx[i + 1] && a < (int32_t) nn; a++)
				excl = excl && count[a] == 1;
		}
		c->part_exclusive[k] = excl;
	}
	free(count);
}

static int part_index(struct ctx *c, const char *name)
{
	uint32_t k;

	for (k = 0; c->parts && k < c->parts->record_count; k++)
		if (!strcmp(c->parts->partition_array[k].name, name))
			return (int) k;
	return -1;
}

static struct jrec *new_jrec(struct ctx *c)
{
	if (c->njr == c->capjr) {
		size_t cap = c->capjr ? c->capjr * 2 : 1024;
		struct jrec *p = realloc(c->jr, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->jr = p;
		c->capjr = cap;
	}
	memset(&c->jr[c->njr], 0, sizeof(c->jr[0]));
	return &c->jr[c->njr++];
}

/* A feature expression mauisched can take as "all of these": a&b, a,b.
 * Anything with |, [], * or counts is left to Slurm (NULL). */
static char *and_features(const char *f)
{
	char *out, *p;

	if (!f || !*f)
		return NULL;
	if (strpbrk(f, "|[]*()"))
		return NULL;
	out = astr(f);
	for (p = out; p && *p; p++)
		if (*p == '&')
			*p = ',';
	return out;
}

static bool dependency_pending(const char *dep)
{
	return dep && *dep &&
	       (strstr(dep, "(unfulfilled)") || strstr(dep, "(failed)"));
}

/* Fills a job's resource request. Slurm's shape is mapped onto Maui's
 * tasks: tasks x cpus-per-task; memory per CPU or per node is turned into
 * memory per task (per node: divided by the tasks a node is expected to
 * hold), the same for tmp disk. */
static void job_shape(const slurm_job_info_t *ji, mauisched_job_t *m)
{
	uint32_t cpt = ji->cpus_per_task && ji->cpus_per_task != NO_VAL16 ?
		       ji->cpus_per_task : 1;
	uint32_t tasks = ji->num_tasks && ji->num_tasks != NO_VAL ?
			 ji->num_tasks : 0;
	uint32_t nodes = ji->num_nodes && ji->num_nodes != NO_VAL ?
			 ji->num_nodes : 0;
	uint32_t tpn = ji->ntasks_per_node && ji->ntasks_per_node != NO_VAL16 &&
		       ji->ntasks_per_node != INFINITE16 ? ji->ntasks_per_node : 0;
	uint32_t per_node;
	uint64_t mem = ji->pn_min_memory;

	if (!tasks) {
		uint32_t cpus = ji->num_cpus && ji->num_cpus != NO_VAL ?
				ji->num_cpus : 1;
		tasks = cpus / cpt ? cpus / cpt : 1;
	}
	if (tpn && nodes && tasks < tpn * nodes)
		tasks = tpn * nodes;
	m->tasks = tasks;
	m->task_procs = cpt;
	if (nodes && ji->max_nodes == nodes) {
		/* -N given: the engine's node count only weighs priority, so
		 * an even spread becomes exact tasks per node (an uneven one
		 * is left to Slurm, which adds the nodes it needs to those it
		 * is given). */
		m->nodes = nodes;
		if (!tpn && tasks % nodes == 0)
			tpn = tasks / nodes;
	}
	m->tasks_per_node = tpn;
	per_node = tpn ? tpn :
		   (nodes ? (tasks + nodes - 1) / nodes : tasks);
	if (!per_node)
		per_node = 1;
	if (mem && mem != NO_VAL64) {
		if (mem & MEM_PER_CPU)
			m->task_mem_mb = (mem & ~MEM_PER_CPU) * cpt;
		else
			m->task_mem_mb = (mem + per_node - 1) / per_node;
	}
	if (ji->pn_min_tmp_disk && ji->pn_min_tmp_disk != NO_VAL)
		m->task_disk_mb = (ji->pn_min_tmp_disk + per_node - 1) / per_node;
	if (ji->time_limit != NO_VAL && ji->time_limit != INFINITE)
		m->walltime = (int64_t) ji->time_limit * 60;
}

/* Where a running job runs: "node:tasks,..." (tasks = its CPUs there over
 * CPUs per task). */
static char *job_allocation(const slurm_job_info_t *ji, uint32_t cpt,
			    uint32_t *total_tasks)
{
	hostlist_t hl;
	char *h;
	int i = 0;
	struct sbuf b = { 0 };
	char *out;
	uint32_t nhosts;

	*total_tasks = 0;
	if (!ji->nodes || !*ji->nodes || !(hl = slurm_hostlist_create(ji->nodes)))
		return NULL;
	nhosts = (uint32_t) slurm_hostlist_count(hl);
	while ((h = slurm_hostlist_shift(hl))) {
		int cpus = ji->job_resrcs ?
			   slurm_job_cpus_allocated_on_node_id(ji->job_resrcs, i) : -1;
		uint32_t t;
		if (cpus <= 0)
			cpus = nhosts ? (int) (ji->num_cpus / nhosts) : 1;
		t = (uint32_t) cpus / cpt;
		if (!t)
			t = 1;
		*total_tasks += t;
		sb_fmt(&b, "%s%s:%u", b.len ? "," : "", h, t);
		free(h);
		i++;
	}
	slurm_hostlist_destroy(hl);
	out = b.s ? astr(b.s) : NULL;
	free(b.s);
	return out;
}

/* Applies the queued gate events of this job to the holds it will have.
 * A bare id ("123") names a job or a whole array; "123_4" one task. */
static void apply_events(struct jrec *r, const struct gate_event *ev, size_t n)
{
	size_t i;
	const slurm_job_info_t *ji = r->ji;

	for (i = 0; i < n; i++) {
		const char *ref = ev[i].ref;
		bool match = !strcmp(ref, r->id);
		if (!match && !strchr(ref, '_')) {
			uint32_t id = (uint32_t) strtoul(ref, NULL, 10);
			match = ji->job_id == id ||
				(ji->array_job_id && ji->array_job_id == id);
		}
		if (!match)
			continue;
		/* The gate sends user events for the job's owner only; this
		 * checks it against the job itself (Slurm checks ownership
		 * after the gate has run). */
		if ((ev[i].kind == MAUI_EV_USER_HOLD ||
		     ev[i].kind == MAUI_EV_USER_RELEASE) &&
		    ev[i].uid != ji->user_id && ev[i].uid != 0 &&
		    ev[i].uid != (uint32_t) getuid()) {
			mlog(MAUISCHED_LOG_WARN,
			     "job %s: %s by uid %u ignored: the job belongs to uid %u",
			     r->id, ev[i].kind == MAUI_EV_USER_HOLD ? "hold" : "release",
			     ev[i].uid, ji->user_id);
			continue;
		}
		switch (ev[i].kind) {
		case MAUI_EV_USER_HOLD:
			r->want.uhold = true;
			break;
		case MAUI_EV_USER_RELEASE:
			r->want.uhold = false;
			break;
		case MAUI_EV_SYSTEM_HOLD:
			r->want.shold = true;
			break;
		case MAUI_EV_RELEASE_ALL:
			r->want.uhold = r->want.shold = false;
			break;
		}
		mlog(MAUISCHED_LOG_INFO, "job %s: %s by uid %u", r->id,
		     ev[i].kind == MAUI_EV_USER_HOLD ? "user hold" :
		     ev[i].kind == MAUI_EV_USER_RELEASE ? "user hold released" :
		     ev[i].kind == MAUI_EV_SYSTEM_HOLD ? "system hold" :
		     "all holds released", ev[i].uid);
	}
}

/* Adds one engine job for Slurm record `ji` (id given: array tasks). */
static struct jrec *add_record(struct ctx *c, slurm_job_info_t *ji,
			       const char *id, bool meta_task,
			       const struct gate_event *ev, size_t nev)
{
	struct jrec *r = new_jrec(c);
	mauisched_job_t *m;
	uint32_t base = ji->job_state & JOB_STATE_BASE;
	char *parts, *tok, *save = NULL;
	int first_part = -1, nparts = 0;
	bool any_up = false;
	struct sbuf confine = { 0 };

	if (!r)
		return NULL;
	r->ji = ji;
	snprintf(r->id, sizeof(r->id), "%s", id);
	r->meta_task = meta_task;
	r->pending = base == JOB_PENDING;
	parse_marker(ji->admin_comment, &r->mk);
	r->want = r->mk;
	m = &r->mj;
	m->size = sizeof(*m);
	m->id = astr(id);
	m->user = ji->user_name && *ji->user_name ? astr(ji->user_name) :
		  astr(cached_name(&users, ji->user_id, true));
	m->group = astr(cached_name(&groups, ji->group_id, false));
	m->account = ji->account && *ji->account ? astr(ji->account) : NULL;
	m->qos = ji->qos && *ji->qos ? astr(ji->qos) : NULL;
	m->submit_time = ji->submit_time;
	job_shape(ji, m);
	m->features = and_features(ji->features);
	m->pref_features = and_features(ji->prefer);
	m->exclude_hosts = expand_hosts(ji->exc_nodes);
	m->advres = ji->resv_name && *ji->resv_name ? astr(ji->resv_name) : NULL;

	/* Partitions: the first is the class; confinement to them is the
	 * engine partition when the partition shares no node, else a host
	 * list. */
	parts = ji->partition ? strdup(ji->partition) : NULL;
	for (tok = parts ? strtok_r(parts, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int k = part_index(c, tok);
		if (nparts++ == 0) {
			m->class_name = astr(tok);
			first_part = k;
		}
		if (k >= 0) {
			any_up = any_up || c->part_up[k];
			if (c->part_nodes[k]) {
				if (confine.len)
					sb_str(&confine, ",");
				sb_str(&confine, c->part_nodes[k]);
			}
		}
	}
	free(parts);

	if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
		uint32_t total = 0;
		m->state = base == JOB_RUNNING ? MAUISCHED_JOB_RUNNING :
			   MAUISCHED_JOB_SUSPENDED;
		m->start_time = ji->start_time;
		m->allocation = job_allocation(ji, m->task_procs, &total);
		if (total)
			m->tasks = total;
		m->nodes = 0;
		m->tasks_per_node = 0;
		if (nparts == 1 && first_part >= 0 && c->part_exclusive[first_part])
			m->partition = m->class_name;
		r->reported = m->allocation != NULL;
		free(confine.s);
		return r;
	}

	/* Pending. */
	m->state = MAUISCHED_JOB_IDLE;
	if (ji->eligible_time > 0)
		m->earliest_start = ji->eligible_time;
	m->dependency_pending = dependency_pending(ji->dependency);
	if (!r->mk.present) {
		/* Not marked by the gate (queued before it was installed, or
		 * AdminComment replaced): Slurm's own hold says which. */
		if (ji->priority == 0) {
			if (ji->state_reason == WAIT_HELD_USER)
				r->want.uhold = true;
			else
				r->want.shold = true;
		}
		r->want.present = true;
	} else if (r->mk.started && ji->priority == 0) {
		/* Requeued and held by Slurm (requeue-hold, special exit). */
		if (ji->state_reason == WAIT_HELD_USER)
			r->want.uhold = true;
		else
			r->want.shold = true;
	}
	r->want.started = false;
	apply_events(r, ev, nev);
	m->holds = (r->want.uhold ? MAUISCHED_HOLD_USER : 0) |
		   (r->want.shold ? MAUISCHED_HOLD_SYSTEM : 0);
	if (nparts && !any_up)
		m->holds |= MAUISCHED_HOLD_SYSTEM; /* its partitions are down */

	/* The nodes the user asked for: ours replaced them at a start. */
	if (r->mk.started)
		m->hostlist = r->mk.req[0] ? expand_hosts(r->mk.req) : NULL;
	else {
		m->hostlist = expand_hosts(ji->req_nodes);
		if (ji->req_nodes && *ji->req_nodes)
			snprintf(r->want.req, sizeof(r->want.req), "%s",
				 ji->req_nodes);
	}
	if (nparts == 1 && first_part >= 0 && c->part_exclusive[first_part])
		m->partition = m->class_name;
	else if (!m->hostlist && confine.s && nparts &&
		 !(nparts == 1 && first_part >= 0 &&
		   c->parts->partition_array[first_part].total_nodes ==
			   c->nodes->record_count))
		m->hostlist = astr(confine.s);
	free(confine.s);
	if (ji->het_job_id) {
		r->skip_why = "heterogeneous jobs are not scheduled by mauisched";
		return r;
	}
	r->reported = true;
	return r;
}

/* Tasks of a pending array record: "0-999%10", "1,3,5-9:2". */
static void add_array_tasks(struct ctx *c, slurm_job_info_t *ji,
			    const struct gate_event *ev, size_t nev)
{
	char *s = strdup(ji->array_task_str), *tok, *save = NULL, *pct;
	char id[ID_LEN];
	unsigned count = 0;

	if (!s)
		return;
	if ((pct = strchr(s, '%')))
		*pct = '\0';
	for (tok = strtok_r(s, ",", &save); tok && count < 100000;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long a, b, step = 1, t;
		char *dash = strchr(tok, '-'), *colon = strchr(tok, ':');
		a = strtoul(tok, NULL, 10);
		b = dash ? strtoul(dash + 1, NULL, 10) : a;
		if (colon)
			step = strtoul(colon + 1, NULL, 10);
		if (!step)
			step = 1;
		for (t = a; t <= b && count < 100000; t += step, count++) {
			snprintf(id, sizeof(id), "%u_%lu", ji->array_job_id, t);
			add_record(c, ji, id, true, ev, nev);
		}
	}
	free(s);
}

/* Builds the records of every job mauisched considers. */
static void build_records(struct ctx *c, const struct gate_event *ev,
			  size_t nev)
{
	uint32_t i;
	char id[ID_LEN];

	c->njr = 0;
	for (i = 0; c->jobs && i < c->jobs->record_count; i++) {
		slurm_job_info_t *ji = &c->jobs->job_array[i];
		uint32_t base = ji->job_state & JOB_STATE_BASE;

		/* Finished jobs, and those still completing, hold nothing
		 * mauisched needs to know about: usage accrues from running
		 * jobs only, and a completing job's nodes are free as far as
		 * planning goes (Slurm starts the next job when they are). */
		if (ji->job_state & JOB_COMPLETING)
			continue;
		if (base != JOB_PENDING && base != JOB_RUNNING &&
		    base != JOB_SUSPENDED)
			continue;
		if (base == JOB_PENDING && ji->array_task_str &&
		    ji->array_task_id == NO_VAL) {
			add_array_tasks(c, ji, ev, nev);
			continue;
		}
		if (ji->array_task_id != NO_VAL)
			snprintf(id, sizeof(id), "%u_%u", ji->array_job_id,
				 ji->array_task_id);
		else
			snprintf(id, sizeof(id), "%u", ji->job_id);
		add_record(c, ji, id, false, ev, nev);
	}
}

static uint64_t fingerprint(struct ctx *c)
{
	uint64_t h = 1469598103934665603ULL;
	uint32_t i;
	size_t k;

	for (i = 0; i < c->nodes->record_count; i++) {
		node_info_t *n = &c->nodes->node_array[i];
		uint32_t st = node_state(n);
		h = fnv_str(h, n->name);
		h = fnv(h, &st, sizeof(st));
		h = fnv(h, &n->cpus, sizeof(n->cpus));
		h = fnv(h, &n->real_memory, sizeof(n->real_memory));
		h = fnv_str(h, n->features_act ? n->features_act : n->features);
		h = fnv(h, &n->weight, sizeof(n->weight));
	}
	for (k = 0; k < c->njr; k++) {
		const mauisched_job_t *m = &c->jr[k].mj;
		h = fnv_str(h, m->id);
		h = fnv(h, &m->state, sizeof(m->state));
		h = fnv(h, &m->holds, sizeof(m->holds));
		h = fnv(h, &m->dependency_pending, sizeof(m->dependency_pending));
		h = fnv(h, &m->earliest_start, sizeof(m->earliest_start));
		h = fnv(h, &m->walltime, sizeof(m->walltime));
		h = fnv(h, &m->tasks, sizeof(m->tasks));
		h = fnv(h, &m->task_procs, sizeof(m->task_procs));
		h = fnv(h, &m->task_mem_mb, sizeof(m->task_mem_mb));
		h = fnv(h, &m->nodes, sizeof(m->nodes));
		h = fnv_str(h, m->allocation);
		h = fnv_str(h, m->hostlist);
		h = fnv_str(h, m->exclude_hosts);
		h = fnv_str(h, m->features);
		h = fnv_str(h, m->class_name);
		h = fnv_str(h, m->qos);
		h = fnv_str(h, m->account);
		h = fnv(h, &c->jr[k].ji->priority, sizeof(c->jr[k].ji->priority));
	}
	return h;
}

static const char *handle_error(mauisched_t *h)
{
	static char buf[4096];

	buf[0] = '\0';
	if (h && L.last_error)
		L.last_error(h, buf, sizeof(buf), NULL);
	return buf;
}

/* One update of a job as SlurmUser; logs a failure. */
static int update_job(const char *id, uint32_t priority, const char *req_nodes,
		      const char *admin_comment, const char *what)
{
	job_desc_msg_t d;
	job_array_resp_msg_t *resp = NULL;
	int rc, err = 0;
	uint32_t i;

	slurm_init_job_desc_msg(&d);
	d.job_id_str = (char *) id;
	d.priority = priority;
	d.req_nodes = (char *) req_nodes;
	d.admin_comment = (char *) admin_comment;
	rc = slurm_update_job2(&d, &resp);
	if (rc != SLURM_SUCCESS)
		err = slurm_get_errno();
	for (i = 0; resp && i < resp->job_array_count; i++)
		if (resp->error_code[i] && !err)
			err = (int) resp->error_code[i];
	if (resp)
		slurm_free_job_array_resp(resp);
	if (err) {
		mlog(MAUISCHED_LOG_ERROR, "job %s: %s failed: %s", id, what,
		     slurm_strerror(err));
		return -1;
	}
	return 0;
}

/* Takes the queued gate events. */
static size_t take_events(struct gate_event **out)
{
	size_t n;

	pthread_mutex_lock(&mu);
	n = nevents;
	*out = NULL;
	if (n) {
		*out = malloc(n * sizeof(**out));
		if (*out)
			memcpy(*out, events, n * sizeof(**out));
		else
			n = 0;
		nevents = 0;
	}
	pthread_mutex_unlock(&mu);
	return n;
}

/* Puts events back (an iteration that failed did not apply them). */
static void requeue_events(const struct gate_event *ev, size_t n)
{
	size_t room;

	if (!n)
		return;
	pthread_mutex_lock(&mu);
	room = EVENT_CAP - nevents;
	if (n > room)
		n = room;
	memmove(&events[n], events, nevents * sizeof(events[0]));
	memcpy(events, ev, n * sizeof(events[0]));
	nevents += n;
	pthread_mutex_unlock(&mu);
}

/* A hold asked for the job since the snapshot: do not start it. */
static bool hold_queued(const char *id, uint32_t job_id)
{
	size_t i;
	bool held = false;

	pthread_mutex_lock(&mu);
	for (i = 0; i < nevents && !held; i++)
		if ((events[i].kind == MAUI_EV_USER_HOLD ||
		     events[i].kind == MAUI_EV_SYSTEM_HOLD) &&
		    (!strcmp(events[i].ref, id) ||
		     strtoul(events[i].ref, NULL, 10) == job_id))
			held = true;
	pthread_mutex_unlock(&mu);
	return held;
}

static struct jrec *sort_base;

static int by_id_cmp(const void *a, const void *b)
{
	return strcmp(sort_base[*(const size_t *) a].id,
		      sort_base[*(const size_t *) b].id);
}

/* Indexes the records by id (the plan names jobs by id). */
static void index_records(struct ctx *c)
{
	size_t k, *p = realloc(c->by_id, (c->njr ? c->njr : 1) * sizeof(size_t));

	if (!p)
		return;
	c->by_id = p;
	for (k = 0; k < c->njr; k++)
		p[k] = k;
	sort_base = c->jr;
	qsort(p, c->njr, sizeof(size_t), by_id_cmp);
}

static struct jrec *find_rec(struct ctx *c, const char *id)
{
	size_t lo = 0, hi = c->njr;

	while (c->by_id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->jr[c->by_id[mid]].id, id);
		if (!d)
			return &c->jr[c->by_id[mid]];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The text of a waiting job's AdminComment after the marker. */
static void reason_text(struct sbuf *b, const mauisched_plan_t *plan, size_t idx)
{
	uint32_t code = 0, bypass = 0;
	const char *summary = "", *detail = "", *res = "";
	int64_t est = -1;
	char when[32];

	if (L.plan_job_reason(plan, idx, &code, &summary, &detail) != MAUISCHED_OK)
		return;
	sb_str(b, summary && *summary ? summary : "waiting");
	if (detail && *detail && strcmp(detail, summary))
		sb_fmt(b, ": %s", detail);
	if (L.plan_job_schedule(plan, idx, &est, &res, &bypass) == MAUISCHED_OK &&
	    est >= 0) {
		fmt_time((time_t) est, when, sizeof(when));
		sb_fmt(b, "; estimated start %s", when);
	}
}

/* The marker of a pending array record, whose tasks the engine saw one by
 * one. It is addressed as "A_[pending tasks]": Slurm then updates that
 * record alone (a bare "A" would reach the array's running tasks too, and
 * one task would be split out). Held again like any job when Slurm could
 * start its tasks by itself. Returns the updates made. */
static unsigned apply_array_markers(struct ctx *c, const mauisched_plan_t *plan,
				    double t_cos, bool *budget_hit)
{
	size_t k, idx;
	unsigned updates = 0;

	for (k = 0; k < c->njr; k++) {
		struct jrec *r = &c->jr[k];
		const slurm_job_info_t *ji = r->ji;
		struct sbuf ac = { 0 };
		char id[ID_LEN + 512], *pct;
		bool holds_changed, any_started = false, regate;
		size_t j;

		if (!r->meta_task || (k > 0 && c->jr[k - 1].ji == ji))
			continue;
		for (j = k; j < c->njr && c->jr[j].ji == ji; j++)
			any_started = any_started || c->jr[j].started_now;
		/* Starting a task split it out of the record: the id below
		 * would now reach the started tasks too. The next iteration
		 * sees what is left. */
		if (any_started)
			continue;
		snprintf(id, sizeof(id), "%u_[%s]", ji->array_job_id,
			 ji->array_task_str);
		if ((pct = strchr(id, '%'))) {
			pct[0] = ']';
			pct[1] = '\0';
		}
		regate = ji->priority != 0;
		holds_changed = !r->mk.present || r->mk.started ||
				r->mk.uhold != r->want.uhold ||
				r->mk.shold != r->want.shold;
		marker_tags(&ac, &r->want, false);
		if (L.plan_job_find(plan, r->id, &idx) == MAUISCHED_OK)
			reason_text(&ac, plan, idx);
		else
			sb_str(&ac, "waiting for mauisched");
		if (regate || !ji->admin_comment || strcmp(ji->admin_comment, ac.s)) {
			if (!regate && !holds_changed &&
			    (*budget_hit ||
			     mono_ms() - t_cos > (double) c->opt.reason_ms)) {
				*budget_hit = true;
			} else {
				update_job(id, regate ? 0 : NO_VAL, NULL, ac.s,
					   regate ? "hold again" : "array marker");
				updates++;
			}
		}
		free(ac.s);
	}
	return updates;
}

/* Publishes the pending jobs' holds for the gate. */
static void publish_holds(struct ctx *c)
{
	struct hold_entry *t = malloc((c->njr ? c->njr : 1) * sizeof(*t));
	size_t k, n = 0;

	if (!t)
		return;
	for (k = 0; k < c->njr; k++) {
		const struct jrec *r = &c->jr[k];
		if (!r->pending || r->started_now)
			continue;
		memcpy(t[n].id, r->id, ID_LEN);
		t[n].flags = (r->want.uhold ? HT_UHOLD : 0) |
			     (r->want.shold ? HT_SHOLD : 0);
		n++;
	}
	pthread_mutex_lock(&mu);
	free(holdtab);
	holdtab = t;
	nholdtab = n;
	pthread_mutex_unlock(&mu);
}

/* Applies the plan. Order: operator actions, starts (the latency that
 * matters), jobs to hold again, then marker and reason updates. */
static void apply_plan(struct ctx *c, const mauisched_plan_t *plan,
		       unsigned *nstart, unsigned *nbf, unsigned *nupd,
		       double *markers_ms)
{
	size_t n = 0, i, k;
	double t_cos;
	unsigned started = 0, backfilled = 0, updates = 0;
	bool budget_hit = false;

	/* Operator holds and releases (sethold/releasehold): system holds,
	 * recorded in the marker. */
	if (L.plan_action_count(plan, &n) == MAUISCHED_OK) {
		for (i = 0; i < n; i++) {
			uint32_t kind = 0;
			const char *job = NULL, *by = NULL;
			struct jrec *r;
			if (L.plan_action(plan, i, &kind, &job, &by) != MAUISCHED_OK)
				continue;
			r = find_rec(c, job);
			if (!r || !r->pending) {
				mlog(MAUISCHED_LOG_WARN,
				     "%s of job %s by %s: the job is not pending in Slurm; nothing done",
				     kind == MAUISCHED_ACTION_HOLD ? "hold" : "release",
				     job, by);
				continue;
			}
			r->want.shold = kind == MAUISCHED_ACTION_HOLD;
			mlog(MAUISCHED_LOG_INFO, "job %s: system hold %s by %s",
			     job, kind == MAUISCHED_ACTION_HOLD ? "placed" : "released",
			     by);
		}
	}

	/* Starts. */
	n = 0;
	L.plan_start_count(plan, &n);
	for (i = 0; i < n; i++) {
		const char *job = NULL, *res = NULL, *node = NULL;
		bool bf = false;
		size_t nn = 0, j;
		uint32_t tasks = 0;
		struct sbuf nodes = { 0 }, ac = { 0 }, log = { 0 };
		struct jrec *r;
		char *ranged, when[32];

		if (L.plan_start(plan, i, &job, &bf, &res, &nn) != MAUISCHED_OK)
			continue;
		r = find_rec(c, job);
		if (!r || !r->pending)
			continue;
		if (r->want.shold || r->want.uhold ||
		    hold_queued(r->id, r->ji->job_id)) {
			mlog(MAUISCHED_LOG_INFO, "job %s: not started, a hold came first", job);
			continue;
		}
		for (j = 0; j < nn; j++) {
			if (L.plan_start_node(plan, i, j, &node, &tasks) != MAUISCHED_OK)
				continue;
			sb_fmt(&nodes, "%s%s", nodes.len ? "," : "", node);
			sb_fmt(&log, "%s%s:%u", log.len ? "," : "", node, tasks);
		}
		if (!nodes.s) {
			free(log.s);
			continue;
		}
		ranged = compress_hosts(nodes.s);
		fmt_time(time(NULL), when, sizeof(when));
		marker_tags(&ac, &r->want, true);
		sb_fmt(&ac, "started %s on %s%s%s%s", when, ranged ? ranged : nodes.s,
		       bf ? " by backfill" : "", res && *res ? " in reservation " : "",
		       res && *res ? res : "");
		if (update_job(r->id, INFINITE, nodes.s, ac.s, "start") == 0) {
			r->started_now = true;
			started++;
			backfilled += bf;
			/* On a busy controller each release takes a while:
			 * let Slurm allocate the first ones meanwhile. */
			if (started % START_BATCH == 0 && schedule)
				schedule(false);
			mlog(MAUISCHED_LOG_INFO, "start job %s on %s%s%s%s", job, log.s,
			     bf ? " (backfill)" : "", res && *res ? " in reservation " : "",
			     res && *res ? res : "");
		}
		free(ranged);
		free(nodes.s);
		free(ac.s);
		free(log.s);
	}
	if (started && schedule)
		schedule(started > 50);

	/* Jobs Slurm could start by itself (released, requeued, never gated)
	 * that this plan does not start: held again, with the node list the
	 * user asked for. */
	for (k = 0; k < c->njr; k++) {
		struct jrec *r = &c->jr[k];
		struct sbuf ac = { 0 };
		if (!r->pending || r->started_now || r->meta_task ||
		    r->ji->priority == 0)
			continue;
		marker_tags(&ac, &r->want, false);
		sb_str(&ac, "held again: waiting for mauisched");
		if (update_job(r->id, 0, r->mk.started ? r->want.req : NULL, ac.s,
			       "hold again") == 0)
			mlog(MAUISCHED_LOG_INFO,
			     "job %s: pending with priority %u and not started by this iteration (requeued, or a start Slurm did not carry out): held again",
			     r->id, r->ji->priority);
		r->regate = true;
		updates++;
		free(ac.s);
	}

	/* Markers and reasons: hold changes always, reason-only changes
	 * within the time budget (the rest next iteration). Top of the queue
	 * first: the plan lists idle jobs in priority order. While this
	 * iteration started jobs, reason-only changes wait (up to
	 * REASON_DEFER_MS): slurmctld is allocating the starts under its job
	 * lock, an update would wait for it and hold back the next poll,
	 * which is what sees the next free node. */
	t_cos = mono_ms();
	budget_hit = started && t_cos - c->last_reasons < REASON_DEFER_MS;
	if (!budget_hit)
		c->last_reasons = t_cos;
	n = 0;
	L.plan_job_count(plan, &n);
	for (i = 0; i <= n; i++) {
		/* i == n: the jobs the engine did not see. */
		size_t lo = i < n ? i : 0, hi = i < n ? i + 1 : c->njr;
		const char *jid = NULL;
		int64_t prio = 0;
		bool st = false;
		struct jrec *one = NULL;

		if (i < n) {
			if (L.plan_job(plan, i, &jid, &prio, &st) != MAUISCHED_OK)
				continue;
			one = find_rec(c, jid);
			if (!one)
				continue;
		}
		for (k = lo; k < hi; k++) {
			struct jrec *r = one ? one : &c->jr[k];
			struct sbuf ac = { 0 };
			bool holds_changed;
			if (!one && r->reported)
				continue;
			if (!r->pending || r->started_now || r->regate || r->meta_task)
				continue;
			holds_changed = !r->mk.present || r->mk.started ||
					r->mk.uhold != r->want.uhold ||
					r->mk.shold != r->want.shold;
			if (!holds_changed && budget_hit)
				continue;
			marker_tags(&ac, &r->want, false);
			if (one)
				reason_text(&ac, plan, i);
			else
				sb_str(&ac, r->skip_why ? r->skip_why : "not scheduled");
			if (!r->ji->admin_comment || strcmp(r->ji->admin_comment, ac.s)) {
				if (!holds_changed &&
				    mono_ms() - t_cos > (double) c->opt.reason_ms) {
					budget_hit = true;
				} else {
					update_job(r->id, NO_VAL, NULL, ac.s,
						   holds_changed ? "hold marker" : "reason");
					updates++;
				}
			}
			free(ac.s);
		}
	}
	updates += apply_array_markers(c, plan, t_cos, &budget_hit);
	c->cosmetic_backlog = budget_hit;
	*markers_ms = mono_ms() - t_cos;
	publish_holds(c);
	*nstart = started;
	*nbf = backfilled;
	*nupd = updates;
}

/* One iteration; `force` skips the unchanged-input check. */
static void iterate(struct ctx *c, bool force)
{
	double t0 = mono_ms(), t_built, t_engine, t_end;
	struct gate_event *ev = NULL;
	size_t nev, k;
	uint32_t i;
	uint64_t fp;
	time_t now = time(NULL);
	mauisched_plan_t *plan = NULL;
	mauisched_status_t st;
	unsigned nstart = 0, nbf = 0, nupd = 0, nidle = 0, nrun = 0, nbad = 0;
	double markers_ms = 0;

	if (!c->jobs || !c->nodes)
		return;
	nev = take_events(&ev);
	arena_reset();
	map_partitions(c);
	build_records(c, ev, nev);
	index_records(c);
	fp = fingerprint(c);
	/* Nothing in Slurm changes when a begin time passes: wake up then. */
	if (c->next_begin && c->next_begin <= now) {
		force = true;
		c->next_begin = 0;
	}
	for (k = 0; k < c->njr; k++) {
		int64_t b = c->jr[k].mj.earliest_start;
		if (c->jr[k].pending && b > now &&
		    (!c->next_begin || b < c->next_begin))
			c->next_begin = (time_t) b;
	}
	if (!force && !nev && !c->cosmetic_backlog && fp == c->last_fp &&
	    now - c->last_iter < c->rmpoll) {
		free(ev);
		return;
	}
	t_built = mono_ms();

	st = L.snapshot_begin(c->h, (int64_t) now);
	for (i = 0; st == MAUISCHED_OK && i < c->nodes->record_count; i++) {
		node_info_t *n = &c->nodes->node_array[i];
		mauisched_node_t mn;
		memset(&mn, 0, sizeof(mn));
		mn.size = sizeof(mn);
		mn.name = n->name;
		mn.state = node_state(n);
		mn.procs = n->cpus_efctv ? n->cpus_efctv : n->cpus;
		mn.mem_mb = n->real_memory;
		mn.disk_mb = n->tmp_disk;
		mn.features = n->features_act ? n->features_act : n->features;
		if (c->node_part && c->node_part[i] >= 0)
			mn.partition = c->parts->partition_array[c->node_part[i]].name;
		if (n->cpu_load != NO_VAL)
			mn.load = n->cpu_load / 100.0;
		/* Slurm prefers low weights, Maui high priorities. */
		mn.has_priority = true;
		mn.priority = -(int64_t) n->weight;
		st = L.snapshot_add_node(c->h, &mn);
		if (st != MAUISCHED_OK)
			mlog(MAUISCHED_LOG_ERROR, "node %s: %s", n->name,
			     handle_error(c->h));
	}
	for (k = 0; st == MAUISCHED_OK && k < c->njr; k++) {
		struct jrec *r = &c->jr[k];
		if (!r->reported)
			continue;
		if (L.snapshot_add_job(c->h, &r->mj) != MAUISCHED_OK) {
			mlog(MAUISCHED_LOG_ERROR, "job %s left out: %s", r->id,
			     handle_error(c->h));
			r->reported = false;
			r->skip_why = "mauisched cannot read this job (see slurmctld's log)";
			nbad++;
			continue;
		}
		if (r->mj.state == MAUISCHED_JOB_IDLE)
			nidle++;
		else
			nrun++;
	}
	if (st == MAUISCHED_OK)
		st = L.run(c->h, &plan);
	t_engine = mono_ms();
	if (st != MAUISCHED_OK) {
		mlog(MAUISCHED_LOG_ERROR,
		     "iteration failed (%s): %s; Slurm and its jobs are left as they are",
		     L.status_name(st), handle_error(c->h));
		if (st == MAUISCHED_POISONED || st == MAUISCHED_PANIC) {
			mlog(MAUISCHED_LOG_ERROR,
			     "the library panicked: its handle is dropped and opened again");
			L.free(c->h);
			c->h = NULL;
			c->next_open = 0;
		}
		requeue_events(ev, nev);
		free(ev);
		return;
	}
	apply_plan(c, plan, &nstart, &nbf, &nupd, &markers_ms);
	L.plan_free(plan);
	t_end = mono_ms();
	c->last_fp = fp;
	c->last_iter = now;
	c->iterations++;
	mlog(MAUISCHED_LOG_INFO,
	     "iteration %lu: %u idle and %u active jobs on %u nodes; started %u (%u by backfill), %u other updates; times: snapshot %.1f ms, engine %.1f ms, apply %.1f ms (reasons %.1f ms), total %.1f ms%s",
	     c->iterations, nidle, nrun, c->nodes->record_count, nstart, nbf, nupd,
	     t_built - t0, t_engine - t_built, t_end - t_engine, markers_ms,
	     t_end - t0,
	     nbad ? " (jobs left out, see above)" : "");
	free(ev);
}

/* Opens the library and the handle, or says loudly why not. */
static void try_open(struct ctx *c)
{
	char err[2048];
	mauisched_options_t o;
	time_t now = time(NULL);
	bool loud = now - c->last_open_error >= 60;

	if (now < c->next_open)
		return;
	c->next_open = now + RETRY_OPEN_S;
	if (!L.dl && lib_open(c->opt.library, err, sizeof(err)) != 0) {
		if (loud) {
			mlog(MAUISCHED_LOG_ERROR,
			     "%s; no job is started until it loads (every job stays held; retrying every %d s)",
			     err, RETRY_OPEN_S);
			c->last_open_error = now;
		}
		return;
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.config_path = c->opt.config;
	o.state_dir = c->opt.state;
	o.log = lib_log;
	err[0] = '\0';
	if (L.new(&o, &c->h, err, sizeof(err)) != MAUISCHED_OK) {
		c->h = NULL;
		if (loud) {
			mlog(MAUISCHED_LOG_ERROR,
			     "cannot start mauisched with %s (state %s): %s; no job is started until it does (retrying every %d s)",
			     c->opt.config, c->opt.state, err, RETRY_OPEN_S);
			c->last_open_error = now;
		}
		return;
	}
	c->rmpoll = read_rmpoll_and_check(c->opt.config);
	c->last_fp = 0;
	mlog(MAUISCHED_LOG_INFO,
	     "scheduling with %s, state in %s; RMPOLLINTERVAL %ld s, change poll %ld ms",
	     c->opt.config, c->opt.state, c->rmpoll, c->opt.poll_ms);
}

/* Reads slurm.conf as slurmctld has it now: SchedulerParameters and
 * StateSaveLocation. */
static int load_options(struct options *o)
{
	slurm_conf_t *conf = NULL;

	if (slurm_load_ctl_conf((time_t) 0, &conf) != SLURM_SUCCESS)
		return -1;
	read_options(o, conf->sched_params, conf->state_save_location);
	slurm_free_ctl_conf(conf);
	return 0;
}

static void do_reconfig(struct ctx *c)
{
	struct options o;

	if (load_options(&o) != 0) {
		mlog(MAUISCHED_LOG_ERROR, "reconfigure: cannot read slurm.conf: %s",
		     slurm_strerror(slurm_get_errno()));
		return;
	}
	if (strcmp(o.state, c->opt.state) || strcmp(o.library, c->opt.library))
		mlog(MAUISCHED_LOG_WARN,
		     "maui_state and maui_library changes take effect when slurmctld restarts");
	snprintf(c->opt.config, sizeof(c->opt.config), "%s", o.config);
	c->opt.poll_ms = o.poll_ms;
	c->opt.reason_ms = o.reason_ms;
	if (!c->h) {
		c->next_open = 0; /* try again now, with the new settings */
		return;
	}
	if (L.reconfigure(c->h, c->opt.config) != MAUISCHED_OK) {
		mlog(MAUISCHED_LOG_ERROR,
		     "reconfigure: %s was refused; scheduling goes on with the previous configuration",
		     c->opt.config);
		return;
	}
	c->rmpoll = read_rmpoll_and_check(c->opt.config);
	c->last_fp = 0;
	mlog(MAUISCHED_LOG_INFO, "reconfigured from %s (RMPOLLINTERVAL %ld s)",
	     c->opt.config, c->rmpoll);
}

/* Sleeps until `ms` passed or something asks for attention; returns the
 * requests seen. */
static void wait_ms(long ms, bool *stop, bool *reconf, bool *wake)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&mu);
	while (!stop_req && !reconfig_req && !wake_req)
		if (pthread_cond_timedwait(&cv, &mu, &ts) == ETIMEDOUT)
			break;
	*stop = stop_req;
	*reconf = reconfig_req;
	*wake = wake_req;
	reconfig_req = false;
	wake_req = false;
	pthread_mutex_unlock(&mu);
}

static void *sched_thread(void *arg)
{
	struct ctx c;
	bool stop = false, reconf = false, wake = true, changed;
	long waited = 0;

	(void) arg;
	memset(&c, 0, sizeof(c));
	c.rmpoll = DEFAULT_RMPOLL;
	/* slurmctld answers RPCs only once it is fully up. */
	while (load_options(&c.opt) != 0) {
		wait_ms(200, &stop, &reconf, &wake);
		if (stop)
			goto out;
		if ((waited += 200) % 60000 == 0)
			mlog(MAUISCHED_LOG_WARN, "slurmctld does not answer yet");
	}
	mlog(MAUISCHED_LOG_INFO, "config %s, state %s, library %s",
	     c.opt.config, c.opt.state, c.opt.library);
	pthread_mutex_lock(&mu);
	accepting = true;
	pthread_mutex_unlock(&mu);
	wake = true;
	while (!stop) {
		double t_poll = mono_ms();
		long left;
		if (reconf)
			do_reconfig(&c);
		if (!c.h)
			try_open(&c);
		if (c.h && poll_slurm(&c, &changed) == 0 && c.nodes && c.jobs)
			iterate(&c, wake || reconf);
		/* The next poll is due poll_ms after this one began: a job
		 * that ended during a long iteration is seen right after it. */
		left = c.h ? c.opt.poll_ms - (long) (mono_ms() - t_poll) : 1000;
		wait_ms(left < 20 ? 20 : left, &stop, &reconf, &wake);
		/* Submissions come in bursts: take a few together. */
		if (wake && !stop)
			usleep(20000);
	}
out:
	pthread_mutex_lock(&mu);
	accepting = false;
	nevents = 0;
	free(holdtab);
	holdtab = NULL;
	nholdtab = 0;
	pthread_mutex_unlock(&mu);
	if (c.h) {
		L.free(c.h); /* writes the state */
		c.h = NULL;
	}
	free_slurm_data(&c);
	arena_reset();
	free(c.jr);
	free(c.by_id);
	free(c.node_part);
	free(c.part_exclusive);
	free(c.part_up);
	free(c.part_nodes);
	cache_free(&users);
	cache_free(&groups);
	mlog(MAUISCHED_LOG_INFO, "stopped after %lu iterations", c.iterations);
	return NULL;
}

/* ------------------------------------------------------- plugin entry */

int init(void)
{
	pthread_mutex_lock(&mu);
	stop_req = reconfig_req = false;
	wake_req = true;
	pthread_mutex_unlock(&mu);
	if (pthread_create(&thread, NULL, sched_thread, NULL) != 0) {
		slurm_error(LOG_PREFIX "cannot start the scheduling thread: %m");
		return SLURM_ERROR;
	}
	thread_started = true;
	slurm_info(LOG_PREFIX "loaded; mauisched decides which held job starts, when and where");
	return SLURM_SUCCESS;
}

void fini(void)
{
	if (!thread_started)
		return;
	pthread_mutex_lock(&mu);
	stop_req = true;
	accepting = false;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(thread, NULL);
	thread_started = false;
}

/* `scontrol reconfigure` (and SIGHUP): no API call from here, slurmctld
 * holds its locks; the thread rereads maui.cfg. */
int sched_p_reconfig(void)
{
	pthread_mutex_lock(&mu);
	reconfig_req = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return SLURM_SUCCESS;
}
