# trpg-arena: `make demo` and `make test` set everything up on a fresh machine (Python 3.11 + make).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-fast lint bench golden clean

install: $(STAMP)

$(STAMP): pyproject.toml setup.py constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e ".[all]"
	touch $(STAMP)

demo: install
	$(BIN)/trpg-arena demo

lint: install
	$(BIN)/ruff check rules envs agents experiments server examples tests
	$(BIN)/mypy rules

test: install lint
	$(BIN)/python -m pytest -n 2 --dist loadfile

test-fast: install
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not slow"

bench: install
	$(BIN)/trpg-arena bench

golden: install
	$(BIN)/python -m tests.golden.record

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis
