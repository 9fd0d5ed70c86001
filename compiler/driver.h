/*
 * driver.h — entry points of flyc's sub-commands.
 *
 * main.c only parses the first argument and dispatches: `flyc eval ...`,
 * `flyc show ...`, or (anything else) the compiler proper. Each entry takes the
 * arguments after the sub-command name and returns the process exit status;
 * none of them calls exit().
 */
#ifndef FLYC_DRIVER_H
#define FLYC_DRIVER_H

/* Sub-commands: name, entry, one-line help. Add a row to add a sub-command. */
#define FLYC_SUBCOMMANDS(X) \
	X(eval, drv_eval_main, "evaluate layout-algebra expressions and print the results") \
	X(show, drv_show_main, "draw a layout or thread-value layout (text, --svg, --banks)")

#define X(name, fn, help) int fn(int argc, char **argv);
FLYC_SUBCOMMANDS(X)
#undef X

/* The compiler proper: flyc [options] file.fly. */
int drv_compile_main(int argc, char **argv);

/* Version banner printed by --version (three lines). */
void drv_print_version(void);

#endif
