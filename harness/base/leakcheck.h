/* The sanitizer's leak check for the forked children that end with _exit
 * (the -j workers, the guardian): _exit skips the exit-time check that every
 * other ktb process gets, so their leaks would go unseen. */
#ifndef KTB_LEAKCHECK_H
#define KTB_LEAKCHECK_H

/* In the sanitizer build: report what this process leaked, and end it with
 * LeakSanitizer's exit code when it leaked anything. Otherwise nothing. Call
 * it once, just before _exit, after freeing what the process owns. */
void leak_check_now(void);

#endif
