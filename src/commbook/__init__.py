"""commbook: measure MPI communication for real and model it (the package behind the book)."""

__version__ = "0.1.0"


def _describe_figures() -> None:
    """In a notebook, every matplotlib figure is shown with its description, the book's alt
    text (commbook.figure_alt); outside IPython nothing happens."""
    import sys

    if "IPython" in sys.modules:
        from . import figure_alt

        figure_alt.install()


_describe_figures()
