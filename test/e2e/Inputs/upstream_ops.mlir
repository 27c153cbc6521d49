// Upstream ops that whole exported blocks carry and that the host pipeline used to stop on (a probe of 185 forms,
// session 43): linalg.softmax kept whole (IREE's torch and ONNX input), RoPE written with complex numbers,
// math.copysign / math.isnan, and a loop that yields a new tensor each step. Compiled by w4a16-compile and run
// by upstream_ops_test.c against C references.
#row = affine_map<(d0, d1) -> (d0, d1)>
#id = affine_map<(d0) -> (d0)>

// Attention's softmax over each row, with the -inf a causal mask leaves.
func.func @softmax(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// The same in f16, on a dynamic number of rows.
func.func @softmax_f16(%x: tensor<?x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x16xf16>
  %e = tensor.empty(%m) : tensor<?x16xf16>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x16xf16>) outs(%e : tensor<?x16xf16>) -> tensor<?x16xf16>
  return %r : tensor<?x16xf16>
}

// Rotary embedding as torch's view_as_complex form computes it: (a + ib) * exp(i theta); the real part (a cos
// theta - b sin theta), and |(a + ib) / exp(i theta)| = |a + ib| through complex.div and complex.abs.
func.func @rope_real(%a: tensor<8xf32>, %b: tensor<8xf32>, %theta: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b, %theta : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%re: f32, %im: f32, %t: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %z = complex.create %re, %im : complex<f32>
    %it = complex.create %zero, %t : complex<f32>
    %rot = complex.exp %it : complex<f32>
    %p = complex.mul %z, %rot : complex<f32>
    %v = complex.re %p : complex<f32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @rope_abs(%a: tensor<8xf32>, %b: tensor<8xf32>, %theta: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b, %theta : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%re: f32, %im: f32, %t: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %z = complex.create %re, %im : complex<f32>
    %it = complex.create %zero, %t : complex<f32>
    %rot = complex.exp %it : complex<f32>
    %q = complex.div %z, %rot : complex<f32>
    %v = complex.abs %q : complex<f32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// copysign(x, y), and 0 where x is NaN (math.isnan).
func.func @copysign_nan(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#row, #row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = math.copysign %a, %b : f32
    %nan = math.isnan %a : f32
    %v = arith.select %nan, %zero, %s : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// x * (n + 1) by n additions, each step a new tensor (not x's buffer: x is an input).
func.func @repeat_add(%x: tensor<4x16xf32>, %n: index) -> tensor<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %x) -> (tensor<4x16xf32>) {
    %e = tensor.empty() : tensor<4x16xf32>
    %s = linalg.add ins(%t, %x : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}
