// ERROR on valid IR (GPU target): tensor.extract of a 0-d position tensor used as insert_slice offset is rejected ('memref.load would run on the host'). Command: w4a16-compile 01-gpu-scalar-offset-from-0d-tensor.mlir -o out.o --target=gpu
func.func @kv_append(%cache: tensor<2x1024x64xf16>, %k: tensor<2x?x64xf16>, %pos: tensor<i64>) -> tensor<2x1024x64xf16> {
  %c1 = arith.constant 1 : index
  %m = tensor.dim %k, %c1 : tensor<2x?x64xf16>
  %p64 = tensor.extract %pos[] : tensor<i64>
  %p = arith.index_cast %p64 : i64 to index
  %upd = tensor.insert_slice %k into %cache[0, %p, 0] [2, %m, 64] [1, 1, 1] : tensor<2x?x64xf16> into tensor<2x1024x64xf16>
  return %upd : tensor<2x1024x64xf16>
}
