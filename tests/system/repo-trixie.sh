#!/bin/bash
# A trixie node (Slurm 24.11) installed from the signed apt repository;
# see tests/system/repo.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/system/repo.sh"
repo_suite trixie
