// --w4a16-explain on positions computed through constant index tables of more than 16 entries: such a table is
// evaluated, and it must give the plain index at EVERY row and column, not only at the sampled ones. Found in
// session 38: a table swapping two rows (k = 100 and 200 of K) or two columns of the codes, or two entries of a
// bias, fused as the plain chain (silent wrong output at those rows or columns); in session 39, a table of nibble
// positions with two entries swapped. The identity tables fuse.
// GPTQ-style words along K, zero point 8, K = 256, N = 64.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// Identity tables along K and N: the plain chain.
// CHECK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul
// IR-LABEL: func.func @identity_tables(
// IR:        w4a16.fused_matmul
// IR-NOT:    linalg.matmul
func.func @identity_tables(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kt = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255]> : tensor<256xindex>
    %kp = tensor.extract %kt[%k] : tensor<256xindex>
    %nt = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]> : tensor<64xindex>
    %np = tensor.extract %nt[%n] : tensor<64xindex>
    %kw = arith.divui %kp, %c8_i : index
    %word = tensor.extract %qweight[%kw, %np] : tensor<32x64xi32>
    %lane = arith.remui %kp, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

// -----

// Rows 100 and 200 of the codes swapped by the table along K.
// CHECK: remark: w4a16: not fused:
// IR-LABEL: func.func @rows_swapped(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @rows_swapped(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kt = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 200, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 100, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255]> : tensor<256xindex>
    %kp = tensor.extract %kt[%k] : tensor<256xindex>
    %kw = arith.divui %kp, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %kp, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

// -----

// Columns 10 and 40 of the codes swapped by the table along N.
// CHECK: remark: w4a16: not fused: a constant index table reads the code of (k = 0, n = 10) from another element
// IR-LABEL: func.func @columns_swapped(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @columns_swapped(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %nt = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 40, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 10, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]> : tensor<64xindex>
    %np = tensor.extract %nt[%n] : tensor<64xindex>
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %np] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

// -----

// The bias read as bias[t[n]] with entries 10 and 40 of t swapped: the matmul fuses, the bias stays outside.
// CHECK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul; chain ends before
// CHECK-SAME: reads a tensor<64xf16> tensor that is neither a bias (N) nor a residual (M, N)
// IR-LABEL: func.func @bias_entries_swapped(
// IR:        w4a16.fused_matmul
// IR:        tensor.extract %{{.*}}[%{{.*}}] : tensor<64xindex>
func.func @bias_entries_swapped(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  %bt = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 40, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 10, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]> : tensor<64xindex>
  %e2 = tensor.empty() : tensor<8x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<8x64xf16>) outs(%e2 : tensor<8x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %j = linalg.index 1 : index
    %pj = tensor.extract %bt[%j] : tensor<64xindex>
    %bv = tensor.extract %bias[%pj] : tensor<64xf16>
    %r = arith.addf %a, %bv : f16
    linalg.yield %r : f16
  } -> tensor<8x64xf16>
  return %yb : tensor<8x64xf16>
}

// -----

// A table of nibble positions along K (lane = table[k]; 256 entries, so it is evaluated, not folded): the identity
// (k mod 8) fuses. Found in session 39: with two entries swapped (rows 77 and 78 read each other's nibble of the same
// word) it fused as the plain unpack, since the every-row check compared only which word each row read.
// CHECK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul
// IR-LABEL: func.func @lane_table(
// IR:        w4a16.fused_matmul
// IR-NOT:    linalg.matmul
func.func @lane_table(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]> : tensor<256xi32>
    %lane = tensor.extract %lanes[%k] : tensor<256xi32>
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %sh = arith.muli %lane, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

// -----

// Rows 77 and 78 read each other's nibble.
// CHECK: remark: w4a16: not fused: a constant index table changes what (k = 77, n = 0) computes: {{.*}} (another nibble of the word, or another constant)
// IR-LABEL: func.func @lanes_swapped(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @lanes_swapped(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 6, 5, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]> : tensor<256xi32>
    %lane = tensor.extract %lanes[%k] : tensor<256xi32>
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %sh = arith.muli %lane, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

// -----

// Rows 200 and 201 (the second group) read each other's nibble.
// CHECK: remark: w4a16: not fused: a constant index table changes what (k = 200, n = 0) computes
// IR-LABEL: func.func @lanes_swapped_at_200(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @lanes_swapped_at_200(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 1, 0, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]> : tensor<256xi32>
    %lane = tensor.extract %lanes[%k] : tensor<256xi32>
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %sh = arith.muli %lane, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

// -----

// The identity table of nibble positions with float zero points (HQQ-style (code - z) * s): z is the first float the
// chain reads, so the arithmetic makes it the zero point only after the samples are taken. Until session 39 the
// every-row check's own evaluations read the floats in their first roles and refused the chain ("reads two float
// tensors, neither of them a zero point ...").
// CHECK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points g_n tensor<2x64xf16>) -> matmul
// IR-LABEL: func.func @lane_table_float_zero_points(
// IR:        w4a16.fused_matmul
// IR-NOT:    linalg.matmul
func.func @lane_table_float_zero_points(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %zeros: tensor<2x64xf16>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]> : tensor<256xi32>
    %lane = tensor.extract %lanes[%k] : tensor<256xi32>
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %sh = arith.muli %lane, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g0 = arith.divui %k, %cg_i : index
    %z = tensor.extract %zeros[%g0, %n] : tensor<2x64xf16>
    %c = arith.subf %cf, %z : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}


