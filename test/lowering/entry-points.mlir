// w4a16-entry-points: for every _mlir_ciface_<f> of an LLVM-dialect module, w4a16c_run_<f> and
// w4a16c_prepare_<f> with the same arguments return the compiled-code status: w4a16_rt_enter("<f>",
// prepare = 0 | 1), the call, w4a16_rt_leave(). A result _mlir_ciface_<f> returns by value is stored through
// a pointer passed first. A module that calls no runtime entry point gets entry points that return 0 and
// reference nothing (it must link without the runtime). Names the module already uses are an error.
// RUN: not w4a16-opt --w4a16-entry-points --split-input-file %s 2>/dev/null | FileCheck %s
// RUN: not w4a16-opt --w4a16-entry-points --split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: llvm.func @f(
// CHECK:       llvm.func @_mlir_ciface_f(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// CHECK:       llvm.func @w4a16_rt_enter(!llvm.ptr, i32)
// CHECK:       llvm.func @w4a16_rt_leave() -> i32
// CHECK:       llvm.mlir.global private constant @__w4a16_name_f("f\00")
// CHECK:       llvm.func @w4a16c_run_f(%[[RET:.+]]: !llvm.ptr, %[[X:.+]]: !llvm.ptr) -> i32 {
// CHECK-NEXT:    %[[NAME:.+]] = llvm.mlir.addressof @__w4a16_name_f : !llvm.ptr
// CHECK-NEXT:    %[[MODE:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @w4a16_rt_enter(%[[NAME]], %[[MODE]]) : (!llvm.ptr, i32) -> ()
// CHECK-NEXT:    llvm.call @_mlir_ciface_f(%[[RET]], %[[X]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    %[[ST:.+]] = llvm.call @w4a16_rt_leave() : () -> i32
// CHECK-NEXT:    llvm.return %[[ST]] : i32
// CHECK:       llvm.func @w4a16c_prepare_f(
// CHECK:         llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.call @w4a16_rt_enter(
// CHECK:         llvm.call @_mlir_ciface_f(
// CHECK:         llvm.call @w4a16_rt_leave()
// CHECK-NOT:   llvm.func @w4a16c_run_helper
// CHECK-NOT:   llvm.func @w4a16c_run_w4a16_rt
module {
  llvm.func @f(%arg0: !llvm.ptr) {
    llvm.return
  }
  llvm.func @_mlir_ciface_f(%ret: !llvm.ptr, %x: !llvm.ptr) {
    %0 = llvm.mlir.constant(0 : i32) : i32
    %1 = llvm.call @_mlir_ciface_w4a16_rt_matmul_i32(%x, %x, %x, %x, %x, %ret, %0, %0, %0, %0, %0) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32) -> i32
    llvm.return
  }
  llvm.func @_mlir_ciface_w4a16_rt_matmul_i32(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32) -> i32
  llvm.func @helper(%arg0: i64) -> i64 {
    llvm.return %arg0 : i64
  }
}

// -----

// No runtime calls: the status is a constant 0; a scalar result goes through the pointer passed first.
// CHECK-LABEL: llvm.func @pick(
// CHECK-NOT:   w4a16_rt_enter
// CHECK:       llvm.func @w4a16c_run_pick(%[[RET:.+]]: !llvm.ptr, %[[M:.+]]: !llvm.ptr, %[[I:.+]]: i64) -> i32 {
// CHECK-NEXT:    %[[R:.+]] = llvm.call @_mlir_ciface_pick(%[[M]], %[[I]]) : (!llvm.ptr, i64) -> f64
// CHECK-NEXT:    llvm.store %[[R]], %[[RET]] : f64, !llvm.ptr
// CHECK-NEXT:    %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.return %[[ZERO]] : i32
// CHECK:       llvm.func @w4a16c_prepare_pick(
// CHECK-NOT:   w4a16_rt_
module {
  llvm.func @pick(%arg0: !llvm.ptr, %arg1: i64) -> f64 {
    %0 = llvm.mlir.constant(1.0 : f64) : f64
    llvm.return %0 : f64
  }
  llvm.func @_mlir_ciface_pick(%m: !llvm.ptr, %i: i64) -> f64 {
    %0 = llvm.call @pick(%m, %i) : (!llvm.ptr, i64) -> f64
    llvm.return %0 : f64
  }
}

// -----

module {
  llvm.func @g() {
    llvm.return
  }
  // ERR: entry-points.mlir:[[@LINE+1]]:3: error: w4a16-entry-points: the module already defines w4a16c_run_, w4a16c_prepare_ or __w4a16_name_ for this function
  llvm.func @_mlir_ciface_g() {
    llvm.return
  }
  llvm.func @w4a16c_run_g() -> i32 {
    %0 = llvm.mlir.constant(7 : i32) : i32
    llvm.return %0 : i32
  }
}
