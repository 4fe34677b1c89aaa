"""JupyterLab's contents manager for the book (``make lab``): jupytext's, plus the C excerpts.

A chapter opened as a notebook shows each ``{literalinclude}`` as the C code it names
(commbook.notebook_code); saving puts the directive back, so the ``.md`` file is unchanged for
the HTML build. Configured in ``etc/jupyter/jupyter_server_config.json``, which
``make lab`` installs into the venv.
"""

from __future__ import annotations

import os
from pathlib import Path

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class

from .notebook_code import ExcerptError, expand_notebook, restore_notebook

_Jupytext = build_async_jupytext_contents_manager_class(AsyncLargeFileManager)


class CodeInNotebooksContentsManager(_Jupytext):
    """Jupytext's contents manager with literalinclude excerpts expanded into code."""

    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if content and model.get("type") == "notebook" and model.get("content"):
            base = os.path.dirname(os.path.join(self.root_dir, path.strip("/")))
            try:
                expand_notebook(model["content"], Path(base), path, keep_original=True)
            except ExcerptError as e:  # show the notebook as it is, say why in the server log
                self.log.warning("commbook: C excerpts not expanded: %s", e)
        return model

    async def save(self, model, path=""):
        if model.get("type") == "notebook" and model.get("content"):
            model = {**model, "content": restore_notebook(model["content"])}
        return await super().save(model, path)
