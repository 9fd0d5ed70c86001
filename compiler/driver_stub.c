/*
 * driver_stub.c — sub-commands whose implementation has not landed yet.
 * Each refuses with a clear message and exit status 1 (never a silent success).
 * A module that implements an entry deletes it from here.
 */
#include <stdio.h>

#include "driver.h"

static int
refuse(const char *what)
{
	fprintf(stderr, "flyc: error: %s is not available in this build yet\n", what);
	return 1;
}

int drv_compile_main(int argc, char **argv) { (void)argc; (void)argv; return refuse("compiling .fly files"); }
