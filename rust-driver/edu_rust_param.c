// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters of edu_rust.ko, in C: the Rust `module!` macro of
 * Linux 6.1 cannot declare parameters.  Same names, types and defaults as the
 * C poller's.
 */
#include <linux/moduleparam.h>

unsigned int edu_rust_packets = 1000;
module_param_named(packets, edu_rust_packets, uint, 0444);
MODULE_PARM_DESC(packets, "packets streamed through the ring in s5-stream");

bool edu_rust_exhaust;
module_param_named(exhaust, edu_rust_exhaust, bool, 0444);
MODULE_PARM_DESC(exhaust, "map until swiotlb is full instead of the scenarios");

bool edu_rust_revoke;
module_param_named(revoke, edu_rust_revoke, bool, 0444);
MODULE_PARM_DESC(revoke, "keep device-tied resources past unbind instead of the scenarios (revocation test)");

bool edu_rust_wedge;
module_param_named(wedge, edu_rust_wedge, bool, 0444);
MODULE_PARM_DESC(wedge, "treat the first transfer as timed out while it runs (wedge test)");

bool edu_rust_stale;
module_param_named(stale, edu_rust_stale, bool, 0444);
MODULE_PARM_DESC(stale, "at the first unbind, leave a transfer into a canary buffer pending (rebind test)");

bool edu_rust_unsafe_master;
module_param_named(unsafe_master, edu_rust_unsafe_master, bool, 0444);
MODULE_PARM_DESC(unsafe_master, "planted bug: turn bus mastering on at probe without waiting for edu to stop");

unsigned int edu_rust_revoke_map;
module_param_named(revoke_map, edu_rust_revoke_map, uint, 0444);
MODULE_PARM_DESC(revoke_map, "1: map after probe and leave mappings to the unbind (revocation test); 2: the same with the planted bug (bus mastering on again at once)");
