// A LLaMA-style MLP (hidden 512, intermediate 1024) whose nn.Linear layers optimum-quanto quantised to qint4
// (group 128, float shift), each projection unpacked and dequantised as examples/quanto_int4.mlir (whose header
// cites quanto's code) and lowered the same way: down(silu(gate(x)) * up(x)).
//
// Expected: three fused chains, layout halves_n_k_lo with subtracted offsets; gate and up, which read the same x,
// merge into one GLU launch (merge-siblings) that carries offsets_subtracted for both members: two plans.

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @quanto_mlp(%x: tensor<?x512xf16>,
    %gate_packed: tensor<2048x128xi8>, %gate_scale: tensor<4096x1xf16>, %gate_shift: tensor<4096x1xf16>,
    %up_packed: tensor<2048x128xi8>, %up_scale: tensor<4096x1xf16>, %up_shift: tensor<4096x1xf16>,
    %down_packed: tensor<2048x128xi8>, %down_scale: tensor<4096x1xf16>, %down_shift: tensor<4096x1xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %zf = arith.constant 0.0 : f32
  %e8_gate = tensor.empty() : tensor<2048x128xi8>
  %gate_lo_m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate_packed : tensor<2048x128xi8>) outs(%e8_gate : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 15 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %gate_hi_m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate_packed : tensor<2048x128xi8>) outs(%e8_gate : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant -1 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %gate_hi = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate_hi_m : tensor<2048x128xi8>) outs(%e8_gate : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 4 : i8
    %r = arith.shrui %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %gate_data = tensor.concat dim(0) %gate_lo_m, %gate_hi : (tensor<2048x128xi8>, tensor<2048x128xi8>) -> tensor<4096x128xi8>
  %gate_ef = tensor.empty() : tensor<4096x128xf16>
  %gate_scaled = linalg.generic {indexing_maps = [#bc, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate_scale, %gate_data : tensor<4096x1xf16>, tensor<4096x128xi8>) outs(%gate_ef : tensor<4096x128xf16>) {
  ^bb0(%s: f16, %q: i8, %o: f16):
    %qf = arith.uitofp %q : i8 to f16
    %r = arith.mulf %s, %qf : f16
    linalg.yield %r : f16
  } -> tensor<4096x128xf16>
  %gate_dq = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%gate_scaled, %gate_shift : tensor<4096x128xf16>, tensor<4096x1xf16>) outs(%gate_ef : tensor<4096x128xf16>) {
  ^bb0(%v: f16, %sh: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %s1 = arith.mulf %sh, %one : f16
    %r = arith.subf %v, %s1 : f16
    linalg.yield %r : f16
  } -> tensor<4096x128xf16>
  %gate_flat = tensor.collapse_shape %gate_dq [[0, 1]] : tensor<4096x128xf16> into tensor<524288xf16>
  %gate_w = tensor.expand_shape %gate_flat [[0, 1]] output_shape [1024, 512] : tensor<524288xf16> into tensor<1024x512xf16>
  %gate_et = tensor.empty() : tensor<512x1024xf16>
  %gate_wt = linalg.transpose ins(%gate_w : tensor<1024x512xf16>) outs(%gate_et : tensor<512x1024xf16>) permutation = [1, 0]
  %gate_e32 = tensor.empty(%m) : tensor<?x1024xf32>
  %gate_acc = linalg.fill ins(%zf : f32) outs(%gate_e32 : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %gate_y32 = linalg.matmul ins(%x, %gate_wt : tensor<?x512xf16>, tensor<512x1024xf16>) outs(%gate_acc : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %gate_eo = tensor.empty(%m) : tensor<?x1024xf16>
  %gate_y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate_y32 : tensor<?x1024xf32>) outs(%gate_eo : tensor<?x1024xf16>) {
  ^bb0(%v: f32, %o: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x1024xf16>
  %e8_up = tensor.empty() : tensor<2048x128xi8>
  %up_lo_m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%up_packed : tensor<2048x128xi8>) outs(%e8_up : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 15 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %up_hi_m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%up_packed : tensor<2048x128xi8>) outs(%e8_up : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant -1 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %up_hi = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%up_hi_m : tensor<2048x128xi8>) outs(%e8_up : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 4 : i8
    %r = arith.shrui %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %up_data = tensor.concat dim(0) %up_lo_m, %up_hi : (tensor<2048x128xi8>, tensor<2048x128xi8>) -> tensor<4096x128xi8>
  %up_ef = tensor.empty() : tensor<4096x128xf16>
  %up_scaled = linalg.generic {indexing_maps = [#bc, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%up_scale, %up_data : tensor<4096x1xf16>, tensor<4096x128xi8>) outs(%up_ef : tensor<4096x128xf16>) {
  ^bb0(%s: f16, %q: i8, %o: f16):
    %qf = arith.uitofp %q : i8 to f16
    %r = arith.mulf %s, %qf : f16
    linalg.yield %r : f16
  } -> tensor<4096x128xf16>
  %up_dq = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%up_scaled, %up_shift : tensor<4096x128xf16>, tensor<4096x1xf16>) outs(%up_ef : tensor<4096x128xf16>) {
  ^bb0(%v: f16, %sh: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %s1 = arith.mulf %sh, %one : f16
    %r = arith.subf %v, %s1 : f16
    linalg.yield %r : f16
  } -> tensor<4096x128xf16>
  %up_flat = tensor.collapse_shape %up_dq [[0, 1]] : tensor<4096x128xf16> into tensor<524288xf16>
  %up_w = tensor.expand_shape %up_flat [[0, 1]] output_shape [1024, 512] : tensor<524288xf16> into tensor<1024x512xf16>
  %up_et = tensor.empty() : tensor<512x1024xf16>
  %up_wt = linalg.transpose ins(%up_w : tensor<1024x512xf16>) outs(%up_et : tensor<512x1024xf16>) permutation = [1, 0]
  %up_e32 = tensor.empty(%m) : tensor<?x1024xf32>
  %up_acc = linalg.fill ins(%zf : f32) outs(%up_e32 : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %up_y32 = linalg.matmul ins(%x, %up_wt : tensor<?x512xf16>, tensor<512x1024xf16>) outs(%up_acc : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %up_eo = tensor.empty(%m) : tensor<?x1024xf16>
  %up_y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%up_y32 : tensor<?x1024xf32>) outs(%up_eo : tensor<?x1024xf16>) {
  ^bb0(%v: f32, %o: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x1024xf16>
  %eh = tensor.empty(%m) : tensor<?x1024xf16>
  %hidden = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate_y, %up_y : tensor<?x1024xf16>, tensor<?x1024xf16>) outs(%eh : tensor<?x1024xf16>) {
  ^bb0(%g: f16, %u: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %ng = arith.negf %g : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %one, %ex : f16
    %sg = arith.divf %g, %den : f16
    %r = arith.mulf %sg, %u : f16
    linalg.yield %r : f16
  } -> tensor<?x1024xf16>
  %e8_down = tensor.empty() : tensor<2048x128xi8>
  %down_lo_m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%down_packed : tensor<2048x128xi8>) outs(%e8_down : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 15 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %down_hi_m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%down_packed : tensor<2048x128xi8>) outs(%e8_down : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant -1 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %down_hi = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%down_hi_m : tensor<2048x128xi8>) outs(%e8_down : tensor<2048x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 4 : i8
    %r = arith.shrui %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %down_data = tensor.concat dim(0) %down_lo_m, %down_hi : (tensor<2048x128xi8>, tensor<2048x128xi8>) -> tensor<4096x128xi8>
  %down_ef = tensor.empty() : tensor<4096x128xf16>
  %down_scaled = linalg.generic {indexing_maps = [#bc, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%down_scale, %down_data : tensor<4096x1xf16>, tensor<4096x128xi8>) outs(%down_ef : tensor<4096x128xf16>) {
  ^bb0(%s: f16, %q: i8, %o: f16):
    %qf = arith.uitofp %q : i8 to f16
    %r = arith.mulf %s, %qf : f16
    linalg.yield %r : f16
  } -> tensor<4096x128xf16>
  %down_dq = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%down_scaled, %down_shift : tensor<4096x128xf16>, tensor<4096x1xf16>) outs(%down_ef : tensor<4096x128xf16>) {
  ^bb0(%v: f16, %sh: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %s1 = arith.mulf %sh, %one : f16
    %r = arith.subf %v, %s1 : f16
    linalg.yield %r : f16
  } -> tensor<4096x128xf16>
  %down_flat = tensor.collapse_shape %down_dq [[0, 1]] : tensor<4096x128xf16> into tensor<524288xf16>
  %down_w = tensor.expand_shape %down_flat [[0, 1]] output_shape [512, 1024] : tensor<524288xf16> into tensor<512x1024xf16>
  %down_et = tensor.empty() : tensor<1024x512xf16>
  %down_wt = linalg.transpose ins(%down_w : tensor<512x1024xf16>) outs(%down_et : tensor<1024x512xf16>) permutation = [1, 0]
  %down_e32 = tensor.empty(%m) : tensor<?x512xf32>
  %down_acc = linalg.fill ins(%zf : f32) outs(%down_e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %down_y32 = linalg.matmul ins(%hidden, %down_wt : tensor<?x1024xf16>, tensor<1024x512xf16>) outs(%down_acc : tensor<?x512xf32>) -> tensor<?x512xf32>
  %down_eo = tensor.empty(%m) : tensor<?x512xf16>
  %down_y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%down_y32 : tensor<?x512xf32>) outs(%down_eo : tensor<?x512xf16>) {
  ^bb0(%v: f32, %o: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x512xf16>
  return %down_y : tensor<?x512xf16>
}
