"""`fastenough ab`: is B faster than A, fairly measured, and does it give the same answers?

Rooms: sides.py (the two commands and their settings, the A B B A order),
runner.py (one side under `fastenough run`), figures.py (what a run's report
says of its speed, start and memory), protocol.py (what each side measured
under: batch, lengths, dtype, versions, devices, user fields), verdict.py (the
paired ratio and its interval from the C++ core, the noise check, the words),
and outputs.py (the recorded outputs of both sides, through `fastenough
compare`). The CLI and its rendering are in cli/ab.py.
"""
