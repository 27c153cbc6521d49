// relu and gelu_erf epilogues (docs/contract.md §1): OPT's fc1 is followed by relu, GPT-NeoX, Falcon, MPT and BERT
// use PyTorch's exact gelu. Each as exporters spell it: torch-mlir's relu is a select on an unordered compare
// (cmpf ugt), its exact gelu divides by math.sqrt(2) in the input's type; StableHLO-style IR writes relu as
// arith.maximumf and gelu in f32 with 1 / sqrt 2 as a constant. The fused op propagates a NaN product, so a relu
// that turns NaN into 0 (arith.maxnumf, or a select on an ordered compare) ends the chain at the bias.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// torch-mlir: aten.add (the bias) then aten.relu as select(x > 0 or unordered, x, 0).

// CHECK-LABEL: func.func @relu_torch_mlir(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "relu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
// REMARK: {{.*}}: remark: w4a16: fused as {{.*}}relu
func.func @relu_torch_mlir(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %z = arith.constant 0.000000e+00 : f16
    %p = arith.cmpf ugt, %in, %z : f16
    %r = arith.select %p, %in, %z : f16
    linalg.yield %r : f16
  } -> tensor<4x64xf16>
  return %act : tensor<4x64xf16>
}

// -----

// One generic for bias, relu as arith.maximumf (which keeps a NaN) and the residual: all of it fuses.

// CHECK-LABEL: func.func @relu_maximumf_residual(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "relu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
// REMARK: {{.*}}: remark: w4a16: fused as {{.*}}relu -> residual
func.func @relu_maximumf_residual(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>, %res: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %oe = tensor.empty() : tensor<4x64xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias, %res : tensor<4x64xf16>, tensor<64xf16>, tensor<4x64xf16>) outs(%oe : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %r: f16, %out: f16):
    %z = arith.constant 0.000000e+00 : f16
    %0 = arith.addf %in, %b : f16
    %1 = arith.maximumf %0, %z : f16
    %2 = arith.addf %1, %r : f16
    linalg.yield %2 : f16
  } -> tensor<4x64xf16>
  return %o : tensor<4x64xf16>
}

// -----

// select(x > 0 ordered, x, 0) gives 0 for NaN: not the fused op's relu, the chain ends at the bias.

// CHECK-LABEL: func.func @relu_ogt_select_scrubs_nan(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<4x64xf16>)
// CHECK:         return %[[A]]
// REMARK: {{.*}}: remark: w4a16: fused as {{.*}}: replaces a NaN result
func.func @relu_ogt_select_scrubs_nan(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %z = arith.constant 0.000000e+00 : f16
    %p = arith.cmpf ogt, %in, %z : f16
    %r = arith.select %p, %in, %z : f16
    linalg.yield %r : f16
  } -> tensor<4x64xf16>
  return %act : tensor<4x64xf16>
}

// -----

// arith.maxnumf(x, 0) returns 0 for NaN: the chain ends at the bias.

// CHECK-LABEL: func.func @relu_maxnumf_scrubs_nan(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<4x64xf16>)
// CHECK:         return %[[A]]
// REMARK: {{.*}}: remark: w4a16: fused as {{.*}}: replaces a NaN result
func.func @relu_maxnumf_scrubs_nan(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %z = arith.constant 0.000000e+00 : f16
    %r = arith.maxnumf %in, %z : f16
    linalg.yield %r : f16
  } -> tensor<4x64xf16>
  return %act : tensor<4x64xf16>
}

// -----

// torch-mlir: aten.gelu(approximate = "none") in f16: x * (0.5 * (1 + erf(x / sqrt(2)))).

// CHECK-LABEL: func.func @gelu_erf_torch_mlir(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "gelu_erf"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
// REMARK: {{.*}}: remark: w4a16: fused as {{.*}}gelu_erf
func.func @gelu_erf_torch_mlir(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %two = arith.constant 2.000000e+00 : f16
    %half = arith.constant 5.000000e-01 : f16
    %s2 = math.sqrt %two : f16
    %0 = arith.divf %in, %s2 : f16
    %1 = math.erf %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.mulf %2, %half : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<4x64xf16>
  return %act : tensor<4x64xf16>
}

// -----

// gelu in f32 between extf and truncf, 1 / sqrt 2 as an f32 constant: (0.5 x) (1 + erf(x / sqrt 2)).

// CHECK-LABEL: func.func @gelu_erf_f32(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "gelu_erf"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
// REMARK: {{.*}}: remark: w4a16: fused as {{.*}}gelu_erf
func.func @gelu_erf_f32(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %0 = arith.extf %in : f16 to f32
    %1 = arith.mulf %0, %rsqrt2 : f32
    %2 = math.erf %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.mulf %0, %half : f32
    %5 = arith.mulf %4, %3 : f32
    %6 = arith.truncf %5 : f32 to f16
    linalg.yield %6 : f16
  } -> tensor<4x64xf16>
  return %act : tensor<4x64xf16>
}
