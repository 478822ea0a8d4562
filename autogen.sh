#!/bin/sh
# Generates configure and Makefile.in from a git checkout.
set -e
cd "$(dirname "$0")"
# autom4te's cache judges freshness by whole seconds: a second run within
# the second the first wrote m4/libtool.m4 reuses traces without it, and
# automake then leaves the libtool macros out of make dist (lintian:
# superfluous-file-pattern m4/libtool.m4). Start from no cache.
rm -rf autom4te.cache
autoreconf --force --install --verbose
