// The correction after upstream's elementwise fusion: --linalg-generalize-named-ops
// --linalg-fuse-elementwise-ops moves both gathers (A[m, cols[l]], CB[n, cols[l]]) and CB's dequantisation into
// the correction's contraction body. w4a16-fuse-int8-prep evaluates the two operands of the body's product where
// they are, computes them with w4a16.int8_prep, and leaves a contraction that reads the op's results with the
// body's own multiply-accumulate (its casts and rounding as written). Inputs: fuse.mlir's corrections and
// Inputs/llm_int8_correction_out.mlir (the numbers: int8prep-e2e --upstream-fusion).
//
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/Inputs/llm_int8_correction_out.mlir \
// RUN:   | w4a16-opt --w4a16-fuse-int8-prep | FileCheck %s
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/Inputs/llm_int8_correction_out.mlir \
// RUN:   | w4a16-opt --w4a16-fuse-int8-prep --w4a16-verify > /dev/null
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/Inputs/llm_int8_correction_out.mlir \
// RUN:   | w4a16-opt --w4a16-pipeline | FileCheck %s --check-prefix=LOWERED
//
// CHECK-DAG:  #[[MA:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:  #[[MB:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:  #[[MO:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @corr_dyn(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<?x256xf16>, %[[CB:[a-z0-9]+]]: tensor<264x256xi8>, %[[SCB:[a-z0-9]+]]: tensor<264xf32>,
// CHECK-SAME:    %[[COLS:[a-z0-9]+]]: tensor<?xi64>, %[[OUT:[a-z0-9]+]]: tensor<?x264xf16>)
// CHECK:        %[[P:.+]]:2 = "w4a16.int8_prep"(%[[A]], %[[CB]], %[[SCB]], %[[COLS]])
// CHECK-SAME:     -> (tensor<?x?xf16>, tensor<?x264xf16>)
// CHECK:        %[[R:.+]] = linalg.generic {indexing_maps = [#[[MA]], #[[MB]], #[[MO]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:     ins(%[[P]]#0, %[[P]]#1 : tensor<?x?xf16>, tensor<?x264xf16>) outs(%[[OUT]] : tensor<?x264xf16>)
// CHECK-NEXT:   ^bb0(%[[X:.+]]: f16, %[[W:.+]]: f16, %[[ACC:.+]]: f16):
// CHECK-NEXT:     %[[PROD:.+]] = arith.mulf %[[X]], %[[W]] : f16
// CHECK-NEXT:     %[[SUM:.+]] = arith.addf %[[ACC]], %[[PROD]] : f16
// CHECK-NEXT:     linalg.yield %[[SUM]] : f16
// CHECK:        return %[[R]]
// CHECK-NOT:    tensor.extract
// CHECK-LABEL: func.func @corr_l5_f32(
// CHECK:        %[[P5:.+]]:2 = "w4a16.int8_prep"
// CHECK-SAME:     -> (tensor<?x5xf16>, tensor<5x264xf16>)
// CHECK:        linalg.generic
// CHECK-SAME:     ins(%[[P5]]#0, %[[P5]]#1 : tensor<?x5xf16>, tensor<5x264xf16>)
// CHECK-NEXT:   ^bb0(%[[X5:.+]]: f16, %[[W5:.+]]: f16, %[[ACC5:.+]]: f16):
// CHECK-NEXT:     %[[XF:.+]] = arith.extf %[[X5]] : f16 to f32
// CHECK-NEXT:     %[[WF:.+]] = arith.extf %[[W5]] : f16 to f32
// CHECK-NEXT:     %[[PF:.+]] = arith.mulf %[[XF]], %[[WF]] : f32
// CHECK-NEXT:     %[[AF:.+]] = arith.extf %[[ACC5]] : f16 to f32
// CHECK-NEXT:     %[[SF:.+]] = arith.addf %[[AF]], %[[PF]] : f32
// CHECK-NEXT:     %[[T:.+]] = arith.truncf %[[SF]] : f32 to f16
// CHECK-NEXT:     linalg.yield %[[T]] : f16
// CHECK-NOT:    tensor.extract
//
// LOWERED-COUNT-2: llvm.call @w4a16_rt_int8_prep(
// LOWERED-NOT:     linalg.
//
// fuse.mlir's five corrections: each fuses after upstream's fusion as before it, with the same sizes.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/fuse.mlir \
// RUN:   | w4a16-opt --w4a16-explain-int8-prep --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSE
// FUSE:      remark: w4a16-int8-prep: fused as subA = A[:, cols] (?x?), subB = {{.*}} (?x4096); both were computed inside the contraction's body, which now reads them
// FUSE-NEXT: remark: w4a16-int8-prep: fused as subA = A[:, cols] (8x16), subB = {{.*}} (16x3584); subA was computed inside
// FUSE-NEXT: remark: w4a16-int8-prep: fused as subA = A[:, cols] (?x?), subB = {{.*}} (?x1024); both were computed inside
// FUSE-NEXT: remark: w4a16-int8-prep: fused as subA = A[:, cols] (4x5), subB = {{.*}} (5x256){{$}}
// FUSE-NEXT: remark: w4a16-int8-prep: fused as subA = A[:, cols] (2x0), subB = {{.*}} (0x32); both were computed inside
// FUSE-NOT:  remark
//
// The look-alikes and the forms that must not fuse keep the same reasons after upstream's fusion (the rule is
// what the operands compute, wherever they are computed), and the IR is left as it was.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/look-alikes.mlir -o %t.la
// RUN: w4a16-opt --w4a16-explain-int8-prep --split-input-file %S/look-alikes.mlir -o /dev/null 2>&1 | sed 's/.*remark: //' > %t.la.before
// RUN: w4a16-opt --w4a16-explain-int8-prep --split-input-file %t.la -o %t.la.after.mlir 2>&1 | sed 's/.*remark: //' > %t.la.after
// RUN: diff %t.la.before %t.la.after
// RUN: w4a16-opt --split-input-file %t.la -o %t.la.orig
// RUN: diff %t.la.orig %t.la.after.mlir
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/not-fused.mlir -o %t.nf
// RUN: w4a16-opt --w4a16-explain-int8-prep --split-input-file %S/not-fused.mlir -o /dev/null 2>&1 | sed 's/.*remark: //' > %t.nf.before
// RUN: w4a16-opt --w4a16-explain-int8-prep --split-input-file %t.nf -o %t.nf.after.mlir 2>&1 | sed 's/.*remark: //' > %t.nf.after
// RUN: diff %t.nf.before %t.nf.after
// RUN: w4a16-opt --split-input-file %t.nf -o %t.nf.orig
// RUN: diff %t.nf.orig %t.nf.after.mlir
// RUN: grep -c "not fused" %t.nf.after | FileCheck %s --check-prefix=NF-COUNT
// NF-COUNT: {{^}}16{{$}}
//
// Gathers inside a contraction body that is not a multiply-accumulate (a running maximum of the products): a
// remark names the rule, and nothing changes.
// RUN: w4a16-opt --w4a16-explain-int8-prep %s -o %t.max.mlir 2>&1 | FileCheck %s --check-prefix=BODY
// RUN: w4a16-opt %s -o %t.max.orig
// RUN: diff %t.max.orig %t.max.mlir
// BODY: upstream-fused.mlir:[[@LINE+7]]:8: remark: w4a16-int8-prep: not fused: the correction's column gathers are computed inside a contraction whose body does not yield acc + a * b with a over loops (m, l) and b over (l, n)
#ma = affine_map<(m, n, l) -> (l)>
#ms = affine_map<(m, n, l) -> (n)>
#mo = affine_map<(m, n, l) -> (m, n)>
func.func @max_of_products(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>,
                           %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %k = arith.constant 7.874015718698502e-3 : f32
  %r = linalg.generic {indexing_maps = [#ma, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%cols, %SCB : tensor<5xi64>, tensor<32xf32>) outs(%out : tensor<4x32xf16>) {
  ^bb0(%c: i64, %s: f32, %acc: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %n = linalg.index 1 : index
    %a = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    %q = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %qf = arith.sitofp %q : i8 to f32
    %y = arith.mulf %qf, %s : f32
    %z = arith.mulf %y, %k : f32
    %b = arith.truncf %z : f32 to f16
    %p = arith.mulf %a, %b : f16
    %t = arith.maximumf %acc, %p : f16
    linalg.yield %t : f16
  } -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}
//
// Only subB inside the body (Inputs/upstream_fused_subA_returned.mlir): subA's gather has another user, so upstream's
// fusion left it a tensor the contraction reads. The preparation computes both; the gather stays for its other user.
// RUN: w4a16-opt --w4a16-explain-int8-prep %S/Inputs/upstream_fused_subA_returned.mlir 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: upstream_fused_subA_returned.mlir:{{[0-9]+}}:8: remark: w4a16-int8-prep: fused as subA = A[:, cols] (?x?), subB = {{.*}} (?x264); subB was computed inside the contraction's body, which now reads it
// MIXED-LABEL: func.func @subA_returned(
// MIXED:         %[[GATHER:.+]] = linalg.generic
// MIXED:         tensor.extract
// MIXED:         %[[P:.+]]:2 = "w4a16.int8_prep"
// MIXED:         %[[R:.+]] = linalg.generic
// MIXED-SAME:      ins(%[[P]]#0, %[[P]]#1 : tensor<?x?xf16>, tensor<?x264xf16>)
// MIXED:         return %[[GATHER]], %[[R]]
