#!/bin/sh
# Generates configure and Makefile.in from a git checkout.
set -e
cd "$(dirname "$0")"
autoreconf --force --install --verbose
