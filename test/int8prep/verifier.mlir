// The C verifier of w4a16.int8_prep: element types and shapes (what IRDL cannot state), each error located at
// the op (--verify-diagnostics checks line, severity and text).
// RUN: w4a16-opt --verify-diagnostics --split-input-file --w4a16-verify %s > /dev/null

func.func @cb_type(%A: tensor<4x64xf16>, %CB: tensor<32x64xi32>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>) -> tensor<4x5xf16> {
  // expected-error @+1 {{'w4a16.int8_prep' op CB must have i8 elements}}
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<4x64xf16>, tensor<32x64xi32>, tensor<32xf32>, tensor<5xi64>) -> (tensor<4x5xf16>, tensor<5x32xf16>)
  return %p#0 : tensor<4x5xf16>
}

// -----

func.func @k_mismatch(%A: tensor<4x64xf16>, %CB: tensor<32x128xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>) -> tensor<4x5xf16> {
  // expected-error @+1 {{'w4a16.int8_prep' op CB dim 1 is 128 but A dim 1 is 64}}
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<4x64xf16>, tensor<32x128xi8>, tensor<32xf32>, tensor<5xi64>) -> (tensor<4x5xf16>, tensor<5x32xf16>)
  return %p#0 : tensor<4x5xf16>
}

// -----

func.func @l_mismatch(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>) -> tensor<4x6xf16> {
  // expected-error @+1 {{'w4a16.int8_prep' op subA dim 1 is 6 but cols dim 0 is 5}}
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<4x64xf16>, tensor<32x64xi8>, tensor<32xf32>, tensor<5xi64>) -> (tensor<4x6xf16>, tensor<5x32xf16>)
  return %p#0 : tensor<4x6xf16>
}

// -----

func.func @scb_type(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf16>, %cols: tensor<5xi64>) -> tensor<4x5xf16> {
  // expected-error @+1 {{'w4a16.int8_prep' op SCB must have f32 elements}}
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<4x64xf16>, tensor<32x64xi8>, tensor<32xf16>, tensor<5xi64>) -> (tensor<4x5xf16>, tensor<5x32xf16>)
  return %p#0 : tensor<4x5xf16>
}

// -----

func.func @sub_b_rank(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<?xi64>) -> tensor<4x?xf16> {
  // expected-error @+1 {{'w4a16.int8_prep' op subB must be a rank-2 tensor}}
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<4x64xf16>, tensor<32x64xi8>, tensor<32xf32>, tensor<?xi64>) -> (tensor<4x?xf16>, tensor<?xf16>)
  return %p#0 : tensor<4x?xf16>
}

// -----

func.func @n_mismatch(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<?xi64>) -> tensor<4x?xf16> {
  // expected-error @+1 {{'w4a16.int8_prep' op subB dim 1 is 16 but CB dim 0 is 32}}
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<4x64xf16>, tensor<32x64xi8>, tensor<32xf32>, tensor<?xi64>) -> (tensor<4x?xf16>, tensor<?x16xf16>)
  return %p#0 : tensor<4x?xf16>
}
