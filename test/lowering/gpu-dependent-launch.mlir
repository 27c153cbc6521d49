// w4a16-gpu-dependent-launch: every generated kernel first waits for the grids it depends on -- so that the
// runtime may launch it as a programmatic dependent. Only for sm_90 and up (griddepcontrol is sm_90 PTX):
// w4a16-compile --gpu-chip=sm_80 generates no such instruction.
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-gpu-dependent-launch)' %s | FileCheck %s
// RUN: %if libdevice %{ w4a16-compile --target=gpu --emit-mlir %s -o - -q | FileCheck %s --check-prefix=SM90 %}
// RUN: %if libdevice %{ w4a16-compile --target=gpu --gpu-chip=sm_80 --emit-mlir %s -o - -q | FileCheck %s --check-prefix=SM80 %}

// CHECK-LABEL: gpu.func @k
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    gpu.return
// CHECK-LABEL: gpu.func @not_a_kernel
// CHECK-NOT:     griddepcontrol
// SM90:        .target sm_90
// SM90-SAME:   griddepcontrol.wait
// SM80:        .target sm_80
// SM80-NOT:    griddepcontrol
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
    gpu.func @not_a_kernel(%a: memref<?xf32>) {
      gpu.return
    }
  }
  func.func @add(%a: tensor<1024xf32>) -> tensor<1024xf32> {
    %e = tensor.empty() : tensor<1024xf32>
    %r = linalg.add ins(%a, %a : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
    return %r : tensor<1024xf32>
  }
}
