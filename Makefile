# assay: `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint format bench clean

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

test: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

format: $(STAMP)
	$(VENV)/bin/ruff format src tests benchmarks
	$(VENV)/bin/ruff check --fix src tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/metrics_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .assay
