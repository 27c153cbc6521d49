/* w4a16-opt --verify-diagnostics: mlir-opt's diagnostic verifier (SourceMgrDiagnosticVerifierHandler), in C.
 *
 * The input states the diagnostics it expects in comments:
 *
 *   // expected-error {{substring}}            on this line
 *   // expected-warning @+1 {{...}}            N lines below (@-N above)
 *   // expected-note @above {{...}}            on the last line that is not a designator (@below: the next one)
 *   // expected-remark @unknown {{...}}        at an unknown location
 *   // expected-error-re {{x = {{[0-9]+}}}}    {{...}} inside the text are POSIX extended regexes
 *
 * Every diagnostic (and every note, on its own) must match one of them by line, severity and substring, and
 * every expectation must be met. As in mlir-opt, a diagnostic that matches is not printed; one that does not is
 * an error "unexpected <severity>: <message>" at its location (or "'<severity>' diagnostic emitted when
 * expecting a '<severity>'" at the designator whose text it matched); an expectation left over is an error
 * `expected <severity> "<text>" was not produced` at its designator. only-expected mode ignores unexpected
 * diagnostics. As in mlir-opt, the designators are those of the whole input, also with --split-input-file, and
 * are checked once at the end; the note "see current operation: ..." that MLIR attaches to op errors is
 * passed over (mlir-opt does not emit it while verifying). */
#ifndef W4A16_OPT_VERIFY_DIAGNOSTICS_H
#define W4A16_OPT_VERIFY_DIAGNOSTICS_H

#include "diagnostics.h"
#include "options.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct Expected Expected;
typedef struct Deferred Deferred;

typedef struct Verifier {
  VerifyMode mode;
  DiagHandler *h; /* the tool's handler: source, file-name alias, error count, rendering */
  Expected *expected;
  size_t num_expected, cap_expected;
  Deferred *deferred; /* diagnostics seen while h buffers (verifier_flush_deferred decides) */
  size_t num_deferred, cap_deferred;
  bool failed;
} Verifier;

/* Collects the designators of the whole input text[0, len). */
void verifier_begin(Verifier *v, const char *text, size_t len);

/* MlirDiagnosticHandler (user data: the Verifier), attached after the tool's printing handler so that it sees
 * diagnostics first. While the printing handler buffers, diagnostics are kept and passed on to it. */
MlirLogicalResult verifier_handle(MlirDiagnostic d, void *verifier);

/* The printing handler stopped buffering: the kept diagnostics are verified (flush) or dropped. */
void verifier_flush_deferred(Verifier *v, bool flush);

/* Reports the expectations not met. True when every diagnostic was expected and every expectation met. */
bool verifier_end(Verifier *v);

void verifier_free(Verifier *v);

#endif
