# Installs the compiler libraries, the runtime libraries (when built), the public headers and the tools
# (w4a16-opt, w4a16-compile), and exports a CMake package so another project can do
#
#   find_package(W4A16 CONFIG REQUIRED)                    # -DCMAKE_PREFIX_PATH=<prefix>
#   target_link_libraries(mytool PRIVATE W4A16::compiler)  # dialect + passes + lowering + MLIR C API
#   target_link_libraries(myapp  PRIVATE W4A16::runtime)   # the runtime C API (if built)
#   target_link_libraries(myapp  PRIVATE W4A16::rt_abi)    # entry points of AOT-compiled code (if built)
#   target_link_libraries(myapp  PRIVATE W4A16::int8prep)  # LLM.int8 preparation entry point (if built)
# (both bring W4A16::rt_status, the compiled-code status they share.) Every target carries its link
# dependencies, the C++ runtime included: a C-only project (project(x C)) links them.
#
# Install components: w4a16-dev (libraries, headers, CMake package) and w4a16-tools (w4a16-opt, w4a16-compile).
# Included from the top-level CMakeLists.txt (not in W4A16_RUNTIME_ONLY builds).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(W4A16_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/W4A16)

# Library targets and the names they get in the package (W4A16::<name>). Targets that this configuration
# does not define are skipped.
set(_w4a16_export_names
  w4a16_contract contract
  w4a16_dialect  dialect
  w4a16_passes   passes
  w4a16_lowering lowering
  w4a16_compiler compiler
  w4a16_runtime  runtime
  w4a16_rt_status rt_status
  w4a16_rt_abi   rt_abi
  w4a16_int8prep int8prep)
set(W4A16_INSTALLED_TARGETS "")
set(W4A16_INSTALLED_EXPORT_NAMES "")
list(LENGTH _w4a16_export_names _w4a16_n)
math(EXPR _w4a16_last "${_w4a16_n} - 1")
foreach(_i RANGE 0 ${_w4a16_last} 2)
  math(EXPR _j "${_i} + 1")
  list(GET _w4a16_export_names ${_i} _target)
  list(GET _w4a16_export_names ${_j} _export)
  if(TARGET ${_target})
    set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_export})
    list(APPEND W4A16_INSTALLED_TARGETS ${_target})
    list(APPEND W4A16_INSTALLED_EXPORT_NAMES ${_export})
  endif()
endforeach()

# Public headers: every source-tree include directory of an installed target that holds a w4a16/ folder
# (dialect/include, passes/include, lowering/include, runtime/include, runtime/abi/include, ...) goes to
# <prefix>/include/w4a16/.
# A plain source-tree include path (not inside $<BUILD_INTERFACE:...>) cannot be exported as is: it is wrapped
# in $<BUILD_INTERFACE:...>; the installed targets get <prefix>/include from INCLUDES DESTINATION below.
set(_w4a16_header_dirs "")
foreach(_target IN LISTS W4A16_INSTALLED_TARGETS)
  get_target_property(_incs ${_target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _incs)
    continue()
  endif()
  set(_fixed "")
  set(_changed OFF)
  foreach(_inc IN LISTS _incs)
    set(_path "")
    if(_inc MATCHES "^\\$<BUILD_INTERFACE:(.*)>$")
      set(_path "${CMAKE_MATCH_1}")
      list(APPEND _fixed "${_inc}")
    elseif(NOT _inc MATCHES "^\\$<" AND (_inc MATCHES "^${PROJECT_SOURCE_DIR}/" OR _inc MATCHES "^${PROJECT_BINARY_DIR}/"))
      set(_path "${_inc}")
      list(APPEND _fixed "$<BUILD_INTERFACE:${_inc}>")
      set(_changed ON)
    else()
      list(APPEND _fixed "${_inc}")
    endif()
    if(_path MATCHES "^${PROJECT_SOURCE_DIR}/" AND IS_DIRECTORY "${_path}/w4a16")
      list(APPEND _w4a16_header_dirs "${_path}/w4a16")
    endif()
  endforeach()
  if(_changed)
    set_target_properties(${_target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_fixed}")
  endif()
endforeach()
list(REMOVE_DUPLICATES _w4a16_header_dirs)
foreach(_dir IN LISTS _w4a16_header_dirs)
  install(DIRECTORY ${_dir}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT w4a16-dev
    FILES_MATCHING PATTERN "*.h")
endforeach()

install(TARGETS ${W4A16_INSTALLED_TARGETS}
  EXPORT W4A16Targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT w4a16-dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT w4a16-dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT w4a16-dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT W4A16Targets
  NAMESPACE W4A16::
  DESTINATION ${W4A16_INSTALL_CMAKEDIR}
  COMPONENT w4a16-dev)

# Values the package config needs: where MLIR was found and which dependencies the runtime targets bring.
set(W4A16_CONFIG_MLIR_DIR "${MLIR_DIR}")
set(W4A16_CONFIG_TARGETS "${W4A16_INSTALLED_EXPORT_NAMES}")
if(W4A16_HAVE_CUDA AND TARGET w4a16_runtime)
  set(W4A16_CONFIG_NEEDS_CUDA ON)
else()
  set(W4A16_CONFIG_NEEDS_CUDA OFF)
endif()
if(TARGET w4a16_rt_abi)
  set(W4A16_CONFIG_NEEDS_THREADS ON)
else()
  set(W4A16_CONFIG_NEEDS_THREADS OFF)
endif()
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/W4A16Config.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/W4A16Config.cmake
  INSTALL_DESTINATION ${W4A16_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/W4A16ConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/W4A16Config.cmake
  ${PROJECT_BINARY_DIR}/cmake/W4A16ConfigVersion.cmake
  DESTINATION ${W4A16_INSTALL_CMAKEDIR}
  COMPONENT w4a16-dev)

foreach(_tool w4a16-opt w4a16-compile)
  if(TARGET ${_tool})
    # The build tree's RUNPATH (libMLIR/libLLVM's directory) would be dropped on install: keep the directories
    # of the shared libraries the tool links that are outside the system's, so it starts from the prefix.
    set_target_properties(${_tool} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS ${_tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT w4a16-tools)
  endif()
endforeach()
