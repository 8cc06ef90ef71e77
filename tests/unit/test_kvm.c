/* KVM detection without a VM: the console classifier that judges the probe
 * guest, the verdict cache and its key, and the KTB_ACCEL override. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"
#include "kvm.h"
#include "util.h"

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(kvm_verdict_name(KVM_ABSENT), "absent");
	assert_string_equal(kvm_verdict_name(KVM_BROKEN), "broken");
	assert_string_equal(kvm_verdict_name(KVM_WORKS), "works");
	assert_string_equal(kvm_verdict_name((enum kvm_verdict)7), "unknown");
}

static void test_classify(void **state)
{
	enum kvm_verdict v = KVM_ABSENT;
	char why[256] = "";

	(void)state;
	/* still booting: undecided, verdict untouched */
	assert_int_equal(kvm_probe_classify("", false, &v, why, sizeof(why)), 0);
	assert_int_equal(kvm_probe_classify("[    0.000000] Linux version 6.1.0\r\n", false, &v,
					    why, sizeof(why)),
			 0);
	assert_int_equal(v, KVM_ABSENT);
	assert_int_equal(
	    kvm_probe_classify("boot\r\n" KTB_PROBE_MARKER "\r\n", false, &v, why, sizeof(why)), 1);
	assert_int_equal(v, KVM_WORKS);
	/* the marker wins even if QEMU has gone */
	assert_int_equal(kvm_probe_classify(KTB_PROBE_MARKER, true, &v, why, sizeof(why)), 1);
	assert_int_equal(v, KVM_WORKS);
	assert_int_equal(kvm_probe_classify("Memory: 200K\nKVM internal error. Suberror: 1\r\n"
					    "extra data\n",
					    false, &v, why, sizeof(why)),
			 1);
	assert_int_equal(v, KVM_BROKEN);
	assert_string_equal(why,
			    "probe guest failed under KVM: \"KVM internal error. Suberror: 1\"");
	assert_int_equal(kvm_probe_classify("x\nemulation failure\n", false, &v, why, sizeof(why)),
			 1);
	assert_string_equal(why, "probe guest failed under KVM: \"emulation failure\"");
	/* QEMU exited without the marker: quote its last words */
	v = KVM_WORKS;
	assert_int_equal(kvm_probe_classify("qemu-system-x86_64: failed to initialize kvm: "
					    "Permission denied\n\n",
					    true, &v, why, sizeof(why)),
			 1);
	assert_int_equal(v, KVM_BROKEN);
	assert_string_equal(why,
			    "QEMU exited before the probe reached userspace: "
			    "\"qemu-system-x86_64: failed to initialize kvm: Permission denied\"");
	assert_int_equal(kvm_probe_classify("", true, &v, why, sizeof(why)), 1);
	assert_string_equal(why, "QEMU exited before the probe reached userspace: \"(no output)\"");
	/* odd bytes in the quoted line are neutralised */
	assert_int_equal(
	    kvm_probe_classify("\033[0mKVM internal error\xff\n", false, &v, why, sizeof(why)), 1);
	assert_string_equal(why, "probe guest failed under KVM: \"?[0mKVM internal error?\"");
	/* a short why buffer truncates, never overflows */
	char tiny[8];

	assert_int_equal(kvm_probe_classify("KVM internal error\n", false, &v, tiny, sizeof(tiny)),
			 1);
	assert_string_equal(tiny, "probe g");
}

static const struct kvm_cache_key key = {
	.host_release = "6.8.0-1-cloud",
	.qemu_version = "QEMU emulator version 7.2.15 (Debian 1:7.2+dfsg-7+deb12u18)",
	.kernel_size = 65906612,
	.kernel_mtime = 1700000000123456789LL,
	.initrd_size = 1031573,
	.initrd_mtime = 1700000001000000000LL,
};

static char *tmpdir_make(void)
{
	char *dir = xstrdup("/tmp/ktb-test-kvm-XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

/* Does dir's cache answer for k? 0 with the verdict, or -ENOENT. */
static int lookup(const char *dir, const struct kvm_cache_key *k, enum kvm_verdict *v, char *why)
{
	return kvm_cache_load(dir, k, v, why, 256);
}

static void test_cache(void **state)
{
	char *dir = tmpdir_make(), *sub = xasprintf("%s/deeper/ktb", dir), *path, *text;
	struct kvm_cache_key other;
	enum kvm_verdict v;
	char why[256];

	(void)state;
	assert_int_equal(lookup(dir, &key, &v, why), -ENOENT);
	/* written where the directory does not exist yet */
	assert_int_equal(kvm_cache_store(sub, &key, KVM_BROKEN, "no userspace within 8 s", 8012),
			 0);
	assert_int_equal(lookup(sub, &key, &v, why), 0);
	assert_int_equal(v, KVM_BROKEN);
	assert_string_equal(why, "no userspace within 8 s (cached)");
	/* every part of the key matters */
	other = key;
	other.host_release[0] = '5';
	assert_int_equal(lookup(sub, &other, &v, why), -ENOENT);
	other = key;
	strcpy(other.qemu_version, "QEMU emulator version 8.2.2");
	assert_int_equal(lookup(sub, &other, &v, why), -ENOENT);
	other = key;
	other.kernel_size++;
	assert_int_equal(lookup(sub, &other, &v, why), -ENOENT);
	other = key;
	other.kernel_mtime++;
	assert_int_equal(lookup(sub, &other, &v, why), -ENOENT);
	other = key;
	other.initrd_mtime--;
	assert_int_equal(lookup(sub, &other, &v, why), -ENOENT);
	/* a new verdict replaces the old one, and no temporary file stays */
	assert_int_equal(
	    kvm_cache_store(sub, &key, KVM_WORKS, "probe guest reached userspace", 900), 0);
	assert_int_equal(lookup(sub, &key, &v, why), 0);
	assert_int_equal(v, KVM_WORKS);
	path = xasprintf("%s/kvm.json", sub);
	text = read_file(path, NULL);
	assert_non_null(strstr(text, "\"verdict\": \"works\""));
	assert_non_null(strstr(text, "\"probe_ms\": 900"));
	free(text);
	/* a damaged or foreign file is a miss, not an error */
	assert_int_equal(write_file(path, "{\"verdict\": \"works\"}", 20), 0);
	assert_int_equal(lookup(sub, &key, &v, why), -ENOENT);
	assert_int_equal(write_file(path, "garbage", 7), 0);
	assert_int_equal(lookup(sub, &key, &v, why), -ENOENT);
	free(path);
	assert_int_equal(rm_rf(dir), 0);
	free(sub);
	free(dir);
}

static void test_cache_bad_verdict(void **state)
{
	char *dir = tmpdir_make(), *path = xasprintf("%s/kvm.json", dir);
	enum kvm_verdict v;
	char why[256];

	(void)state;
	assert_int_equal(kvm_cache_store(dir, &key, KVM_WORKS, "ok", 1), 0);
	char *text = read_file(path, NULL), *p = strstr(text, "\"works\"");

	memcpy(p, "\"maybe\"", 7);
	assert_int_equal(write_file(path, text, strlen(text)), 0);
	assert_int_equal(lookup(dir, &key, &v, why), -ENOENT);
	free(text);
	free(path);
	rm_rf(dir);
	free(dir);
}

static void test_key_missing_files(void **state)
{
	struct kvm_cache_key k;
	char why[256] = "";

	(void)state;
	assert_int_equal(
	    kvm_cache_key_fill(&k, "/nonexistent/vmlinux", "/dev/null", why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "probe kernel /nonexistent/vmlinux: No such file or directory");
	assert_int_equal(kvm_cache_key_fill(&k, NULL, "/dev/null", why, sizeof(why)), -EINVAL);
	assert_int_equal(
	    kvm_cache_key_fill(&k, "/dev/null", "/nonexistent/initrd", why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "probe initrd /nonexistent/initrd: No such file or directory");
}

static void test_override(void **state)
{
	enum kvm_verdict v = KVM_BROKEN;
	char why[256];

	(void)state;
	/* decided before /dev/kvm, the cache or the files are looked at */
	setenv("KTB_ACCEL", "tcg", 1);
	assert_int_equal(kvm_detect_in("/nonexistent", NULL, NULL, true, &v, why, sizeof(why)), 0);
	assert_int_equal(v, KVM_ABSENT);
	assert_string_equal(why, "KTB_ACCEL=tcg");
	setenv("KTB_ACCEL", "kvm", 1);
	assert_int_equal(kvm_detect_in("/nonexistent", NULL, NULL, false, &v, why, sizeof(why)), 0);
	assert_int_equal(v, KVM_WORKS);
	assert_string_equal(why, "KTB_ACCEL=kvm (not probed)");
	setenv("KTB_ACCEL", "hvf", 1);
	assert_int_equal(kvm_detect_in("/nonexistent", NULL, NULL, false, &v, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "KTB_ACCEL=hvf: expected tcg, kvm or auto");
	unsetenv("KTB_ACCEL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_bad_verdict),
		cmocka_unit_test(test_key_missing_files),
		cmocka_unit_test(test_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
