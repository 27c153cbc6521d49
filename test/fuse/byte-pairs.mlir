// Codes packed two per byte (issue #18): along K of an (N, K) weight (byte [n, k/2],
// even k in the low nibble), the same for a (K, N) weight (byte [k/2, n]), and GGML Q4_0 blocks as
// llama.cpp's block_q4_0 holds them, here as [N, K/32, 16] bytes (byte k % 16 of block k / 32, the low
// nibble for the block's first 16 k, the high one for the rest; d per block: scales (N, K/32)), and torchao's
// bit packing (even k in the high nibble). The byte's other nibble is sampled too, so a chain that reads a
// nibble wrong (3 bits, or the same nibble for both k) stays unfused. These forms are written here from the
// packings' definitions, not taken from an exporter's output.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// CHECK-LABEL: func.func @torch_uint4_n_k2(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      weight_layout = "packed_n_k2"
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @torch_uint4_n_k2(%x: tensor<?x256xf16>, %q: tensor<64x128xi8>, %scales: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cg = arith.constant 128 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kb = arith.divui %k, %c2 : index
    %byte = tensor.extract %q[%n, %kb] : tensor<64x128xi8>
    %kl = arith.remui %k, %c2 : index
    %kl8 = arith.index_cast %kl : index to i8
    %sh = arith.muli %kl8, %c4b : i8
    %v = arith.shrui %byte, %sh : i8
    %code = arith.andi %v, %c15b : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func @packed_k2_n(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      weight_layout = "packed_k2_n"
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @packed_k2_n(%x: tensor<?x256xf16>, %q: tensor<128x64xi8>, %scales: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cg = arith.constant 128 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kb = arith.divui %k, %c2 : index
    %byte = tensor.extract %q[%kb, %n] : tensor<128x64xi8>
    %kl = arith.remui %k, %c2 : index
    %kl8 = arith.index_cast %kl : index to i8
    %sh = arith.muli %kl8, %c4b : i8
    %v = arith.shrui %byte, %sh : i8
    %code = arith.andi %v, %c15b : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func @ggml_q4_0(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      group_size = 32
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "q4_0_blocks"
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @ggml_q4_0(%x: tensor<?x256xf16>, %q: tensor<64x8x16xi8>, %scales: tensor<64x8xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cg = arith.constant 32 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %blk = arith.divui %k, %c32 : index
    %j = arith.remui %k, %c16 : index
    %byte = tensor.extract %q[%n, %blk, %j] : tensor<64x8x16xi8>
    %kin = arith.remui %k, %c32 : index
    %half = arith.divui %kin, %c16 : index
    %half8 = arith.index_cast %half : index to i8
    %sh = arith.muli %half8, %c4b : i8
    %v = arith.shrui %byte, %sh : i8
    %code = arith.andi %v, %c15b : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%n, %g] : tensor<64x8xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}

// -----

// The odd k's code masked to 3 bits (15 >> (k % 2), no comparison): it differs only where a high nibble is
// 8 or more, which the codes' bytes sampled 0..15 never had.
// CHECK-LABEL: func.func @high_nibble_masked_to_3_bits(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @high_nibble_masked_to_3_bits(%x: tensor<?x256xf16>, %q: tensor<64x128xi8>, %scales: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cg = arith.constant 128 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kb = arith.divui %k, %c2 : index
    %byte = tensor.extract %q[%n, %kb] : tensor<64x128xi8>
    %kl = arith.remui %k, %c2 : index
    %kl8 = arith.index_cast %kl : index to i8
    %sh = arith.muli %kl8, %c4b : i8
    %v = arith.shrui %byte, %sh : i8
    %mask = arith.shrui %c15b, %kl8 : i8
    %code = arith.andi %v, %mask : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}

// -----

// Even k in the high nibble, as torchao packs two uint4 values into a byte (pytorch/ao, the experimental CPU
// kernels' fallback bitpacking, pack_2_uint4_values: "the first value goes into the high nibble, the second
// into the low nibble"), unpacked as byte >> 4 and byte & 15. The positions read are packed_n_k2's; the
// arithmetic picks the order.
// CHECK-LABEL: func.func @torchao_uint4_high_first(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      weight_layout = "packed_n_k2_hi"
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @torchao_uint4_high_first(%x: tensor<?x256xf16>, %q: tensor<64x128xi8>, %scales: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cg = arith.constant 128 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kb = arith.divui %k, %c2 : index
    %byte = tensor.extract %q[%n, %kb] : tensor<64x128xi8>
    %kl = arith.remui %k, %c2 : index
    %kl8 = arith.index_cast %kl : index to i8
    %one8 = arith.constant 1 : i8
    %first = arith.subi %one8, %kl8 : i8
    %sh = arith.muli %first, %c4b : i8
    %v = arith.shrui %byte, %sh : i8
    %code = arith.andi %v, %c15b : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}

// -----

// Both k of a byte read its low nibble: in neither nibble order.
// CHECK-LABEL: func.func @same_nibble_twice(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @same_nibble_twice(%x: tensor<?x256xf16>, %q: tensor<64x128xi8>, %scales: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cg = arith.constant 128 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kb = arith.divui %k, %c2 : index
    %byte = tensor.extract %q[%n, %kb] : tensor<64x128xi8>
    %code = arith.andi %byte, %c15b : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}
