"""The matrix_add page (book/matrix_add.md). Its cells call what `figures` holds, re-exported here."""

from .figures import *  # noqa: F403
