// w4a16-expand-f8: FP8 conversions nothing upstream lowers become calls of private functions in integer arithmetic,
// one per (op, source, result) types, shared by every use. f8E4M3FN and f8E5M2 to and from f16, bf16 and f32 (extf
// also to f64); other FP8 formats, f64 sources and a truncf with its own rounding mode stay as they are, and the
// pipeline names the op left (compile-errors.mlir style check below). The values are checked by e2e-fp8.
//
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-expand-f8)' %s | FileCheck %s
// RUN: not w4a16-opt --w4a16-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LEFT

// CHECK-LABEL: func.func @kv_read(
// CHECK-SAME:      %[[B:.*]]: f8E4M3FN, %[[C:.*]]: f8E4M3FN
// CHECK:         %[[X:.*]] = call @w4a16_extf_f8E4M3FN_to_f32(%[[B]]) : (f8E4M3FN) -> f32
// CHECK:         %[[Y:.*]] = call @w4a16_extf_f8E4M3FN_to_f32(%[[C]]) : (f8E4M3FN) -> f32
// CHECK:         arith.addf %[[X]], %[[Y]]
func.func @kv_read(%b: f8E4M3FN, %c: f8E4M3FN) -> f32 {
  %x = arith.extf %b : f8E4M3FN to f32
  %y = arith.extf %c : f8E4M3FN to f32
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// CHECK-LABEL: func.func @kv_write(
// CHECK:         call @w4a16_truncf_bf16_to_f8E5M2(%{{.*}}) : (bf16) -> f8E5M2
func.func @kv_write(%x: bf16) -> f8E5M2 {
  %b = arith.truncf %x : bf16 to f8E5M2
  return %b : f8E5M2
}

// Left alone: f64 -> f8 (through f32 it would round twice), an explicit rounding mode, an FNUZ format.
// CHECK-LABEL: func.func @left(
// CHECK:         arith.truncf %{{.*}} : f64 to f8E4M3FN
// CHECK:         arith.truncf %{{.*}} to_nearest_away : f32 to f8E4M3FN
// CHECK:         arith.extf %{{.*}} : f8E4M3FNUZ to f32
// CHECK-NOT:     call
func.func @left(%d: f64, %x: f32, %u: f8E4M3FNUZ) -> (f8E4M3FN, f8E4M3FN, f32) {
  %a = arith.truncf %d : f64 to f8E4M3FN
  %b = arith.truncf %x to_nearest_away : f32 to f8E4M3FN
  %c = arith.extf %u : f8E4M3FNUZ to f32
  return %a, %b, %c : f8E4M3FN, f8E4M3FN, f32
}

// The functions: e4m3 through f32's fields (rebias 120 << 23, subnormals as m * 2^-9, 0x7f NaN); truncf rounds the
// kept bits to nearest even and picks NaN (e4m3) or infinity (e5m2) past the largest finite value.
// CHECK-LABEL: func.func private @w4a16_extf_f8E4M3FN_to_f32(
// CHECK:         arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK:         arith.constant 1006632960 : i32
// CHECK:         arith.constant 0.001953125 : f32
// CHECK:         return %{{.*}} : f32
// CHECK-LABEL: func.func private @w4a16_truncf_bf16_to_f8E5M2(
// CHECK:         arith.extf %{{.*}} : bf16 to f32
// CHECK:         arith.constant 21 : i32
// CHECK:         arith.constant 6.553600e+04 : f32
// CHECK:         arith.constant 124 : i32
// CHECK:         arith.bitcast %{{.*}} : i8 to f8E5M2

// LEFT: error: 'arith.truncf' is left after the lowering to the LLVM dialect
