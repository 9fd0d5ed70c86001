/*
 * driver_stub.c — sub-commands whose implementation has not landed yet.
 * Each refuses with a clear message and exit status 1 (never a silent success).
 * A module that implements an entry deletes it from here.
 *
 * Every entry of FLYC_SUBCOMMANDS and drv_compile_main is implemented now.
 */
#include "driver.h"
