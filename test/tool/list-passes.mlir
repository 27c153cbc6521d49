// --list-passes prints every registered pass as mlir-opt does (upstream and w4a16 ones), then the w4a16 pass
// pipelines; --show-dialects the dialects the tool knows, the IRDL-defined w4a16 one included, in mlir-opt's
// format. Both exit 0 without reading any input.
//
// RUN: w4a16-opt --list-passes < /dev/null | FileCheck %s
// RUN: w4a16-opt --show-dialects < /dev/null | FileCheck %s --check-prefix=DIALECTS
// Every upstream pass listed is one mlir-opt lists, with the same description (the column differs: mlir-opt
// also has its test passes).
// RUN: mlir-opt --list-passes | grep -e '^  --[a-z]' | tr -s ' ' | sort > %t.mlir-opt
// RUN: w4a16-opt --list-passes | grep -e '^  --[a-z]' | tr -s ' ' | grep -v -e '^ --w4a16-' | sort > %t.upstream
// RUN: comm -13 %t.mlir-opt %t.upstream | count 0
// RUN: grep -c . %t.upstream | FileCheck %s --check-prefix=MANY

// CHECK:      Passes:
// CHECK-DAG:  --canonicalize - Canonicalize operations
// CHECK-DAG:  --one-shot-bufferize
// CHECK-DAG:  --w4a16-entry-points - Add status-returning
// CHECK-DAG:  --w4a16-fuse - Fuse dequant-matmul-epilogue chains
// CHECK-DAG:  --w4a16-fuse-int8-prep -
// CHECK-DAG:  --w4a16-lower-int8-prep -
// CHECK-DAG:  --w4a16-lower-to-runtime -
// CHECK-DAG:  --w4a16-merge-siblings - Merge fused matmuls that read the same x
// CHECK-DAG:  --w4a16-split-chunked-glu - Split a fused gate_up projection
// CHECK-DAG:  --w4a16-verify -
// CHECK:      Pass Pipelines:
// CHECK-NEXT: --w4a16-explain - Like w4a16-fuse, w4a16-split-chunked-glu then w4a16-merge-siblings, and report
// CHECK-NEXT: --w4a16-explain-int8-prep -
// CHECK-NEXT: --w4a16-pipeline - Inline, fuse, verify, lower

// MANY: {{[1-9][0-9][0-9]+}}
// DIALECTS: Available Dialects: {{.*}},bufferization,builtin,{{.*}},func,{{.*}},linalg,llvm,{{.*}},tensor,{{.*}},w4a16,{{[a-z0-9_,]+$}}
