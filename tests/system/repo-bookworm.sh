#!/bin/bash
# A bookworm node (Slurm 22.05) installed from the signed apt repository;
# see tests/system/repo.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/system/repo.sh"
repo_suite bookworm
