// w4a16-compile's command line and error reporting: a parse error is located (file:line:col, the source line
// and a caret) and exits 1 without writing the output; command-line errors exit 2.
//
// RUN: not w4a16-compile %s -o %t.o 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: test ! -e %t.o
// RUN: sh -c 'w4a16-compile "$0" -o "$1" 2>/dev/null; echo "rc=$?"' %s %t.o | FileCheck %s --check-prefix=RC1
// RUN: sh -c 'w4a16-compile 2>/dev/null; echo "rc=$?"' | FileCheck %s --check-prefix=RC2
// RUN: not w4a16-compile --bogus %s -o %t.o 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: sh -c 'w4a16-compile --bogus "$0" -o "$1" 2>/dev/null; echo "rc=$?"' %s %t.o | FileCheck %s --check-prefix=RC2
// RUN: not w4a16-compile %s 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: not w4a16-compile %s -o %t.exe 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not w4a16-compile %t.does-not-exist.mlir -o %t.o 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: w4a16-compile --help | FileCheck %s --check-prefix=HELP
// RUN: not w4a16-compile --target=tpu %s -o %t.o 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not w4a16-compile --target=gpu --gpu-chip=sm_90,inline %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CHIP

// PARSE: compile-errors.mlir:[[@LINE+4]]:23: error: use of undeclared SSA value name
// PARSE-NEXT: {{^}}  %0 = arith.addf %x, %y : tensor<4xf16>
// PARSE-NEXT: {{^}}                      ^
func.func @f(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = arith.addf %x, %y : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// RC1: rc=1
// RC2: rc=2
// FLAG: w4a16-compile: error: unknown option '--bogus'
// NOOUT: w4a16-compile: error: no output file (-o out.o or -o out.so)
// KIND: w4a16-compile: error: cannot tell the output kind of '{{.*}}.exe'
// MISSING: w4a16-compile: error: cannot read '{{.*}}does-not-exist.mlir'
// HELP: usage: w4a16-compile <input.mlir> -o <out.o|out.so> [options]
// HELP: --header <file>
// TARGET: w4a16-compile: error: unknown target in '--target=tpu' (--target=host or --target=gpu)
// CHIP: w4a16-compile: error: '--gpu-chip=sm_90,inline': --gpu-chip=sm_XX names an NVIDIA architecture, e.g. sm_90
// HELP: --no-fuse
// HELP: --explain
// HELP: --emit-mlir
// HELP: --target=host|gpu
