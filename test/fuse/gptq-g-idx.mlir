// GPTQ's dequantisation reads each row's scale through g_idx: scales[g_idx[k], n] (GPTQModel's
// TorchQuantLinear). Exported without act-order, g_idx is a constant table holding k / G: the matcher
// evaluates the table (an integer constant used as an index), so the chain fuses like the plain k / G
// form. With act-order (desc_act) g_idx is a runtime tensor whose positions are only known at run time: the
// fused op takes it as its g_idx operand (issue #22 flipped this case, which stayed unfused with the remark
// "an index is read from a runtime tensor" before).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gptq_g_idx(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-NOT:     linalg.
// CHECK-NOT:     arith.constant dense
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> silu -> residual
func.func @gptq_g_idx(%x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %r: tensor<1x64xf16>) -> tensor<1x64xf16> {
  %g_idx = arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]> : tensor<256xi32>
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %e2 = tensor.empty() : tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b, %r : tensor<1x64xf16>, tensor<64xf16>, tensor<1x64xf16>) outs(%e2 : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %rr: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    %one = arith.constant 1.0 : f16
    %ng = arith.negf %t : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %one, %ex : f16
    %sl = arith.divf %t, %den : f16
    %res = arith.addf %sl, %rr : f16
    linalg.yield %res : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gptq_act_order(
// CHECK-SAME:    %[[GIDX:[a-zA-Z0-9_]+]]: tensor<256xi32>, %[[X:[a-zA-Z0-9_]+]]: tensor<1x256xf16>, %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>, %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %{{.+}}, %{{.+}}, %[[GIDX]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1>
// CHECK-NOT:     linalg.
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, act-order g_idx) -> matmul -> bias -> silu -> residual
func.func @gptq_act_order(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %r: tensor<1x64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %e2 = tensor.empty() : tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b, %r : tensor<1x64xf16>, tensor<64xf16>, tensor<1x64xf16>) outs(%e2 : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %rr: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    %one = arith.constant 1.0 : f16
    %ng = arith.negf %t : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %one, %ex : f16
    %sl = arith.divf %t, %den : f16
    %res = arith.addf %sl, %rr : f16
    linalg.yield %res : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Act-order with g_idx folded into the IR as a constant (torch.export with the checkpoint's buffers frozen): a
// table that is not k / G, every group holding G rows (here rows of groups 0 and 1 scattered at random). The
// matcher tries the table as act-order's g_idx, like a runtime one, and the fused op takes the constant as its
// g_idx operand (issue #22; before: "a constant index table maps k = .. to another group than k / G").

// CHECK-LABEL: func.func @gptq_act_order_constant(
// CHECK:         %[[G:.+]] = arith.constant dense<{{.+}}> : tensor<256xi32>
// CHECK:         "w4a16.fused_matmul"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[G]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1>
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, act-order g_idx) -> matmul -> bias -> silu -> residual
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @gptq_act_order_constant(%x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %r: tensor<1x64xf16>) -> tensor<1x64xf16> {
  %g_idx = arith.constant dense<[0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1]> : tensor<256xi32>
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %e2 = tensor.empty() : tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b, %r : tensor<1x64xf16>, tensor<64xf16>, tensor<1x64xf16>) outs(%e2 : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %rr: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    %one = arith.constant 1.0 : f16
    %ng = arith.negf %t : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %one, %ex : f16
    %sl = arith.divf %t, %den : f16
    %res = arith.addf %sl, %rr : f16
    linalg.yield %res : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}
