/*
 * driver_stub.c — entry points whose implementation has not landed yet.
 * Each refuses with a clear message and exit status 1 (never a silent success).
 * A module that implements an entry deletes it from here.
 *
 * Every entry of FLYC_SUBCOMMANDS, drv_compile_main and cg_run (codegen.c)
 * is implemented now.
 */
#include "driver.h"
