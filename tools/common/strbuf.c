#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tool_out_of_memory(void) {
  fprintf(stderr, "%s: error: out of memory\n", kToolName);
  exit(1);
}

void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap)
    return;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1)
    cap *= 2;
  char *data = realloc(sb->data, cap);
  if (!data)
    tool_out_of_memory();
  sb->data = data;
  sb->cap = cap;
}

void sb_append(StrBuf *sb, const char *s, size_t n) {
  sb_reserve(sb, n);
  if (n)
    memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sb_puts(StrBuf *sb, const char *s) { sb_append(sb, s, strlen(s)); }

void sb_putc_n(StrBuf *sb, char c, size_t n) {
  sb_reserve(sb, n);
  memset(sb->data + sb->len, c, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

void sb_clear(StrBuf *sb) {
  sb->len = 0;
  if (sb->data)
    sb->data[0] = '\0';
}

void sb_free(StrBuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

const char *sb_cstr(const StrBuf *sb) { return sb->data ? sb->data : ""; }

void sb_callback(MlirStringRef s, void *user) { sb_append((StrBuf *)user, s.data, s.length); }

bool strref_eq(MlirStringRef a, const char *b) {
  size_t n = strlen(b);
  return a.length == n && (n == 0 || memcmp(a.data, b, n) == 0);
}
