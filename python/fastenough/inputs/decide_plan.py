"""The inputs of `fastenough decide`, each checked before any arithmetic
(issue 34, items 11 and 15): the run's report.json (the figures decide reads
from it), and the plan: how many runs remain, what an hour of
waiting is worth, and what each fix costs, from the options (--runs,
--wait-value, --fix) and the plan file (--plan plan.toml), each checked
against the plan's schema.

plan.toml (decide --help):
  runs = 50                  # a whole number, 0 to 10**9
  wait_hour_value = 1.0      # finite, above 0 and at most 10**6
  [fix.sync-in-loop]         # one table per finding code
  dev = 2                    # hours, finite, 0 to 10**6 (verify, maint alike)

Any other key, a value of another type (`runs = "many"`, `runs = 2.5`),
nan/inf, a value out of range, a file that is not UTF-8 TOML or nests deeper
than tomllib can follow: exit 2 with one line naming the file and the key.
"""

from __future__ import annotations

from fastenough.errors import BadInputError, InputNotFoundError, UsageError
from fastenough.inputs.numbers import MAX_COUNT, check_float, check_whole
from fastenough.report import Report, load
from fastenough.visible import visible

# The plan's numbers, wherever they come from (--runs, --wait-value, --fix,
# plan.toml): finite and within these (inputs/numbers.py checks them).
MAX_RUNS = MAX_COUNT
MAX_WAIT_VALUE = 1e6  # an hour of waiting worth a million hours of work
MAX_FIX_HOURS = 1e6  # per part of a fix: over a century of work
PLAN_MAX_BYTES = 1 << 20
PLAN_KEYS = ("runs", "wait_hour_value", "fix")
FIX_KEYS = {"dev": "dev_hours", "verify": "verify_hours", "maint": "maint_hours"}


def parse_fix(text: str) -> tuple[str, dict]:
    code, sep, rest = text.partition("=")
    parts = rest.split(",")
    if not sep or not code or len(parts) != 3:
        raise UsageError(f"--fix {visible(repr(text))}: expected CODE=DEV,VERIFY,MAINT hours, "
                         "e.g. sync-in-loop=2,1,0.5")
    dev, verify, maint = (check_float(x.strip(), f"--fix {visible(code)}: {name}", 0,
                                      MAX_FIX_HOURS)
                          for x, name in zip(parts, ("dev", "verify", "maint"), strict=True))
    return code, {"dev_hours": dev, "verify_hours": verify, "maint_hours": maint}


def read_plan(path: str) -> bytes:
    """The plan file's bytes (at most PLAN_MAX_BYTES + 1 of them); a FIFO or device
    is refused without waiting on it (inputs/input_file.py)."""
    from fastenough.inputs.input_file import open_input

    with open_input(path) as f:
        try:
            return f.read(PLAN_MAX_BYTES + 1)
        except OSError as e:
            raise InputNotFoundError(f"{visible(path)}: {e.strerror or e}") from None


def parse_plan(data: bytes, path: str) -> tuple[int | None, float | None, dict]:
    """(runs, wait_hour_value, fix costs) of a plan file's bytes, checked
    against the plan's schema (EPILOG): every failure is a BadInputError that
    names the file and the key, never a traceback."""
    try:  # tomllib is Python 3.11+; the package supports 3.10
        import tomllib
    except ImportError:
        raise UsageError("--plan needs Python 3.11 (tomllib); pass --runs and --fix") from None

    where = visible(path)
    if len(data) > PLAN_MAX_BYTES:
        raise BadInputError(f"{where}: larger than {PLAN_MAX_BYTES} bytes; not a plan")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInputError(f"{where}: not UTF-8 text (byte {e.start})") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInputError(f"{where}: not valid TOML ({visible(str(e))})") from None
    except RecursionError:  # tomllib recurses once per level of nesting
        raise BadInputError(f"{where}: nested too deeply; not a plan") from None
    unknown = [k for k in doc if k not in PLAN_KEYS]
    if unknown:
        raise BadInputError(f"{where}: unknown key {visible(repr(unknown[0]))} (a plan has "
                            "runs, wait_hour_value and [fix.CODE] tables)")
    runs = wait = None
    if "runs" in doc:
        runs = check_whole(doc["runs"], f"{where}: runs", 0, MAX_RUNS, error=BadInputError)
    if "wait_hour_value" in doc:
        wait = check_float(doc["wait_hour_value"], f"{where}: wait_hour_value", 0,
                           MAX_WAIT_VALUE, lo_open=True, error=BadInputError)
    fix = doc.get("fix", {})
    if not isinstance(fix, dict):
        raise BadInputError(f"{where}: fix must be tables [fix.CODE] with dev, verify, maint")
    costs = {}
    for code, c in fix.items():
        name = f"{where}: fix.{visible(code)}"
        if not isinstance(c, dict):
            raise BadInputError(f"{name}: expected a table with dev, verify, maint (hours)")
        extra = [k for k in c if k not in FIX_KEYS]
        if extra:
            raise BadInputError(f"{name}: unknown key {visible(repr(extra[0]))} (dev, verify "
                                "and maint are hours)")
        costs[code] = {field: check_float(c.get(key, 0), f"{name}.{key}", 0, MAX_FIX_HOURS,
                                          error=BadInputError)
                       for key, field in FIX_KEYS.items()}
    return runs, wait, costs


# report.json: a report nests a few levels (findings' evidence), far below this.
# The figures decide reads are bounded so that no product of them and the plan
# overflows a double: a year is 3.2e16 ns.
REPORT_MAX_DEPTH = 256
MAX_NS = 1e18
MAX_STEPS = 2**53


def load_report(path: str) -> Report:
    """report.json of a run directory, read bounded (inputs/json_input.py), validated
    against the schema (fastenough.report.load: a damaged one names the file and the
    JSON path) and checked where decide reads it."""
    from fastenough.inputs.json_input import load_json_file

    where = visible(path)
    report = load(load_json_file(path, max_depth=REPORT_MAX_DEPTH), source=where)
    check_report(report, where)
    return report


def check_report(report: Report, where: str) -> None:
    """The figures decide reads beyond what the schema says: not negative, and small
    enough to multiply (a report that says otherwise is damaged or not fastenough's)."""
    def number(value: float | None, what: str, whole: bool = False) -> None:
        if value is None:
            return
        if whole:
            check_whole(value, f"{where}: {what}", 0, MAX_STEPS, error=BadInputError)
        else:
            check_float(value, f"{where}: {what}", 0, MAX_NS, error=BadInputError)

    steps = report.steps
    number(steps.count, "steps.count", whole=True)
    for key in ("median_ns", "p10_ns", "p90_ns", "steady_median_ns", "steady_p10_ns",
                "steady_p90_ns"):
        number(getattr(steps, key), f"steps.{key}")
    for i, ph in enumerate(report.phases):
        number(ph.host_ns, f"phases[{i}].host_ns")
    if report.run is not None:
        number(report.run.wall_ns, "run.wall_ns")
    for i, f in enumerate(report.findings):
        number(f.saving.per_step_ns, f"findings[{i}].saving.per_step_ns")
