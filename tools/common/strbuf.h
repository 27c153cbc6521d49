/* Growable NUL-terminated string buffer shared by the w4a16 tools (output text, diagnostics, headers). */
#ifndef W4A16_TOOLS_STRBUF_H
#define W4A16_TOOLS_STRBUF_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>

/* The running tool's name ("w4a16-opt"), defined once by each tool: the support library prefixes its own
 * messages (out of memory) with it, so a tool cannot forget to set it. */
extern const char *const kToolName;

/* Prints "<tool>: error: out of memory" and exits 1: the tools have nothing useful to do without memory. */
_Noreturn void tool_out_of_memory(void);

/* Zero-initialise ({0}); data stays NULL until something is appended, and is NUL-terminated after that. */
typedef struct StrBuf {
  char *data;
  size_t len, cap;
} StrBuf;

void sb_reserve(StrBuf *sb, size_t extra);
void sb_append(StrBuf *sb, const char *s, size_t n);
void sb_puts(StrBuf *sb, const char *s);
void sb_putc_n(StrBuf *sb, char c, size_t n);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void sb_printf(StrBuf *sb, const char *fmt, ...);
void sb_clear(StrBuf *sb);
void sb_free(StrBuf *sb);
/* The text, "" when nothing was ever appended. */
const char *sb_cstr(const StrBuf *sb);

/* MlirStringCallback that appends to the StrBuf passed as user data. */
void sb_callback(MlirStringRef s, void *user);

/* a == the C string b. */
bool strref_eq(MlirStringRef a, const char *b);

#endif
