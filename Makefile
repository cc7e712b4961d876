# assay: `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint format bench docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,multilingual]'
	touch $(STAMP)

DEMO := examples/statistics
demo: $(STAMP)
	$(VENV)/bin/assay evaluate $(DEMO)/questions.csv --config $(DEMO)/assay.toml --system keyword -m R@5 -m R@10 -m RR --by language --no-per-query
	$(VENV)/bin/assay evaluate $(DEMO)/questions.csv --config $(DEMO)/assay.toml --system multilingual -m R@5 -m R@10 -m RR --by language --no-per-query
	$(VENV)/bin/assay compare $(DEMO)/questions.csv --config $(DEMO)/assay.toml --system keyword --system multilingual -m R@5 --by language
	@echo "assay is in $(VENV)/bin: run '. $(VENV)/bin/activate' to put it on PATH, or call $(VENV)/bin/assay"

# The suite runs in one process per core, at most 4 (pytest-xdist); then the Ray tests, in
# one process of their own: one two-node cluster for them all, on a machine not loaded by
# the rest of the suite (they check that tasks reach both nodes).
test: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(PY) -m pytest -n auto --maxprocesses 4 -m "not ray"
	$(PY) -m pytest -m ray

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

format: $(STAMP)
	$(VENV)/bin/ruff format src tests benchmarks
	$(VENV)/bin/ruff check --fix src tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/metrics_speed.py

# The documentation site (MkDocs + Material + mkdocstrings), strict: a warning fails it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .assay site
