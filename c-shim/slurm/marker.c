/*
 * marker.c: the AdminComment marker of the jobs mauisched controls. The
 * hold state of a pending job lives there, in Slurm's own job record, so
 * it survives slurmctld restarts and a backup controller's takeover.
 */
#include "marker.h"

#include <stdio.h>
#include <string.h>

#include "maui_gate.h"

void parse_marker(const char *ac, struct marker *m)
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

void marker_tags(struct sbuf *b, const struct marker *m, bool started)
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
