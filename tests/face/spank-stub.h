/* The SPANK API as a job prolog/epilog sees it, without Slurm: what the
 * plugin resolves when it is dlopen()ed (the program must be linked with
 * -export-dynamic). Shared by tests/face/spank-face (every face tested
 * directly) and bench/hook_bench (the hooks timed). */
#ifndef SPANK_STUB_H
#define SPANK_STUB_H

#include <stdint.h>

/* The job ID spank_get_item(S_JOB_ID) answers. */
extern uint32_t spank_stub_job;

/* What spank_context() answers: S_CTX_JOB_SCRIPT unless the caller
 * runs slurm_spank_init as another context would. */
extern int spank_stub_context;

/* Whether slurm_info() and friends print ("info: MSG" on stderr). */
extern int spank_stub_verbose;

#endif
