// w4a16-compile reports the LLM.int8 preparations it fuses besides the W4A16 chains (with --explain, their
// remarks), as written and after upstream's elementwise fusion; the built object calls the int8prep runtime. A
// file without one keeps its report as it was.
//
// RUN: w4a16-compile %S/../int8prep/Inputs/llm_int8_correction.mlir --explain -o %t.o 2>&1 | FileCheck %s
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/../int8prep/Inputs/llm_int8_correction_out.mlir -o %t.up.mlir
// RUN: w4a16-compile %t.up.mlir --explain -o %t.so 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// RUN: nm -D %t.so | FileCheck %s --check-prefix=SYMS
// RUN: w4a16-compile %S/../../examples/llama_mlp.mlir -o %t.mlp.o 2>&1 | FileCheck %s --check-prefix=W4A16-ONLY
//
// CHECK-COUNT-3: remark: w4a16-int8-prep: fused as subA = A[:, cols]
// CHECK:         w4a16-compile: {{.*}}llm_int8_correction.mlir: fused 0 chains into w4a16.fused_matmul{{.*}}; 3 LLM.int8 preparations fused into w4a16.int8_prep{{$}}
// UPSTREAM-COUNT-2: remark: w4a16-int8-prep: fused as subA = A[:, cols] {{.*}}; both were computed inside the contraction's body
// UPSTREAM:         fused 0 chains into w4a16.fused_matmul{{.*}}; 2 LLM.int8 preparations fused into w4a16.int8_prep{{$}}
// SYMS: U _mlir_ciface_w4a16_rt_int8_prep
// W4A16-ONLY:     w4a16-compile: {{.*}}llama_mlp.mlir: fused 3 chains into w4a16.fused_matmul; 2 of them merged into 1 w4a16.merged_matmul (one launch each){{$}}
