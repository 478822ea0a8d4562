/* SPDX-License-Identifier: GPL-2.0-or-later */
/* promapi.c's checks and parser (report --cluster): the URL as curl and
 * the resolver read it, and /api/v1/query answers, good and hostile;
 * slurmjobs.c's reader of a job's line (sacct, squeue). */
#include <math.h>
#include <string.h>

#include "promapi.h"
#include "promtext.h"
#include "slurmjobs.h"
#include "tap.h"

static int url_ok(const char *url)
{
	char why[300];

	return httpurl_check(url, why, sizeof(why)) == 0;
}

static void test_urls_taken(void)
{
	tap_ok(url_ok("http://prometheus:9090"), "a name and a port");
	tap_ok(url_ok("https://prom.example.org/prometheus/"), "https, a path");
	tap_ok(url_ok("http://10.1.2.3:9090/"), "a dotted quad");
	tap_ok(url_ok("http://[fd00::5]:9090"), "IPv6 in brackets");
	tap_ok(url_ok("http://cafe-01"), "a name of hex letters and a '-'");
}

static void test_urls_refused(void)
{
	tap_ok(!url_ok("http://0x7f.1:9090"), "hex, as inet_aton reads it");
	tap_ok(!url_ok("http://010.0.0.1"), "octal");
	tap_ok(!url_ok("http://2130706433"), "one number");
	tap_ok(!url_ok("http://127.1"), "a short form");
	tap_ok(!url_ok("http://u:p@prom"), "a user and password");
	tap_ok(!url_ok("prom:9090"), "no scheme");
	tap_ok(!url_ok("file:///etc/shadow"), "another scheme");
	tap_ok(!url_ok("http://prom/?a=1") && !url_ok("http://prom/#x"), "a query, a fragment");
	tap_ok(!url_ok("http://prom:0") && !url_ok("http://prom:65536") && !url_ok("http://prom:9x"),
	       "ports out of range or not decimal");
	tap_ok(!url_ok("http://") && !url_ok("http://:9090"), "no host");
	tap_ok(!url_ok("http://pr\x1bom") && !url_ok("http://pr_om"), "a character no host has");
	tap_ok(!url_ok("http://[::1"), "IPv6 without its ']'");
}

static const char vec[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
	"{\"metric\":{\"instance\":\"n1:941\",\"le\":\"+Inf\",\"x\":\"a\\\"b\\\\c\\nd\"},\"value\":[1.5,\"42\"]},"
	"{\"metric\":{},\"value\":[1.5,\"NaN\"]},"
	"{\"metric\":{\"instance\":\"n2\"},\"value\":[1.5,\"+Inf\"]}]}}";

static void test_parse_vector(void)
{
	struct promapi_vector v;
	char err[300], buf[64];
	int rc = promapi_parse(vec, strlen(vec), &v, err, sizeof(err));

	tap_ok(rc == 0 && v.n == 3, "a vector of 3 (%s)", rc ? err : "");
	if (rc)
		return;
	tap_ok(prom_label(v.s[0].labels, "instance", buf, sizeof(buf)) && !strcmp(buf, "n1:941") &&
		       v.s[0].value == 42, "labels read as the text format's, the value from its string");
	tap_ok(prom_label(v.s[0].labels, "x", buf, sizeof(buf)) && !strcmp(buf, "a\"b\\c\nd"),
	       "a label's quotes, backslashes and newlines survive the round trip");
	tap_ok(v.s[1].labels[0] == 0 && isnan(v.s[1].value), "no labels; NaN");
	tap_ok(isinf(v.s[2].value) && v.s[2].value > 0, "+Inf");
	promapi_vector_free(&v);
}

static int parse_fails(const char *body, const char *want)
{
	struct promapi_vector v;
	char err[300];
	int rc = promapi_parse(body, strlen(body), &v, err, sizeof(err));

	if (rc == 0) {
		promapi_vector_free(&v);
		return 0;
	}
	if (!strstr(err, want))
		tap_diag("error: %s", err);
	return v.n == 0 && v.s == NULL && strstr(err, want) != NULL;
}

static void test_parse_refused(void)
{
	tap_ok(parse_fails("{\"status\":\"error\",\"error\":\"bad \\u001b[2J\"}", "Prometheus: bad \\x1b[2J"),
	       "an error answer: its words, made printable");
	tap_ok(parse_fails("[1]", "not a JSON object"), "not an object");
	tap_ok(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}",
			   "not an instant vector"), "a matrix");
	tap_ok(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{}}]}}",
			   "[time, value]"), "a result without its value");
	tap_ok(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"a\":1},\"value\":[1,\"1\"]}]}}",
			   "labels are not strings"), "a label that is no string");
	tap_ok(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"a\\\",instance=\\\"n9\":\"v\"},\"value\":[1,\"1\"]}]}}",
			   "names as Prometheus has them"), "a label name that would pass for more labels");
	tap_ok(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,\"1x\"]}]}}",
			   "not a number"), "a value that is no number");
	tap_ok(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,2]}]}}",
			   "not a number"), "a value not in a string");
	tap_ok(parse_fails("{\"status\":", "JSON:"), "cut short");
}

static void test_parse_long_label(void)
{
	static char body[4096];
	char big[PROMAPI_LABELS_MAX + 10];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	snprintf(body, sizeof(body),
		 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"l\":\"%s\"},\"value\":[1,\"1\"]}]}}",
		 big);
	tap_ok(parse_fails(body, "longer than"), "labels longer than %d bytes: refused, not cut", PROMAPI_LABELS_MAX - 1);
}

static void test_range_lines(void)
{
	struct job_range r;
	char why[300];

	tap_ok(slurmjobs_parse_range("5|4001|alice|1000|1300|COMPLETED|n[1-2]\n5.batch|4001|alice|1000|1300|COMPLETED|n1\n",
				     5, &r, why, sizeof(why)) == 1 &&
		       r.start == 1000 && r.end == 1300 && r.uid == 4001 && !strcmp(r.user, "alice") &&
		       !strcmp(r.state, "COMPLETED") && !strcmp(r.nodes, "n[1-2]"),
	       "sacct's allocation line");
	tap_ok(slurmjobs_parse_range("7|0|root|1000|Unknown|CANCELLED by 0|n1\n", 7, &r, why, sizeof(why)) == 1 &&
		       r.end == 0 && !strcmp(r.state, "CANCELLED"), "no end yet; a state with words after it");
	tap_ok(slurmjobs_parse_range("5_1|4001|alice|1000|1300|COMPLETED|n1\n15|1|b|1|2|RUNNING|n1\n", 5, &r, why,
				     sizeof(why)) == 0, "other jobs' lines (an array task, a longer ID) are not job 5's");
	tap_ok(slurmjobs_parse_range("5|4001|alice|2026-12-06T10:00:00|1300|COMPLETED|n1\n", 5, &r, why, sizeof(why)) == -1,
	       "a time that is not Unix seconds: refused (%s)", why);
	tap_ok(slurmjobs_parse_range("5|x|alice|1|2|COMPLETED|n1\n", 5, &r, why, sizeof(why)) == -1, "a uid that is no number");
	tap_ok(slurmjobs_parse_range("5|4001|alice|1000\n", 5, &r, why, sizeof(why)) == 0, "a short line is no job's");
	tap_ok(slurmjobs_parse_range("", 5, &r, why, sizeof(why)) == 0, "nothing listed");
}

int main(void)
{
	test_urls_taken();
	test_urls_refused();
	test_parse_vector();
	test_parse_refused();
	test_parse_long_label();
	test_range_lines();
	return tap_done();
}
