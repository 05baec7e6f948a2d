"""`fastenough run` when things go wrong around the program: a full disk, the
supervisor killed or stopped. The program's exit status always passes through,
no temporary is left behind, the report says what could not be written, and the
program never runs on unsupervised. Real processes, a real full tmpfs."""

from __future__ import annotations

import json
import sys
import textwrap

from private_mounts import run_on_full_tmpfs

# Fills the file system it runs on, then exits 0: everything the supervisor
# writes after it (meta.json, report.json/md/html, runs.db) meets ENOSPC.
FILL_DISK = textwrap.dedent("""
    import os
    with open("ballast", "wb") as f:
        try:
            while True:
                f.write(b"x" * 65536)
                f.flush()
        except OSError:
            pass
    print("program done")
""")


def test_a_full_disk_keeps_the_exit_status_and_leaves_no_temporary(tmp_path):
    mount = tmp_path / "mnt"
    mount.mkdir()
    prog = tmp_path / "fill.py"
    prog.write_text(FILL_DISK)
    script = (f"{sys.executable} -m fastenough run --no-trace -- {sys.executable} {prog}; "
              "rc=$?; find . -name '*.tmp*' -o -name '.*.tmp' | sed 's/^/TMP /'; exit $rc")
    r = run_on_full_tmpfs(mount, script, size_kib=2048, fill=False)
    assert r.returncode == 0, r.stderr  # the program's status, not 3
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert "program done" in r.stdout
    # The report's Run line, from memory (meta.json is stale). It is wrapped to
    # the terminal: with a long interpreter path (a clone under a long
    # directory) "exited" may end one line and "0" begin the next.
    words = " ".join(r.stderr.split())
    assert "exited 0" in words, r.stderr
    assert "TMP " not in r.stdout, r.stdout
    assert "No space left on device" in words, r.stderr
    assert "not written" in words, r.stderr


def test_temporaries_of_dead_writers_are_removed_before_the_analysis(tmp_path, cli):
    # What the agent's writers leave when their process dies mid-write: a
    # half-compressed trace (read as a second, damaged rank before) and a JSON
    # temporary of a dead pid. A live process's temporary (here: the
    # supervisor's pid) may still be renamed into place, and stays.
    prog = tmp_path / "leave.py"
    prog.write_text(textwrap.dedent(f"""
        import os
        run = os.environ["FASTENOUGH_RUN_DIR"]
        open(os.path.join(run, "trace", "rank0.pt.trace.json.gz.tmp"), "wb").write(b"\\x1f\\x8b")
        open(os.path.join(run, "agent", "123.json.tmp999999999"), "w").write("{{")
        open(os.path.join(run, "agent", f"x.json.tmp{{os.getppid()}}"), "w").write("{{")
        open({str(tmp_path / "supervisor.pid")!r}, "w").write(str(os.getppid()))
    """))
    r = cli("run", "--no-trace", "--no-history", "--run-dir", tmp_path / "run", "--",
            sys.executable, prog)
    assert r.returncode == 0, r.stderr
    supervisor = (tmp_path / "supervisor.pid").read_text()
    left = sorted(p.name for p in (tmp_path / "run").rglob("*") if ".tmp" in p.name)
    assert left == [f"x.json.tmp{supervisor}"]
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert not report.get("inputs")  # the half trace was not read
