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

  // Sibling projections that read the same x, as one kernel (issue #21): member i is
  // x @ dequant(weights[i], scales[i]) (+ biases[i]) with the fused_matmul attributes, which all members share
  // (one group size, layouts, zero-point form and activation; zero_points: none, or one per member).
  //   combine = "outputs": one result per member, act(x @ W_i + b_i);
  //   combine = "glu":     two members (gate, up), one result act(x @ W_gate) * (x @ W_up), no biases.
  irdl.operation @merged_matmul {
    %x       = irdl.any
    %weights = irdl.any
    %scales  = irdl.any
    %zp      = irdl.any
    %biases  = irdl.any
    %outs    = irdl.any
    %act     = irdl.any
    %wlayout = irdl.any
    %slayout = irdl.any
    %group   = irdl.any
    %combine = irdl.any
    irdl.operands(x: %x, weights: variadic %weights, scales: variadic %scales, zero_points: variadic %zp,
                  biases: variadic %biases)
    irdl.results(outs: variadic %outs)
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
