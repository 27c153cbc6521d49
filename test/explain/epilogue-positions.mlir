// --w4a16-explain: an epilogue that computes with positions -- y + n, y + m -- is not the formula. It was
// checked at element (0, 0) only, where both are y, and was absorbed as "no epilogue" and erased (rel L2
// 1.0 from what the IR computes; found by a rewrite-safety hunt). The formula is now checked at sample rows
// and at columns spread over N; the matmul fuses and the epilogue stays in the IR.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s --check-prefix=IR

// IR-LABEL: func.func @plus_column_index(
// IR:         "w4a16.fused_matmul"
// IR:         linalg.index 1
func.func @plus_column_index(%x: tensor<4x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %res: tensor<4x64xf16>) -> (tensor<4x64xf16>) {
  %w_e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %s : tensor<32x64xi32>, tensor<2x64xf16>) outs(%w_e : tensor<256x64xf16>) {
  ^bb0(%word: i32, %scale: f16, %out: f16):
    %k = linalg.index 0 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %z = arith.constant 8.0 : f16
    %c = arith.subf %cf, %z : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %y_z = arith.constant 0.0 : f16
  %y_e = tensor.empty() : tensor<4x64xf16>
  %y_a = linalg.fill ins(%y_z : f16) outs(%y_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}epilogue-positions.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul; chain ends before {{.*}}: computes something other than
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%y_a : tensor<4x64xf16>) -> tensor<4x64xf16>
  %o_e = tensor.empty() : tensor<4x64xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x64xf16>) outs(%o_e : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %n = linalg.index 1 : index
    %ni = arith.index_cast %n : index to i32
    %nf = arith.sitofp %ni : i32 to f16
    %0 = arith.addf %in, %nf : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  return %o : tensor<4x64xf16>
}

// -----

// IR-LABEL: func.func @plus_row_index(
// IR:         "w4a16.fused_matmul"
// IR:         linalg.index 0
func.func @plus_row_index(%x: tensor<4x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %res: tensor<4x64xf16>) -> (tensor<4x64xf16>) {
  %w_e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %s : tensor<32x64xi32>, tensor<2x64xf16>) outs(%w_e : tensor<256x64xf16>) {
  ^bb0(%word: i32, %scale: f16, %out: f16):
    %k = linalg.index 0 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %z = arith.constant 8.0 : f16
    %c = arith.subf %cf, %z : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %y_z = arith.constant 0.0 : f16
  %y_e = tensor.empty() : tensor<4x64xf16>
  %y_a = linalg.fill ins(%y_z : f16) outs(%y_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}epilogue-positions.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul; chain ends before {{.*}}: computes something other than
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%y_a : tensor<4x64xf16>) -> tensor<4x64xf16>
  %o_e = tensor.empty() : tensor<4x64xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x64xf16>) outs(%o_e : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %n = linalg.index 0 : index
    %ni = arith.index_cast %n : index to i32
    %nf = arith.sitofp %ni : i32 to f16
    %0 = arith.addf %in, %nf : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  return %o : tensor<4x64xf16>
}
// CHECK-NOT: remark:
