# gitstrata: `make index` and `make test` set up everything on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
REPO   ?= .
ARGS   ?=
# a prebuilt index to start from (a folder or a URI, e.g. the one CI published)
FROM   ?=

.PHONY: index test test-fast bench lint mcp install dev clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project's metadata changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@ $(VENV)/.installed

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	@touch $@ $(VENV)/.installed-dev $(VENV)/.installed

install: $(VENV)/.installed
dev: $(VENV)/.installed-dev

## index: create the venv, install gitstrata, index REPO (default: this checkout)
index: $(VENV)/.installed
	$(BIN)/gitstrata index $(REPO) $(if $(FROM),--from $(FROM)) $(ARGS)
	@echo ""
	@echo "The index is in $(REPO)/.strata (gitstrata -C $(REPO) status shows it). Next, try:"
	@echo "  $(BIN)/gitstrata -C $(REPO) query \"why was this changed\""
	@echo "  $(BIN)/gitstrata -C $(REPO) preflight PATH/TO/FILE.py -s FUNCTION -i \"what you plan to change\""
	@echo "  $(BIN)/gitstrata -C $(REPO) inspect"
	@echo "  $(BIN)/gitstrata -C $(REPO) sql \"SELECT intent, count(*) AS n FROM commits GROUP BY intent ORDER BY n DESC\""
	@echo "  claude mcp add gitstrata -- $(abspath $(BIN))/gitstrata -C $(abspath $(REPO)) mcp"

## test: install what the tests need and run the whole suite
test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest $(ARGS)

## test-fast: the suite without the tests marked slow, for the edit loop
test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -m "not slow" $(ARGS)

## bench: run the benchmarks (fixture, speed, real repositories) and rewrite benchmarks/RESULTS.md
bench: $(VENV)/.installed-bench
	$(BIN)/python -m gitstrata.benchmarks.run --speed --real --sizes 10000,100000,1000000 --out benchmarks/RESULTS.md --json benchmarks/results.json $(ARGS)

## lint: ruff (check + format), mypy over every module, and the layering contract
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_layering.py

## mcp: serve REPO to an MCP client over stdio
mcp: $(VENV)/.installed
	$(BIN)/gitstrata -C $(REPO) mcp

clean-venv:
	rm -rf $(VENV)
