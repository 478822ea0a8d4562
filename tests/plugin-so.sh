#!/bin/bash
# The built spank_ebpf.so: exports only what Slurm looks up, no static
# option table, needs libc alone (no libslurm, no json-c or libcurl),
# carries nothing of the admin library (src/libadmin: the command's
# Prometheus, HTTP, JSON and accounting clients), full RELRO, and loads
# with every other undefined symbol resolvable from a Slurm process.
# Prints its size and its NEEDED list.
. "${srcdir:-.}/tests/lib/tap.sh"

so=${SPANK_EBPF_SO:-src/spank/.libs/spank_ebpf.so}
need_cmd nm readelf

ok_if "plugin built" test -f "$so"
exports=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
want="plugin_name plugin_type plugin_version slurm_spank_init slurm_spank_job_epilog slurm_spank_job_prolog spank_plugin_version "
ok_if "exports exactly: $exports" test "$exports" = "$want"
ok_if "no spank_options table" sh -c "! nm -D '$so' | grep -qw spank_options"
ok_if "does not link libslurm" sh -c "! readelf -d '$so' | grep NEEDED | grep -qi slurm"
needed=$(readelf -dW "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
is "NEEDED: libc alone" "$needed" "libc.so.6 "
diag "spank_ebpf.so: $(size "$so" | awk 'NR == 2 { print $1 " bytes of code, " $2 " of data" }'); NEEDED: $needed"

# Every global symbol the admin library's own objects define (the core's
# are in the plugin on purpose): none may be in the plugin's symbol table.
# Read from the objects beside the plugin's build: no objects, no pass.
admin_objs=$(dirname "$so")/../../libadmin/.libs
admin=$(nm --defined-only -g "$admin_objs"/libadmin_la-*.o 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
nadmin=$(printf '%s\n' "$admin" | grep -c .)
ok_if "the admin library's symbols read ($nadmin, from $admin_objs)" test "$nadmin" -ge 20
inplugin=$(nm "$so" | awk 'NF == 3 { print $3 }' | sort -u | comm -12 - <(printf '%s\n' "$admin") | tr '\n' ' ')
is "no symbol of the admin library in the plugin" "$inplugin" ""
ok_if "full RELRO: GNU_RELRO segment" sh -c "readelf -lW '$so' | grep -q GNU_RELRO"
ok_if "full RELRO: BIND_NOW" sh -c "readelf -dW '$so' | grep -Eq 'BIND_NOW|FLAGS.*NOW'"
ok_if "stack protector in use" sh -c "nm -D '$so' | grep -q __stack_chk_fail"
ok_if "fortified libc calls in use" sh -c "nm -D '$so' | grep -q '_chk@'"
undef=$(nm -D --undefined-only "$so" | awk '{print $2}' | sed 's/@.*//' | grep -v '^_' | grep -E 'slurm|spank' | sort | tr '\n' ' ')
ok_if "needs from Slurm only the SPANK API and logger: $undef" \
	test "$undef" = "slurm_debug slurm_error slurm_info slurm_verbose spank_context spank_get_item spank_option_register spank_strerror "
done_testing
