# Two entry points for a fresh machine: `make demo` and `make test`.
# Both install what is missing from Debian packages, configure CMake into build/, and build.

LLVM       ?= /usr/lib/llvm-22
BUILD      ?= build
NVCC       ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
APT_PKGS   := libmlir-22-dev mlir-22-tools llvm-22-tools llvm-22-dev cmake ninja-build python3
CMAKE_ARGS ?=

.PHONY: all deps configure build test demo clean

all: build

# Install only when something is missing, so repeated runs cost nothing.
deps:
	@if [ ! -f $(LLVM)/lib/cmake/mlir/MLIRConfig.cmake ] || [ ! -x $(LLVM)/bin/FileCheck ] \
	    || ! command -v cmake >/dev/null || ! command -v ninja >/dev/null; then \
	  echo "w4a16: installing $(APT_PKGS)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $(APT_PKGS); \
	fi

$(BUILD)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DMLIR_DIR=$(LLVM)/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$(LLVM)/bin/lit \
	  $(if $(NVCC),-DCMAKE_CUDA_COMPILER=$(NVCC)) $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD)

test: build
	cmake --build $(BUILD) --target check-w4a16

demo: build
	cmake --build $(BUILD) --target demo

clean:
	rm -rf $(BUILD)
