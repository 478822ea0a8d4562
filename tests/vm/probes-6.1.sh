#!/bin/bash
# probes/tests/verify.sh on Debian 12's cloud kernel (6.1) under qemu, in
# Debian 12's node (make check-vm: about ten minutes). See
# tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
vm_suite bookworm bookworm probes
