// Weights, scales and zero points that are windows of larger stored tensors -- a tensor-parallel shard of a
// checkpoint loaded whole (vLLM's ColumnParallelLinear / RowParallelLinear on one rank), taken by a static,
// unit-stride tensor.extract_slice before the unpacking. The op takes the windows as they are (bufferized, strided
// memref subviews the runtime reads through their strides: docs/contract.md). Found by session 42's probe of
// exporter forms: until then these stayed unfused with a remark about the codes' layout, since the matcher read
// through the slice and laid out the whole tensor's positions. The windows are tried only where that first reading
// fails, so slices that make up one tensor (HQQ's halves) are still read through.
// Look-alike: a stride-2 column slice is no window the runtime reads as one; it stays unfused.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Column shard: GPTQ words (K/8, 2N) and scales (K/G, 2N), this rank's columns [N, 2N).
// CHECK-LABEL: func.func @tp_cols(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x128xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x128xf16>
// CHECK-DAG:     %[[QWW:.+]] = tensor.extract_slice %[[QW]][0, 64] [32, 64] [1, 1] : tensor<32x128xi32> to tensor<32x64xi32>
// CHECK-DAG:     %[[SW:.+]] = tensor.extract_slice %[[S]][0, 64] [8, 64] [1, 1] : tensor<8x128xf16> to tensor<8x64xf16>
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QWW]], %[[SW]])
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]]
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 32) -> matmul
func.func @tp_cols(%x: tensor<?x256xf16>, %qwf: tensor<32x128xi32>, %sf: tensor<8x128xf16>) -> tensor<?x64xf16> {
  %qw = tensor.extract_slice %qwf[0, 64] [32, 64] [1, 1] : tensor<32x128xi32> to tensor<32x64xi32>
  %s = tensor.extract_slice %sf[0, 64] [8, 64] [1, 1] : tensor<8x128xf16> to tensor<8x64xf16>
  %we_ = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we_ : tensor<256x64xf16>) {
  ^bb0(%o_: f16):
    %k_ = linalg.index 0 : index
    %n_ = linalg.index 1 : index
    %c8_ = arith.constant 8 : index
    %cG_ = arith.constant 32 : index
    %c4_ = arith.constant 4 : i32
    %c15_ = arith.constant 15 : i32
    %zp_ = arith.constant 8.0 : f16
    %kw_ = arith.divui %k_, %c8_ : index
    %word_ = tensor.extract %qw[%kw_, %n_] : tensor<32x64xi32>
    %kr_ = arith.remui %k_, %c8_ : index
    %kri_ = arith.index_cast %kr_ : index to i32
    %sh_ = arith.muli %kri_, %c4_ : i32
    %v_ = arith.shrui %word_, %sh_ : i32
    %q_ = arith.andi %v_, %c15_ : i32
    %qf_ = arith.uitofp %q_ : i32 to f16
    %cz_ = arith.subf %qf_, %zp_ : f16
    %g_ = arith.divui %k_, %cG_ : index
    %sc_ = tensor.extract %s[%g_, %n_] : tensor<8x64xf16>
    %r_ = arith.mulf %cz_, %sc_ : f16
    linalg.yield %r_ : f16
  } -> tensor<256x64xf16>
  %c0_m = arith.constant 0 : index
  %dm_ = tensor.dim %x, %c0_m : tensor<?x256xf16>
  %ye_ = tensor.empty(%dm_) : tensor<?x64xf16>
  %zf_ = arith.constant 0.0 : f16
  %yf_ = linalg.fill ins(%zf_ : f16) outs(%ye_ : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%yf_ : tensor<?x64xf16>) -> tensor<?x64xf16>

  return %y : tensor<?x64xf16>
}

// -----

// Row shard: i4 codes (2K, N) and scales (2K/G, N), this rank's rows [K, 2K) (x is this rank's K slice).
// CHECK-LABEL: func.func @tp_rows(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<512x64xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<16x64xf16>
// CHECK-DAG:     %[[QW:.+]] = tensor.extract_slice %[[Q]][256, 0] [256, 64] [1, 1]
// CHECK-DAG:     %[[SW:.+]] = tensor.extract_slice %[[S]][8, 0] [8, 64] [1, 1]
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[SW]])
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]]
// EXPLAIN: remark: w4a16: fused as dequant(k_n, scales g_n, group 32) -> matmul
func.func @tp_rows(%x: tensor<?x256xf16>, %qf: tensor<512x64xi4>, %sf: tensor<16x64xf16>) -> tensor<?x64xf16> {
  %q = tensor.extract_slice %qf[256, 0] [256, 64] [1, 1] : tensor<512x64xi4> to tensor<256x64xi4>
  %s = tensor.extract_slice %sf[8, 0] [8, 64] [1, 1] : tensor<16x64xf16> to tensor<8x64xf16>
  %c8 = arith.constant 8.0 : f16
  %e0 = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<256x64xi4>) outs(%e0 : tensor<256x64xf16>) {
  ^bb0(%in: i4, %o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c32 = arith.constant 32 : index
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %d = arith.subf %f, %c8 : f16
    %m = arith.mulf %d, %sc : f16
    linalg.yield %m : f16
  } -> tensor<256x64xf16>
  %c0_m = arith.constant 0 : index
  %dm_ = tensor.dim %x, %c0_m : tensor<?x256xf16>
  %ye_ = tensor.empty(%dm_) : tensor<?x64xf16>
  %zf_ = arith.constant 0.0 : f16
  %yf_ = linalg.fill ins(%zf_ : f16) outs(%ye_ : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%yf_ : tensor<?x64xf16>) -> tensor<?x64xf16>

  return %y : tensor<?x64xf16>
}

// -----

// Look-alike: every second column of the words and scales (stride 2).
// CHECK-LABEL: func.func @strided(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// EXPLAIN: remark: w4a16: not fused: packed i32 codes are not laid out as (K/8, N), (K, N/8) or (N, K/8) words
func.func @strided(%x: tensor<?x256xf16>, %qwf: tensor<32x128xi32>, %sf: tensor<8x128xf16>) -> tensor<?x64xf16> {
  %qw = tensor.extract_slice %qwf[0, 1] [32, 64] [1, 2] : tensor<32x128xi32> to tensor<32x64xi32>
  %s = tensor.extract_slice %sf[0, 1] [8, 64] [1, 2] : tensor<8x128xf16> to tensor<8x64xf16>
  %we_ = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we_ : tensor<256x64xf16>) {
  ^bb0(%o_: f16):
    %k_ = linalg.index 0 : index
    %n_ = linalg.index 1 : index
    %c8_ = arith.constant 8 : index
    %cG_ = arith.constant 32 : index
    %c4_ = arith.constant 4 : i32
    %c15_ = arith.constant 15 : i32
    %zp_ = arith.constant 8.0 : f16
    %kw_ = arith.divui %k_, %c8_ : index
    %word_ = tensor.extract %qw[%kw_, %n_] : tensor<32x64xi32>
    %kr_ = arith.remui %k_, %c8_ : index
    %kri_ = arith.index_cast %kr_ : index to i32
    %sh_ = arith.muli %kri_, %c4_ : i32
    %v_ = arith.shrui %word_, %sh_ : i32
    %q_ = arith.andi %v_, %c15_ : i32
    %qf_ = arith.uitofp %q_ : i32 to f16
    %cz_ = arith.subf %qf_, %zp_ : f16
    %g_ = arith.divui %k_, %cG_ : index
    %sc_ = tensor.extract %s[%g_, %n_] : tensor<8x64xf16>
    %r_ = arith.mulf %cz_, %sc_ : f16
    linalg.yield %r_ : f16
  } -> tensor<256x64xf16>
  %c0_m = arith.constant 0 : index
  %dm_ = tensor.dim %x, %c0_m : tensor<?x256xf16>
  %ye_ = tensor.empty(%dm_) : tensor<?x64xf16>
  %zf_ = arith.constant 0.0 : f16
  %yf_ = linalg.fill ins(%zf_ : f16) outs(%ye_ : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%yf_ : tensor<?x64xf16>) -> tensor<?x64xf16>

  return %y : tensor<?x64xf16>
}
