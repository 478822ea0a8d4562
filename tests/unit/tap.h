/* Minimal TAP producer for the unit tests (automake's tap-driver.sh reads
 * it). Each check is one test point; plan comes at the end. */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), unused));
static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

static void tap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), unused));
static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int tap_done(void) __attribute__((unused));
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* A check this machine cannot make: skipped by hand, a failure in CI
 * (CI=true), where every prerequisite must be there. */
static void tap_skip(const char *why) __attribute__((unused));
static void tap_skip(const char *why)
{
	if (getenv("CI")) {
		tap_ok(0, "missing prerequisite in CI: %s", why);
		return;
	}
	printf("ok %d # SKIP %s\n", ++tap_n, why);
	fflush(stdout);
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

#endif
