#!/bin/bash
# probes/tests/verify.sh on trixie's cloud kernel (6.12) under qemu, in
# trixie's node (make check-vm: about ten minutes). See tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
vm_suite trixie trixie probes
