# X_AC_SQUEUE
# -----------
# The absolute path of squeue compiled into the admin command, which asks
# slurmctld which held jobs still run on the node (--with-squeue=PATH
# overrides; nothing searches PATH at run time).
AC_DEFUN([X_AC_SQUEUE], [
  AC_ARG_WITH([squeue],
    [AS_HELP_STRING([--with-squeue=PATH], [squeue the admin command runs (default: found, else /usr/bin/squeue)])],
    [SQUEUE=$withval], [
      AC_PATH_PROG([SQUEUE], [squeue], [/usr/bin/squeue], [/usr/bin:/bin:/usr/sbin:/sbin])
    ])
  AS_CASE([$SQUEUE], [/*], [], [AC_MSG_ERROR([--with-squeue needs an absolute path, not "$SQUEUE"])])
  AC_SUBST([SQUEUE])
])
