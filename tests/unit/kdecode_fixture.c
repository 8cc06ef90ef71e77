/* A program for test_kdecode: functions at known lines, built with -g -O0
 * (and once without debug information). The line numbers matter: the test
 * looks the lines up in this file by their markers. */
__attribute__((noinline)) int kd_leaf(int x) /* kd_leaf-line */
{
	return x * 3 + 1;
}

static inline __attribute__((always_inline)) int kd_inlined(int x)
{
	return kd_leaf(x) + 2; /* kd_inlined-call */
}

__attribute__((noinline)) int kd_outer(int x)
{
	return kd_inlined(x) * 5; /* kd_outer-call */
}

int main(int argc, char **argv)
{
	(void)argv;
	return kd_outer(argc) & 1;
}
