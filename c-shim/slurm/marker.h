/*
 * marker.h: the AdminComment marker, "mauisched(TAGS) TEXT" (the protocol
 * is described in maui_gate.h): reading it from a job and writing the
 * tags of the state a job should have.
 */
#ifndef MAUI_MARKER_H
#define MAUI_MARKER_H

#include <stdbool.h>

#include "util.h"

struct marker {
	bool present;   /* AdminComment starts with MAUI_MARKER */
	bool started;
	bool uhold, shold;
	char req[1024]; /* req= */
	const char *text; /* after the tags, inside the parsed string */
};

/* Reads `ac` (NULL or any AdminComment). Unknown tags are ignored; a
 * marker without its closing parenthesis is no marker. */
void parse_marker(const char *ac, struct marker *m);

/* Appends "mauisched(gated|started [uhold] [shold] [req=LIST]) " for `m`;
 * a started job carries no holds. */
void marker_tags(struct sbuf *b, const struct marker *m, bool started);

#endif /* MAUI_MARKER_H */
