"""Run panels: a reader's own measurement from a chapter's page (ipywidgets in a live kernel, the
equivalent `commbook measure` command in the static book). `specs` checks values, `chapters`
says what each chapter's panel controls, `runner` runs and keeps the results, `widget` is the UI."""
