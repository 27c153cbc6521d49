# lit configuration of the w4a16 suite (test/fuse, test/explain, test/robustness, test/tool, ...).
# Run through the generated build/test/lit.site.cfg.py, which sets the paths below.
import os
import shutil

import lit.formats
import lit.util

config.name = "w4a16"
config.test_format = lit.formats.ShTest(not lit_config.isWindows)
config.suffixes = [".mlir", ".test"]

if not hasattr(config, "test_source_root") or config.test_source_root is None:
    config.test_source_root = os.path.dirname(os.path.abspath(__file__))
if not hasattr(config, "test_exec_root") or config.test_exec_root is None:
    config.test_exec_root = os.path.join(
        os.path.dirname(config.test_source_root), "build", "test")

# Not tests: build files, inputs of other tests, helpers, and the embedding test that ctest/CMake drives itself.
config.excludes = ["CMakeLists.txt", "Inputs", "embed", "lit.cfg.py", "lit.site.cfg.py",
                   "README.md", "mutate.py", "differential.py", "rt_shared.c", "__pycache__"]

# Tools: our build's bin/ first, then the LLVM 22 tools, then the inherited PATH.
llvm_tools_dir = getattr(config, "llvm_tools_dir", None) or "/usr/lib/llvm-22/bin"
w4a16_tools_dir = getattr(config, "w4a16_tools_dir", None) or os.path.join(
    os.path.dirname(config.test_source_root), "build", "bin")
path = os.pathsep.join([w4a16_tools_dir, llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = path

python = getattr(config, "python_executable", None) or shutil.which("python3") or "python3"
config.substitutions.append(("%python", python))
config.substitutions.append(("%mutate", '"%s" "%s"' % (python, os.path.join(config.test_source_root, "robustness", "mutate.py"))))
config.substitutions.append(("%w4a16_test_src", config.test_source_root))
config.substitutions.append(("%w4a16_tools_dir", w4a16_tools_dir))
config.substitutions.append(("%w4a16_rt_shared_lib", getattr(config, "w4a16_rt_shared_lib", None) or os.path.join(
    os.path.dirname(config.test_source_root), "build", "lib", "libw4a16_rt_shared.so")))

# Make lit's own environment deterministic for the tools.
for var in ["LANG", "LC_ALL"]:
    config.environment[var] = "C"
# The robustness test reads this to know where the suite lives.
config.environment["W4A16_TEST_SRC"] = config.test_source_root
config.environment["W4A16_OPT"] = os.path.join(w4a16_tools_dir, "w4a16-opt")

# The GPU target's PTX generation links CUDA's libdevice, found where lowering/gpu_host_code.c looks for it;
# tests that generate PTX say `REQUIRES: libdevice` and report UNSUPPORTED without it.
_toolkit_vars = ["W4A16_CUDA_TOOLKIT", "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"]
for var in _toolkit_vars:
    if var in os.environ:
        config.environment[var] = os.environ[var]
if "W4A16_CUDA_TOOLKIT" in os.environ:
    _toolkits = [os.environ["W4A16_CUDA_TOOLKIT"]]
else:
    _toolkits = [os.environ.get(v) for v in _toolkit_vars[1:]] + ["/usr/local/cuda", "/usr/lib/cuda"]
if any(t and os.path.isfile(os.path.join(t, "nvvm", "libdevice", "libdevice.10.bc")) for t in _toolkits):
    config.available_features.add("libdevice")
