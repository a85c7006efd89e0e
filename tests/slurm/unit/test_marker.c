/*
 * The AdminComment marker (c-shim/slurm/marker.c): what the gate writes
 * at submit, what the scheduler writes back, and what is not a marker.
 */
#include <stdlib.h>

#include "marker.h"
#include "maui_gate.h"
#include "unit.h"

static char *tags(const struct marker *m, bool started)
{
	struct sbuf b = { 0 };

	marker_tags(&b, m, started);
	return b.s;
}

int main(void)
{
	struct marker m, back;
	char *s;

	/* Not markers: no comment, another admin's comment, no ')'. */
	parse_marker(NULL, &m);
	CHECK(!m.present);
	parse_marker("site note: mauisched(gated)", &m);
	CHECK(!m.present);
	parse_marker("mauisched(gated uhold", &m);
	CHECK(!m.present);

	/* What the gate writes at submit (job_submit_maui.c). */
	parse_marker(MAUI_MARKER "gated) queued: waiting for mauisched", &m);
	CHECK(m.present);
	CHECK(!m.started && !m.uhold && !m.shold);
	CHECK_STR(m.req, "");
	CHECK_STR(m.text, "queued: waiting for mauisched");
	parse_marker(MAUI_MARKER "gated uhold) Hold User", &m);
	CHECK(m.present && m.uhold && !m.shold && !m.started);
	CHECK_STR(m.text, "Hold User");

	/* Every tag at once, in any order; unknown tags are ignored. */
	parse_marker(MAUI_MARKER "shold gated newtag req=n[001-002],x7 uhold) "
		     "Resources: insufficient idle procs", &m);
	CHECK(m.present && m.uhold && m.shold && !m.started);
	CHECK_STR(m.req, "n[001-002],x7");
	CHECK_STR(m.text, "Resources: insufficient idle procs");

	/* Started: the scheduler's own record of a start. */
	parse_marker(MAUI_MARKER "started req=n003) started 2026-11-21T22:41:02 on n[001-002]", &m);
	CHECK(m.present && m.started && !m.uhold);
	CHECK_STR(m.req, "n003");

	/* No text after the tags. */
	parse_marker(MAUI_MARKER "gated)", &m);
	CHECK(m.present);
	CHECK_STR(m.text, "");

	/* Writing: gated with holds and the user's node list. */
	memset(&m, 0, sizeof(m));
	m.uhold = m.shold = true;
	snprintf(m.req, sizeof(m.req), "n[001-004]");
	s = tags(&m, false);
	CHECK_STR(s, MAUI_MARKER "gated uhold shold req=n[001-004]) ");
	/* ... and read back the same. */
	parse_marker(s, &back);
	CHECK(back.present && back.uhold && back.shold && !back.started);
	CHECK_STR(back.req, "n[001-004]");
	free(s);

	/* A started job carries no holds, but keeps the user's nodes. */
	s = tags(&m, true);
	CHECK_STR(s, MAUI_MARKER "started req=n[001-004]) ");
	free(s);

	/* Plain gated. */
	memset(&m, 0, sizeof(m));
	s = tags(&m, false);
	CHECK_STR(s, MAUI_MARKER "gated) ");
	free(s);

	return finish();
}
