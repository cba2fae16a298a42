// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the node policy of hcbs-oci-hook
 * (oci-hooks/policy.c, /etc/hcbs/oci-hook.conf) and the decisions taken
 * on it.  Properties: no crash or undefined behaviour; a refused file
 * gives -EINVAL and one line "fuzz.conf:LINE: ..." with LINE a line of
 * the input; an accepted one holds only what its grammar allows (a
 * bandwidth within 0-1, non-zero whole-microsecond durations with
 * min-period <= max-period, namespaces that are DNS labels) and parses
 * the same twice; every decision is 0 or -EPERM with one line naming the
 * file, and a reservation of no bandwidth is never refused for it.
 */
#include <errno.h>

#include "fuzz.h"
#include "../../oci-hooks/policy.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hcbs_oci_policy p, q;
	char *s = fuzz_str(data, size), err[HCBS_ERRLEN];
	size_t lines = 1;
	int ret;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	err[0] = '\0';
	ret = hcbs_oci_policy_parse(s, "fuzz.conf", &p, err, sizeof(err));
	if (ret) {
		unsigned long line = 0;

		FUZZ_CHECK(ret == -EINVAL, "returned %d", ret);
		fuzz_check_err(err, sizeof(err));
		FUZZ_CHECK(sscanf(err, "fuzz.conf:%lu:", &line) == 1 && line >= 1 && line <= lines,
			   "'%s' names no line of %zu", err, lines);
		free(s);
		return 0;
	}
	FUZZ_CHECK(p.max_bw_ppm <= 1000000 && p.max_pod_bw_ppm <= 1000000, "bandwidths %u %u",
		   p.max_bw_ppm, p.max_pod_bw_ppm);
	FUZZ_CHECK(!p.line[HCBS_POL_MAX_RUNTIME] || p.max_runtime_us, "max-runtime 0");
	FUZZ_CHECK(!p.line[HCBS_POL_MIN_PERIOD] || !p.line[HCBS_POL_MAX_PERIOD] ||
		   p.min_period_us <= p.max_period_us, "min-period above max-period");
	FUZZ_CHECK(p.n_ns >= 0 && p.n_ns <= HCBS_OCI_POLICY_NS_MAX, "%d namespaces", p.n_ns);
	for (int i = 0; i < p.n_ns; i++)
		FUZZ_CHECK(hcbs_oci_dns_label(p.ns[i]), "namespace '%s'", p.ns[i]);
	FUZZ_CHECK(!hcbs_oci_policy_parse(s, "fuzz.conf", &q, NULL, 0) && !memcmp(&p, &q, sizeof(p)),
		   "parses differently the second time");

	/* Decisions on a reservation taken from the input's last bytes. */
	{
		struct hcbs_rt rt = { 0, 1 + (size ? data[size - 1] : 0) * 1000u };
		const char *ns = size > 1 && data[0] & 1 ? "vran" : NULL;
		int who;

		rt.runtime_us = size > 1 ? rt.period_us * data[size - 2] / 255 : 0;
		err[0] = '\0';
		who = hcbs_oci_policy_who(&p, ns, err, sizeof(err));
		FUZZ_CHECK(!who || (who == -EPERM && strstr(err, "fuzz.conf")), "who: %d '%s'", who, err);
		if (who)
			fuzz_check_err(err, sizeof(err));
		err[0] = '\0';
		ret = hcbs_oci_policy_container(&p, &rt, err, sizeof(err));
		FUZZ_CHECK(!ret || (ret == -EPERM && strstr(err, "fuzz.conf")), "container: %d", ret);
		if (ret)
			fuzz_check_err(err, sizeof(err));
		if (!rt.runtime_us && !p.line[HCBS_POL_MIN_PERIOD] && !p.line[HCBS_POL_MAX_PERIOD])
			FUZZ_CHECK(!ret, "0/%llu refused: %s", (unsigned long long)rt.period_us, err);
		err[0] = '\0';
		ret = hcbs_oci_policy_pod(&p, "5f0c8d2e", size * 1000000ull, 3, &rt, err, sizeof(err));
		FUZZ_CHECK(!ret || ret == -EPERM, "pod: %d", ret);
		if (ret)
			fuzz_check_err(err, sizeof(err));
	}
	free(s);
	return 0;
}
