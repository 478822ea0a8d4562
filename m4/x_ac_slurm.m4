# X_AC_SLURM
# ----------
# Finds Slurm's headers (--with-slurm=PREFIX), reads SLURM_VERSION_NUMBER
# into SLURM_VERSION (22.05.8) and SLURM_MAJMIN (22.05), and picks the
# plugin directory (--with-slurm-plugindir=DIR, else detected).
AC_DEFUN([X_AC_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix (default: system paths)])],
    [], [with_slurm=])
  AS_IF([test "x$with_slurm" = xyes || test "x$with_slurm" = xno], [with_slurm=])
  SLURM_CPPFLAGS=
  AS_IF([test -n "$with_slurm"], [SLURM_CPPFLAGS="-I$with_slurm/include"])
  AC_SUBST([SLURM_CPPFLAGS])

  # An explicit prefix must hold the headers itself: no silent fallback to
  # whatever Slurm the system include path has.
  AS_IF([test -n "$with_slurm" && test ! -f "$with_slurm/include/slurm/spank.h"],
    [AC_MSG_ERROR([slurm/spank.h not found in $with_slurm/include: install Slurm's development headers (slurm-devel on RPM systems, libslurm-dev on Debian/Ubuntu) or correct --with-slurm=PREFIX])])
  x_ac_slurm_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$SLURM_CPPFLAGS $CPPFLAGS"
  AC_CHECK_HEADER([slurm/spank.h], [],
    [AC_MSG_ERROR([slurm/spank.h not found in ${with_slurm:-the system include path}: install Slurm's development headers (slurm-devel on RPM systems, libslurm-dev on Debian/Ubuntu) or pass --with-slurm=PREFIX])])
  AC_CHECK_HEADER([slurm/slurm_version.h], [],
    [AC_MSG_ERROR([slurm/slurm_version.h not found next to slurm/spank.h])])
  AC_CACHE_CHECK([for Slurm's version], [x_ac_cv_slurm_version_number], [
    AC_COMPUTE_INT([x_ac_cv_slurm_version_number], [SLURM_VERSION_NUMBER],
      [#include <slurm/slurm_version.h>],
      [AC_MSG_ERROR([cannot read SLURM_VERSION_NUMBER from slurm/slurm_version.h])])
  ])
  CPPFLAGS=$x_ac_slurm_save_CPPFLAGS
  x_ac_v=$x_ac_cv_slurm_version_number
  SLURM_MAJMIN=`printf '%d.%02d' $(( (x_ac_v >> 16) & 255 )) $(( (x_ac_v >> 8) & 255 ))`
  SLURM_VERSION=`printf '%s.%d' "$SLURM_MAJMIN" $(( x_ac_v & 255 ))`
  AS_IF([test "$x_ac_v" -lt 1443072],
    [AC_MSG_ERROR([Slurm $SLURM_VERSION is too old: 22.05 or later is required])])
  AC_MSG_NOTICE([building for Slurm $SLURM_VERSION (plugins are tied to $SLURM_MAJMIN)])
  AC_SUBST([SLURM_VERSION])
  AC_SUBST([SLURM_MAJMIN])

  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR], [where Slurm loads plugins from (default: detected)])],
    [], [with_slurm_plugindir=])
  AC_MSG_CHECKING([for Slurm's plugin directory])
  x_ac_prefix=${with_slurm:-/usr}
  x_ac_triplet=`$CC -print-multiarch 2>/dev/null`
  AS_IF([test -n "$with_slurm_plugindir" && test "x$with_slurm_plugindir" != xyes],
          [SLURM_PLUGINDIR=$with_slurm_plugindir],
        [test -n "$PKG_CONFIG" && $PKG_CONFIG --exists slurm 2>/dev/null],
          [SLURM_PLUGINDIR="`$PKG_CONFIG --variable=libdir slurm`/slurm"],
        [test -n "$x_ac_triplet" && test -d "$x_ac_prefix/lib/$x_ac_triplet/slurm-wlm"],
          [SLURM_PLUGINDIR="$x_ac_prefix/lib/$x_ac_triplet/slurm-wlm"],
        [test -n "$x_ac_triplet" && test -d "$x_ac_prefix/lib/$x_ac_triplet/slurm"],
          [SLURM_PLUGINDIR="$x_ac_prefix/lib/$x_ac_triplet/slurm"],
        [SLURM_PLUGINDIR='${libdir}/slurm'])
  AC_MSG_RESULT([$SLURM_PLUGINDIR])
  AC_SUBST([SLURM_PLUGINDIR])
])
