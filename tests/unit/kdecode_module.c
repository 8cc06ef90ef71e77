/* A module for test_kdecode: compiled with -g -O0 -c into a relocatable
 * object, kd-fixture.ko, as a kernel module is one; its frames name it
 * kd_fixture, as the kernel does. kdm_helper and kdm_cold are each at
 * offset 0 of their own section. The test looks the lines up by their
 * markers. */
static int kdm_helper(int x) /* kdm_helper-line */
{
	return x * 7;
}

int kdm_entry(int x) /* kdm_entry-line */
{
	return kdm_helper(x) + 1;
}

__attribute__((section(".text.unlikely"))) int kdm_cold(int x) /* kdm_cold-line */
{
	return x - 3;
}
