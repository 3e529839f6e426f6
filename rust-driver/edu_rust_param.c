// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameter of edu_rust.ko, in C: the Rust `module!` macro of
 * Linux 6.1 cannot declare parameters.  Same name, type and default as the
 * C poller's, so both drivers stream the same number of packets.
 */
#include <linux/moduleparam.h>

unsigned int edu_rust_packets = 1000;
module_param_named(packets, edu_rust_packets, uint, 0444);
MODULE_PARM_DESC(packets, "packets streamed through the ring in s5-stream");
