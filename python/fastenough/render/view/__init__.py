"""The report as a person is shown it (model.py), built once from report.json
by build.py; the terminal, Markdown and HTML renderers only format it. The
other modules here each build one part of it."""
