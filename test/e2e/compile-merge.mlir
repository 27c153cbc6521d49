// w4a16-compile merges sibling projections by default (issue #21) and says so; --no-merge keeps every fused chain
// its own runtime call. On examples/llama_mlp.mlir: gate, up and their product become one GLU launch, which the
// compiled code runs through w4a16_rt_merged.
//
// RUN: w4a16-compile %S/../../examples/llama_mlp.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: nm -D %t.so | FileCheck %s --check-prefix=SYMS
// RUN: w4a16-compile %S/../../examples/llama_mlp.mlir --no-merge -o %t.nomerge.so 2>&1 | FileCheck %s --check-prefix=NOMERGE
// RUN: nm -D %t.nomerge.so | FileCheck %s --check-prefix=SYMS-NOMERGE
// RUN: w4a16-compile %S/../../examples/llama_mlp.mlir --explain -o %t.explain.so 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// LOG: fused 3 chains into w4a16.fused_matmul; 2 of them merged into 1 w4a16.merged_matmul (one launch each)
// SYMS: U _mlir_ciface_w4a16_rt_merged
// NOMERGE: fused 3 chains into w4a16.fused_matmul{{$}}
// SYMS-NOMERGE-NOT: w4a16_rt_merged
// EXPLAIN: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// EXPLAIN: fused 3 chains into w4a16.fused_matmul; 2 of them merged into 1 w4a16.merged_matmul (one launch each); 0 candidate matmuls left unfused
