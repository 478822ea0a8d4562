# X_AC_SYSTEMCTL
# --------------
# The absolute path of systemctl compiled in as the plugin's default
# (--with-systemctl=PATH overrides; the plugin never searches PATH).
AC_DEFUN([X_AC_SYSTEMCTL], [
  AC_ARG_WITH([systemctl],
    [AS_HELP_STRING([--with-systemctl=PATH], [systemctl the plugin runs (default: found, else /usr/bin/systemctl)])],
    [SYSTEMCTL=$withval], [
      AC_PATH_PROG([SYSTEMCTL], [systemctl], [/usr/bin/systemctl], [/usr/bin:/bin:/usr/sbin:/sbin])
    ])
  AS_CASE([$SYSTEMCTL], [/*], [], [AC_MSG_ERROR([--with-systemctl needs an absolute path, not "$SYSTEMCTL"])])
  AC_DEFINE_UNQUOTED([SYSTEMCTL_PATH], ["$SYSTEMCTL"], [default systemctl])
  AC_SUBST([SYSTEMCTL])
])
