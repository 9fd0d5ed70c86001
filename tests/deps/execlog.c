/*
 * execlog.c — an LD_PRELOAD library that logs every program a process tree executes, for
 * tests/deps (which checks that scripts/install-deps.sh installs the package of each one).
 *
 * scripts/check.sh builds it and runs the tiers of the normal build with
 *   LD_PRELOAD=.../execlog.so FLY_EXECLOG=FILE
 * Every exec family call, posix_spawn, posix_spawnp, system and popen appends one line to
 * FILE before doing the real call:
 *   exec<TAB>PATH<TAB>FOREIGN     the program about to run, as an absolute path when the file
 *                                 exists (PATH searched as execvp does), and the interpreter
 *                                 named by its "#!" line when it is a script (the kernel runs
 *                                 that one without any libc call we could see)
 * FOREIGN is "-" normally. When a process runs a program that is neither a system file
 * (/usr/..., /bin, /sbin, /lib..., but not /usr/local) nor under FLY_EXECLOG_TREE (the
 * repository and the temporary folders of the tests), its children get
 * FLY_EXECLOG_FOREIGN=that program, and their lines carry it: a developer's own python3
 * (pyenv, /usr/local) runs helpers of its own that a fresh machine would never run, and the
 * check then only counts the system programs they call.
 *
 * Everything here runs between fork and exec (Python's subprocess, posix_spawn's vfork
 * child) and so uses no malloc and no stdio: stack buffers, open/write/close and the real
 * function found with dlsym(RTLD_NEXT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXENV 2048
#define MAXARGS 4096

extern char **environ;

static size_t
cat(char *dst, size_t cap, size_t n, const char *s)
{
	while (*s && n + 1 < cap)
		dst[n++] = *s++;
	dst[n] = 0;
	return n;
}

static int
is_file_x(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* the program exec would run, as an absolute path in out: file searched in PATH (as execvp
 * does) when search is set and it has no '/', else relative to the current folder; 0 when no
 * executable file is there (an exec that will fail is not logged) */
static int
resolve(const char *file, int search, char *out, size_t cap)
{
	const char *path, *p;

	if (!file || !*file)
		return 0;
	if (!search || strchr(file, '/')) {
		if (file[0] != '/') {
			size_t n;
			if (!getcwd(out, cap))
				return 0;
			n = strlen(out);
			n = cat(out, cap, n, "/");
			cat(out, cap, n, file);
		} else {
			cat(out, cap, 0, file);
		}
		return is_file_x(out);
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p++) {
		const char *q = strchr(p, ':');
		size_t len = q ? (size_t)(q - p) : strlen(p), n;
		char dir[PATH_MAX];
		if (len >= sizeof dir)
			len = sizeof dir - 1;
		memcpy(dir, p, len);
		dir[len] = 0;
		n = cat(out, cap, 0, len ? dir : ".");
		n = cat(out, cap, n, "/");
		cat(out, cap, n, file);
		if (out[0] != '/' && resolve(out, 0, out, cap)) /* a relative PATH entry */
			return 1;
		if (out[0] == '/' && is_file_x(out))
			return 1;
		if (!q)
			return 0;
		p = q;
	}
}

static int
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return n > 0 && !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0 || dir[n - 1] == '/');
}

static int
is_system(const char *p)
{
	static const char *const sys[] = { "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/", "/libx32/" };

	if (!strncmp(p, "/usr/local/", 11))
		return 0;
	for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
		if (!strncmp(p, sys[i], strlen(sys[i])))
			return 1;
	return 0;
}

/* under one of the ':'-separated folders of FLY_EXECLOG_TREE */
static int
is_tree(const char *p)
{
	const char *t = getenv("FLY_EXECLOG_TREE"), *q;
	char dir[PATH_MAX];

	for (; t && *t; t = q ? q + 1 : NULL) {
		size_t len;
		q = strchr(t, ':');
		len = q ? (size_t)(q - t) : strlen(t);
		if (len == 0 || len >= sizeof dir)
			continue;
		memcpy(dir, t, len);
		dir[len] = 0;
		if (under(p, dir))
			return 1;
		if (!q)
			break;
	}
	return 0;
}

static void
log_line(const char *path, const char *foreign)
{
	const char *log = getenv("FLY_EXECLOG");
	char line[2 * PATH_MAX + 32];
	size_t n;
	int fd;

	if (!log || !*log)
		return;
	n = cat(line, sizeof line, 0, "exec\t");
	n = cat(line, sizeof line, n, path);
	n = cat(line, sizeof line, n, "\t");
	n = cat(line, sizeof line, n, foreign && *foreign ? foreign : "-");
	n = cat(line, sizeof line, n, "\n");
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ssize_t w = write(fd, line, n); /* one write: lines of parallel processes never mix */
		(void)w;
		close(fd);
	}
}

/* the interpreter of a "#!" script into out, 0 if path is not a script */
static int
interpreter(const char *path, char *out, size_t cap)
{
	char buf[PATH_MAX + 4];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t i = 2, j = 0;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = 0;
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	while (buf[i] && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && j + 1 < cap)
		out[j++] = buf[i++];
	out[j] = 0;
	return j > 0;
}

/*
 * Logs file (as execvp would find it) and its interpreter; returns 1 when the program is
 * foreign and its children's environment must say so (fills fbuf with the program).
 */
static int
record(const char *file, int search, char *fbuf, size_t fcap)
{
	char path[PATH_MAX], interp[PATH_MAX];
	const char *foreign = getenv("FLY_EXECLOG_FOREIGN");

	if (!getenv("FLY_EXECLOG") || !resolve(file, search, path, sizeof path))
		return 0;
	log_line(path, foreign);
	if (interpreter(path, interp, sizeof interp))
		log_line(interp, foreign);
	if (!foreign && !is_system(path) && !is_tree(path)) {
		cat(fbuf, fcap, 0, path);
		return 1;
	}
	return 0;
}

/* what a wrapper keeps on its stack: the environment with the foreign marker added */
typedef struct {
	char f[PATH_MAX], kv[PATH_MAX + 32];
	char *store[MAXENV];
} Prep;

/* logs file; returns env, or for a foreign program env plus FLY_EXECLOG_FOREIGN in p */
static char *const *
prepare(const char *file, int search, char *const *env, Prep *p)
{
	size_t n = 0;

	if (!record(file, search, p->f, sizeof p->f))
		return env;
	while (env && env[n])
		n++;
	if (n > MAXENV - 2)
		return env; /* never drop a variable; the children then go unmarked */
	cat(p->kv, sizeof p->kv, cat(p->kv, sizeof p->kv, 0, "FLY_EXECLOG_FOREIGN="), p->f);
	for (n = 0; env && env[n]; n++)
		p->store[n] = env[n];
	p->store[n++] = p->kv;
	p->store[n] = NULL;
	return p->store;
}

#define REAL(name, type) \
	static type real_##name; \
	if (!real_##name) \
		real_##name = (type)dlsym(RTLD_NEXT, #name)

typedef int (*execve_t)(const char *, char *const[], char *const[]);
typedef int (*execvpe_t)(const char *, char *const[], char *const[]);
typedef int (*spawn_t)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                       char *const[], char *const[]);

int
execve(const char *path, char *const argv[], char *const envp[])
{
	Prep p;
	REAL(execve, execve_t);
	return real_execve(path, argv, prepare(path, 0, envp, &p));
}

int
execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	Prep p;
	REAL(execvpe, execvpe_t);
	return real_execvpe(file, argv, prepare(file, 1, envp, &p));
}

int
execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: collect the arguments, then the v forms */
#define COLLECT(last)                                      \
	char *args[MAXARGS];                                   \
	size_t na = 0;                                         \
	va_list ap;                                            \
	va_start(ap, arg);                                     \
	args[na++] = (char *)arg;                              \
	while (args[na - 1] && na < MAXARGS - 1)               \
		args[na++] = va_arg(ap, char *);                   \
	args[na] = NULL;                                       \
	last;                                                  \
	va_end(ap)

int
execl(const char *path, const char *arg, ...)
{
	COLLECT((void)0);
	return execve(path, args, environ);
}

int
execlp(const char *file, const char *arg, ...)
{
	COLLECT((void)0);
	return execvpe(file, args, environ);
}

int
execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	COLLECT(envp = va_arg(ap, char *const *));
	return execve(path, args, envp);
}

int
posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
            char *const argv[], char *const envp[])
{
	Prep p;
	REAL(posix_spawn, spawn_t);
	return real_posix_spawn(pid, path, fa, at, argv, prepare(path, 0, envp, &p));
}

int
posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
             char *const argv[], char *const envp[])
{
	Prep p;
	REAL(posix_spawnp, spawn_t);
	return real_posix_spawnp(pid, file, fa, at, argv, prepare(file, 1, envp, &p));
}

/* system and popen run /bin/sh through glibc's internal spawn; the shell inherits the preload */
int
system(const char *cmd)
{
	typedef int (*system_t)(const char *);
	char f[PATH_MAX];
	REAL(system, system_t);
	if (cmd)
		record("/bin/sh", 0, f, sizeof f);
	return real_system(cmd);
}

FILE *
popen(const char *cmd, const char *mode)
{
	typedef FILE *(*popen_t)(const char *, const char *);
	char f[PATH_MAX];
	REAL(popen, popen_t);
	record("/bin/sh", 0, f, sizeof f);
	return real_popen(cmd, mode);
}
