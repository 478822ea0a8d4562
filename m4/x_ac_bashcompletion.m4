# X_AC_BASH_COMPLETION
# --------------------
# Where spank-ebpf's bash completion goes.
#   --with-bash-completion-dir=DIR  (default: pkg-config's completionsdir
#       of bash-completion when it is under the prefix, else
#       ${datadir}/bash-completion/completions; no: not installed)
# A directory outside the prefix is not taken from pkg-config: an install
# under a scratch prefix (make distcheck, a user's ~/.local) must stay
# there, and bash-completion looks in $XDG_DATA_DIRS (/usr/local/share
# by default) too.
AC_DEFUN([X_AC_BASH_COMPLETION], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_ARG_WITH([bash-completion-dir],
    [AS_HELP_STRING([--with-bash-completion-dir=DIR], [bash completion directory (default: from pkg-config bash-completion when under the prefix, else ${datadir}/bash-completion/completions; no: none)])],
    [], [with_bash_completion_dir=yes])
  AC_MSG_CHECKING([for the bash completion directory])
  x_ac_bcdir=
  AS_CASE([$with_bash_completion_dir],
    [no], [bashcompletiondir=],
    [yes|""], [
      bashcompletiondir='${datadir}/bash-completion/completions'
      AS_IF([test -n "$PKG_CONFIG"],
        [x_ac_bcdir=`$PKG_CONFIG --variable=completionsdir bash-completion 2>/dev/null`])
      x_ac_prefix=$prefix
      test "x$x_ac_prefix" = xNONE && x_ac_prefix=$ac_default_prefix
      AS_CASE([$x_ac_bcdir], ["$x_ac_prefix"/*], [bashcompletiondir=$x_ac_bcdir])],
    [/*], [bashcompletiondir=$with_bash_completion_dir],
    [AC_MSG_ERROR([--with-bash-completion-dir needs an absolute path, not "$with_bash_completion_dir"])])
  AC_MSG_RESULT([${bashcompletiondir:-none}])
  AC_SUBST([bashcompletiondir])
  AM_CONDITIONAL([BASH_COMPLETION], [test -n "$bashcompletiondir"])
])
