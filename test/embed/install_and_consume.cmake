# ctest "embed-install": installs this build into a scratch prefix (component w4a16-dev: libraries, headers,
# CMake package), then configures, builds and runs test/embed/consumer against that prefix only.
# cmake -DW4A16_BUILD_DIR= -DW4A16_PREFIX= -DW4A16_CONSUMER_SRC= -DW4A16_CONSUMER_BUILD= -DW4A16_GENERATOR=
#       -DW4A16_C_COMPILER= -DW4A16_CXX_COMPILER= -DW4A16_MLIR_DIR= -P install_and_consume.cmake
foreach(var W4A16_BUILD_DIR W4A16_PREFIX W4A16_CONSUMER_SRC W4A16_CONSUMER_BUILD W4A16_GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_and_consume.cmake: ${var} is not set")
  endif()
endforeach()

function(step what)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(TIMESTAMP t1 "%s")
  math(EXPR dt "${t1} - ${t0}")
  if(NOT rc EQUAL 0)
    message("---- ${what}: stdout\n${out}\n---- ${what}: stderr\n${err}")
    message(FATAL_ERROR "embed-install: ${what} failed (exit ${rc})")
  endif()
  message(STATUS "embed-install: ${what}: ok (${dt} s)")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${W4A16_PREFIX}" "${W4A16_CONSUMER_BUILD}")

step("install into ${W4A16_PREFIX}"
  ${CMAKE_COMMAND} --install "${W4A16_BUILD_DIR}" --prefix "${W4A16_PREFIX}" --component w4a16-dev)

foreach(f lib/cmake/W4A16/W4A16Config.cmake lib/cmake/W4A16/W4A16Targets.cmake include/w4a16/w4a16.h
          include/w4a16/passes.h include/w4a16/dialect.h)
  if(NOT EXISTS "${W4A16_PREFIX}/${f}")
    message(FATAL_ERROR "embed-install: the install has no ${f}")
  endif()
endforeach()

set(configure_args -S "${W4A16_CONSUMER_SRC}" -B "${W4A16_CONSUMER_BUILD}" -G "${W4A16_GENERATOR}"
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${W4A16_PREFIX}")
if(W4A16_C_COMPILER)
  list(APPEND configure_args "-DCMAKE_C_COMPILER=${W4A16_C_COMPILER}")
endif()
if(W4A16_CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${W4A16_CXX_COMPILER}")
endif()
if(W4A16_MLIR_DIR)
  list(APPEND configure_args "-DMLIR_DIR=${W4A16_MLIR_DIR}")
endif()
step("configure the consumer project" ${CMAKE_COMMAND} ${configure_args})
step("build the consumer project" ${CMAKE_COMMAND} --build "${W4A16_CONSUMER_BUILD}")

# It must have used the installed package, not this build tree.
file(READ "${W4A16_CONSUMER_BUILD}/CMakeCache.txt" cache)
string(REGEX MATCH "W4A16_DIR:[A-Z]*=([^\n]*)" _ "${cache}")
set(found_dir "${CMAKE_MATCH_1}")
file(REAL_PATH "${W4A16_PREFIX}/lib/cmake/W4A16" want_dir)
file(REAL_PATH "${found_dir}" found_real)
if(NOT found_real STREQUAL want_dir)
  message(FATAL_ERROR "embed-install: the consumer found W4A16 in '${found_dir}', not in '${want_dir}'")
endif()

step("run the consumer" "${W4A16_CONSUMER_BUILD}/w4a16-consumer")
if(NOT step_output MATCHES "w4a16.fused_matmul")
  message(FATAL_ERROR "embed-install: the consumer printed no w4a16.fused_matmul:\n${step_output}")
endif()
if(EXISTS "${W4A16_CONSUMER_BUILD}/w4a16-runtime-consumer")
  step("run the runtime consumer" "${W4A16_CONSUMER_BUILD}/w4a16-runtime-consumer")
endif()
message(STATUS "embed-install: passed")
