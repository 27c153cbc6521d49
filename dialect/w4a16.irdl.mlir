// The w4a16 dialect, in IRDL. Loaded at run time by w4a16LoadDialect(); shape and element-type rules
// that IRDL cannot express live in the C verifier (dialect/verify.c).
irdl.dialect @w4a16 {
  // out = act(x @ dequant(weight, scales) + bias) + residual, one op for the whole chain.
  // The attributes' accepted values (activation, weight_layout, scales_layout, group_size) and the
  // operand shapes are the runtime's contract (runtime/include/w4a16/contract.h, docs/dialect.md);
  // the C verifier checks them from that one table, so IRDL only requires that they are present.
  irdl.operation @fused_matmul {
    %x        = irdl.any
    %weight   = irdl.any
    %scales   = irdl.any
    %bias     = irdl.any
    %residual = irdl.any
    %out      = irdl.any
    %act      = irdl.any
    %wlayout  = irdl.any
    %slayout  = irdl.any
    %group    = irdl.any
    %zp       = irdl.any
    %gidx     = irdl.any
    // zero_points (issue #17): z(g, n) as the discardable attributes zero_point_layout and
    // zero_point_offset say; without it, the attribute zero_point (default 8.0) is the constant z.
    // g_idx (act-order GPTQ): (K) i32, row k's group; without it, row k is in group k / group_size.
    irdl.operands(x: %x, weight: %weight, scales: %scales, bias: optional %bias, residual: optional %residual,
                  zero_points: optional %zp, g_idx: optional %gidx)
    irdl.results(out: %out)
    irdl.attributes {
      "activation" = %act,
      "weight_layout" = %wlayout,
      "scales_layout" = %slayout,
      "group_size" = %group
    }
  }

  // Sibling projections that read the same x, as one kernel (issue #21): member i (2 to 4 of them) is
  // x @ dequant(weight_i, scales_i) (+ bias_i) with the fused_matmul attributes, which all members share
  // (one group size, layouts, zero-point form and activation; zero points: none, or one per member).
  //   combine = "outputs": one result per member, act(x @ W_i + b_i);
  //   combine = "glu":     two members (gate, up), one result act(x @ W_gate) * (x @ W_up), no biases.
  // Members are numbered slots rather than variadic groups: IRDL gives every value of a variadic group one
  // type, and siblings differ in N (GQA: k and v narrower than q). Members fill the slots from 0; the C
  // verifier checks that and the rest.
  irdl.operation @merged_matmul {
    %x  = irdl.any
    %w0 = irdl.any
    %w1 = irdl.any
    %w2 = irdl.any
    %w3 = irdl.any
    %s0 = irdl.any
    %s1 = irdl.any
    %s2 = irdl.any
    %s3 = irdl.any
    %z0 = irdl.any
    %z1 = irdl.any
    %z2 = irdl.any
    %z3 = irdl.any
    %b0 = irdl.any
    %b1 = irdl.any
    %b2 = irdl.any
    %b3 = irdl.any
    %o0 = irdl.any
    %o1 = irdl.any
    %o2 = irdl.any
    %o3 = irdl.any
    %act     = irdl.any
    %wlayout = irdl.any
    %slayout = irdl.any
    %group   = irdl.any
    %combine = irdl.any
    irdl.operands(x: %x, weight_0: %w0, weight_1: %w1, weight_2: optional %w2, weight_3: optional %w3,
                  scales_0: %s0, scales_1: %s1, scales_2: optional %s2, scales_3: optional %s3,
                  zero_points_0: optional %z0, zero_points_1: optional %z1, zero_points_2: optional %z2,
                  zero_points_3: optional %z3, bias_0: optional %b0, bias_1: optional %b1, bias_2: optional %b2,
                  bias_3: optional %b3)
    irdl.results(out_0: %o0, out_1: optional %o1, out_2: optional %o2, out_3: optional %o3)
    irdl.attributes {
      "activation" = %act,
      "weight_layout" = %wlayout,
      "scales_layout" = %slayout,
      "group_size" = %group,
      "combine" = %combine
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
