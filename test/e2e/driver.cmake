# The e2e driver target, shared by the full build (test/e2e/CMakeLists.txt) and the runtime-only GPU build
# (test/e2e/gpu/CMakeLists.txt). Needs w4a16_rt_abi; no MLIR.
add_executable(e2e-driver ${CMAKE_CURRENT_LIST_DIR}/e2e_driver.c ${CMAKE_CURRENT_LIST_DIR}/e2e_call.c
                          ${CMAKE_CURRENT_LIST_DIR}/e2e_data.c)
target_link_libraries(e2e-driver PRIVATE w4a16_rt_abi w4a16_testing ${CMAKE_DL_LIBS})
find_library(W4A16_E2E_LIBM m)
if(W4A16_E2E_LIBM)
  target_link_libraries(e2e-driver PRIVATE ${W4A16_E2E_LIBM})
endif()
# The dlopen'ed fused builds resolve _mlir_ciface_w4a16_rt_matmul_* from this executable.
set_target_properties(e2e-driver PROPERTIES ENABLE_EXPORTS ON C_STANDARD 17 C_STANDARD_REQUIRED ON
                                            LINKER_LANGUAGE CXX)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(e2e-driver PRIVATE -Wall -Wextra)
endif()
