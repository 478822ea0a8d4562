# X_AC_SYSTEMD
# ------------
# Where the reconcile timer's units go and where its metrics land.
#   --with-systemdsystemunitdir=DIR  systemd system unit directory (default:
#       pkg-config's systemdsystemunitdir of systemd, else
#       ${prefix}/lib/systemd/system)
#   --with-textfile-dir=DIR  node_exporter's textfile collector directory,
#       written by spank-ebpf-metrics.service (default
#       /var/lib/prometheus/node-exporter, Debian's prometheus-node-exporter;
#       the RPM spec passes /var/lib/node_exporter/textfile_collector)
AC_DEFUN([X_AC_SYSTEMD], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_ARG_WITH([systemdsystemunitdir],
    [AS_HELP_STRING([--with-systemdsystemunitdir=DIR], [systemd system unit directory (default: from pkg-config systemd, else ${prefix}/lib/systemd/system)])],
    [], [with_systemdsystemunitdir=])
  AC_MSG_CHECKING([for the systemd system unit directory])
  AS_IF([test -n "$with_systemdsystemunitdir" && test "x$with_systemdsystemunitdir" != xyes && test "x$with_systemdsystemunitdir" != xno],
          [systemdsystemunitdir=$with_systemdsystemunitdir],
        [test -n "$PKG_CONFIG" && x_ac_unitdir=`$PKG_CONFIG --variable=systemdsystemunitdir systemd 2>/dev/null` && test -n "$x_ac_unitdir"],
          [systemdsystemunitdir=$x_ac_unitdir],
        [systemdsystemunitdir='${prefix}/lib/systemd/system'])
  AC_MSG_RESULT([$systemdsystemunitdir])
  AC_SUBST([systemdsystemunitdir])

  AC_ARG_WITH([textfile-dir],
    [AS_HELP_STRING([--with-textfile-dir=DIR], [node_exporter textfile collector directory the metrics unit writes to (default: /var/lib/prometheus/node-exporter)])],
    [TEXTFILE_DIR=$withval], [TEXTFILE_DIR=/var/lib/prometheus/node-exporter])
  AS_CASE([$TEXTFILE_DIR], [/*], [], [AC_MSG_ERROR([--with-textfile-dir needs an absolute path, not "$TEXTFILE_DIR"])])
  AC_SUBST([TEXTFILE_DIR])
])
