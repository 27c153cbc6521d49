// f32 -> bf16 as every bf16 model's compiled code rounds: on x86 CPUs without AVX512-BF16 LLVM calls
// __truncsfbf2, which Debian 12's libgcc (GCC 12) lacks; compiled bf16 code did not load there until the
// runtime ABI provided it (runtime/abi/w4a16_rt_abi.c). Compiled for generic x86-64 (w4a16-compile's default),
// so the call is always made. The same from f64 (__truncdfbf2, also missing there): rounded once.
func.func @to_bf16(%x: tensor<8xf32>) -> tensor<8xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8xbf16>
  return %y : tensor<8xbf16>
}

func.func @f64_to_bf16(%x: tensor<8xf64>) -> tensor<8xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<8xf64>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f64, %out: bf16):
    %r = arith.truncf %in : f64 to bf16
    linalg.yield %r : bf16
  } -> tensor<8xbf16>
  return %y : tensor<8xbf16>
}
