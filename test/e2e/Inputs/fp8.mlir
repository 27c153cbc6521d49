// FP8 conversions in compiled code (w4a16-expand-f8): the two formats FP8 checkpoints and KV caches use, to and
// from f16, bf16 and f32, on tensors as exporters write them (arith ops on whole tensors, which
// convert-elementwise-to-linalg turns into bodies). Nothing upstream lowers them: before, compiling any of these
// stopped with "'arith.extf' is left after the lowering to the LLVM dialect" (host) or an LLVM translation failure
// (GPU target).
func.func @e4m3_to_f32(%b: tensor<256xf8E4M3FN>) -> tensor<256xf32> {
  %f = arith.extf %b : tensor<256xf8E4M3FN> to tensor<256xf32>
  return %f : tensor<256xf32>
}

func.func @e5m2_to_f32(%b: tensor<256xf8E5M2>) -> tensor<256xf32> {
  %f = arith.extf %b : tensor<256xf8E5M2> to tensor<256xf32>
  return %f : tensor<256xf32>
}

func.func @e4m3_to_bf16(%b: tensor<256xf8E4M3FN>) -> tensor<256xbf16> {
  %f = arith.extf %b : tensor<256xf8E4M3FN> to tensor<256xbf16>
  return %f : tensor<256xbf16>
}

func.func @e5m2_to_bf16(%b: tensor<256xf8E5M2>) -> tensor<256xbf16> {
  %f = arith.extf %b : tensor<256xf8E5M2> to tensor<256xbf16>
  return %f : tensor<256xbf16>
}

func.func @e4m3_to_f16(%b: tensor<256xf8E4M3FN>) -> tensor<256xf16> {
  %f = arith.extf %b : tensor<256xf8E4M3FN> to tensor<256xf16>
  return %f : tensor<256xf16>
}

// An FP8 checkpoint's weights stored as bytes and viewed as e4m3 (torch-mlir's Tensor.view(dtype) is a tensor.bitcast,
// which w4a16-tensor-bitcasts makes an elementwise arith.bitcast: nothing upstream bufferizes tensor.bitcast).
func.func @bytes_as_e4m3_to_f32(%b: tensor<256xi8>) -> tensor<256xf32> {
  %v = tensor.bitcast %b : tensor<256xi8> to tensor<256xf8E4M3FN>
  %f = arith.extf %v : tensor<256xf8E4M3FN> to tensor<256xf32>
  return %f : tensor<256xf32>
}

func.func @f32_to_e4m3(%x: tensor<?xf32>) -> tensor<?xf8E4M3FN> {
  %b = arith.truncf %x : tensor<?xf32> to tensor<?xf8E4M3FN>
  return %b : tensor<?xf8E4M3FN>
}

func.func @f32_to_e5m2(%x: tensor<?xf32>) -> tensor<?xf8E5M2> {
  %b = arith.truncf %x : tensor<?xf32> to tensor<?xf8E5M2>
  return %b : tensor<?xf8E5M2>
}

func.func @f16_to_e4m3(%x: tensor<?xf16>) -> tensor<?xf8E4M3FN> {
  %b = arith.truncf %x : tensor<?xf16> to tensor<?xf8E4M3FN>
  return %b : tensor<?xf8E4M3FN>
}

func.func @bf16_to_e5m2(%x: tensor<?xbf16>) -> tensor<?xf8E5M2> {
  %b = arith.truncf %x : tensor<?xbf16> to tensor<?xf8E5M2>
  return %b : tensor<?xf8E5M2>
}

// An FP8 KV cache as a decode step reads it: dequantised with a per-tensor scale inside the consumer's body.
func.func @scaled_dot(%q: tensor<64xf16>, %k: tensor<64xf8E4M3FN>, %scale: tensor<f32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>,
                                        affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%q, %k, %scale : tensor<64xf16>, tensor<64xf8E4M3FN>, tensor<f32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f16, %b: f8E4M3FN, %s: f32, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f8E4M3FN to f32
    %bs = arith.mulf %b32, %s : f32
    %p = arith.mulf %a32, %bs : f32
    %sum = arith.addf %o, %p : f32
    linalg.yield %sum : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
