#!/bin/bash
# tests/vm/two-nodes.sh on trixie's node and trixie's cloud kernel
# (6.12): the same two guests, io set, accounting and NFS between them.
TN_RELEASE=trixie
TN_KERNEL=trixie
. "${srcdir:-.}/tests/vm/two-nodes.sh"
