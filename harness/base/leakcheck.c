#include "leakcheck.h"

/* GCC says __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer) */
#if defined(__SANITIZE_ADDRESS__)
#define KTB_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KTB_LSAN 1
#endif
#endif

#ifdef KTB_LSAN
#include <sanitizer/lsan_interface.h>
#endif

void leak_check_now(void)
{
#ifdef KTB_LSAN
	/* does nothing when ASAN_OPTIONS says detect_leaks=0 */
	__lsan_do_leak_check();
#endif
}
