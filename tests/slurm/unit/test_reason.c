/*
 * The engine's reasons in Slurm's words (c-shim/slurm/reason.c): what
 * squeue's reason column and scontrol's Reason= show for a waiting job
 * when Slurm's own scheduler is off.
 */
#include <stdlib.h>
#include <time.h>

#include "reason.h"
#include "util.h"
#include "mauisched.h"
#include "unit.h"

static struct slurm_reason of(uint32_t code, const char *summary)
{
	struct slurm_reason r;

	slurm_reason_of(code, summary, &r);
	return r;
}

int main(void)
{
	struct slurm_reason r;

	/* Slurm's own words where one fits, without a text (squeue would
	 * show the text instead of the word). */
	r = of(MAUISCHED_REASON_PRIORITY, "Priority");
	CHECK(r.state_reason == WAIT_PRIORITY && !r.keep);
	CHECK_STR(r.desc, "");
	CHECK(of(MAUISCHED_REASON_RESOURCES, "Resources").state_reason == WAIT_RESOURCES);
	CHECK(of(MAUISCHED_REASON_RESERVATION, "Reservation john.1").state_reason == WAIT_RESERVATION);
	CHECK(of(MAUISCHED_REASON_DEPENDENCY, "Dependency").state_reason == WAIT_DEPENDENCY);
	CHECK(of(MAUISCHED_REASON_BEGIN_TIME, "BeginTime 2026-11-26T10:00:00").state_reason == WAIT_TIME);
	CHECK(of(MAUISCHED_REASON_NONE, "").state_reason == WAIT_NO_REASON);
	CHECK_STR(of(MAUISCHED_REASON_RESOURCES, "Resources").desc, "");

	/* Throttling: the Slurm limit of the same kind, a QOS's or an
	 * association's. */
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXJOB user steve").state_reason == WAIT_ASSOC_MAX_JOBS);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXJOB group staff").state_reason == WAIT_ASSOC_GRP_JOB);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXIJOB qos high").state_reason == WAIT_QOS_GRP_JOB);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXPROC user steve").state_reason == WAIT_ASSOC_GRP_CPU);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXPE qos high").state_reason == WAIT_QOS_GRP_CPU);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXNODE class batch, user steve").state_reason == WAIT_ASSOC_GRP_NODE);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXMEM account a1").state_reason == WAIT_ASSOC_GRP_MEM);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXPS user steve").state_reason == WAIT_ASSOC_GRP_CPU_RUN_MIN);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXWC qos high").state_reason == WAIT_QOS_GRP_WALL);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXGRES[gpu] user steve").state_reason == WAIT_ASSOC_GRP_GRES);
	CHECK(of(MAUISCHED_REASON_POLICY, "Policy MAXGRES[gpu:a100] qos high").state_reason == WAIT_QOS_GRP_GRES);
	CHECK(of(MAUISCHED_REASON_POLICY, NULL).state_reason == WAIT_ASSOC_GRP_JOB);
	CHECK_STR(of(MAUISCHED_REASON_POLICY, "Policy MAXJOB user steve").desc, "");

	/* A hold is Slurm's own: its reason stands. */
	CHECK(of(MAUISCHED_REASON_HOLD, "Hold User").keep);

	/* No Slurm word: a text naming mauisched's policy. */
	r = of(MAUISCHED_REASON_FAIRSHARE_CAP, "FairshareCap user steve");
	CHECK(r.state_reason == WAIT_PRIORITY && !r.keep);
	CHECK_STR(r.desc, "mauisched: FairshareCap user steve");
	CHECK_STR(of(MAUISCHED_REASON_NO_FIT, "NoFit 64 procs").desc, "mauisched: NoFit 64 procs");
	CHECK_STR(of(MAUISCHED_REASON_STOPPED, "Stopped by root").desc, "mauisched: Stopped by root");
	CHECK_STR(of(MAUISCHED_REASON_NEGATIVE_PRIORITY, "").desc, "mauisched: waiting");
	/* Times in comments: local, in Maui's layout, the zone named
	 * (US Central by POSIX rule: CST in November, CDT in July). */
	{
		char when[48];

		setenv("TZ", "CST6CDT,M3.2.0,M11.1.0", 1);
		tzset();
		fmt_time((time_t) 1795691889, when, sizeof(when));
		CHECK_STR(when, "Thu Nov 26 05:18:09 CST");
		fmt_time((time_t) 1782912600, when, sizeof(when));
		CHECK_STR(when, "Wed Jul  1 08:30:00 CDT");
		setenv("TZ", "UTC", 1);
		tzset();
		fmt_time((time_t) 1795691889, when, sizeof(when));
		CHECK_STR(when, "Thu Nov 26 11:18:09 UTC");
	}
	return finish();
}
