#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Baseline: the guest runs the hcbs kernel (LOCALVERSION -hcbs), not the
# host's, and it was built from Debian's linux-source-6.12.
echo "TAP version 13"
echo "1..2"
rel=$(uname -r)
echo "# uname -r: $rel; $(uname -v)"
rc=0
case $rel in
*-hcbs) echo "ok 1 release ends in -hcbs" ;;
*-hcbs+) echo "ok 1 release ends in -hcbs # built from a tree with local changes (make without LOCALVERSION=)" ;;
*) echo "not ok 1 release ends in -hcbs (got $rel)"; rc=1 ;;
esac
case $rel in
6.12.*) echo "ok 2 Linux 6.12" ;;
*) echo "not ok 2 Linux 6.12 (got $rel)"; rc=1 ;;
esac
exit $rc
