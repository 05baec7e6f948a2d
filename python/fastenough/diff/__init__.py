"""`fastenough diff`: what changed between two runs or two traces.

inputs.py resolves each side (a run directory or trace files), runs.py puts the
two reports side by side, document.py assembles the fastenough.diff/1 document
(the trace diff itself is C++: cpp/fastenough/diff/); render/diff_text.py prints it
(presentation, beside render/ab_text.py).
"""
