VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-ui screenshots test-postgres test-fleet test-fidelity test-pgbouncer test-reference lint bench clean e2e e2e-latest e2e-bench-versions e2e-tools install-smoke dist check-commits

$(PY):
	python3 -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) demo/run.py

# The suite on every core, a test file per worker (module fixtures are built once), in the
# order tests/conftest.py gives (the longest files first); then
# the tests that race N OS processes for the store, with the machine to themselves.
# Python's bytecode cache stays on for the suite even where the environment turns it off
# (PYTHONDONTWRITEBYTECODE): without it every `vybe` process a test starts compiles the
# package again (twice the CPU of a cached start) and every pytest process rewrites the
# asserts of every test module it collects again.
test: export PYTHONDONTWRITEBYTECODE :=
# The serial phase collects only the files that hold serial tests, not the whole suite again.
# mypy runs beside the parallel phase (its output shown after it; either failing fails this).
# The last lines say how long each phase after ruff (make lint) took and the CPU they used
# (user, system: on a shared machine the wall time says less), so that a slower suite shows.
# No $(MAKE) in the recipe: make -n (tests/cli/test_readme.py) would run it.
test: SERIAL = $(shell grep -rlE --include='test_*.py' --exclude-dir=postgres 'mark\.serial' tests)
# One worker more than the cores this may use: the suite's tests also wait (on servers,
# subprocesses, leases running out), and the extra worker runs while another waits.
test: WORKERS = $(shell python3 -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')
test: lint
	@set -e; start=$$(date +%s); typed=$$(mktemp); \
	{ if $(VENV)/bin/mypy > $$typed 2>&1; then r=0; else r=$$?; fi; \
	  echo "mypy exit $$r, $$(($$(date +%s) - start)) s" >> $$typed; } & \
	$(PY) -m pytest -n $(WORKERS) --dist loadfile --no-loadscope-reorder -m "not serial" \
		--ignore=tests/postgres; \
	parallel=$$(date +%s); \
	wait; cat $$typed; grep -q "^mypy exit 0," $$typed; rm -f $$typed; \
	checked=$$(date +%s); \
	$(PY) -m pytest -m serial $(SERIAL); \
	end=$$(date +%s); \
	echo "make test: $$((end - start)) s after ruff: parallel phase (mypy beside it)" \
		"$$((checked - start)) s, serial phase $$((end - checked)) s"; \
	echo "CPU used (user, system), by this shell, then by the phases:"; times

# The suite again on a real PostgreSQL server (pgserver's binaries): every test that opens a
# store (the `vybe`, `store` and `store_location` fixtures) runs with --store=postgres, those
# marked sqlite_only are skipped with their reason, and tests/postgres adds the server's own;
# in one process, so one server serves them all and the process races run alone.
# A server started with TLS (tests/postgres/test_transport.py) needs a PostgreSQL built with
# OpenSSL, which pgserver's is not: Debian's is installed here where it is missing.
test-postgres: $(STAMP)
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; } || echo "no system PostgreSQL: the TLS tests skip"
	$(PY) -m pytest -p no:xdist --store=postgres -rs

# The fleet under load for five minutes (tests/postgres/test_fleet_load.py; make
# test-postgres runs it for 20 s): two hosts of 16 agents, each host in a network namespace
# of its own where we are root, the server crashed and restarted twice; prints the figures.
test-fleet: $(STAMP)
	VYBE_FLEET_SECONDS=300 $(PY) -m pytest -p no:xdist --store=postgres -s -m fleet tests/postgres/test_fleet_load.py

# docs/checkpoints.md's whole fidelity table generated again and compared: every session
# driven to 50 compactions (make test drives them to 10 and checks those rows).
test-fidelity: $(STAMP)
	VYBE_FIDELITY=full $(PY) -m pytest -p no:xdist tests/context/test_fidelity.py

# The same through PgBouncer in transaction pooling mode (Debian's pgbouncer package,
# installed here when it is missing), as a managed service's pooler would stand in front.
test-pgbouncer: $(STAMP)
	@test -x /usr/sbin/pgbouncer || { apt-get update -qq && apt-get install -y -qq pgbouncer >/dev/null; }
	$(PY) -m pytest -p no:xdist --store=postgres --pooler=pgbouncer -rs

# vybe ui in a real headless Chromium (Debian's chromium package, installed here when it is
# missing; Playwright drives it): the browser tests run here always, and in `make test`
# only where Chromium is present.
test-ui: $(STAMP)
	@test -x /usr/bin/chromium || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	VYBE_UI_BROWSER=required $(PY) -m pytest -p no:xdist -rs tests/ui

# The pages of vybe ui as PNG files in docs/ (ui-*.png), from the demo's store.
screenshots: $(STAMP)
	@test -x /usr/bin/chromium || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	$(PY) demo/screenshots.py

# vybe's pure checkpoint rules against the reference implementation (avibe-os on PyPI), in
# a virtualenv of their own: avibe-os without its dependencies (a web server, chat SDKs), the
# few that importing its pure functions needs, and vybe itself. Not part of `make test`.
REF_VENV ?= .venv-reference
REF_STAMP := $(REF_VENV)/.installed

$(REF_STAMP): differential/requirements.txt pyproject.toml
	python3 -m venv $(REF_VENV)
	$(REF_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(REF_VENV)/bin/python -m pip install --quiet -r differential/requirements.txt
	$(REF_VENV)/bin/python -m pip install --quiet --no-deps avibe-os==3.2.2 -e .
	touch $(REF_STAMP)

test-reference: $(REF_STAMP)
	$(REF_VENV)/bin/python -m pytest -p no:cacheprovider differential

# Build the wheel and sdist (checked: migrations and py.typed in, tests out), install the
# wheel with its extras into a fresh virtualenv and run a short session in a scratch HOME.
install-smoke: $(STAMP)
	$(PY) tests/packaging/install_smoke.py

# The release, one step away: the wheel and sdist in dist/, checked by twine as PyPI would
# take them and holding what vybe needs (migrations, py.typed, LICENSE; no tests).
dist: $(STAMP)
	rm -rf dist
	$(PY) -m build --outdir dist .
	$(VENV)/bin/twine check --strict dist/*
	$(PY) tests/packaging/install_smoke.py --check dist

# Every commit subject in RANGE at most 72 characters (.githooks/commit-msg checks each one).
RANGE ?= HEAD~1..HEAD
check-commits:
	@one=$$(mktemp); trap 'rm -f "$$one"' EXIT; \
	git log --format=%s $(RANGE) | while IFS= read -r subject; do \
	  printf '%s\n' "$$subject" > "$$one" && .githooks/commit-msg "$$one" || exit 1; \
	done

lint: $(STAMP)
	$(VENV)/bin/ruff check
	$(VENV)/bin/ruff format --check

bench: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info

# The real Claude Code, Codex, Gemini CLI and OpenCode (pinned in package.json /
# package-lock.json), installed from the npm registry into a cache folder, driven against fake
# model servers on 127.0.0.1. The registry here serves OpenCode's linux-x64 builds only, so
# package-lock.json lists its other platforms' builds by version, os and cpu alone.
E2E_CACHE ?= .cache/e2e

$(E2E_CACHE)/node_modules/.installed: package.json package-lock.json
	mkdir -p $(E2E_CACHE)
	cp package.json package-lock.json $(E2E_CACHE)/
	cd $(E2E_CACHE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The Python clients (Aider, pinned in e2e/python-clients.txt) in a virtualenv of the repo's
# own, beside the npm ones.
$(E2E_CACHE)/aider-venv/.installed: e2e/python-clients.txt
	python3 -m venv $(E2E_CACHE)/aider-venv
	$(E2E_CACHE)/aider-venv/bin/python -m pip install --quiet -r e2e/python-clients.txt
	touch $@

# The interactive scenarios type into the CLIs through tmux (from Debian's packages).
e2e-tools:
	@command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }

e2e: $(STAMP) $(E2E_CACHE)/node_modules/.installed $(E2E_CACHE)/aider-venv/.installed e2e-tools
	E2E_CACHE=$(abspath $(E2E_CACHE)) $(PY) e2e/run.py

# The same suite against the newest Claude Code, Codex, Gemini CLI and OpenCode on the npm
# registry and the newest Aider on PyPI, resolved each time it runs, in a folder of its own (a package.json of its own there, so npm never walks
# up to the pinned one).
E2E_LATEST ?= .cache/e2e-latest

e2e-latest: $(STAMP) e2e-tools
	mkdir -p $(E2E_LATEST)
	echo '{"name": "vybe-e2e-latest", "private": true}' > $(E2E_LATEST)/package.json
	rm -f $(E2E_LATEST)/package-lock.json
	cd $(E2E_LATEST) && npm install --no-audit --no-fund --loglevel=error \
		@anthropic-ai/claude-code@latest @openai/codex@latest @google/gemini-cli@latest \
		opencode-ai@latest
	test -x $(E2E_LATEST)/aider-venv/bin/python || python3 -m venv $(E2E_LATEST)/aider-venv
	$(E2E_LATEST)/aider-venv/bin/python -m pip install --quiet --upgrade aider-chat
	E2E_CACHE=$(abspath $(E2E_LATEST)) $(PY) e2e/run.py

# Hook time and MCP start inside `claude -p`, the pinned and the newest Claude Code side by
# side in one run (each installed by make e2e and make e2e-latest).
e2e-bench-versions: $(STAMP)
	E2E_CACHE=$(abspath $(E2E_CACHE)) E2E_LATEST=$(abspath $(E2E_LATEST)) $(PY) e2e/bench_versions.py
