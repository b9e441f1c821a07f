/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_demand.c - a job's memory and GPUs from Slurm's request (demand.h).
 *
 *  The TRES strings are those sbatch sends: "gres:gpu:N" from 22.05,
 *  "gres/gpu:N" from 23.02 on (xfmt_tres(), gres_prepend_tres_type()).
 *  Memory follows slurmctld's order: the user's figure, the partition's
 *  default, the cluster's, else all of each node.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "demand.h"
#include "testutil.h"

static char err[256];

static int _gpus(const char *tres)
{
	int g = -1;

	err[0] = '\0';
	ck_assert_msg(!libra_tres_gpus(tres, "--gres", &g, err, sizeof(err)),
		      "'%s' refused: %s", tres, err);
	return g;
}

static void _gpus_refused(const char *tres, const char *what)
{
	int g = 7;

	ck_assert_msg(libra_tres_gpus(tres, "--gres", &g, err, sizeof(err)),
		      "'%s' taken", tres);
	ck_assert_int_eq(g, 0);
	ck_assert_names(err, "--gres");
	ck_assert_names(err, what);
}

/* ---- the TRES parser --------------------------------------------------- */

START_TEST(test_tres_gpus_in_both_release_spellings)
{
	ck_assert_int_eq(_gpus("gres:gpu:2"), 2);	/* 22.05 */
	ck_assert_int_eq(_gpus("gres/gpu:2"), 2);	/* 23.02 and later */
	ck_assert_int_eq(_gpus("gres/gpu=3"), 3);	/* NAME=COUNT */
}
END_TEST

START_TEST(test_tres_gpus_with_a_type_count_all_types)
{
	ck_assert_int_eq(_gpus("gres:gpu:a100:2"), 2);
	ck_assert_int_eq(_gpus("gres/gpu:a100=4"), 4);
	/* a type alone is one of it, as slurmctld reads it */
	ck_assert_int_eq(_gpus("gres/gpu:a100"), 1);
	/* a type that is digits then a count: the type is "2" */
	ck_assert_int_eq(_gpus("gres:gpu:2:3"), 3);
}
END_TEST

START_TEST(test_tres_gpu_without_count_is_one)
{
	ck_assert_int_eq(_gpus("gres:gpu"), 1);
	ck_assert_int_eq(_gpus("gres/gpu"), 1);
}
END_TEST

START_TEST(test_tres_gpus_sum_over_elements)
{
	/* --gpus-per-node=1 --gres=gpu:k80:2: sbatch joins them with a comma */
	ck_assert_int_eq(_gpus("gres:gpu:1,gres:gpu:k80:2"), 3);
	/* slurm.h calls these lists semicolon-delimited: read both */
	ck_assert_int_eq(_gpus("gres/gpu:1;gres/gpu:2"), 3);
}
END_TEST

START_TEST(test_tres_zero_count_asks_nothing)
{
	ck_assert_int_eq(_gpus("gres/gpu:0"), 0);
	ck_assert_int_eq(_gpus("gres/gpu:tesla:0"), 0);
}
END_TEST

START_TEST(test_tres_absent_or_empty_asks_nothing)
{
	ck_assert_int_eq(_gpus(NULL), 0);
	ck_assert_int_eq(_gpus(""), 0);
	ck_assert_int_eq(_gpus(","), 0);
}
END_TEST

START_TEST(test_tres_other_than_gres_pass)
{
	/* 24.11 puts --cpus-per-task into tres_per_task beside GPUs */
	ck_assert_int_eq(_gpus("cpu=4"), 0);
	ck_assert_int_eq(_gpus("cpu=4,gres/gpu:1"), 1);
	ck_assert_int_eq(_gpus("license/matlab=1"), 0);
}
END_TEST

START_TEST(test_tres_bad_counts_are_refused_naming_them)
{
	_gpus_refused("gres:gpu:x:y", "'y'");
	_gpus_refused("gres/gpu=two", "'two'");
	_gpus_refused("gres/gpu:a100:1k", "'1k'");
}
END_TEST

START_TEST(test_tres_malformed_elements_are_refused)
{
	_gpus_refused("gres:gpu:", "cannot read");
	_gpus_refused("gres:gpu::1", "cannot read");
	_gpus_refused("gres/", "cannot read");
	_gpus_refused("gres/:2", "cannot read");
	_gpus_refused("gres/gpu:a:b:c", "cannot read");
	_gpus_refused("gres/gpu:=2", "cannot read");
}
END_TEST

START_TEST(test_tres_other_gres_is_refused_by_name)
{
	_gpus_refused("gres:mps:100", "'mps'");
	_gpus_refused("gres/gpu:1,gres/shard:2", "'shard'");
}
END_TEST

START_TEST(test_tres_huge_counts_are_refused)
{
	_gpus_refused("gres/gpu:1000001", "bad count");
	_gpus_refused("gres/gpu:99999999999999999999999", "bad count");
	_gpus_refused("gres/gpu:1000000,gres/gpu:1", "more than");
}
END_TEST

START_TEST(test_tres_count_reads_one_name_and_skips_others)
{
	uint64_t v = 9;

	ck_assert_int_eq(libra_tres_count("gres:gpu:4096", "gpu",
					  "--mem-per-gpu", &v, err,
					  sizeof(err)), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(libra_tres_count("gres/mps:10", "gpu",
					  "--mem-per-gpu", &v, err,
					  sizeof(err)), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(libra_tres_count("gres/gpu:x:lots", "gpu",
					  "--mem-per-gpu", &v, err,
					  sizeof(err)), -1);
	ck_assert_names(err, "--mem-per-gpu");
}
END_TEST

/* ---- the job's demand ---------------------------------------------------- */

static libra_job_ask_t _ask(void)
{
	libra_job_ask_t a;

	memset(&a, 0, sizeof(a));
	a.mem_tracked = true;
	return a;
}

static libra_mem_spec_t _per_node(uint64_t mb)
{
	libra_mem_spec_t m = { .set = true, .per_cpu = false, .mb = mb };

	return m;
}

static libra_mem_spec_t _per_cpu(uint64_t mb)
{
	libra_mem_spec_t m = { .set = true, .per_cpu = true, .mb = mb };

	return m;
}

static libra_demand_t _demand(const libra_job_ask_t *a)
{
	libra_demand_t d;

	ck_assert_msg(libra_demand_from_job(a, &d, err, sizeof(err)) ==
		      LIBRA_DEMAND_OK,
		      "refused: %s", err);
	return d;
}

static void _demand_refused(const libra_job_ask_t *a, libra_demand_err_t e,
			    const char *what)
{
	libra_demand_t d;

	memset(&d, 0x5a, sizeof(d));
	ck_assert_int_eq(libra_demand_from_job(a, &d, err, sizeof(err)), e);
	ck_assert_names(err, what);
	ck_assert_uint_eq(d.mem_per_cpu, 0);
	ck_assert_uint_eq(d.mem_per_node, 0);
	ck_assert(!d.mem_whole_node);
	ck_assert_int_eq(d.gpus_per_node, 0);
	ck_assert_int_eq(d.gpus, 0);
	ck_assert_uint_eq(d.tmp_mb, 0);
}

START_TEST(test_mem_per_node_is_taken_as_given)
{
	libra_job_ask_t a = _ask();
	libra_demand_t d;

	a.mem = _per_node(64000);			/* --mem=64000 */
	d = _demand(&a);
	ck_assert_uint_eq(d.mem_per_node, 64000);
	ck_assert_uint_eq(d.mem_per_cpu, 0);
	ck_assert(!d.mem_whole_node);
}
END_TEST

START_TEST(test_mem_per_cpu_is_taken_as_given)
{
	libra_job_ask_t a = _ask();
	libra_demand_t d;

	a.mem = _per_cpu(2048);				/* --mem-per-cpu=2G */
	d = _demand(&a);
	ck_assert_uint_eq(d.mem_per_cpu, 2048);
	ck_assert_uint_eq(d.mem_per_node, 0);
}
END_TEST

START_TEST(test_mem_zero_is_all_of_each_node)
{
	libra_job_ask_t a = _ask();

	a.mem = _per_node(0);				/* --mem=0 */
	ck_assert(_demand(&a).mem_whole_node);
	a.mem = _per_cpu(0);		/* --mem-per-cpu=0: slurmctld maps it */
	ck_assert(_demand(&a).mem_whole_node);
}
END_TEST

START_TEST(test_mem_defaults_partition_before_cluster)
{
	libra_job_ask_t a = _ask();

	a.part_default = _per_cpu(500);			/* DefMemPerCPU=500 */
	a.cluster_default = _per_node(8000);
	ck_assert_uint_eq(_demand(&a).mem_per_cpu, 500);
	a.part_default.set = false;
	ck_assert_uint_eq(_demand(&a).mem_per_node, 8000);
	/* the user's own figure wins over both */
	a.part_default = _per_cpu(500);
	a.mem = _per_node(100);
	ck_assert_uint_eq(_demand(&a).mem_per_node, 100);
	ck_assert_uint_eq(_demand(&a).mem_per_cpu, 0);
}
END_TEST

START_TEST(test_mem_without_any_default_is_all_of_each_node)
{
	libra_job_ask_t a = _ask();

	/* tracked memory, no --mem, no DefMemPer*: Slurm gives the job the
	 * nodes' whole memory, so time sharing a node takes a default */
	ck_assert(_demand(&a).mem_whole_node);
	a.cluster_default = _per_cpu(0);	/* DefMemPerCPU=0: the same */
	ck_assert(_demand(&a).mem_whole_node);
}
END_TEST

START_TEST(test_mem_untracked_asks_none)
{
	libra_job_ask_t a = _ask();
	libra_demand_t d;

	a.mem_tracked = false;
	a.mem = _per_node(64000);
	a.tres_per_node = "gres:gpu:1";
	d = _demand(&a);
	ck_assert_uint_eq(d.mem_per_node, 0);
	ck_assert(!d.mem_whole_node);
	ck_assert_int_eq(d.gpus_per_node, 1);	/* GRES are counted anyway */
}
END_TEST

START_TEST(test_mem_too_large_is_refused)
{
	libra_job_ask_t a = _ask();

	a.mem = _per_cpu((uint64_t) 1 << 41);
	_demand_refused(&a, LIBRA_DEMAND_EMEM, "--mem-per-cpu");
}
END_TEST

START_TEST(test_gpus_per_node_and_in_all)
{
	libra_job_ask_t a = _ask();
	libra_demand_t d;

	a.mem = _per_node(1000);
	a.tres_per_node = "gres/gpu:2";			/* --gpus-per-node=2 */
	d = _demand(&a);
	ck_assert_int_eq(d.gpus_per_node, 2);
	ck_assert_int_eq(d.gpus, 0);
	a.tres_per_node = NULL;
	a.tres_per_job = "gres:gpu:3";			/* --gpus=3 */
	d = _demand(&a);
	ck_assert_int_eq(d.gpus_per_node, 0);
	ck_assert_int_eq(d.gpus, 3);
}
END_TEST

START_TEST(test_gpus_both_forms_are_refused)
{
	libra_job_ask_t a = _ask();

	a.tres_per_node = "gres/gpu:2";
	a.tres_per_job = "gres/gpu:4";
	_demand_refused(&a, LIBRA_DEMAND_EGPUS, "--gpus with --gpus-per-node");
}
END_TEST

START_TEST(test_gpus_per_socket_or_task_are_refused)
{
	libra_job_ask_t a = _ask();

	a.tres_per_socket = "gres:gpu:1";
	_demand_refused(&a, LIBRA_DEMAND_EGPUS, "--gpus-per-socket");
	a.tres_per_socket = NULL;
	a.tres_per_task = "cpu=2,gres/gpu:1";
	_demand_refused(&a, LIBRA_DEMAND_EGPUS, "--gpus-per-task");
	/* 24.11's --cpus-per-task alone in tres_per_task is no GPU */
	a.tres_per_task = "cpu=2";
	_demand(&a);
}
END_TEST

START_TEST(test_bad_tres_names_the_option)
{
	libra_job_ask_t a = _ask();

	a.tres_per_job = "gres/gpu=many";
	_demand_refused(&a, LIBRA_DEMAND_EGPUS, "--gpus:");
	a.tres_per_job = NULL;
	a.tres_per_node = "gres:gpu:";
	_demand_refused(&a, LIBRA_DEMAND_EGPUS, "--gres/--gpus-per-node");
}
END_TEST

START_TEST(test_mem_per_gpu_times_gpus_per_node)
{
	libra_job_ask_t a = _ask();
	libra_demand_t d;

	a.part_default = _per_cpu(500);		/* not used: --mem-per-gpu */
	a.tres_per_node = "gres:gpu:2";
	a.mem_per_tres = "gres:gpu:4096";	/* --mem-per-gpu=4G */
	d = _demand(&a);
	ck_assert_uint_eq(d.mem_per_node, 8192);
	ck_assert_uint_eq(d.mem_per_cpu, 0);
}
END_TEST

START_TEST(test_mem_per_gpu_without_gpus_per_node_is_refused)
{
	libra_job_ask_t a = _ask();

	a.tres_per_job = "gres/gpu:2";
	a.mem_per_tres = "gres/gpu:4096";
	_demand_refused(&a, LIBRA_DEMAND_EMEM, "--mem-per-gpu");
	a.tres_per_job = NULL;
	a.tres_per_node = "gres/gpu:2";
	a.mem = _per_node(100);
	_demand_refused(&a, LIBRA_DEMAND_EMEM, "--mem-per-gpu with --mem");
}
END_TEST

START_TEST(test_tmp_is_taken_as_given)
{
	/* --tmp=20G: 20480 MB per node, whether memory is tracked or not
	 * (the nodes' TmpDisk say where it counts); refused with the rest */
	libra_job_ask_t a = _ask();

	a.tmp_mb = 20480;
	a.mem = _per_node(1000);
	ck_assert_uint_eq(_demand(&a).tmp_mb, 20480);
	ck_assert_uint_eq(_demand(&a).mem_per_node, 1000);
	a.mem_tracked = false;
	ck_assert_uint_eq(_demand(&a).tmp_mb, 20480);
	a.tres_per_task = "gres/gpu:1";
	_demand_refused(&a, LIBRA_DEMAND_EGPUS, "--gpus-per-task");
	a.tres_per_task = NULL;
	a.tmp_mb = 0;
	ck_assert_uint_eq(_demand(&a).tmp_mb, 0);
}
END_TEST

START_TEST(test_nothing_asked_is_a_zero_demand)
{
	libra_job_ask_t a;
	libra_demand_t d;

	memset(&a, 0, sizeof(a));		/* memory not tracked */
	d = _demand(&a);
	ck_assert_uint_eq(d.mem_per_cpu, 0);
	ck_assert_uint_eq(d.mem_per_node, 0);
	ck_assert(!d.mem_whole_node);
	ck_assert_int_eq(d.gpus_per_node, 0);
	ck_assert_int_eq(d.gpus, 0);
}
END_TEST

/* ---- node features (-C) ------------------------------------------------ */

START_TEST(test_features_one_name_matches_whole_names_only)
{
	ck_assert(libra_features_match("feat", "a,feat,b"));
	ck_assert(!libra_features_match("feat", "feature,fea"));
	ck_assert(!libra_features_match("feat", NULL));
	ck_assert(!libra_features_match("feat", ""));
}
END_TEST

START_TEST(test_features_and_needs_every_name)
{
	ck_assert(libra_features_match("a&b", "b,a"));
	ck_assert(!libra_features_match("a&b", "a"));
	ck_assert(libra_features_match("a,b", "a,b"));	/* ',' is AND */
	ck_assert(!libra_features_match("a,b", "b"));
}
END_TEST

START_TEST(test_features_or_needs_one_name)
{
	ck_assert(libra_features_match("a|b", "b"));
	ck_assert(libra_features_match("a|b", "a,c"));
	ck_assert(!libra_features_match("a|b", "c"));
}
END_TEST

START_TEST(test_features_read_left_to_right_as_slurm)
{
	/* (a or b) and c, not a or (b and c) */
	ck_assert(!libra_features_match("a|b&c", "a"));
	ck_assert(libra_features_match("a|b&c", "a,c"));
	/* (a and b) or c */
	ck_assert(libra_features_match("a&b|c", "c"));
	ck_assert(!libra_features_match("a&b|c", "a"));
}
END_TEST

START_TEST(test_features_unread_forms_are_not_valid)
{
	const char *bad[] = { "", "a&", "|a", "a||b", "a&,b", "[a|b]",
			      "a*2", "(a|b)&c", "!a", "a:2" };

	ck_assert(libra_features_valid("a"));
	ck_assert(libra_features_valid("a&b|c,d"));
	ck_assert(!libra_features_valid(NULL));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(!libra_features_valid(bad[i]), "'%s' valid",
			      bad[i]);
}
END_TEST

/* ---- licenses ---------------------------------------------------------- */

START_TEST(test_license_parse_counts_and_sums_names)
{
	libra_license_ask_t a[4];

	ck_assert_int_eq(libra_license_parse("lic:2,other;lic", a, 4), 2);
	ck_assert_str_eq(a[0].name, "lic");
	ck_assert_uint_eq(a[0].count, 3);
	ck_assert_str_eq(a[1].name, "other");
	ck_assert_uint_eq(a[1].count, 1);
	ck_assert_int_eq(libra_license_parse(NULL, a, 4), 0);
	ck_assert_int_eq(libra_license_parse("", a, 4), 0);
	ck_assert_int_eq(libra_license_parse("a,,b", a, 4), 2);
}
END_TEST

START_TEST(test_license_parse_refuses_what_slurm_or_admission_cannot_read)
{
	libra_license_ask_t a[2];

	ck_assert_int_eq(libra_license_parse("lic:x", a, 2), -1);
	ck_assert_int_eq(libra_license_parse("lic:-1", a, 2), -1);
	ck_assert_int_eq(libra_license_parse("lic: 1", a, 2), -1);
	ck_assert_int_eq(libra_license_parse(":1", a, 2), -1);
	ck_assert_int_eq(libra_license_parse("a|b", a, 2), -1);
	ck_assert_int_eq(libra_license_parse("a,b,c", a, 2), -1);
	ck_assert_int_eq(libra_license_parse("lic:99999999999", a, 2), -1);
}
END_TEST

START_TEST(test_license_free_counts_holds_beyond_t)
{
	libra_license_hold_t h[] = { { 1, 100.0 }, { 2, 200.0 },
				     { 1, INFINITY } };

	ck_assert_uint_eq(libra_license_free(5, h, 3, 50.0), 1);
	ck_assert_uint_eq(libra_license_free(5, h, 3, 100.0), 2);
	ck_assert_uint_eq(libra_license_free(5, h, 3, 250.0), 4);
	/* more held than configured (a smaller Licenses= after a
	 * reconfiguration) is none free, not a wrap-around */
	ck_assert_uint_eq(libra_license_free(2, h, 3, 0.0), 0);
	ck_assert_uint_eq(libra_license_free(3, NULL, 0, 0.0), 3);
}
END_TEST

START_TEST(test_license_free_when_is_the_end_of_the_hold_that_frees_enough)
{
	libra_license_hold_t h[] = { { 1, 300.0 }, { 1, 100.0 },
				     { 1, INFINITY } };

	ck_assert(libra_license_free_when(4, h, 3, 1, 10.0) == 10.0);
	ck_assert(libra_license_free_when(3, h, 3, 1, 10.0) == 100.0);
	ck_assert(libra_license_free_when(3, h, 3, 2, 10.0) == 300.0);
	/* the third hold has no end: three never free at once */
	ck_assert(isinf(libra_license_free_when(3, h, 3, 3, 10.0)));
	/* more asked than configured: never */
	ck_assert(isinf(libra_license_free_when(3, NULL, 0, 4, 10.0)));
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("demand");
	TCase *tc = tcase_create("tres");

	T(tc, test_tres_gpus_in_both_release_spellings);
	T(tc, test_tres_gpus_with_a_type_count_all_types);
	T(tc, test_tres_gpu_without_count_is_one);
	T(tc, test_tres_gpus_sum_over_elements);
	T(tc, test_tres_zero_count_asks_nothing);
	T(tc, test_tres_absent_or_empty_asks_nothing);
	T(tc, test_tres_other_than_gres_pass);
	T(tc, test_tres_bad_counts_are_refused_naming_them);
	T(tc, test_tres_malformed_elements_are_refused);
	T(tc, test_tres_other_gres_is_refused_by_name);
	T(tc, test_tres_huge_counts_are_refused);
	T(tc, test_tres_count_reads_one_name_and_skips_others);
	suite_add_tcase(s, tc);

	tc = tcase_create("demand");
	T(tc, test_mem_per_node_is_taken_as_given);
	T(tc, test_mem_per_cpu_is_taken_as_given);
	T(tc, test_mem_zero_is_all_of_each_node);
	T(tc, test_mem_defaults_partition_before_cluster);
	T(tc, test_mem_without_any_default_is_all_of_each_node);
	T(tc, test_mem_untracked_asks_none);
	T(tc, test_mem_too_large_is_refused);
	T(tc, test_gpus_per_node_and_in_all);
	T(tc, test_gpus_both_forms_are_refused);
	T(tc, test_gpus_per_socket_or_task_are_refused);
	T(tc, test_bad_tres_names_the_option);
	T(tc, test_mem_per_gpu_times_gpus_per_node);
	T(tc, test_mem_per_gpu_without_gpus_per_node_is_refused);
	T(tc, test_tmp_is_taken_as_given);
	T(tc, test_nothing_asked_is_a_zero_demand);
	suite_add_tcase(s, tc);

	tc = tcase_create("features");
	T(tc, test_features_one_name_matches_whole_names_only);
	T(tc, test_features_and_needs_every_name);
	T(tc, test_features_or_needs_one_name);
	T(tc, test_features_read_left_to_right_as_slurm);
	T(tc, test_features_unread_forms_are_not_valid);
	suite_add_tcase(s, tc);

	tc = tcase_create("licenses");
	T(tc, test_license_parse_counts_and_sums_names);
	T(tc, test_license_parse_refuses_what_slurm_or_admission_cannot_read);
	T(tc, test_license_free_counts_holds_beyond_t);
	T(tc, test_license_free_when_is_the_end_of_the_hold_that_frees_enough);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
