// w4a16-compile reports how many chains it fused (and, with --explain, one remark per candidate matmul); the
// fused build calls the runtime through its C interface and the --no-fuse build does not; both export
// _mlir_ciface_<fn>, w4a16c_run_<fn> and w4a16c_prepare_<fn>, and leave only the runtime's symbols undefined
// (the --no-fuse build none of them: it links without the runtime).
//
// RUN: w4a16-compile %s --explain -o %t.fused.o 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: w4a16-compile %s --no-fuse -o %t.unfused.o 2>&1 | FileCheck %s --check-prefix=NOFUSE
// RUN: w4a16-compile %s --emit-mlir -q | FileCheck %s --check-prefix=FUSED-IR
// RUN: w4a16-compile %s --emit-mlir --no-fuse -q | FileCheck %s --check-prefix=UNFUSED-IR
// RUN: w4a16-compile %s --emit-llvm -q -o %t.ll && FileCheck %s --check-prefix=LLVM --input-file=%t.ll
// RUN: w4a16-compile %s -q -o %t.so && nm -D %t.so | FileCheck %s --check-prefix=SYMS
// RUN: w4a16-compile %s -q --no-fuse -o %t.unfused.so && nm -D %t.unfused.so | FileCheck %s --check-prefix=SYMS-UNFUSED

// LOG: compile-fusion.mlir:[[@LINE+59]]:{{[0-9]+}}: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias
// LOG: compile-fusion.mlir:[[@LINE+93]]:{{[0-9]+}}: remark: w4a16: not fused: {{.*}}
// LOG: w4a16-compile: {{.*}}compile-fusion.mlir: fused 1 chain into w4a16.fused_matmul; 1 candidate matmul left unfused
// NOFUSE: fusion off (--no-fuse): upstream lowering only, 0 chains fused
// FUSED-IR: llvm.func @small(
// FUSED-IR: llvm.call @w4a16_rt_matmul_i32(
// FUSED-IR-NOT: llvm.call @w4a16_rt_matmul_i32(
// FUSED-IR: llvm.func @_mlir_ciface_small(
// FUSED-IR: llvm.call @_mlir_ciface_w4a16_rt_matmul_i32(
// UNFUSED-IR-NOT: w4a16_rt_matmul
// UNFUSED-IR: llvm.func @_mlir_ciface_small(
// UNFUSED-IR-NOT: w4a16_rt_matmul
// LLVM: call i32 @_mlir_ciface_w4a16_rt_matmul_i32(
// LLVM: define {{.*}}void @_mlir_ciface_small(ptr
// SYMS-DAG: T _mlir_ciface_small
// SYMS-DAG: T w4a16c_run_small
// SYMS-DAG: T w4a16c_prepare_small
// SYMS-DAG: U _mlir_ciface_w4a16_rt_matmul_i32
// SYMS-DAG: U w4a16_rt_enter
// SYMS-DAG: U w4a16_rt_leave
// SYMS-NOT: abort
// SYMS-UNFUSED-DAG: T _mlir_ciface_small
// SYMS-UNFUSED-DAG: T w4a16c_run_small
// SYMS-UNFUSED-DAG: T w4a16c_prepare_small
// SYMS-UNFUSED-NOT: w4a16_rt_

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @small(%x: tensor<?x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>,
                 %w7: tensor<32x64xi32>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %acc_e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %oe = tensor.empty(%m) : tensor<?x64xf16>
  %o = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x64xf32>, tensor<64xf16>) outs(%oe : tensor<?x64xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %s = arith.addf %a, %bf : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x64xf16>
  // A second chain with zero point 7.3 (a constant zero point must be a multiple of 1/8): must stay unfused.
  %de7 = tensor.empty() : tensor<256x64xf16>
  %deq7 = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de7 : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 7.300780e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %w7[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %acc7 = linalg.fill ins(%zero : f32) outs(%acc_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm7 = linalg.matmul ins(%x, %deq7 : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc7 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %re = tensor.empty(%m) : tensor<?x64xf16>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm7, %o : tensor<?x64xf32>, tensor<?x64xf16>) outs(%re : tensor<?x64xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %b : f16
    linalg.yield %s : f16
  } -> tensor<?x64xf16>
  return %r : tensor<?x64xf16>
}
