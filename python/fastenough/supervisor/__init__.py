"""The supervisor side of `fastenough run`: run directory, sampler, child
process, signals, and the report at exit (docs/run-directory.md)."""
