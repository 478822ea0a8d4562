/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The oldest kernel each of the project's ebpf_exporter configs (probes/)
 * runs on, and the check that refuses a set on an older one with a line
 * saying why, before the exporter starts. Without it, a config on too old
 * a kernel either fails to load with libbpf's words ("map 'sched_seen':
 * failed to create: Invalid argument") or, worse, loads and records
 * nothing: spank-io on 5.10 counted none of a job's 4000 writes (seen
 * under qemu, tests/vm). Other configs (a site's own) are not judged. */
#ifndef SPANK_EBPF_PROBEKERNEL_H
#define SPANK_EBPF_PROBEKERNEL_H

#include <stddef.h>

/* The release's first two numbers ("5.10.0-32-cloud-amd64" -> 5, 10);
 * -1 when it does not start that way. */
int probekernel_parse(const char *release, int *major, int *minor);

/* Whether every config of configs (comma-separated names) runs on the
 * kernel release: 0, or -1 with why (one line, naming the config, the
 * kernel it needs and what for) in err. An unparsable release is not
 * refused: nothing is known then. */
int probekernel_check(const char *configs, const char *release, char *err, size_t errlen);

/* The first config of configs whose programs attach to a module's
 * functions (fentry/fexit), and that module in *module; NULL when none.
 * libbpf finds a module's BTF only with CAP_SYS_ADMIN
 * (BPF_BTF_GET_NEXT_ID): such a set keeps it until attached. */
const char *probekernel_module_btf(const char *configs, const char **module);

#endif
