/*
 * submit_many: submits many batch jobs quickly through libslurm, as the
 * calling user (run it with runuser for a test user). sbatch costs a
 * process and tens of milliseconds per job; this costs one RPC.
 *
 *   gcc -O2 -o submit_many submit_many.c -lslurm
 *   submit_many BASE [--begin EPOCH] < jobs
 *
 * One job per input line: NAME NTASKS CPUS_PER_TASK MEM_PER_CPU_MB
 * TIME_LIMIT_MIN SLEEP_S [NODES] ('#' lines are skipped). NODES 0 or
 * absent: no node count. Each job runs
 *   echo "start $(date +%s.%N) $SLURMD_NODENAME"; sleep SLEEP_S; echo "end $(date +%s.%N)"
 * in BASE/jobs with output to BASE/jobs/slurm-%j.out, and carries
 * MAUISCHED_SLURM_JOB=BASE in its environment (the harness's teardown
 * marker). Prints one job id per line, in input order; exits 1 on the
 * first refused submission.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	const char *base;
	char line[512], workdir[4096], out[4096], marker[4200], path[4200];
	char script[1024], name[128];
	char *env[4];
	long begin = 0;
	int count = 0;

	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "--begin"))) {
		fprintf(stderr, "usage: submit_many BASE [--begin EPOCH] < jobs\n");
		return 2;
	}
	base = argv[1];
	if (argc == 4)
		begin = atol(argv[3]);
	snprintf(workdir, sizeof(workdir), "%s/jobs", base);
	snprintf(out, sizeof(out), "%s/jobs/slurm-%%j.out", base);
	snprintf(marker, sizeof(marker), "MAUISCHED_SLURM_JOB=%s", base);
	snprintf(path, sizeof(path), "PATH=%s",
		 getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	env[0] = marker;
	env[1] = path;
	env[2] = "HOME=/nonexistent";
	env[3] = NULL;
	/* Reads slurm.conf (SLURM_CONF) and loads the plugins the API needs:
	 * 24.11 refuses to pack a request without it ("No hash plugins
	 * loaded"); 22.05 has it too. */
	slurm_init(NULL);

	while (fgets(line, sizeof(line), stdin)) {
		job_desc_msg_t d;
		submit_response_msg_t *resp = NULL;
		unsigned ntasks, cpt, mem, tmin, nodes = 0;
		double sleep_s;
		int n;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		n = sscanf(line, "%127s %u %u %u %u %lf %u", name, &ntasks, &cpt,
			   &mem, &tmin, &sleep_s, &nodes);
		if (n < 6) {
			fprintf(stderr, "submit_many: bad line: %s", line);
			return 2;
		}
		snprintf(script, sizeof(script),
			 "#!/bin/sh\necho \"start $(date +%%s.%%N) $SLURMD_NODENAME\"\n"
			 "sleep %g\necho \"end $(date +%%s.%%N)\"\n", sleep_s);
		slurm_init_job_desc_msg(&d);
		d.name = name;
		d.script = script;
		d.environment = env;
		d.env_size = 3;
		d.work_dir = workdir;
		d.std_out = out;
		d.user_id = getuid();
		d.group_id = getgid();
		d.num_tasks = ntasks;
		d.min_cpus = ntasks * cpt;
		d.cpus_per_task = (uint16_t) cpt;
		d.pn_min_memory = (uint64_t) mem | MEM_PER_CPU;
		d.time_limit = tmin;
		if (nodes) {
			d.min_nodes = nodes;
			d.max_nodes = nodes;
		}
		if (begin)
			d.begin_time = (time_t) begin;
		if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
			/* errno: the API sets it in 22.05 and 24.11 alike; 24.11
			 * has no slurm_get_errno() any more. */
			fprintf(stderr, "submit_many: job %s refused: %s\n", name,
				slurm_strerror(errno));
			return 1;
		}
		printf("%u\n", resp->job_id);
		slurm_free_submit_response_response_msg(resp);
		count++;
	}
	fflush(stdout);
	fprintf(stderr, "submit_many: %d job(s) submitted\n", count);
	return 0;
}
