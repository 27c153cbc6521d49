// GPU target: a linalg op with no parallel loop -- a full reduction into a 0-d tensor and an rsqrt on that 0-d
// tensor, RMSNorm on a decode step's (K) vector once unit dims are folded -- runs as one-thread kernels
// (w4a16-gpu-serial-kernels wraps each run of host statements that read or write a buffer in a one-iteration
// scf.parallel). Until session 43 the GPU target rejected it: "memref.store would run on the host and dereference
// device memory". A 0-d value the host itself reads (a returned scalar, .item()) is read through the runtime
// (w4a16-gpu-host-code). Runs inside host loops and conditionals are wrapped too (since session 57).
// examples/decode_rmsnorm.mlir runs this on the GPU (test/e2e/run-gpu.sh).
// RUN: w4a16-opt --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},convert-linalg-to-parallel-loops,w4a16-gpu-serial-kernels)' --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-gpu-pipeline --split-input-file --verify-diagnostics %s -o /dev/null

// The fill and the reduction loop are one run of statements: one kernel; the rsqrt another.
// CHECK-LABEL: func.func @sum_of_squares(
// CHECK:         memref.alloc
// CHECK-NEXT:    %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[O:.+]] = arith.constant 1 : index
// CHECK-NEXT:    scf.parallel (%{{.+}}) = (%[[Z]]) to (%[[O]]) step (%[[O]]) {
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      scf.for
// CHECK:             memref.load
// CHECK:             arith.mulf
// CHECK:             memref.store
// CHECK:           scf.reduce
// CHECK:         scf.parallel (%{{.+}}) = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) {
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      math.rsqrt
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      scf.reduce
func.func @sum_of_squares(%x: tensor<64xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %a : f32
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %re = tensor.empty() : tensor<f32>
  %rs = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%s : tensor<f32>) outs(%re : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.rsqrt %a : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %rs : tensor<f32>
}

// -----

// The host reads the 0-d value itself (returned as a scalar): no kernel can take that, and the load stays; since
// session 57 w4a16-gpu-host-code has the runtime copy it to the host (until then an error), so the pipeline of the
// second RUN line passes.
// CHECK-LABEL: func.func @item(
// CHECK:         memref.load %{{.+}}[] : memref<f32>
func.func @item(%x: tensor<f32>) -> f32 {
  %v = tensor.extract %x[] : tensor<f32>
  return %v : f32
}

// -----

// Top-k by repeated max (session 57's GPU probes: an error until then): the 0-d fill and reduction in the body of a
// host loop that also writes the loop's tensor become one one-thread kernel per iteration, inside the loop.
// CHECK-LABEL: func.func @max_per_iteration(
// CHECK:         scf.for
// CHECK:           scf.parallel (%{{.+}}) = (%{{.+}}) to (%{{.+}}) step
// CHECK:             memref.store %{{.+}}, %[[ACC:.+]][] : memref<f32>
// CHECK:             scf.for
// CHECK:               memref.load %[[ACC]][]
// CHECK:               arith.maximumf
// CHECK:               memref.store %{{.+}}, %[[ACC]][]
func.func @max_per_iteration(%x: tensor<1024xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ninf = arith.constant 0xFF800000 : f32
  %out = tensor.empty() : tensor<4xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%o = %out) -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<f32>
    %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %m = linalg.reduce ins(%x : tensor<1024xf32>) outs(%f : tensor<f32>) dimensions = [0]
      (%v: f32, %acc: f32) {
        %t = arith.maximumf %v, %acc : f32
        linalg.yield %t : f32
      }
    %m1 = tensor.expand_shape %m [] output_shape [1] : tensor<f32> into tensor<1xf32>
    %o2 = tensor.insert_slice %m1 into %o[%k] [1] [1] : tensor<1xf32> into tensor<4xf32>
    scf.yield %o2 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A 0-d op in one branch of a host conditional (torch.cond): a one-thread kernel inside the branch.
// CHECK-LABEL: func.func @exp_if(
// CHECK:         scf.if
// CHECK:           scf.parallel
// CHECK:             math.exp
// CHECK:         } else {
func.func @exp_if(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %r = scf.if %c -> (tensor<f32>) {
    %e = tensor.empty() : tensor<f32>
    %y = linalg.map ins(%x : tensor<f32>) outs(%e : tensor<f32>)
      (%v: f32, %o: f32) {
        %t = math.exp %v : f32
        linalg.yield %t : f32
      }
    scf.yield %y : tensor<f32>
  } else {
    scf.yield %x : tensor<f32>
  }
  return %r : tensor<f32>
}
