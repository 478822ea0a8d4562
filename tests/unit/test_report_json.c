/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report_json_figures (src/spank-ebpf/report_figures.c) through the one
 * JSON writer: figures that are not finite (a NaN or an infinity from a
 * sum gone wrong upstream) are written null, never as a number JSON does
 * not have, and the members keep their order. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonout.h"
#include "report.h"
#include "tap.h"

static const char *figures_json(const struct figures *f)
{
	static char out[4096];
	struct json_object *o = json_object_new_object();
	FILE *m = fmemopen(out, sizeof(out), "w");

	if (!m)
		return "(no stream)";
	report_json_figures(o, f);
	jsonout_print(m, o);
	fclose(m);
	return out;
}

static void test_not_finite(void)
{
	struct figures f;
	const char *out;

	memset(&f, 0, sizeof(f));
	f.io = f.cpu = f.sched = f.net = f.oom = true;
	f.io_bytes[0] = INFINITY;
	f.wait_us = NAN;
	f.waits = -INFINITY;
	f.pressure_us = 5e6;
	f.elapsed = 10;
	f.runq_sum[0] = NAN;
	f.retransmits = NAN;
	f.connects = 1;
	f.oom_kills = INFINITY;
	out = figures_json(&f);
	tap_ok(!strstr(out, "nan") && !strstr(out, "inf") && !strstr(out, "NaN") && !strstr(out, "Infinity"),
	       "no nan, inf, NaN or Infinity written (got %.300s)", out);
	tap_ok(!strncmp(out, "{\"io\":{\"read\":{\"bytes\":null,\"latency\":{\"count\":0,\"p50_seconds\":null,\"p99_seconds\":null}}", 87),
	       "io: infinite bytes null (got %.120s)", out);
	tap_ok(strstr(out, "\"cpu\":{\"wait_seconds\":null,\"waits\":null,\"pressure_seconds\":5.000000,\"elapsed_seconds\":10,\"waiting_share\":0.5000}") != NULL,
	       "cpu: NaN and -inf null, the finite ones in their format");
	tap_ok(strstr(out, "\"behind_seconds\":{\"") != NULL && strstr(out, "\":null,") != NULL,
	       "sched: a NaN class null");
	tap_ok(strstr(out, "\"net\":{\"retransmits\":null,\"connections\":{\"connect\":1,\"accept\":0}},\"oom\":{\"kills\":null},\"fs\":null,\"partial\":null}\n") != NULL,
	       "net and oom: null, one line ending the object");
}

static void test_none(void)
{
	struct figures f;

	memset(&f, 0, sizeof(f));
	tap_ok(!strcmp(figures_json(&f), "{\"io\":null,\"cpu\":null,\"sched\":null,\"net\":null,\"oom\":null,\"fs\":null,\"partial\":null}\n"),
	       "no series: each member null, in order");
}

int main(void)
{
	test_not_finite();
	test_none();
	return tap_done();
}
