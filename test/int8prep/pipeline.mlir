// The full pipeline (--w4a16-pipeline: fuse both patterns, verify, lower both, upstream to LLVM) turns the
// correction example into LLVM-dialect functions calling the int8prep runtime, with no linalg or w4a16 left.
// RUN: w4a16-opt --w4a16-pipeline %S/Inputs/llm_int8_correction.mlir | FileCheck %s
// CHECK-NOT:   linalg.
// CHECK-NOT:   w4a16.int8_prep
// CHECK:       llvm.func @prep_dyn(
// CHECK:         llvm.call @w4a16_rt_int8_prep(
// CHECK:       llvm.func @_mlir_ciface_prep_dyn(
// CHECK:       llvm.func @prep_l5(
// CHECK:         llvm.call @w4a16_rt_int8_prep(
// CHECK:       llvm.func @prep_l0(
// CHECK-NOT:     llvm.call @w4a16_rt_int8_prep(
// CHECK:       llvm.func @_mlir_ciface_prep_l0(
// CHECK:       llvm.func @_mlir_ciface_w4a16_rt_int8_prep(
// CHECK-NOT:   linalg.
