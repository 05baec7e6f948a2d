"""What a person is shown of a report, built once (build.py) and only
formatted by the terminal, Markdown and HTML renderers.

Every string here is plain text, never markup: names from traces, paths,
commands and program text are kept as they were written, and each renderer
escapes every string for its medium (render/escape.py; html/svg.esc). `Code`
marks the strings that are literals (a finding's code, a source location, a
command, a lint entry): the formats that can show code (Markdown, HTML) show
them as code spans."""

from __future__ import annotations

from dataclasses import dataclass, field

from fastenough.render.run_files import Samples
from fastenough.render.table import Table
from fastenough.report.model import Device, Phase, RunDetailsPhase


class Code(str):
    """A literal (a name, a path, a command, a code): shown as code where the format can."""

    __slots__ = ()


@dataclass
class Figure:
    """A key figure: steady throughput, the steady step, device busy, the top
    finding, how the run ended; HTML shows it as a card, the others as a line."""

    key: str  # stable: throughput, step, busy, finding, run
    label: str
    value: str
    detail: str = ""
    alert: bool = False  # a figure that needs attention (a crash, nothing measured)


@dataclass
class FindingView:
    rank: int
    code: Code
    verdict: str
    title: str
    saving: str
    where: list[Code]
    action: str
    evidence: list[str]
    evidence_pairs: list[tuple[str, str]] = field(default_factory=list)
    saving_share: float | None = None  # of a step, for a bar; None when unknown
    also_in_source: list[Code] = field(default_factory=list)  # matching lint findings
    # For a compact reader (the MCP answers): the codes the saving overlaps, where
    # the finding was seen (trace, agent, probe) and the process rank it is of.
    overlaps: list[Code] = field(default_factory=list)
    saving_figure: str = ""  # the saving alone, without the notes `saving` adds
    source: str = ""
    on_rank: int | None = None


@dataclass
class Reason:
    """Why a measurement is not complete, by its code: a run's measurement reason, or a
    trace's reading counter that lost events (count set)."""

    code: Code
    level: str
    text: str
    count: int | None = None


@dataclass
class MeasurementView:
    """What a run's measurement saw (report.measurement); a trace has none."""

    recorded: bool = False  # the report has a measurement (a run, not a trace)
    # complete, partial or blind; a trace's is partial when a reading counter lost
    # events (error or data-loss), and its causes are those counters.
    status: str = "complete"
    causes: list[Reason] = field(default_factory=list)
    info_counters: int = 0  # a trace's reading counters that lost nothing
    stopped_early: str | None = None  # the profiler window's early end (measurement)
    headline: str | None = None  # set when incomplete: "Measurement incomplete: ..."
    # set when complete (a run): "Measurement complete: 123 steady steps, ..."
    complete_line: str | None = None
    reasons: list[str] = field(default_factory=list)
    tool_cost: str | None = None  # the time the loop stood still for fastenough


@dataclass
class RunView:
    """The command of a `fastenough run` and how it ended."""

    command: Code
    ending: str  # 'exited 0 after 15.9 s'
    run_dir: str | None = ""
    host: str = ""
    started: str | None = None  # UTC, when meta has the start
    in_job: str | None = None  # what `run --analyze-in-job` did (run_details.in_job)


@dataclass
class LintView:
    """Lint findings this run did not confirm: listed apart, never ranked."""

    head: str
    entries: list[Code]


@dataclass
class Timeline:
    """What the phase timeline and the bands of the sampled series draw: the
    report's phases, each beside its run_details row (None where there is none),
    and the run's wall-clock start and end (meta; None for a trace)."""

    rows: list[tuple[Phase, RunDetailsPhase | None]]
    start_wall_ns: int | None
    end_wall_ns: int | None


@dataclass
class Charts:
    """The series the HTML charts draw (numbers, not display text)."""

    timeline: Timeline
    multi_rank: bool  # several ranks share the host series
    device_rows: list[tuple[str, Device]]  # (rank label, device) of the device split
    kernel_shares: list[float | None]
    op_shares: list[float]
    step_durations: list[int]
    step_rank: int | None
    step_marks: dict[str, float | None]  # p10 / median / p90 in ms
    samples: Samples | None = None  # samples.csv of a run directory


@dataclass
class ReportView:
    schema: str
    measurement: MeasurementView
    run: RunView | None
    trace_names: list[str]  # the input files' names, for a trace's title
    trace_count: int
    figures: list[Figure]
    findings: list[FindingView]
    findings_table: Table | None
    no_findings: str  # what "no findings" means for this report
    avoidable: str | None  # what the avoidable findings save together
    lint: LintView | None
    phases: Table | None
    steps: list[str]
    batch_sweep: str | None
    devices: Table | None
    idle: Table | None
    no_device: str | None
    step_breakdown: Table | None
    depth: list[tuple[str, list[str]]]  # (title, lines) of the trace in depth
    top_kernels: Table | None
    top_ops: Table | None
    record: Table | None
    recorded_outputs: Table | None
    inputs: Table | None
    counters: Table | None
    quirks: str | None
    charts: Charts
    # Earlier runs of the same command in the history: the head line, then one
    # line per finding, stable or come and gone (render/repeatability.py).
    repeatability: list[str] = field(default_factory=list)
    # The hot ops against the device's roofs (render/view/roofline.py); None
    # when no rank has rows (a CPU trace, a trace without shapes).
    roofline: Table | None = None
    # The same rows as the HTML chart's points (render/view/roofline.py RoofPoint).
    roofline_points: tuple = ()
    # With several ranks: each op's worst rank against its roof (roofline_worst_table).
    roofline_worst: Table | None = None
