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

# mypy reads the folders as the package users import: build/typecheck/trpg_arena/<top> links to each top-level
# folder; the view's empty __init__.py makes `moonlit/data.py` win over the data-file folder `moonlit/data/`
TOPS := rules agents table envs experiments server
TYPECHECK_VIEW := build/typecheck

lint: install
	$(BIN)/ruff check rules agents table envs experiments server examples tests
	rm -rf $(TYPECHECK_VIEW) && mkdir -p $(TYPECHECK_VIEW)/trpg_arena
	for top in $(TOPS); do ln -s ../../../$$top $(TYPECHECK_VIEW)/trpg_arena/$$top; done
	touch $(TYPECHECK_VIEW)/trpg_arena/__init__.py
	$(BIN)/mypy

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
