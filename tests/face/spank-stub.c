/* The SPANK API stand-in. See spank-stub.h. */
#include <stdarg.h>
#include <stdio.h>

#include <slurm/spank.h>

#include "spank-stub.h"

uint32_t spank_stub_job = 1;
int spank_stub_context = S_CTX_JOB_SCRIPT;
int spank_stub_verbose;

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	(void)opt;
	return ESPANK_SUCCESS;
}

spank_context_t spank_context(void)
{
	return (spank_context_t)spank_stub_context;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;

	(void)sp;
	if (item != S_JOB_ID)
		return ESPANK_BAD_ARG;
	va_start(ap, item);
	*va_arg(ap, uint32_t *) = spank_stub_job;
	va_end(ap);
	return ESPANK_SUCCESS;
}

const char *spank_strerror(spank_err_t err)
{
	(void)err;
	return "error";
}

/* Slurm's logger: "LEVEL: MESSAGE" on stderr, as the tests read it. */
__attribute__((format(printf, 2, 0)))
static void stub_log(const char *level, const char *fmt, va_list ap)
{
	if (!spank_stub_verbose)
		return;
	fprintf(stderr, "%s: ", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define STUB_LOGGER(name, level)                \
	void name(const char *fmt, ...)         \
	{                                       \
		va_list ap;                     \
		va_start(ap, fmt);              \
		stub_log(level, fmt, ap);       \
		va_end(ap);                     \
	}
STUB_LOGGER(slurm_info, "info")
STUB_LOGGER(slurm_error, "error")
STUB_LOGGER(slurm_verbose, "verbose")
STUB_LOGGER(slurm_debug, "debug")
