// --header: C declarations derived from the tensor signatures, checked by compiling a C program against the
// header and calling the object it was generated with (no runtime involved: nothing here fuses, so the
// object links without it). Covers a scalar argument, two memref results (returned through a struct pointer
// passed first), a scalar result (returned by value; through a pointer passed first by the status-returning
// w4a16c_run_/w4a16c_prepare_ entry points, which return 0 here), index arguments, f16 elements (uint16_t),
// and functions that must not be declared (private, body-less).
//
// RUN: w4a16-compile %s -q -o %t.o --header %t.h
// RUN: FileCheck %s --check-prefix=HDR --input-file=%t.h
// RUN: cc -std=c17 -Wall -Wextra -Werror -pedantic '-DHEADER="%t.h"' %S/Inputs/header_abi_main.c %t.o -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=OUT

// HDR: #ifndef W4A16C_GENERATED_COMPILE_HEADER_MLIR_TMP_H
// HDR: #include <stdint.h>
// HDR: typedef struct w4a16c_memref1d_f32 {
// HDR-NEXT:   float *allocated;
// HDR-NEXT:   float *aligned;
// HDR-NEXT:   int64_t offset;
// HDR-NEXT:   int64_t sizes[1];
// HDR-NEXT:   int64_t strides[1];
// HDR-NEXT: } w4a16c_memref1d_f32;
// HDR: typedef struct w4a16c_memref1d_f16 {
// HDR-NEXT:   uint16_t *allocated;
// HDR: typedef struct w4a16c_axpy_half_results {
// HDR-NEXT:   w4a16c_memref1d_f32 r0;
// HDR-NEXT:   w4a16c_memref1d_f16 r1;
// HDR-NEXT: } w4a16c_axpy_half_results;
// HDR: typedef void w4a16c_axpy_half_fn(w4a16c_axpy_half_results *ret, float alpha, w4a16c_memref1d_f32 *x, w4a16c_memref1d_f32 *y);
// HDR-NEXT: w4a16c_axpy_half_fn _mlir_ciface_axpy_half;
// HDR-NEXT: typedef int32_t w4a16c_axpy_half_status_fn(w4a16c_axpy_half_results *ret, float alpha, w4a16c_memref1d_f32 *x, w4a16c_memref1d_f32 *y);
// HDR-NEXT: w4a16c_axpy_half_status_fn w4a16c_run_axpy_half, w4a16c_prepare_axpy_half;
// HDR: typedef double w4a16c_pick_fn(w4a16c_memref2d_f64 *m, int64_t i, int64_t j);
// HDR-NEXT: w4a16c_pick_fn _mlir_ciface_pick;
// HDR-NEXT: typedef int32_t w4a16c_pick_status_fn(double *ret, w4a16c_memref2d_f64 *m, int64_t i, int64_t j);
// HDR-NEXT: w4a16c_pick_status_fn w4a16c_run_pick, w4a16c_prepare_pick;
// HDR-NOT: helper
// HDR-NOT: external_decl

// OUT: axpy_half r0 = 3 6 9 12 15.5
// OUT: axpy_half r1 = 0x4200 0x4600 0x4880 0x4a00 0x4bc0
// OUT: pick = 12.5
// OUT: w4a16c_run_pick = 0, ret 11.5
// OUT: w4a16c_prepare_axpy_half = 0, r0[4] = 15.5

#id = affine_map<(d0) -> (d0)>
func.func @axpy_half(%alpha: f32, %x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf16>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e0 : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %alpha, %a : f32
    %s = func.call @helper(%p, %b) : (f32, f32) -> f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf16>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r0 : tensor<?xf32>) outs(%e1 : tensor<?xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?xf16>
  return %r0, %r1 : tensor<?xf32>, tensor<?xf16>
}

func.func @pick(%m: tensor<2x3xf64>, %i: index, %j: index) -> f64 {
  %v = tensor.extract %m[%i, %j] : tensor<2x3xf64>
  return %v : f64
}

func.func private @helper(%a: f32, %b: f32) -> f32 {
  %s = arith.addf %a, %b : f32
  return %s : f32
}

func.func private @external_decl(%a: f32) -> f32
