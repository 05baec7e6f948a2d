"""Output formats of `fastenough lint`: one module per format, each `render(result) -> str`."""

from fastenough.lint.formats import human, json_format, sarif

FORMATS = {"human": human.render, "json": json_format.render, "sarif": sarif.render}
