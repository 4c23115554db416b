# Painel Municipal — the two set-up commands of the README:
#   make run    panel on the embedded store with demo data, http://localhost:8501, and the public portal
#               of drivers and platforms beside it, http://localhost:8502 (stopped with the panel)
#   make test   the whole test suite
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
PORTAL_PORT ?= 8502
DEMO_DATA ?= data/demo

.PHONY: run test venv

# Python keeps what it compiles (__pycache__, ignored by git) even where the machine sets
# PYTHONDONTWRITEBYTECODE: else every process compiles the project again (each test worker, each panel
# and portal a test serves, each start of the panel; a worker's collection alone took 15 s, not 7 s)
unexport PYTHONDONTWRITEBYTECODE

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 não encontrado ($(PYTHON))"; exit 1; }
	@echo "Instalando as dependências em $(VENV) (na primeira vez, de 1 a 3 minutos)…"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@echo "Dependências instaladas."
	touch $@

venv: $(VENV)/.installed

run: venv
	PAINEL_DATA_DIR=$${PAINEL_DATA_DIR:-$(DEMO_DATA)} $(PY) -m seed --demo
	@echo "Painel em http://localhost:$(PORT) e portal de serviços da prefeitura em http://localhost:$(PORTAL_PORT) (dados em $${PAINEL_DATA_DIR:-$(DEMO_DATA)}); Ctrl+C para parar."
	export PAINEL_DATA_DIR=$${PAINEL_DATA_DIR:-$(DEMO_DATA)}; \
	$(PY) -m portal --port $(PORTAL_PORT) & portal=$$!; \
	trap 'kill $$portal 2>/dev/null' EXIT INT TERM; \
	$(PY) -m streamlit run app.py --server.headless true --server.port $(PORT) --browser.gatherUsageStats false

test: venv
	$(PY) -m pytest -n 2
