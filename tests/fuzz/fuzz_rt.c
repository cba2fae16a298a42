// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what tools/lib reads from the kernel's files.
 *   - hcbs_rt_parse_max(): cpu.rt.max contents.  What parses prints back
 *     ("max P" / "Q P") to the same state; the period is never 0.
 *   - hcbs_rt_read() of cpu.rt_runtime_us + cpu.rt_period_us (the input
 *     split at its first NUL byte gives the two files; cpu.rt.max is read
 *     by hcbs_rt_parse_max(), fuzzed directly).
 *   - hcbs_rt_read_stat(): cpu.rt.stat (any text: unknown keys ignored).
 *   - hcbs_parse_cpulist(): "0-3,6" lists (cpuset.cpus.effective, online).
 * The files are written into a directory on tmpfs (/dev/shm) once per
 * input; the error messages must be single lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <unistd.h>

#include "fuzz.h"
#include "hcbs.h"
#include "hcbs-rt.h"

static char dir[64];

static void put(const char *name, const void *data, size_t size)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/hcbs-fuzz-rt.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), err[HCBS_ERRLEN], buf[96];
	const uint8_t *nul = memchr(data, 0, size);
	size_t n1 = nul ? (size_t)(nul - data) : size;
	struct hcbs_rt rt, rt2;
	struct hcbs_rt_stat st;
	int cpus[8], ret;

	/* cpu.rt.max contents */
	if (!hcbs_rt_parse_max(s, &rt)) {
		FUZZ_CHECK(rt.period_us > 0, "'%s': period 0", s);
		if (rt.runtime_us == HCBS_RT_MAX)
			snprintf(buf, sizeof(buf), "max %" PRIu64 "\n", rt.period_us);
		else
			snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64 "\n", rt.runtime_us, rt.period_us);
		FUZZ_CHECK(!hcbs_rt_parse_max(buf, &rt2) && rt2.runtime_us == rt.runtime_us &&
			   rt2.period_us == rt.period_us, "'%s' prints as '%s', which reads differently", s, buf);
	}

	/* cpu.rt_runtime_us + cpu.rt_period_us, cpu.rt.max, cpu.rt.stat */
	put("cpu.rt_runtime_us", data, n1);
	put("cpu.rt_period_us", nul ? nul + 1 : data, nul ? size - n1 - 1 : 0);
	put("cpu.rt.stat", data, size);
	err[0] = '\0';
	ret = hcbs_rt_read(dir, HCBS_ABI_TWO_FILES, &rt, err, sizeof(err));
	if (ret)
		fuzz_check_err(err, sizeof(err));
	err[0] = '\0';
	ret = hcbs_rt_read_stat(dir, &st, err, sizeof(err));
	if (ret)
		fuzz_check_err(err, sizeof(err));

	/* CPU lists */
	ret = hcbs_parse_cpulist(s, cpus, 8);
	FUZZ_CHECK(ret >= -EINVAL, "'%s': %d", s, ret);
	free(s);
	return 0;
}
