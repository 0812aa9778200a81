# Two commands do all set-up on a fresh clone:
#   make play   create the virtualenv, install, start the site (backgammon serve)
#   make test   install what the tests need, run them all (mypy --strict included)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: play test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

play: install
	$(BIN)/backgammon serve

test: install-test
	$(BIN)/mypy --strict backgammon
	$(BIN)/python -m pytest

bench: install-test
	$(BIN)/python benchmarks/movegen.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache
