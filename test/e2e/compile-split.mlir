// w4a16-compile on a Phi-3 MLP (examples/phi3_mlp.mlir: gate and up in one weight of 2I columns, chunked): the fused
// gate_up chain is split into its gate and up halves and they merge into one GLU launch, and the log says so;
// --no-merge skips the split too (gate_up stays one call of N = 2I, silu and the product generated code).
//
// RUN: w4a16-compile %S/../../examples/phi3_mlp.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: nm -D %t.so | FileCheck %s --check-prefix=SYMS
// RUN: w4a16-compile %S/../../examples/phi3_mlp.mlir --no-merge -o %t.nomerge.so 2>&1 | FileCheck %s --check-prefix=NOMERGE
// RUN: nm -D %t.nomerge.so | FileCheck %s --check-prefix=SYMS-NOMERGE
// RUN: w4a16-compile %S/../../examples/phi3_mlp.mlir --explain -o %t.explain.so 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: w4a16-compile %S/../../examples/phi3_mlp.mlir --no-merge --explain -o %t.nomerge.so 2>&1 | FileCheck %s --check-prefix=NOMERGE-EXPLAIN

// LOG: fused 2 chains into w4a16.fused_matmul; 1 of them split into gate and up halves; 2 projections (halves counted) merged into 1 w4a16.merged_matmul (one launch each)
// SYMS: U _mlir_ciface_w4a16_rt_merged
// NOMERGE: fused 2 chains into w4a16.fused_matmul{{$}}
// SYMS-NOMERGE-NOT: w4a16_rt_merged
// EXPLAIN: phi3_mlp.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu: gate columns [0, 512), up [512, 1024), silu(gate) * up
// EXPLAIN: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// EXPLAIN: fused 2 chains into w4a16.fused_matmul; 1 of them split into gate and up halves; 2 projections (halves counted) merged into 1 w4a16.merged_matmul (one launch each); 0 candidate matmuls left unfused
// NOMERGE-EXPLAIN-NOT: split the gate_up
// NOMERGE-EXPLAIN: fused 2 chains into w4a16.fused_matmul; 0 candidate matmuls left unfused
