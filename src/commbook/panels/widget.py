"""The run panel as ipywidgets: controls, Run / Stop, a progress bar, one status line, the
chapter's figure with "your run" beside the earlier series, the explorer redrawn with it, and an
export of the session's runs as the tidy CSV.

In the book's static build (no kernel behind the page) the panel shows a short note with the
equivalent `commbook measure` command instead of controls nobody could use.
"""

from __future__ import annotations

import html
import io
import os
import threading
from typing import Callable

from ..explorers.render import ENV_STATIC
from ..panel_specs import PanelInputError, check, command
from . import chapters as chapter_specs
from .runner import Session, column, error_line

STATIC_NOTE = (
    "In a live notebook (JupyterLab, a JupyterHub with the book's kernel) a run panel "
    "here measures what you choose: {what}. The same measurement from a shell:"
)


def static_build() -> bool:
    """True while the book's HTML is built: the page will have no kernel."""
    return bool(os.environ.get(ENV_STATIC))


class RunPanel:
    """A chapter's run panel. `earlier`: [(label, tidy table)] the figure shows beside your runs;
    `explorer`: a function of [(label, table)] returning the chapter's explorer, or None."""

    def __init__(
        self, chapter: str, cluster=None, earlier=(), explorer: Callable | None = None, session: Session | None = None
    ):
        self.spec = chapter_specs.spec(chapter)
        self.session = session or Session(self.spec, cluster)
        self.earlier = list(earlier)
        self.explorer = explorer
        self._thread: threading.Thread | None = None
        self._box = None

    # -- the static book ---------------------------------------------------------------------

    def command(self) -> str:
        return command(self.spec, check(self.spec, self.spec.defaults())) + f" --out my_{self.spec.chapter}.csv"

    def note(self) -> str:
        what = ", ".join(c.label.split(" (")[0] for c in self.spec.controls)
        return STATIC_NOTE.format(what=what)

    def _static_bundle(self) -> dict:
        text = f"{self.note()}\n\n    {self.command()}\n"
        body = (
            f'<div class="admonition note commbook-run-panel-note">'
            f'<p class="admonition-title">Run panel</p><p>{html.escape(self.note())}</p>'
            f"<pre><code>{html.escape(self.command())}</code></pre></div>"
        )
        return {"text/html": body, "text/plain": text}

    def _repr_mimebundle_(self, include=None, exclude=None):
        if static_build():
            return self._static_bundle()
        bundle = self.widget()._repr_mimebundle_(include=include, exclude=exclude) or {}
        bundle = dict(bundle)
        bundle["text/plain"] = self._static_bundle()["text/plain"]
        return bundle

    # -- the live panel ----------------------------------------------------------------------

    def widget(self):
        if self._box is None:
            self._box = self._build()
        return self._box

    def _build(self):
        import ipywidgets as w

        self.controls = {}
        for c in self.spec.controls:
            style = {"description_width": "initial"}
            layout = w.Layout(width="420px")
            if c.kind == "int":
                self.controls[c.name] = w.BoundedIntText(
                    value=c.default,
                    min=c.lo,
                    max=c.hi,
                    description=f"{c.label} [{c.lo}..{c.hi}]",
                    style=style,
                    layout=layout,
                )
            elif c.kind == "choice":
                self.controls[c.name] = w.Dropdown(
                    options=list(c.choices),
                    value=c.default,
                    description=c.label,
                    style=style,
                    layout=layout,
                    disabled=len(c.choices) < 2,
                )
            else:
                self.controls[c.name] = w.Text(
                    value=str(c.default), description=c.label, style=style, layout=layout, continuous_update=False
                )
        if "operation" in self.controls:
            self.controls["operation"].observe(self._operation_changed, "value")
            self._operation_changed()
        self.run_button = w.Button(description="Run", button_style="primary", icon="play")
        self.stop_button = w.Button(description="Stop", button_style="danger", icon="stop", disabled=True)
        self.export_button = w.Button(description="Export CSV", icon="download", disabled=True)
        self.progress = w.IntProgress(value=0, min=0, max=1, description="progress")
        self.status = w.HTML(value=f"<code>{html.escape(self.command())}</code>")
        self.status.add_class("commbook-run-status")
        self.figure = w.Image(format="png")
        self.figure.layout.display = "none"
        self.explorer_area = w.Output()
        self.run_button.on_click(lambda _: self.start())
        self.stop_button.on_click(lambda _: self.stop())
        self.export_button.on_click(lambda _: self.export())
        box = w.VBox(
            [
                w.HTML(f"<b>Run panel: {self.spec.chapter}</b> (your own measurement)"),
                *self.controls.values(),
                w.HBox([self.run_button, self.stop_button, self.export_button]),
                self.progress,
                self.status,
                self.figure,
                self.explorer_area,
            ]
        )
        box.add_class("commbook-run-panel")
        return box

    def _operation_changed(self, change=None):
        from .. import collective_runs as collectives

        op = self.controls["operation"].value
        alg = self.controls["algorithm"]
        options = ["library"] + list(collectives.HAND_ALGORITHMS[op])
        keep = alg.value if alg.value in options else "library"
        alg.options = options
        alg.value = keep

    def values(self) -> dict:
        return {name: ctl.value for name, ctl in self.controls.items()}

    def _say(self, text: str, kind: str = "info") -> None:
        colour = {"error": "#b03a2e", "info": "inherit", "ok": "#1e8449"}[kind]
        self.status.value = f'<span style="color:{colour}">{html.escape(text)}</span>'

    def start(self, values: dict | None = None, wait: bool = False) -> bool:
        """Check the values and start a run in a thread (the kernel stays free for Stop);
        False, with the reason in the status line, when a value is refused."""
        self.widget()
        if self._thread is not None and self._thread.is_alive():
            self._say("a run is going: Stop it first", "error")
            return False
        try:
            checked = check(self.spec, values if values is not None else self.values())
        except PanelInputError as e:
            self._say(str(e), "error")
            return False
        self.run_button.disabled, self.stop_button.disabled = True, False
        self._say(f"running: {command(self.spec, checked)}")
        self._thread = threading.Thread(
            target=self._work, args=(checked,), daemon=True, name=f"run panel {self.spec.chapter}"
        )
        self._thread.start()
        if wait:
            self._thread.join()
        return True

    def _progress(self, done: int, total: int, point) -> None:
        self.progress.max = max(total, 1)
        self.progress.value = done
        self.progress.description = f"{done}/{total}"

    def _work(self, values: dict) -> None:
        try:
            table = self.session.run(values, progress=self._progress)
        except Exception as e:  # shown in the panel in one line, never as a traceback
            self._say(error_line(e), "error")
        else:
            label = table["source"].iloc[0] if len(table) else self.session.label()
            points = f"{len(table)} point{'s' if len(table) != 1 else ''}"
            self._say(f"{label}: {points} added to the figure and the explorer", "ok")
            self.redraw()
        finally:
            self.run_button.disabled, self.stop_button.disabled = False, True
            self.export_button.disabled = not self.session.runs

    def stop(self) -> None:
        self.session.stop()
        self._say("stopping: killing the run's processes ...")
        if self._thread is not None:
            self._thread.join(10)  # the worker kills the tree within 0.1 s of its next look

    def export(self, path=None):
        from .. import data

        path = path or data.measurement_path(f"{self.spec.chapter}_your_runs")
        try:
            saved = self.session.export(path)
        except Exception as e:
            self._say(error_line(e), "error")
            return None
        self._say(f"saved {len(self.session.table())} rows to {saved}", "ok")
        return saved

    # -- figure and explorer -----------------------------------------------------------------

    def figure_png(self) -> bytes:
        """The chapter's quantity against the swept one: earlier series and your runs."""
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.4, 3.6), dpi=100)
        ax = fig.subplots()
        categories: list = []
        for label, table in self.earlier + self.session.series():
            if not len(table):
                continue
            mine = label.startswith("your run")
            x, y = column(table, self.spec.x), column(table, self.spec.y)
            if x.dtype == object:  # categories (process grids): one position per name
                categories += [c for c in x if c not in categories]
                x = x.map(categories.index)
            elif self.spec.x_log:
                x = x.where(x > 0)
            ax.plot(
                x,
                y,
                marker="o" if mine else ".",
                linestyle="-" if mine else ":",
                label=label,
                linewidth=2 if mine else 1,
            )
        if categories:
            ax.set_xticks(range(len(categories)), categories)
        elif self.spec.x_log:
            ax.set_xscale("log", base=2)
        if self.spec.y == "t_us":
            ax.set_yscale("log")
        ax.set_xlabel(self.spec.x_label)
        ax.set_ylabel(self.spec.y_label)
        ax.legend(fontsize=8)
        ax.set_title(f"{self.spec.chapter}: your runs beside the earlier ones")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()

    def redraw(self) -> None:
        self.figure.value = self.figure_png()
        self.figure.layout.display = None
        if self.explorer is not None:
            chart = self.explorer(self.earlier + self.session.series())
            self.explorer_area.outputs = (
                {"output_type": "display_data", "metadata": {}, "data": chart._repr_mimebundle_()},
            )


def panel(chapter: str, cluster=None, earlier=(), explorer=None) -> RunPanel:
    """The chapter's run panel (display it as a cell's last value)."""
    return RunPanel(chapter, cluster, earlier, explorer)
