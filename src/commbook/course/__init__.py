"""The course around the book: the chapters as nbgrader assignments, graded the way the
self-checks check, and a summary of where the class went wrong.

* :mod:`.assignments` writes one nbgrader *source* notebook per chapter with exercises
  (`commbook assignments build`, `make assignments`);
* :mod:`.grading` is what those notebooks call: the student's side (saving the page's
  measurements an exercise depends on) and the autograder's test cells (`grade`, `grade_c`);
* :mod:`.nbgrader_hooks` configures nbgrader for such a course (imported by the course's
  `nbgrader_config.py` only, never by a student's kernel);
* :mod:`.gradebook` reads nbgrader's gradebook: success rate and wrong directions per exercise
  (`commbook grades summary GRADEBOOK`);
* :mod:`.exercise_text` writes the chapters' `{exercise}` directives as plain Markdown for a
  notebook (the C excerpts are commbook.notebook_code's).
"""
