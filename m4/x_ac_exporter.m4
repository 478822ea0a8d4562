# X_AC_EXPORTER
# -------------
# Where ebpf_exporter is on the nodes (no distribution packages it: a
# site builds or installs it), for the units and the probe sets' default.
#   --with-ebpf-exporter=PATH  (default /usr/local/bin/ebpf_exporter)
AC_DEFUN([X_AC_EXPORTER], [
  AC_ARG_WITH([ebpf-exporter],
    [AS_HELP_STRING([--with-ebpf-exporter=PATH], [ebpf_exporter on the compute nodes (default: /usr/local/bin/ebpf_exporter)])],
    [EXPORTER_PATH=$withval], [EXPORTER_PATH=/usr/local/bin/ebpf_exporter])
  AS_CASE([$EXPORTER_PATH], [/*], [], [AC_MSG_ERROR([--with-ebpf-exporter needs an absolute path, not "$EXPORTER_PATH"])])
  AC_SUBST([EXPORTER_PATH])
])
