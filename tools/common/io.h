/* Whole-file input and output for the w4a16 tools. Failures are returned, not printed: each tool words its
 * own messages (and its tests check them). */
#ifndef W4A16_TOOLS_IO_H
#define W4A16_TOOLS_IO_H

#include "strbuf.h"

#include <stdio.h>

typedef enum IoStatus {
  IO_OK,
  IO_OPEN_FAILED, /* errno is still that of fopen when the caller sees this */
  IO_READ_FAILED,
  IO_WRITE_FAILED
} IoStatus;

/* Appends everything left in f to out. out->data is non-NULL afterwards, also for empty input, so that the
 * text can be handed on as a C string. */
IoStatus io_read_stream(FILE *f, StrBuf *out);

/* Reads the file at path into out. "-" is a file named "-" here; a tool that reads stdin for "-" says so
 * itself (io_read_stream(stdin, ...)). */
IoStatus io_read_file(const char *path, StrBuf *out);

/* Whether path can be written, checked by opening it for appending (a file created by the check is removed
 * again): so that a tool reports an unwritable output before doing the work. "-" (stdout) always can.
 * IO_OPEN_FAILED leaves errno set. */
IoStatus io_check_writable(const char *path);

/* Writes data[0, len) to path, replacing it; "-" is stdout (flushed, not closed). */
IoStatus io_write_file(const char *path, const char *data, size_t len);

#endif
