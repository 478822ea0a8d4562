# X_AC_CHECK_CFLAG(FLAG, VAR)
# ---------------------------
# Appends FLAG to VAR when the compiler takes it without a warning.
AC_DEFUN([X_AC_CHECK_CFLAG], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  x_ac_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([#include <stdio.h>], [])],
    [AC_MSG_RESULT([yes]); $2="$$2 $1"], [AC_MSG_RESULT([no])])
  CFLAGS=$x_ac_save_CFLAGS
])

# X_AC_CHECK_LDFLAG(FLAG, VAR)
AC_DEFUN([X_AC_CHECK_LDFLAG], [
  AC_MSG_CHECKING([whether the linker accepts $1])
  x_ac_save_LDFLAGS=$LDFLAGS
  LDFLAGS="$LDFLAGS $1"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); $2="$$2 $1"], [AC_MSG_RESULT([no])])
  LDFLAGS=$x_ac_save_LDFLAGS
])

# X_AC_HARDENING
# --------------
# Warnings, stack protector, _FORTIFY_SOURCE (unless the build already
# sets it, as distribution build flags do) and full RELRO.
AC_DEFUN([X_AC_HARDENING], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])])
  WARN_CFLAGS=
  X_AC_CHECK_CFLAG([-Wall], [WARN_CFLAGS])
  X_AC_CHECK_CFLAG([-Wextra], [WARN_CFLAGS])
  X_AC_CHECK_CFLAG([-Wformat=2], [WARN_CFLAGS])
  X_AC_CHECK_CFLAG([-Wshadow], [WARN_CFLAGS])
  X_AC_CHECK_CFLAG([-Wmissing-prototypes], [WARN_CFLAGS])
  AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
  AC_SUBST([WARN_CFLAGS])

  HARDEN_CFLAGS=
  HARDEN_LDFLAGS=
  X_AC_CHECK_CFLAG([-fstack-protector-strong], [HARDEN_CFLAGS])
  AS_CASE(["$CPPFLAGS $CFLAGS"], [*_FORTIFY_SOURCE*], [],
    [X_AC_CHECK_CFLAG([-D_FORTIFY_SOURCE=2], [HARDEN_CFLAGS])])
  X_AC_CHECK_LDFLAG([-Wl,-z,relro], [HARDEN_LDFLAGS])
  X_AC_CHECK_LDFLAG([-Wl,-z,now], [HARDEN_LDFLAGS])
  AC_SUBST([HARDEN_CFLAGS])
  AC_SUBST([HARDEN_LDFLAGS])
])
