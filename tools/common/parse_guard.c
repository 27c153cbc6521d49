#include "parse_guard.h"

#include "mlir-c/Diagnostics.h"

#include <string.h>

const char *const kArrayIndexMessage =
    "'array<index ...>' attributes are not supported: the MLIR 22 parser crashes on them";

bool parse_guard_is_bytecode(const char *data, size_t len) {
  return len >= 4 && data[0] == 'M' && data[1] == 'L' && (unsigned char)data[2] == 0xEF && data[3] == 'R';
}

/* Characters that continue a bare identifier or keyword: `myarray<` and `array<index_t` are other words. */
static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.';
}

static size_t skip_line(const char *text, size_t len, size_t i) {
  while (i < len && text[i] != '\n')
    ++i;
  return i;
}

/* Skips whitespace and // comments, as the lexer does between tokens. */
static size_t skip_trivia(const char *text, size_t len, size_t i) {
  for (;;) {
    if (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
      ++i;
    else if (i + 1 < len && text[i] == '/' && text[i + 1] == '/')
      i = skip_line(text, len, i);
    else
      return i;
  }
}

bool parse_guard_find_array_index(const char *text, size_t len, size_t *offset) {
  static const char kArray[] = "array<", kIndex[] = "index";
  const size_t array_len = sizeof(kArray) - 1, index_len = sizeof(kIndex) - 1;
  for (size_t i = 0; i < len;) {
    char c = text[i];
    if (c == '"') {
      /* A string literal: up to the closing quote, past escapes; the lexer ends it at a line break too. */
      for (++i; i < len && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\' && i + 1 < len && text[i + 1] != '\n')
          ++i;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < len && text[i + 1] == '/') {
      i = skip_line(text, len, i);
      continue;
    }
    if (c == 'a' && len - i >= array_len && memcmp(text + i, kArray, array_len) == 0 &&
        (i == 0 || !is_word_char(text[i - 1]))) {
      size_t j = skip_trivia(text, len, i + array_len);
      if (len - j >= index_len && memcmp(text + j, kIndex, index_len) == 0 &&
          (j + index_len == len || !is_word_char(text[j + index_len]))) {
        *offset = i;
        return true;
      }
    }
    ++i;
  }
  return false;
}

bool parse_guard_check(MlirContext ctx, const Source *src, size_t begin, size_t end) {
  const char *text = src->text + begin;
  size_t offset;
  if (parse_guard_is_bytecode(text, end - begin) || !parse_guard_find_array_index(text, end - begin, &offset))
    return true;
  unsigned line, col;
  source_position(src, begin + offset, &line, &col);
  MlirLocation loc = mlirLocationFileLineColGet(ctx, mlirStringRefCreateFromCString(src->name), line, col);
  mlirEmitError(loc, kArrayIndexMessage);
  return false;
}
