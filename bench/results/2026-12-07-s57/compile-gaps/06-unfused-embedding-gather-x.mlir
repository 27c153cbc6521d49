// UNFUSED: x is an embedding-table gather (tensor.extract at i64 ids in a generic): 'both operands are computed from integer tensors'. Command: w4a16-compile 06-unfused-embedding-gather-x.mlir -o out.so --explain
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id1 = affine_map<(d0) -> (d0)>

func.func @embed_proj(%ids: tensor<?xi64>, %emb: tensor<1000x128xf16>, %q_qw: tensor<16x128xi32>, %q_sc: tensor<1x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %ids, %c0 : tensor<?xi64>
  %ee = tensor.empty(%m) : tensor<?x128xf16>
  %x = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<?xi64>) outs(%ee : tensor<?x128xf16>) {
  ^bb0(%id: i64, %o: f16):
    %r = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %emb[%r, %j] : tensor<1000x128xf16>
    linalg.yield %v : f16
  } -> tensor<?x128xf16>

  %q_we = tensor.empty() : tensor<128x128xf16>
  %q_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%q_we : tensor<128x128xf16>) {
  ^bb0(%dq_out: f16):
    %dq_c8 = arith.constant 8 : index
    %dq_c128 = arith.constant 128 : index
    %dq_c4 = arith.constant 4 : i32
    %dq_c15 = arith.constant 15 : i32
    %dq_zp = arith.constant 8.000000e+00 : f16
    %dq_k = linalg.index 0 : index
    %dq_n = linalg.index 1 : index
    %dq_kw = arith.divui %dq_k, %dq_c8 : index
    %dq_word = tensor.extract %q_qw[%dq_kw, %dq_n] : tensor<16x128xi32>
    %dq_lane = arith.remui %dq_k, %dq_c8 : index
    %dq_lane32 = arith.index_cast %dq_lane : index to i32
    %dq_sh = arith.muli %dq_lane32, %dq_c4 : i32
    %dq_v = arith.shrui %dq_word, %dq_sh : i32
    %dq_code = arith.andi %dq_v, %dq_c15 : i32
    %dq_cf = arith.uitofp %dq_code : i32 to f16
    %dq_cz = arith.subf %dq_cf, %dq_zp : f16
    %dq_g = arith.divui %dq_k, %dq_c128 : index
    %dq_sc = tensor.extract %q_sc[%dq_g, %dq_n] : tensor<1x128xf16>
    %dq_wv = arith.mulf %dq_cz, %dq_sc : f16
    linalg.yield %dq_wv : f16
  } -> tensor<128x128xf16>

  %q_ae = tensor.empty(%m) : tensor<?x128xf32>
  %q_zero = arith.constant 0.0 : f32
  %q_acc = linalg.fill ins(%q_zero : f32) outs(%q_ae : tensor<?x128xf32>) -> tensor<?x128xf32>
  %q_mm = linalg.matmul ins(%x, %q_w : tensor<?x128xf16>, tensor<128x128xf16>) outs(%q_acc : tensor<?x128xf32>) -> tensor<?x128xf32>

  %q_te = tensor.empty(%m) : tensor<?x128xf16>
  %q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%q_mm : tensor<?x128xf32>) outs(%q_te : tensor<?x128xf16>) {
  ^bb0(%tr_a: f32, %tr_o: f16):
    %tr_t = arith.truncf %tr_a : f32 to f16
    linalg.yield %tr_t : f16
  } -> tensor<?x128xf16>

  return %q : tensor<?x128xf16>
}
