/* Intentionally empty: w4a16_rt_shared (test/CMakeLists.txt) is the w4a16 runtime ABI and int8prep libraries
 * linked whole into a shared object, and a shared library needs at least one source of its own. */
typedef int w4a16_rt_shared_has_no_code;
