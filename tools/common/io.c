#define _POSIX_C_SOURCE 200809L /* access */

#include "io.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

IoStatus io_read_stream(FILE *f, StrBuf *out) {
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
    sb_append(out, chunk, n);
  if (!out->data)
    sb_append(out, "", 0);
  return ferror(f) ? IO_READ_FAILED : IO_OK;
}

IoStatus io_read_file(const char *path, StrBuf *out) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return IO_OPEN_FAILED;
  IoStatus s = io_read_stream(f, out);
  fclose(f);
  return s;
}

IoStatus io_check_writable(const char *path) {
  if (strcmp(path, "-") == 0)
    return IO_OK;
  bool existed = access(path, F_OK) == 0;
  FILE *f = fopen(path, "ab");
  if (!f)
    return IO_OPEN_FAILED;
  fclose(f);
  if (!existed)
    remove(path);
  errno = 0;
  return IO_OK;
}

IoStatus io_write_file(const char *path, const char *data, size_t len) {
  bool to_stdout = strcmp(path, "-") == 0;
  FILE *f = to_stdout ? stdout : fopen(path, "wb");
  if (!f)
    return IO_OPEN_FAILED;
  bool ok = fwrite(data ? data : "", 1, len, f) == len;
  if (to_stdout)
    fflush(stdout); /* stdout stays open for the caller; only fwrite failures are reported */
  else
    ok = fclose(f) == 0 && ok;
  return ok ? IO_OK : IO_WRITE_FAILED;
}
