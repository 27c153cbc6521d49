// --help lists every option and every w4a16 pass with its description, and exits 0.
//
// RUN: w4a16-opt --help | FileCheck %s
// RUN: w4a16-opt -h | FileCheck %s
// RUN: w4a16-opt --version | FileCheck %s --check-prefix=VERSION

// CHECK: USAGE: w4a16-opt [options] [<input file>]
// CHECK: OPTIONS:
// CHECK-DAG: -o <file>
// CHECK-DAG: --split-input-file
// CHECK-DAG: --output-split-marker
// CHECK-DAG: --allow-unregistered-dialect
// CHECK-DAG: --no-implicit-module
// CHECK-DAG: --pass-pipeline=<pipeline>
// CHECK-DAG: --verify-each
// CHECK-DAG: --verify-diagnostics[=all|only-expected]
// CHECK-DAG: --list-passes
// CHECK-DAG: --show-dialects
// CHECK-DAG: --mlir-print-op-generic
// CHECK-DAG: --mlir-print-debuginfo
// CHECK-DAG: --mlir-pretty-debuginfo
// CHECK-DAG: --mlir-print-local-scope
// CHECK-DAG: --mlir-elide-elementsattrs-if-larger
// CHECK-DAG: --mlir-disable-threading
// CHECK-DAG: --mlir-print-ir-after-all
// CHECK-DAG: --help
// CHECK: W4A16 PASSES
// CHECK-DAG: --w4a16-fuse {{ *}}- Fuse dequant
// CHECK-DAG: --w4a16-explain {{ *}}- {{.*}}fused
// CHECK-DAG: --w4a16-verify {{ *}}- Check

// VERSION: w4a16-opt {{[0-9]+\.[0-9]+\.[0-9]+}}
