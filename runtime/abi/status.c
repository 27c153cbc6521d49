/* The compiled-code status of runtime_abi.h: per thread, the first failure since the status was last
 * cleared. A library of its own so that every library with entry points of compiled code records into the
 * one slot (w4a16_int8prep links it without the W4A16 runtime). */
#include "rt_status.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

static _Thread_local int32_t t_status;
static _Thread_local char t_message[512];
static _Thread_local const char *t_function;
static _Thread_local uint64_t t_prepareId;
static atomic_uint_least64_t g_prepareCalls;
/* The GPU target's device call (gpu_target.c): kept here so that w4a16_rt_leave ends it without a hook. */
static _Thread_local int32_t t_deviceCall;
static _Thread_local void *t_stream;

int32_t w4a16_rt_status(void) { return t_status; }

const char *w4a16_rt_last_error(void) { return t_message; }

void w4a16_rt_clear_status(void) {
  t_status = 0;
  t_message[0] = '\0';
}

void w4a16_rt_enter(const char *function, int32_t prepare) {
  w4a16_rt_clear_status();
  t_function = function;
  t_prepareId = prepare ? atomic_fetch_add(&g_prepareCalls, 1) + 1 : 0;
  t_deviceCall = 0; /* a host-target call: no stream of a previous device call leaks into it */
  t_stream = NULL;
}

int32_t w4a16_rt_leave(void) {
  t_function = NULL;
  t_prepareId = 0;
  t_deviceCall = 0;
  t_stream = NULL;
  return t_status;
}

void w4a16_rt_begin_device_call(void *stream) {
  t_deviceCall = 1;
  t_stream = stream;
}

int32_t w4a16_rt_device_call(void) { return t_deviceCall; }

void *w4a16_rt_stream(void) { return t_stream; }

int32_t w4a16_rt_fail(w4a16_status status, const char *fmt, ...) {
  if (t_status != 0 || status == W4A16_OK)
    return (int32_t)status;
  t_status = (int32_t)status;
  int used = t_function ? snprintf(t_message, sizeof t_message, "%s: ", t_function) : 0;
  if (used < 0 || (size_t)used >= sizeof t_message)
    used = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t_message + used, sizeof t_message - (size_t)used, fmt, ap);
  va_end(ap);
  return (int32_t)status;
}

uint64_t w4a16_rt_prepare_id(void) { return t_prepareId; }

const char *w4a16_rt_function(void) { return t_function; }
