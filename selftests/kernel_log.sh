# SPDX-License-Identifier: GPL-2.0
#
# What makes a kernel log dirty, in one place for the three checks that
# read it: each test's (lib.sh), each test's again from run_all.sh, and
# the whole boot's (tools/vm/run, on the host). Leaks that kmemleak finds
# (the debug kernel) are read from its report by lib.sh, not from the log.
KLB_DMESG_BAD='WARNING:|BUG:|Oops|general protection|klb: leaked|UBSAN|Objects remaining|Kernel panic|Call Trace|refcount_t:|list_add corruption|list_del corruption|slab error|Poison overwritten|Redzone'

# A test that makes the kernel warn on purpose (debug.sh: the leak check)
# does it inside lib.sh's expect_warning, which brackets the log with these
# two lines; every check skips what is between them.
KLB_KMSG_EXPECT_BEGIN='klb-selftest: expected warnings begin'
KLB_KMSG_EXPECT_END='klb-selftest: expected warnings end'

# klb_log_unexpected [FILE]: the kernel log (FILE or stdin) without the
# expected warnings
klb_log_unexpected() { sed "/$KLB_KMSG_EXPECT_BEGIN/,/$KLB_KMSG_EXPECT_END/d" "$@"; }
