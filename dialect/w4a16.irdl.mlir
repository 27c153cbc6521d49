// The w4a16 dialect, in IRDL. Loaded at run time by w4a16LoadDialect(); shape and element-type rules
// that IRDL cannot express live in the C verifier (dialect/verify.c).
irdl.dialect @w4a16 {
  // out = act(x @ dequant(weight, scales) + bias) + residual, one op for the whole chain.
  //   weight_layout: how `weight` stores code(k, n) (see dialect/README.md)
  //     "packed_k8_n"  (K/8, N) i32, nibble k%8 of word [k/8, n], least significant first (SPEC §1)
  //     "k_n"          (K, N) i4 or i8 container of unsigned codes 0..15
  //     "n_k"          (N, K) likewise, transposed
  //   scales_layout: "g_n" for (K/128, N) f16, "n_g" for (N, K/128) f16
  irdl.operation @fused_matmul {
    %x        = irdl.any
    %weight   = irdl.any
    %scales   = irdl.any
    %bias     = irdl.any
    %residual = irdl.any
    %out      = irdl.any
    %act_none = irdl.is "none"
    %act_silu = irdl.is "silu"
    %act_gelu_tanh = irdl.is "gelu_tanh"
    %act = irdl.any_of(%act_none, %act_silu, %act_gelu_tanh)
    %wlayout_packed_k8_n = irdl.is "packed_k8_n"
    %wlayout_k_n = irdl.is "k_n"
    %wlayout_n_k = irdl.is "n_k"
    %wlayout = irdl.any_of(%wlayout_packed_k8_n, %wlayout_k_n, %wlayout_n_k)
    %slayout_g_n = irdl.is "g_n"
    %slayout_n_g = irdl.is "n_g"
    %slayout = irdl.any_of(%slayout_g_n, %slayout_n_g)
    %group    = irdl.any
    irdl.operands(x: %x, weight: %weight, scales: %scales, bias: optional %bias, residual: optional %residual)
    irdl.results(out: %out)
    irdl.attributes {
      "activation" = %act,
      "weight_layout" = %wlayout,
      "scales_layout" = %slayout,
      "group_size" = %group
    }
  }

  // LLM.int8 outlier-correction operands (bitsandbytes mixed decomposition), both from one column list:
  //   subA[m, l] = A[m, cols[l]]                                              A (M, K) f16 -> (M, L) f16
  //   subB[l, n] = f16(f32(f32(f32(CB[n, cols[l]]) * SCB[n]) * 0x3C010204))   CB (N, K) i8, SCB (N) f32 -> (L, N) f16
  // 0x3C010204 is 1/127 in f32; each product rounds to f32 (no fused multiply-add), then to f16 (nearest even).
  // cols (L) i64 holds indices in [0, K). Shapes and element types are checked by the C verifier.
  irdl.operation @int8_prep {
    %a     = irdl.any
    %cb    = irdl.any
    %scb   = irdl.any
    %cols  = irdl.any
    %sub_a = irdl.any
    %sub_b = irdl.any
    irdl.operands(a: %a, cb: %cb, scb: %scb, cols: %cols)
    irdl.results(sub_a: %sub_a, sub_b: %sub_b)
  }
}
