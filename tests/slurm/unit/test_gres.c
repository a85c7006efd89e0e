/*
 * Slurm's generic resource strings -> the library's "name[:type]:count"
 * (c-shim/slurm/gres.c), in the forms Slurm 22.05 and 24.11 keep them:
 * node Gres strings as slurmctld builds them, and a job's tres_per_*
 * lists as sbatch/srun/salloc send them at each release.
 */
#include <stdlib.h>

#include "gres.h"
#include "unit.h"
#include "util.h"

static char err[256];

/* The converted form of a job's list (NULL: nothing; "ERR": refused). */
static const char *job(const char *in)
{
	char *out;

	if (gres_to_abi(in, false, NULL, &out, err, sizeof(err)) != 0)
		return "ERR";
	return out;
}

static const char *node(const char *in)
{
	char *out;

	if (gres_to_abi(in, true, NULL, &out, err, sizeof(err)) != 0)
		return "ERR";
	return out;
}

static void test_nodes(void)
{
	CHECK_STR(node(NULL), NULL);
	CHECK_STR(node(""), NULL);
	CHECK_STR(node("gpu:4"), "gpu:4");
	CHECK_STR(node("gpu:a100:4"), "gpu:a100:4");
	/* slurmd's registration adds the sockets the devices are close to. */
	CHECK_STR(node("gpu:a100:4(S:0-1)"), "gpu:a100:4");
	CHECK_STR(node("gpu:a100:2(S:0),gpu:v100:2(S:1)"), "gpu:a100:2,gpu:v100:2");
	/* bit_fmt writes a socket list with commas: they do not split. */
	CHECK_STR(node("gpu:2(S:0,2),tape:1"), "gpu:2,tape:1");
	CHECK_STR(node("gpu:a100:2,gpu:v100:2"), "gpu:a100:2,gpu:v100:2");
	/* Count suffixes (binary, as gres.c writes them). */
	CHECK_STR(node("mps:1K,bw:2M"), "mps:1024,bw:2097152");
	/* Past the library's 32-bit count: cut to it. */
	CHECK_STR(node("bw:lustre:8G"), "bw:lustre:4294967295");
	/* A bare name is one; a type without count too. */
	CHECK_STR(node("tape"), "tape:1");
	CHECK_STR(node("gpu:k80"), "gpu:k80:1");
	/* Zero counts go, as Slurm drops them. */
	CHECK_STR(node("gpu:0,tape:2"), "tape:2");
	/* The same name twice is summed (one per gres.conf line). */
	CHECK_STR(node("gpu:a100:2(S:0),gpu:a100:2(S:1)"), "gpu:a100:4");
	/* no_consume resources are not counted by Slurm: left out. */
	CHECK_STR(node("bw:lustre:no_consume:4G,gpu:2"), "gpu:2");
	CHECK_STR(node("lic:no_consume:8"), NULL);
	CHECK_STR(node(" gpu:2 , tape:1 "), "gpu:2,tape:1");
	/* Malformed: refused, the item named. */
	CHECK_STR(node("gpu:a:b:4"), "ERR");
	CHECK(strstr(err, "gpu:a:b") != NULL);
	CHECK_STR(node("gpu:"), "ERR");
	CHECK_STR(node("gp u:2"), "ERR");
	CHECK_STR(node("4"), "ERR");
	CHECK(strstr(err, "no name") != NULL);
}

static void test_jobs_22_05(void)
{
	/* --gres=gpu:2 and --gpus-per-node=2: "gres:" before every item
	 * (gres_prepend_tres_type, xfmt_tres with "gres:gpu"). */
	CHECK_STR(job("gres:gpu:2"), "gpu:2");
	CHECK_STR(job("gres:gpu:a100:1"), "gpu:a100:1");
	CHECK_STR(job("gres:gpu:2,gres:tape:1"), "gpu:2,tape:1");
	/* --gpus=4 (tres_per_job), --gpus-per-task=a100:1 (tres_per_task). */
	CHECK_STR(job("gres:gpu:4"), "gpu:4");
	CHECK_STR(job("gres:gpu:a100:1"), "gpu:a100:1");
	/* --gres=gpu (a count of one), --gres=gpu:a100. */
	CHECK_STR(job("gres:gpu"), "gpu:1");
	CHECK_STR(job("gres:gpu:a100"), "gpu:a100:1");
	CHECK_STR(job("gres:gpu:0"), NULL);
	CHECK_STR(job("gres:mps:1k"), "mps:1024");
}

static void test_jobs_24_11(void)
{
	/* "gres/" before every item. */
	CHECK_STR(job("gres/gpu:2"), "gpu:2");
	CHECK_STR(job("gres/gpu:a100:1"), "gpu:a100:1");
	CHECK_STR(job("gres/gpu:2,gres/tape:1"), "gpu:2,tape:1");
	CHECK_STR(job("gres/gpu"), "gpu:1");
	/* tres_per_task also carries cpus (-c) and an '=' count. */
	CHECK_STR(job("cpu=2,gres/gpu=1"), "gpu:1");
	CHECK_STR(job("cpu=2,gres/gpu:a100=2"), "gpu:a100:2");
	CHECK_STR(job("cpu=4"), NULL);
	/* Other TRES are no generic resources. */
	CHECK_STR(job("license/matlab=1,gres/gpu:1"), "gpu:1");
	CHECK_STR(job("mem=100,node=1,billing=3"), NULL);
	/* Older clients' bare items. */
	CHECK_STR(job("gpu:2"), "gpu:2");
	CHECK_STR(job("gpu"), "gpu:1");
	/* Malformed: refused, the item named. */
	CHECK_STR(job("gres/gpu=x"), "ERR");
	CHECK(strstr(err, "gpu=x") != NULL || strstr(err, "\"x\"") != NULL);
	CHECK_STR(job("gres/gpu:a:b:2"), "ERR");
}

static void test_skip_and_any(void)
{
	char *skip = NULL, *out;

	gres_no_consume("bw:lustre:no_consume:4G,gpu:2", &skip);
	gres_no_consume("bw:gpfs:no_consume:1G,lic:no_consume:4", &skip);
	gres_no_consume(NULL, &skip);
	CHECK_STR(skip, ",bw,lic");
	CHECK(gres_to_abi("gres/bw:lustre:1G,gres/gpu:1,gres/lic:2", false, skip,
			  &out, err, sizeof(err)) == 0);
	CHECK_STR(out, "gpu:1");
	/* A prefix of a listed name is another name. */
	CHECK(gres_to_abi("gres/b:1,gres/bwx:1", false, skip, &out, err,
			  sizeof(err)) == 0);
	CHECK_STR(out, "b:1,bwx:1");
	free(skip);

	CHECK(!gres_any(NULL));
	CHECK(!gres_any(""));
	CHECK(!gres_any("cpu=2"));
	CHECK(gres_any("gres:gpu:1"));
	CHECK(gres_any("gres/gpu:1"));
	CHECK(gres_any("gres/gpu=x"));
}

int main(void)
{
	test_nodes();
	test_jobs_22_05();
	test_jobs_24_11();
	test_skip_and_any();
	arena_reset();
	return finish();
}
