/* What the libraries holding entry points of compiled code (w4a16_rt_abi, w4a16_int8prep) share: the
 * thread's compiled-code status (status.c). Not installed; the public half is in w4a16/runtime_abi.h. */
#ifndef W4A16_RT_STATUS_H
#define W4A16_RT_STATUS_H

#include "w4a16/runtime_abi.h"

#include <stdint.h>

/* Records a failure of an entry point on the calling thread unless one is recorded already (the first
 * failure is the one that explains the rest), and returns status. The message is prefixed with the name of
 * the function being run when a generated entry point runs it. Never prints. */
int32_t w4a16_rt_fail(w4a16_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Nonzero while a generated prepare entry point runs on this thread: one value per prepare call. */
uint64_t w4a16_rt_prepare_id(void);

/* The name of the compiled function a generated entry point is running on this thread, or NULL. */
const char *w4a16_rt_function(void);

/* Starts a device call on this thread (w4a16_rt_enter_device, after w4a16_rt_enter): w4a16_rt_stream()
 * returns stream and w4a16_rt_device_call() 1 until w4a16_rt_leave or the next w4a16_rt_enter. */
void w4a16_rt_begin_device_call(void *stream);

#endif
