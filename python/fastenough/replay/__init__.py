"""`fastenough replay`: from a trace's hot op calls (the shape census) to a
standalone script per call that rebuilds the op's inputs and times it
(plan.py: the recorded call -> the op's overload and arguments; script.py:
the script's text)."""
