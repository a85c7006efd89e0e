/*
 * options.c: SchedulerParameters of sched/maui.
 */
#define _GNU_SOURCE
#include "options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_compat.h"

void read_options(struct options *o, const char *sched_params,
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

int load_options(struct options *o)
{
	slurm_conf_t *conf = NULL;

	if (slurm_load_ctl_conf((time_t) 0, &conf) != SLURM_SUCCESS)
		return -1;
	read_options(o, conf->sched_params, conf->state_save_location);
	slurm_free_ctl_conf(conf);
	return 0;
}
