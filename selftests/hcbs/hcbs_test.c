// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the in-guest HCBS selftests; see hcbs_test.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "hcbs_test.h"
#include "sched_attr.h"

/*
 * The harness forks a child per test and ends it with _exit(), which drops
 * whatever stdio still buffers: make stdout line-buffered for everyone.
 */
static void __attribute__((constructor)) hcbs_stdio_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

void hcbs_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* --------------------------------------------------------------- clocks */
static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * HCBS_NSEC_PER_SEC + ts->tv_nsec;
}

uint64_t hcbs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

uint64_t hcbs_thread_cputime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts_ns(&ts);
}

void hcbs_sleep_until_ns(uint64_t mono_ns)
{
	struct timespec ts = {
		.tv_sec = mono_ns / HCBS_NSEC_PER_SEC,
		.tv_nsec = mono_ns % HCBS_NSEC_PER_SEC,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void hcbs_sleep_ms(unsigned int ms)
{
	hcbs_sleep_until_ns(hcbs_now_ns() + ms * HCBS_NSEC_PER_MSEC);
}

int hcbs_proc_cputime_ns(pid_t pid, uint64_t *ns)
{
	struct timespec ts;
	clockid_t clk;
	int err;

	err = clock_getcpuclockid(pid, &clk);
	if (err)
		return -err;
	if (clock_gettime(clk, &ts))
		return -errno;
	*ns = ts_ns(&ts);
	return 0;
}

int hcbs_schedstat_ns(pid_t pid, uint64_t *run_ns)
{
	char path[64];
	unsigned long long run;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu", &run);
	fclose(f);
	if (n != 1)
		return -EIO;
	*run_ns = run;
	return 0;
}

/* ------------------------------------------------------------ cgroup v2 */
const char *hcbs_cg_root(void)
{
	const char *r = getenv("HCBS_CGROUP_ROOT");

	return r && *r ? r : "/sys/fs/cgroup";
}

int hcbs_cg_path(char *out, size_t len, const char *parent, const char *name)
{
	if ((size_t)snprintf(out, len, "%s/%s", parent, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int hcbs_cg_create(const char *cg)
{
	if (mkdir(cg, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int file_path(char *out, size_t len, const char *cg, const char *file)
{
	return hcbs_cg_path(out, len, cg, file);
}

int hcbs_write_str(const char *path, const char *s)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(s))
		err = -EIO;
	close(fd);
	return err;
}

int hcbs_cg_write(const char *cg, const char *file, const char *fmt, ...)
{
	char path[PATH_MAX], buf[256];
	va_list ap;
	int err;

	err = file_path(path, sizeof(path), cg, file);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return hcbs_write_str(path, buf);
}

int hcbs_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	size_t off = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off + 1 < len) {
		n = read(fd, buf + off, len - 1 - off);
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		off += n;
	}
	close(fd);
	buf[off] = '\0';
	while (off && buf[off - 1] == '\n')
		buf[--off] = '\0';
	return err;
}

int hcbs_cg_read(const char *cg, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	int err;

	err = file_path(path, sizeof(path), cg, file);
	if (err)
		return err;
	return hcbs_read_file(path, buf, len);
}

int hcbs_cg_read_key(const char *cg, const char *file, const char *key,
		     long long *val)
{
	char buf[4096], *line, *save = NULL;
	size_t klen = strlen(key);
	int err;

	err = hcbs_cg_read(cg, file, buf, sizeof(buf));
	if (err)
		return err;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return sscanf(line + klen, "%lld", val) == 1 ? 0 : -EIO;
	}
	return -ENOENT;
}

bool hcbs_cg_has_file(const char *cg, const char *file)
{
	char path[PATH_MAX];

	if (file_path(path, sizeof(path), cg, file))
		return false;
	return access(path, F_OK) == 0;
}

bool hcbs_cg_has_word(const char *cg, const char *file, const char *word)
{
	char buf[4096], *tok, *save = NULL;

	if (hcbs_cg_read(cg, file, buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

int hcbs_cg_attach(const char *cg, pid_t pid)
{
	return hcbs_cg_write(cg, "cgroup.procs", "%d", pid);
}

/*
 * The cgroup v2 directory of @pid (cgroup root + its "0::" line), or
 * -ESRCH (gone) / -EINVAL (not on the unified hierarchy).
 */
int hcbs_task_cgroup(pid_t pid, char *out, size_t len)
{
	char path[64], buf[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (hcbs_read_file(path, buf, sizeof(buf)))
		return -ESRCH;
	if (strncmp(buf, "0::", 3))
		return -EINVAL;
	snprintf(out, len, "%s%s", hcbs_cg_root(), buf + 3);
	return 0;
}

int hcbs_cg_id(const char *cg, uint64_t *id)
{
	struct stat st;

	if (stat(cg, &st))
		return -errno;
	*id = st.st_ino;
	return 0;
}

static bool cg_empty(const char *cg)
{
	char buf[64];

	/* cgroup.events says "populated 0" once the subtree has no task. */
	if (!hcbs_cg_read(cg, "cgroup.events", buf, sizeof(buf)))
		return strstr(buf, "populated 0") != NULL;
	if (hcbs_cg_read(cg, "cgroup.procs", buf, sizeof(buf)))
		return true;
	return buf[0] == '\0';
}

static void cg_kill_all(const char *cg)
{
	struct sched_param sp = { 0 };
	char buf[8192], *tok, *save = NULL;

	/*
	 * RT tasks first become SCHED_OTHER: killed inside a small
	 * reservation, a task takes its exit's CPU time at the reservation's
	 * pace (seconds under lockdep and TCG, for each one).
	 */
	if (!hcbs_cg_read(cg, "cgroup.threads", buf, sizeof(buf)))
		for (tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
			sched_setscheduler(atoi(tok), SCHED_OTHER, &sp);
	save = NULL;
	if (!hcbs_cg_write(cg, "cgroup.kill", "1"))
		return;
	if (hcbs_cg_read(cg, "cgroup.procs", buf, sizeof(buf)))
		return;
	for (tok = strtok_r(buf, "\n", &save); tok;
	     tok = strtok_r(NULL, "\n", &save))
		kill(atoi(tok), SIGKILL);
}

int hcbs_cg_destroy(const char *cg)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int i;

	d = opendir(cg);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if (!hcbs_cg_path(sub, sizeof(sub), cg, de->d_name))
			hcbs_cg_destroy(sub);
	}
	closedir(d);

	for (i = 0; i < 500; i++) {
		if (!rmdir(cg) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		if (!cg_empty(cg) && i % 50 == 0)
			cg_kill_all(cg);
		usleep(10000);
	}
	return -EBUSY;
}

int hcbs_cg_root_cpu_enable(bool *enabled_here)
{
	const char *root = hcbs_cg_root();
	int err;

	*enabled_here = false;
	if (hcbs_cg_has_word(root, "cgroup.subtree_control", "cpu"))
		return 0;
	if (!hcbs_cg_has_word(root, "cgroup.controllers", "cpu"))
		return -ENODEV;
	err = hcbs_cg_write(root, "cgroup.subtree_control", "+cpu");
	if (!err)
		*enabled_here = true;
	return err;
}

void hcbs_cg_root_cpu_restore(bool enabled_here)
{
	int i;

	if (!enabled_here)
		return;
	for (i = 0; i < 100; i++) {
		if (!hcbs_cg_write(hcbs_cg_root(), "cgroup.subtree_control", "-cpu"))
			return;
		usleep(10000);
	}
}

int hcbs_cpu_hierarchy(int *hierarchy, int *nr_cgroups)
{
	char name[64];
	int h, n, en, found = -ENOENT;
	FILE *f = fopen("/proc/cgroups", "re");

	if (!f)
		return -errno;
	/* #subsys_name hierarchy num_cgroups enabled */
	if (fscanf(f, "%*[^\n]\n") == EOF) {
		fclose(f);
		return -ENOENT;
	}
	while (fscanf(f, "%63s %d %d %d\n", name, &h, &n, &en) == 4) {
		if (strcmp(name, "cpu"))
			continue;
		*hierarchy = h;
		*nr_cgroups = n;
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

int hcbs_cg1_umount(const char *mnt, unsigned int timeout_ms)
{
	uint64_t end = hcbs_now_ns() + (uint64_t)timeout_ms * 1000000;
	uint64_t retry;
	int h, n, err;

	/* Only the root left: no child can keep the hierarchy alive. */
	while (!(err = hcbs_cpu_hierarchy(&h, &n)) && h && n > 1 &&
	       hcbs_now_ns() < end)
		hcbs_sleep_ms(20);
	if (err)
		return err;
	if (umount(mnt))
		return -errno;
	rmdir(mnt);
	retry = hcbs_now_ns() + HCBS_NSEC_PER_SEC;
	for (;;) {
		err = hcbs_cpu_hierarchy(&h, &n);
		if (err || !h)
			return err;
		if (hcbs_now_ns() > end)
			return -EBUSY;
		if (retry && hcbs_now_ns() > retry && n == 1) {
			/* Still alive after a second: mount and unmount it again. */
			retry = 0;
			if (!mkdir(mnt, 0755) || errno == EEXIST) {
				if (!mount("none", mnt, "cgroup", 0, "cpu"))
					umount(mnt);
				rmdir(mnt);
			}
		}
		hcbs_sleep_ms(20);
	}
}

/* ----------------------------------------------------------- hcbs state */
bool hcbs_force(void)
{
	const char *e = getenv("HCBS_SELFTEST_FORCE");

	return e && !strcmp(e, "1");
}

int hcbs_probe_kernel(const char **reason)
{
	char cg[PATH_MAX], name[64];
	bool enabled;
	int err, ret;

	*reason = HCBS_NO_HCBS_REASON;
	err = hcbs_cg_root_cpu_enable(&enabled);
	if (err == -ENODEV) {
		*reason = HCBS_NO_HCBS_REASON " (no cpu controller on cgroup v2)";
		return 0;
	}
	if (err)
		return err;
	snprintf(name, sizeof(name), "hcbs-probe-%d", getpid());
	ret = hcbs_cg_path(cg, sizeof(cg), hcbs_cg_root(), name);
	if (!ret)
		ret = hcbs_cg_create(cg);
	if (!ret)
		ret = hcbs_cg_is_hcbs(cg) ? 1 : 0;
	rmdir(cg);
	hcbs_cg_root_cpu_restore(enabled);
	return ret;
}

bool hcbs_cg_is_hcbs(const char *cg)
{
	return hcbs_cg_has_file(cg, "cpu.rt.max");
}

int hcbs_set_rt_max(const char *cg, long long runtime_us, long long period_us)
{
	if (runtime_us < 0)
		return hcbs_cg_write(cg, "cpu.rt.max", "max %lld", period_us);
	return hcbs_cg_write(cg, "cpu.rt.max", "%lld %lld", runtime_us, period_us);
}

/* --------------------------------------------------------- global state */
int hcbs_nr_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

int hcbs_read_long(const char *path, long long *val)
{
	char buf[64];
	int err;

	err = hcbs_read_file(path, buf, sizeof(buf));
	if (err)
		return err;
	return sscanf(buf, "%lld", val) == 1 ? 0 : -EIO;
}

int hcbs_write_long(const char *path, long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", val);
	return hcbs_write_str(path, buf);
}

double hcbs_rt_global_bw(void)
{
	long long rt, period;

	if (hcbs_read_long("/proc/sys/kernel/sched_rt_runtime_us", &rt) ||
	    hcbs_read_long("/proc/sys/kernel/sched_rt_period_us", &period) ||
	    rt < 0 || period <= 0)
		return 1.0;
	return (double)rt / period;
}

static const char *debugfs_sched(void)
{
	static const char *path = "/sys/kernel/debug/sched/debug";

	if (access(path, R_OK))
		mount("none", "/sys/kernel/debug", "debugfs", 0, NULL);
	return access(path, R_OK) ? NULL : path;
}

int hcbs_dl_rq_field(const char *key, long long *vals, int max_cpus)
{
	const char *path = debugfs_sched();
	size_t klen = strlen(key);
	char line[512];
	int cpu = -1, found = 0;
	FILE *f;

	for (int i = 0; i < max_cpus; i++)
		vals[i] = -1;
	if (!path)
		return -ENOENT;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		/* Sections start in column 0, their fields are indented. */
		if (line[0] != ' ') {
			if (sscanf(line, "dl_rq[%d]:", &cpu) != 1 || cpu >= max_cpus)
				cpu = -1;
			continue;
		}
		if (cpu < 0)
			continue;
		p += strspn(p, " ");
		if (*p++ != '.' || strncmp(p, key, klen) || (p[klen] != ' ' && p[klen] != ':'))
			continue;
		p = strchr(p + klen, ':');
		if (p && sscanf(p + 1, "%lld", &vals[cpu]) == 1 && cpu >= found)
			found = cpu + 1;
	}
	fclose(f);
	return found ? found : -ENOENT;
}

/*
 * Per CPU, the .dl_bw->total_bw of its dl_rq (deadline tasks and fair
 * servers: the root domain's sum) into @total; what the RT groups reserve
 * on each CPU (.rt_groups_bw) into *@groups, -1 on a kernel without it.
 */
int hcbs_dl_bw(long long *total, long long *groups, int max_cpus)
{
	int n = hcbs_dl_rq_field("dl_bw->total_bw", total, max_cpus);

	if (n < 0)
		return n;
	hcbs_dl_rq_field("rt_groups_bw", groups, max_cpus);
	return n;
}

/*
 * The bandwidth reserved in each CPU's root domain: its total_bw plus, on
 * an HCBS kernel, what the RT groups reserve on the CPUs listed (the
 * online ones; the guest has one root domain).
 */
int hcbs_dl_total_bw(long long *bw, int max_cpus)
{
	long long groups[HCBS_MAX_CPUS], sum = 0;
	int n = hcbs_dl_bw(bw, groups, max_cpus < HCBS_MAX_CPUS ? max_cpus : HCBS_MAX_CPUS);

	for (int cpu = 0; cpu < n; cpu++)
		sum += groups[cpu] > 0 ? groups[cpu] : 0;
	for (int cpu = 0; cpu < n; cpu++)
		bw[cpu] += sum;
	return n;
}

/* ----------------------------------------------------------------- tasks */
int hcbs_set_policy(pid_t pid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (policy != SCHED_FIFO && policy != SCHED_RR)
		sp.sched_priority = 0;
	return sched_setscheduler(pid, policy, &sp) ? -errno : 0;
}

int hcbs_pin_cpu(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
}

int hcbs_unpin(pid_t pid)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < hcbs_nr_cpus() && cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
}

int hcbs_set_deadline(pid_t pid, uint64_t runtime_ns, uint64_t deadline_ns,
		      uint64_t period_ns)
{
	return hcbs_set_deadline_flags(pid, 0, runtime_ns, deadline_ns, period_ns);
}

int hcbs_set_deadline_flags(pid_t pid, uint64_t flags, uint64_t runtime_ns,
			    uint64_t deadline_ns, uint64_t period_ns)
{
	int err, i;

	/*
	 * SCHED_DEADLINE admission wants the task allowed on its whole root
	 * domain, and on PREEMPT_RT a task in a migrate_disable() section
	 * (any sleeping spinlock it holds) is allowed on its CPU only, for
	 * that moment: EPERM then is transient.  A lasting one (no
	 * privilege, a pinned task) is returned after 100 ms.
	 */
	for (i = 0; i < 50; i++) {
		err = hcbs_sched_setattr_flags(pid, SCHED_DEADLINE, flags, runtime_ns,
					       deadline_ns, period_ns);
		if (err != -EPERM)
			break;
		hcbs_sleep_ms(2);
	}
	return err;
}

/*
 * Spin, recording the longest time off the CPU and the longest stall.  A
 * long step between two clock reads is either time off the CPU or time
 * charged to the hog while it did not run its code (the whole machine
 * stalled, or a long interrupt): the thread's CPU clock tells them apart.
 * It is read only after a long step, so short preemptions before it are
 * counted into that step's time off the CPU.
 */
static void __attribute__((noreturn)) hog_loop(struct hcbs_hog_shm *shm)
{
	uint64_t last = hcbs_now_ns(), t, cpu, off;
	uint64_t mark_wall = last, mark_cpu = hcbs_thread_cputime_ns();

	for (;;) {
		t = hcbs_now_ns();
		if (shm->gap_reset) {
			shm->gap_reset = 0;
			shm->max_gap_ns = 0;
			shm->stalls.seen = 0;
			shm->stalls.n = 0;
			shm->stalls.max_ns = 0;
			mark_wall = t;
			mark_cpu = hcbs_thread_cputime_ns();
		} else if (t - last > HCBS_STALL_STEP_NS) {
			cpu = hcbs_thread_cputime_ns();
			off = t - mark_wall;
			off = off > cpu - mark_cpu ? off - (cpu - mark_cpu) : 0;
			if (off > t - last)
				off = t - last;
			if (off > shm->max_gap_ns)
				shm->max_gap_ns = off;
			if (t - last - off > HCBS_STALL_STEP_NS)
				hcbs_stall_log_add(&shm->stalls, t, t - last - off);
			mark_wall = t;
			mark_cpu = cpu;
		}
		last = t;
		shm->last_ns = t;
		shm->loops++;
	}
}

int hcbs_hog_start(struct hcbs_hog *hog, const struct hcbs_hog_spec *spec,
		   const char **step)
{
	pid_t parent = getpid(), pid;
	const char *dummy;
	int pfd[2], err;
	char c = 'g';

	if (!step)
		step = &dummy;
	hog->pid = 0;
	hog->owner = parent;
	hog->shm = mmap(NULL, sizeof(*hog->shm), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (hog->shm == MAP_FAILED) {
		hog->shm = NULL;
		*step = "mmap";
		return -errno;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		*step = "pipe";
		return -errno;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		*step = "fork";
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		close(pfd[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		/* Wait until the parent has placed us; EOF means it gave up. */
		if (read(pfd[0], &c, 1) != 1)
			_exit(1);
		close(pfd[0]);
		while (spec->sleeper)
			pause();
		while (spec->quiet)
			hog->shm->loops++;
		hog_loop(hog->shm);
	}
	close(pfd[0]);
	hog->pid = pid;

	*step = "affinity";
	err = spec->cpu >= 0 ? hcbs_pin_cpu(pid, spec->cpu) : hcbs_unpin(pid);
	if (!err && spec->cgroup) {
		*step = "cgroup";
		err = hcbs_cg_attach(spec->cgroup, pid);
	}
	if (!err) {
		*step = "policy";
		err = hcbs_set_policy(pid, spec->policy, spec->prio);
	}
	if (!err && write(pfd[1], &c, 1) != 1) {
		*step = "start";
		err = -EIO;
	}
	close(pfd[1]);
	if (err)
		hcbs_hog_stop(hog);
	return err;
}

void hcbs_hog_stop(struct hcbs_hog *hog)
{
	bool mine = hog->owner == getpid();

	if (hog->pid > 0) {
		kill(hog->pid, SIGKILL);
		while (mine && waitpid(hog->pid, NULL, 0) < 0 && errno == EINTR)
			;
		hog->pid = 0;
	}
	/* Not mapped in another process: that address may be anything there. */
	if (hog->shm && mine)
		munmap(hog->shm, sizeof(*hog->shm));
	hog->shm = NULL;
}

void hcbs_hog_reset_gap(struct hcbs_hog *hog)
{
	if (hog->shm)
		hog->shm->gap_reset = 1;
}

uint64_t hcbs_hogs_max_stall_ns(struct hcbs_hog *const *hogs, int n)
{
	uint64_t max = 0;
	int i;

	for (i = 0; i < n; i++)
		if (hogs[i]->shm && hogs[i]->shm->stalls.max_ns > max)
			max = hogs[i]->shm->stalls.max_ns;
	return max;
}

uint64_t hcbs_stall_delay_ns(uint64_t stall_ns, uint64_t q_ns, uint64_t p_ns)
{
	return 2 * stall_ns + (q_ns ? stall_ns / q_ns * p_ns : 0);
}

void hcbs_stall_log_add(struct hcbs_stall_log *log, uint64_t end_ns,
			uint64_t len_ns)
{
	uint32_t n = log->n;

	log->seen++;
	if (len_ns > log->max_ns)
		log->max_ns = len_ns;
	if (len_ns < HCBS_STALL_LOG_MIN_NS)
		return;
	if (n < HCBS_STALL_LOG_LEN)
		log->rec[n] = (struct hcbs_stall){ .end_ns = end_ns, .len_ns = len_ns };
	__atomic_store_n(&log->n, n + 1, __ATOMIC_RELEASE);
}

uint64_t hcbs_stall_explains_ns(const struct hcbs_stall_log *const *logs, int n,
				uint64_t release_ns, uint64_t done_ns,
				uint64_t q_ns, uint64_t p_ns, bool *lost)
{
	uint64_t sum = 0, delay;
	uint32_t k, nr;
	int i;

	for (i = 0; i < n; i++) {
		nr = __atomic_load_n(&logs[i]->n, __ATOMIC_ACQUIRE);
		if (nr > HCBS_STALL_LOG_LEN) {
			*lost = true;
			nr = HCBS_STALL_LOG_LEN;
		}
		for (k = 0; k < nr; k++) {
			const struct hcbs_stall *st = &logs[i]->rec[k];

			delay = hcbs_stall_delay_ns(st->len_ns, q_ns, p_ns);
			if (st->end_ns - st->len_ns < done_ns &&
			    st->end_ns + delay > release_ns)
				sum += delay;
		}
	}
	return sum;
}

/*
 * The CPU times of @pids into @c, and in *@t when they were read.  The
 * reader may be preempted between two reads, by the very hogs it measures
 * and for a whole budget (50 ms once, which made a group's share over 3 s
 * 0.0165 too large): a reading that took more than 2 ms is taken again, up
 * to 20 times, keeping the quickest; its time is the middle of the reading.
 */
static int sample_cputimes(const pid_t *pids, int n, uint64_t *c, uint64_t *t)
{
	uint64_t best = UINT64_MAX, v[n];
	int i, err, tries;

	for (tries = 0; tries < 20 && best > 2 * HCBS_NSEC_PER_MSEC; tries++) {
		uint64_t a = hcbs_now_ns(), b;

		for (i = 0; i < n; i++) {
			err = hcbs_proc_cputime_ns(pids[i], &v[i]);
			if (err)
				return err;
		}
		b = hcbs_now_ns();
		if (b - a < best) {
			best = b - a;
			memcpy(c, v, sizeof(v));
			*t = a + (b - a) / 2;
		}
	}
	return 0;
}

int hcbs_measure_shares(const pid_t *pids, int n, unsigned int window_ms,
			double *share)
{
	uint64_t c0[n], c1[n], t0, t1;
	int i, err;

	err = sample_cputimes(pids, n, c0, &t0);
	if (err)
		return err;
	hcbs_sleep_until_ns(t0 + window_ms * HCBS_NSEC_PER_MSEC);
	err = sample_cputimes(pids, n, c1, &t1);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		share[i] = (double)(c1[i] - c0[i]) / (double)(t1 - t0);
	return 0;
}

int hcbs_proc_migrations(pid_t pid, uint64_t *n)
{
	char path[64], line[256];
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "se.nr_migrations : %llu", &v) == 1) {
			*n = v;
			err = 0;
		}
	}
	fclose(f);
	return err;
}

unsigned int hcbs_window_ms(unsigned int dflt)
{
	const char *e = getenv("HCBS_WINDOW_MS");
	long v;

	if (!e || !*e)
		return dflt;
	v = strtol(e, NULL, 10);
	return v > 0 ? (unsigned int)v : dflt;
}

bool hcbs_machine_slow(void)
{
	const char *e = getenv("KSFT_MACHINE_SLOW");

	return e && !strcmp(e, "yes");
}

bool hcbs_clock_virtual(void)
{
	const char *e = getenv("HCBS_CLOCK");

	return e && !strcmp(e, "virtual");
}

const char *hcbs_tmp_dir(void)
{
	const char *t = getenv("HCBS_TMP");

	return t && *t ? t : "/tmp";
}

const char *hcbs_tracefs(void)
{
	if (!access("/sys/kernel/tracing/events", F_OK))
		return "/sys/kernel/tracing";
	mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (!access("/sys/kernel/tracing/events", F_OK))
		return "/sys/kernel/tracing";
	if (!access("/sys/kernel/debug/tracing/events", F_OK))
		return "/sys/kernel/debug/tracing";
	return NULL;
}

/* ------------------------------------------------------ test environment */
void hcbs_remove_stale_groups(void)
{
	const char *root = hcbs_cg_root();
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(root);

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "hcbs-test-", 10) || de->d_type != DT_DIR)
			continue;
		if (hcbs_cg_path(path, sizeof(path), root, de->d_name))
			continue;
		hcbs_note("removing %s, left by an earlier run", path);
		hcbs_cg_destroy(path);
	}
	if (d)
		closedir(d);
}

int hcbs_env_setup(struct hcbs_env *env, const char *suite, int min_cpus,
		   int ctl_cpu, bool *skip, const char **reason)
{
	char name[64];
	int err;

	memset(env, 0, sizeof(*env));
	*skip = false;
	env->nr_cpus = hcbs_nr_cpus();
	if (env->nr_cpus < min_cpus) {
		*skip = true;
		*reason = "not enough CPUs (run the guest with --cpus 2)";
		return -ENODEV;
	}
	if (ctl_cpu >= 0 && hcbs_pin_cpu(0, ctl_cpu)) {
		*reason = "cannot pin the test to its control CPU";
		return -errno;
	}
	snprintf(name, sizeof(name), "hcbs-test-%s", suite);
	err = hcbs_cg_path(env->top, sizeof(env->top), hcbs_cg_root(), name);
	if (err) {
		*reason = "cgroup path too long";
		return err;
	}
	/*
	 * A test killed by the harness's timeout runs no teardown: remove
	 * whatever any earlier hcbs test left (tests never run in parallel),
	 * or its reservations would fail this test's admission.
	 */
	hcbs_remove_stale_groups();
	hcbs_reset_root_share();

	if (hcbs_read_long("/proc/sys/kernel/sched_rt_runtime_us",
			   &env->rt_runtime0))
		env->rt_runtime0 = LLONG_MIN;
	err = hcbs_dl_total_bw(env->bw0, HCBS_MAX_CPUS);
	env->nr_bw = err > 0 ? err : 0;

	err = hcbs_cg_root_cpu_enable(&env->root_cpu_enabled);
	if (err) {
		*skip = err == -ENODEV;
		*reason = err == -ENODEV ? HCBS_NO_HCBS_REASON
			" (no cpu controller on cgroup v2)" :
			"cannot enable the cpu controller at the cgroup root";
		return err;
	}
	env->ready = true;
	err = hcbs_cg_create(env->top);
	if (err) {
		*reason = "cannot create the test's top cgroup";
		goto undo;
	}
	if (!hcbs_cg_is_hcbs(env->top) && !hcbs_force()) {
		*skip = true;
		*reason = HCBS_NO_HCBS_REASON;
		err = -ENODEV;
		goto undo;
	}
	err = hcbs_cg_write(env->top, "cgroup.subtree_control", "+cpu");
	if (err) {
		*reason = "cannot enable cpu in the test's top cgroup";
		goto undo;
	}
	return 0;

undo:
	/* The harness runs no teardown after a failed setup. */
	hcbs_env_teardown(env);
	return err;
}

/*
 * The root group's share is the default ("max") for every test: put it
 * back if a test set it (or a killed one left it set).
 */
void hcbs_reset_root_share(void)
{
	char buf[64];
	int err;

	if (hcbs_cg_read(hcbs_cg_root(), "cpu.rt.max", buf, sizeof(buf)) ||
	    !strncmp(buf, "max", 3))
		return;
	err = hcbs_cg_write(hcbs_cg_root(), "cpu.rt.max", "max");
	hcbs_note("root group's share was '%s': reset to max: %s", buf,
		  err ? strerror(-err) : "done");
}

void hcbs_env_teardown(struct hcbs_env *env)
{
	int i, err;

	for (i = 0; i < HCBS_MAX_HOGS; i++)
		hcbs_hog_stop(&env->hogs[i]);
	if (!env->ready)
		return;
	if (env->rt_runtime0 != LLONG_MIN) {
		long long now;

		if (!hcbs_read_long("/proc/sys/kernel/sched_rt_runtime_us", &now) &&
		    now != env->rt_runtime0) {
			hcbs_write_long("/proc/sys/kernel/sched_rt_runtime_us",
					env->rt_runtime0);
		}
	}
	err = hcbs_cg_destroy(env->top);
	if (err)
		hcbs_note("teardown: cannot remove %s: %s", env->top, strerror(-err));
	hcbs_reset_root_share();
	hcbs_cg_root_cpu_restore(env->root_cpu_enabled);
	env->root_cpu_enabled = false;
	env->ready = false;
}

int hcbs_env_bw_leak(struct hcbs_env *env, unsigned int timeout_ms,
		     long long *before, long long *after)
{
	uint64_t end = hcbs_now_ns() + timeout_ms * HCBS_NSEC_PER_MSEC;
	long long bw[HCBS_MAX_CPUS];
	int n, cpu, bad;

	if (!env->nr_bw)
		return -1;
	for (;;) {
		bad = -1;
		n = hcbs_dl_total_bw(bw, HCBS_MAX_CPUS);
		for (cpu = 0; cpu < env->nr_bw && bad < 0; cpu++)
			if (n <= cpu || bw[cpu] != env->bw0[cpu])
				bad = cpu;
		if (bad < 0 || hcbs_now_ns() > end)
			break;
		hcbs_sleep_ms(20);
	}
	if (bad >= 0) {
		*before = env->bw0[bad];
		*after = n > bad ? bw[bad] : -1;
	}
	return bad;
}

int hcbs_env_group(struct hcbs_env *env, const char *name, char *out, size_t len)
{
	int err = hcbs_cg_path(out, len, env->top, name);

	return err ? err : hcbs_cg_create(out);
}

struct hcbs_hog *hcbs_env_hog(struct hcbs_env *env,
			      const struct hcbs_hog_spec *spec, int *err,
			      const char **step)
{
	int i;

	for (i = 0; i < HCBS_MAX_HOGS; i++) {
		if (env->hogs[i].pid > 0)
			continue;
		*err = hcbs_hog_start(&env->hogs[i], spec, step);
		return *err ? NULL : &env->hogs[i];
	}
	*err = -ENOSPC;
	*step = "too many hogs";
	return NULL;
}

double hcbs_env_free_bw(struct hcbs_env *env)
{
	return hcbs_free_bw(env->nr_cpus);
}

double hcbs_free_bw(int nr_cpus)
{
	long long bw[HCBS_MAX_CPUS], max = 0;
	double held, fair = 0;
	int n, cpu;

	n = hcbs_dl_total_bw(bw, HCBS_MAX_CPUS);
	if (n <= 0)
		return -1.0;
	for (cpu = 0; cpu < n; cpu++) {
		double f = hcbs_fair_server_bw(cpu);

		max = bw[cpu] > max ? bw[cpu] : max;
		fair = f > fair ? f : fair;
	}
	/* total_bw is the root domain's sum over its CPUs. */
	held = (double)max / HCBS_BW_UNIT / nr_cpus;
	/*
	 * Stock 6.12 loses the fair servers' share from total_bw when the
	 * root domain is rebuilt at boot: count them if they are not there.
	 * (This assumes no deadline task holds as much as a fair server.)
	 */
	if (held + 0.0001 < fair)
		held += fair;
	return hcbs_rt_global_bw() - held;
}

void hcbs_fair_server(int cpu, long long *runtime_ns, long long *period_ns)
{
	char path[128];
	long long runtime, period;

	/* The 6.12 defaults: 50 ms every 1 s. */
	*runtime_ns = 50000000;
	*period_ns = 1000000000;
	if (!debugfs_sched())
		return;
	snprintf(path, sizeof(path), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime", cpu);
	if (hcbs_read_long(path, &runtime))
		return;
	snprintf(path, sizeof(path), "/sys/kernel/debug/sched/fair_server/cpu%d/period", cpu);
	if (hcbs_read_long(path, &period) || period <= 0)
		return;
	*runtime_ns = runtime;
	*period_ns = period;
}

double hcbs_fair_server_bw(int cpu)
{
	long long runtime, period;

	hcbs_fair_server(cpu, &runtime, &period);
	return (double)runtime / period;
}

int hcbs_clone_into(const char *cg, int policy, int prio)
{
	int status, err;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct clone_args args = {
			.flags = CLONE_INTO_CGROUP,
			.exit_signal = SIGCHLD,
		};
		struct sched_param sp = { .sched_priority = prio };
		long child;
		int fd;

		if (sched_setscheduler(0, policy, &sp))
			_exit(100);
		fd = open(cg, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			_exit(101);
		args.cgroup = fd;
		child = syscall(SYS_clone3, &args, sizeof(args));
		if (child == 0)
			_exit(0);
		if (child < 0)
			_exit(errno < 100 ? errno : 99);
		waitpid(child, NULL, 0);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	err = WEXITSTATUS(status);
	return err >= 100 ? -ECHILD : -err;
}
