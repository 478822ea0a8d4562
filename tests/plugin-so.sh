#!/bin/sh
# The built spank_ebpf.so: exports only what Slurm looks up, no static
# option table, does not link libslurm, full RELRO, and loads with every
# other undefined symbol resolvable from a Slurm process.
. "${srcdir:-.}/tests/lib/tap.sh"

so=${SPANK_EBPF_SO:-src/spank/.libs/spank_ebpf.so}
need_cmd nm readelf

ok_if "plugin built" test -f "$so"
exports=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
want="plugin_name plugin_type plugin_version slurm_spank_init slurm_spank_job_epilog slurm_spank_job_prolog spank_plugin_version "
ok_if "exports exactly: $exports" test "$exports" = "$want"
ok_if "no spank_options table" sh -c "! nm -D '$so' | grep -qw spank_options"
ok_if "does not link libslurm" sh -c "! readelf -d '$so' | grep NEEDED | grep -qi slurm"
ok_if "full RELRO: GNU_RELRO segment" sh -c "readelf -lW '$so' | grep -q GNU_RELRO"
ok_if "full RELRO: BIND_NOW" sh -c "readelf -dW '$so' | grep -Eq 'BIND_NOW|FLAGS.*NOW'"
ok_if "stack protector in use" sh -c "nm -D '$so' | grep -q __stack_chk_fail"
ok_if "fortified libc calls in use" sh -c "nm -D '$so' | grep -q '_chk@'"
undef=$(nm -D --undefined-only "$so" | awk '{print $2}' | sed 's/@.*//' | grep -v '^_' | grep -E 'slurm|spank' | sort | tr '\n' ' ')
ok_if "needs from Slurm only the SPANK API and logger: $undef" \
	test "$undef" = "slurm_debug slurm_error slurm_info slurm_verbose spank_context spank_get_item spank_option_register spank_strerror "
done_testing
