// The w4a16 passes are registered by name (w4a16RegisterAll): --pass-pipeline, like mlirParsePassPipeline in
// an embedder, names them next to upstream passes, nested or not, with the same result as the pass flags.
// w4a16-explain, w4a16-explain-int8-prep and w4a16-pipeline are registered pass pipelines.
//
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-fuse)' %s > %t.text
// RUN: w4a16-opt --w4a16-fuse %s > %t.flag
// RUN: diff %t.text %t.flag
// RUN: FileCheck %s < %t.text
// RUN: w4a16-opt --pass-pipeline='builtin.module(func.func(canonicalize,w4a16-fuse,cse),w4a16-verify)' %s | FileCheck %s
// RUN: w4a16-opt --pass-pipeline='func.func(w4a16-fuse-int8-prep),w4a16-fuse' %s | FileCheck %s
// RUN: w4a16-opt --mlir-print-ir-before-all --pass-pipeline='builtin.module(func.func(w4a16-fuse),w4a16-verify)' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-explain)' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-pipeline)' %s > %t.pipeline.text
// RUN: w4a16-opt --w4a16-pipeline %s > %t.pipeline.flag
// RUN: diff %t.pipeline.text %t.pipeline.flag
// RUN: FileCheck %s --check-prefix=LLVM < %t.pipeline.text
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-fuse,w4a16-lower-to-runtime)' %s | FileCheck %s --check-prefix=LOWER
// A pipeline takes no options; unknown names are command-line errors as before.
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-pipeline{fuse=false})' %s 2>&1; test $? -eq 2
// RUN: not w4a16-opt --pass-pipeline='builtin.module(w4a16-pipeline{fuse=false})' %s 2>&1 | FileCheck %s --check-prefix=OPTIONS

// CHECK-LABEL: func.func @fused(
// CHECK:         "w4a16.fused_matmul"
// CHECK-NOT:     linalg.matmul
// ORDER:       IR Dump Before W4a16Fuse (w4a16-fuse)
// ORDER:       IR Dump Before W4a16Verify (w4a16-verify)
// EXPLAIN:     textual-pipeline.mlir:[[@LINE+35]]:8: remark: w4a16: fused as
// LLVM-NOT:    func.func
// LLVM:        llvm.func @_mlir_ciface_fused(
// LLVM:        llvm.call @_mlir_ciface_w4a16_rt_matmul_i32(
// LLVM:        llvm.func @w4a16c_run_fused(
// LOWER:       call @__w4a16_fused_matmul_0(
// OPTIONS:     'w4a16-pipeline' takes no options
func.func @fused(%x: tensor<16x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<16x64xf16> {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %zp = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<256x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kr_i32 = arith.index_cast %kr : index to i32
    %shift = arith.muli %kr_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %2 = tensor.empty() : tensor<16x64xf16>
  %3 = linalg.fill ins(%zero : f16) outs(%2 : tensor<16x64xf16>) -> tensor<16x64xf16>
  %4 = linalg.matmul ins(%x, %1 : tensor<16x256xf16>, tensor<256x64xf16>) outs(%3 : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %4 : tensor<16x64xf16>
}

