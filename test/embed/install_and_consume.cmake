# ctest "embed-install" (issue #20): installs this build into a scratch prefix (every component: libraries,
# headers, CMake package, tools), then from that prefix only:
#   1. runs the installed tools (their RUNPATH must survive the install): --version, a textual pipeline naming a
#      w4a16 pass, a compile;
#   2. configures, builds and runs test/embed/consumer, a C-only project (embed_test.c against W4A16::compiler,
#      a runtime program against W4A16::runtime);
#   3. extracts the files README.md's snippets show (every ```c and ```cmake block carries `<!-- file: NAME -->`
#      or `<!-- not compiled: why -->`, so the README cannot drift from the headers), builds that C-only project
#      and runs it: mycompiler (the passes nested, by name and the full pipeline) on a model and on
#      examples/llama_mlp.mlir, and app (a function of an object w4a16-compile made, linked with W4A16::rt_abi).
# cmake -DW4A16_BUILD_DIR= -DW4A16_PREFIX= -DW4A16_CONSUMER_SRC= -DW4A16_CONSUMER_BUILD= -DW4A16_GENERATOR=
#       -DW4A16_C_COMPILER= -DW4A16_MLIR_DIR= -DW4A16_README= -DW4A16_README_BUILD= -DW4A16_EXAMPLE=
#       -P install_and_consume.cmake
cmake_minimum_required(VERSION 3.20) # policies of the script (while(TRUE), IN_LIST)
foreach(var W4A16_BUILD_DIR W4A16_PREFIX W4A16_CONSUMER_SRC W4A16_CONSUMER_BUILD W4A16_GENERATOR W4A16_README
            W4A16_README_BUILD W4A16_EXAMPLE)
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
  set(step_error "${err}" PARENT_SCOPE)
endfunction()

function(expect what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "embed-install: ${what} does not match '${regex}':\n${text}")
  endif()
endfunction()

# Configures (C compiler only) and builds the project in src, against the prefix only.
function(build_project what src build)
  set(args -S "${src}" -B "${build}" -G "${W4A16_GENERATOR}" -DCMAKE_BUILD_TYPE=Release
           "-DCMAKE_PREFIX_PATH=${W4A16_PREFIX}")
  if(W4A16_C_COMPILER)
    list(APPEND args "-DCMAKE_C_COMPILER=${W4A16_C_COMPILER}")
  endif()
  if(W4A16_MLIR_DIR)
    list(APPEND args "-DMLIR_DIR=${W4A16_MLIR_DIR}")
  endif()
  step("configure ${what}" ${CMAKE_COMMAND} ${args})
  step("build ${what}" ${CMAKE_COMMAND} --build "${build}")
  # It must have used the installed package, not the build tree.
  file(READ "${build}/CMakeCache.txt" cache)
  string(REGEX MATCH "W4A16_DIR:[A-Z]*=([^\n]*)" _ "${cache}")
  set(found_dir "${CMAKE_MATCH_1}")
  file(REAL_PATH "${W4A16_PREFIX}/lib/cmake/W4A16" want_dir)
  file(REAL_PATH "${found_dir}" found_real)
  if(NOT found_real STREQUAL want_dir)
    message(FATAL_ERROR "embed-install: ${what} found W4A16 in '${found_dir}', not in '${want_dir}'")
  endif()
  if(cache MATCHES "CMAKE_CXX_COMPILER:")
    message(FATAL_ERROR "embed-install: ${what} enabled C++; it must link as a C-only project")
  endif()
endfunction()

file(REMOVE_RECURSE "${W4A16_PREFIX}" "${W4A16_CONSUMER_BUILD}" "${W4A16_README_BUILD}")

step("install into ${W4A16_PREFIX}" ${CMAKE_COMMAND} --install "${W4A16_BUILD_DIR}" --prefix "${W4A16_PREFIX}")
foreach(f lib/cmake/W4A16/W4A16Config.cmake lib/cmake/W4A16/W4A16Targets.cmake include/w4a16/w4a16.h
          include/w4a16/passes.h include/w4a16/dialect.h include/w4a16/lowering.h bin/w4a16-opt bin/w4a16-compile)
  if(NOT EXISTS "${W4A16_PREFIX}/${f}")
    message(FATAL_ERROR "embed-install: the install has no ${f}")
  endif()
endforeach()

# ---- 1. the installed tools start from the prefix ----
set(opt "${W4A16_PREFIX}/bin/w4a16-opt")
set(compile "${W4A16_PREFIX}/bin/w4a16-compile")
step("installed w4a16-opt --version" "${opt}" --version)
expect("w4a16-opt --version" "${step_output}" "^w4a16-opt [0-9]+\\.[0-9]+\\.[0-9]+")
step("installed w4a16-compile --version" "${compile}" --version)
expect("w4a16-compile --version" "${step_output}" "^w4a16-compile [0-9]+\\.[0-9]+\\.[0-9]+")
step("installed w4a16-opt --pass-pipeline naming w4a16-fuse" "${opt}"
     "--pass-pipeline=builtin.module(func.func(canonicalize,w4a16-fuse),w4a16-verify)" "${W4A16_EXAMPLE}")
expect("the fused example" "${step_output}" "w4a16.fused_matmul")
file(MAKE_DIRECTORY "${W4A16_README_BUILD}")
step("installed w4a16-compile" "${compile}" "${W4A16_EXAMPLE}" -o "${W4A16_README_BUILD}/example.o" -q)

# ---- 2. test/embed/consumer ----
build_project("the consumer project" "${W4A16_CONSUMER_SRC}" "${W4A16_CONSUMER_BUILD}")
step("run the consumer" "${W4A16_CONSUMER_BUILD}/w4a16-consumer")
expect("the consumer's output" "${step_output}" "w4a16.fused_matmul")
if(EXISTS "${W4A16_CONSUMER_BUILD}/w4a16-runtime-consumer")
  step("run the runtime consumer" "${W4A16_CONSUMER_BUILD}/w4a16-runtime-consumer")
endif()

# ---- 3. the README's project ----
# The file a fenced block is, from the marker on the line before it; every c/cmake block needs one.
file(READ "${W4A16_README}" text)
set(src "${W4A16_README_BUILD}/src")
set(extracted "")
while(TRUE)
  string(FIND "${text}" "\n```" open)
  if(open EQUAL -1)
    break()
  endif()
  string(SUBSTRING "${text}" 0 ${open} before)
  string(FIND "${before}" "\n" line_start REVERSE)
  math(EXPR line_start "${line_start} + 1")
  string(SUBSTRING "${before}" ${line_start} -1 marker)
  math(EXPR open "${open} + 4")
  string(SUBSTRING "${text}" ${open} -1 text)
  string(FIND "${text}" "\n" eol)
  string(SUBSTRING "${text}" 0 ${eol} lang)
  math(EXPR eol "${eol} + 1")
  string(SUBSTRING "${text}" ${eol} -1 text)
  string(FIND "${text}" "\n```" close)
  if(close EQUAL -1)
    message(FATAL_ERROR "embed-install: README.md: a ```${lang} block is not closed")
  endif()
  math(EXPR close "${close} + 1")
  string(SUBSTRING "${text}" 0 ${close} body)
  math(EXPR close "${close} + 3")
  string(SUBSTRING "${text}" ${close} -1 text)
  if(marker MATCHES "^<!-- file: ([A-Za-z0-9_.-]+) -->$")
    file(WRITE "${src}/${CMAKE_MATCH_1}" "${body}")
    list(APPEND extracted "${CMAKE_MATCH_1}")
  elseif(lang MATCHES "^(c|cmake)$" AND NOT marker MATCHES "^<!-- not compiled: .+ -->$")
    message(FATAL_ERROR "embed-install: README.md: a ```${lang} block has neither <!-- file: NAME --> nor "
                        "<!-- not compiled: why --> on the line before it (line: '${marker}')")
  endif()
endwhile()
foreach(f CMakeLists.txt mycompiler.c model.mlir app.c)
  if(NOT f IN_LIST extracted)
    message(FATAL_ERROR "embed-install: README.md shows no ${f} (extracted: ${extracted})")
  endif()
endforeach()
message(STATUS "embed-install: README.md snippets: ${extracted}")
build_project("the README's project" "${src}" "${W4A16_README_BUILD}/build")
set(readme_bin "${W4A16_README_BUILD}/build")
step("mycompiler model.mlir" "${readme_bin}/mycompiler" "${src}/model.mlir")
expect("mycompiler's output" "${step_output}" "llvm.func @w4a16c_run_proj\\(")
step("mycompiler llama_mlp.mlir" "${readme_bin}/mycompiler" "${W4A16_EXAMPLE}")
expect("mycompiler's remarks" "${step_error}" "remark: w4a16: fused as ")
expect("mycompiler's output" "${step_output}" "llvm.func @w4a16c_run_llama_mlp\\(")
step("app (compiled model)" "${readme_bin}/app")
expect("app's output" "${step_output}" "= 0x5c00")
message(STATUS "embed-install: passed")
