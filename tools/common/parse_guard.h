/* Input the MLIR 22 parser crashes on, caught before it is parsed.
 *
 * The builtin attribute parser segfaults on a dense array of `index` elements, `array<index: 1>` (upstream
 * mlir-opt too). No input may crash the tools, so textual input is scanned for `array<` followed by
 * whitespace or comments and the word `index` (outside string literals and `//` comments; the MLIR lexer
 * skips both between tokens), and such input is rejected with a located error instead. */
#ifndef W4A16_TOOLS_PARSE_GUARD_H
#define W4A16_TOOLS_PARSE_GUARD_H

#include "diagnostics.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

/* The error message of a rejected `array<index ...>`. */
extern const char *const kArrayIndexMessage;

/* MLIR bytecode (magic "ML\xEFR"): it does not go through the attribute parser, so it is not scanned. */
bool parse_guard_is_bytecode(const char *data, size_t len);

/* Offset of the first `array<index` in text[0, len), at its `a`; false when there is none. */
bool parse_guard_find_array_index(const char *text, size_t len, size_t *offset);

/* Scans src->text[begin, end) (a whole input or one --split-input-file chunk) unless it is bytecode. On a hit
 * emits kArrayIndexMessage at <src->name>:<line>:<col> of the whole text through ctx's diagnostic handler and
 * returns false: the caller must not parse the text. */
bool parse_guard_check(MlirContext ctx, const Source *src, size_t begin, size_t end);

#endif
