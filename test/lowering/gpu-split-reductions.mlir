// w4a16-gpu-split-reductions (GPU target, tensors): a long innermost sum (or max, min) becomes partial sums over up to 256
// lanes per row (the reduced input expanded into (steps, lanes)) and a combine into the original init, itself
// split again while it is long enough (4096 = 16 steps x 256 lanes, then 8 x 32, then 32); what is not a
// plain sum over a static extent with at least 16 lanes of 8 steps is left alone.
// RUN: w4a16-opt --split-input-file --pass-pipeline='builtin.module(w4a16-gpu-split-reductions)' %s | FileCheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// RMSNorm's sum of squares over K = 4096, dynamic M.
// CHECK-DAG:   #[[STEPS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG:   #[[PART:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME:    (%[[SQ:.*]]: tensor<?x4096xf32>)
// CHECK:         %[[INIT:.*]] = linalg.fill
// CHECK:         %[[PE:.*]] = tensor.empty(%{{.*}}) : tensor<?x256xf32>
// CHECK:         %[[PZ:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[PE]] : tensor<?x256xf32>)
// CHECK:         %[[EX:.*]] = tensor.expand_shape %[[SQ]] {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 16, 256] : tensor<?x4096xf32> into tensor<?x16x256xf32>
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [#[[STEPS]], #[[PART]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[EX]] : tensor<?x16x256xf32>) outs(%[[PZ]] : tensor<?x256xf32>)
// CHECK:           arith.addf
// CHECK:         %[[QE:.*]] = tensor.empty(%{{.*}}) : tensor<?x32xf32>
// CHECK:         %[[QZ:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[QE]] : tensor<?x32xf32>)
// CHECK:         %[[EX2:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 8, 32] : tensor<?x256xf32> into tensor<?x8x32xf32>
// CHECK:         %[[Q:.*]] = linalg.generic {indexing_maps = [#[[STEPS]], #[[PART]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[EX2]] : tensor<?x8x32xf32>) outs(%[[QZ]] : tensor<?x32xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[Q]] : tensor<?x32xf32>) outs(%[[INIT]] : tensor<?xf32>)
// CHECK:         return %[[S]]
func.func @row_sum(%sq: tensor<?x4096xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %sq, %c0 : tensor<?x4096xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<?x4096xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %sum : tensor<?xf32>
}

// -----

// Not split: a product (not a combiner the pass knows), a body that reads the loop index, an extent no power of
// two from 16 divides (4001), one too short to pay (100: 16 lanes would walk 6 steps).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     tensor.expand_shape
// CHECK-COUNT-4: iterator_types = ["parallel", "reduction"]
// CHECK-NOT:     tensor.expand_shape
#id2b = affine_map<(d0, d1) -> (d0, d1)>
#rowb = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%a: tensor<8x4096xf32>, %b: tensor<8x4001xf32>, %c: tensor<8x100xf32>, %init: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %prod = linalg.generic {indexing_maps = [#id2b, #rowb], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x4096xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %indexed = linalg.generic {indexing_maps = [#id2b, #rowb], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x4096xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %w = arith.mulf %in, %kf : f32
    %r = arith.addf %w, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %odd = linalg.generic {indexing_maps = [#id2b, #rowb], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<8x4001xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %short = linalg.generic {indexing_maps = [#id2b, #rowb], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<8x100xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %prod, %indexed, %odd, %short : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A row max (softmax's) splits the same way, its partials starting from -inf; max gives the same bits in any
// order.
// CHECK-LABEL: func.func @row_max
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<8x128xf32>)
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [8, 8, 128] : tensor<8x1024xf32> into tensor<8x8x128xf32>
// CHECK:         linalg.generic
// CHECK:           arith.maximumf
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK:         linalg.generic
// CHECK:           arith.maximumf
// CHECK:         linalg.generic
// CHECK:           arith.maximumf
#id2c = affine_map<(d0, d1) -> (d0, d1)>
#rowc = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%a: tensor<8x1024xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %max = linalg.generic {indexing_maps = [#id2c, #rowc], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x1024xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %max : tensor<8xf32>
}
