"""build_view: everything a renderer shows, computed once from a report (and,
for the HTML charts, the run directory's samples and steps). It reads the typed
Report (fastenough.report.load, called once at the edge: the CLI verb, the end of a
run); the terminal, Markdown and HTML renderers only format the view it returns."""

from __future__ import annotations

from pathlib import Path

from fastenough.render import depth, lint_section, repeatability, reproducibility_record, run_files
from fastenough.render.bounded import devices_omitted_line
from fastenough.render.ranks import RANK_DETAIL_MAX, device_rows
from fastenough.render.view import devices, inputs, phases, roofline, steps, top
from fastenough.render.view.figures import key_figures
from fastenough.render.view.findings import avoidable_line, findings_table, findings_views
from fastenough.render.view.measurement import measurement_view, no_findings_line
from fastenough.render.view.model import Charts, Code, LintView, ReportView, Timeline
from fastenough.render.view.phases import aligned_details
from fastenough.render.view.recorded_outputs import recorded_outputs_table
from fastenough.render.view.run import run_view
from fastenough.report.model import Report


def build_view(report: Report, run_dir: str | Path | None = None) -> ReportView:
    """The view of `report`; `run_dir` (a `fastenough run` directory) adds the
    series of its samples.csv and steps.jsonl for the HTML charts."""
    findings = findings_views(report)
    inputs_list = report.inputs
    return ReportView(
        schema=report.schema,
        measurement=measurement_view(report),
        run=run_view(report),
        trace_names=[Path(i.path).name for i in inputs_list[:4]],
        trace_count=len(inputs_list),
        figures=key_figures(report, findings),
        findings=findings,
        findings_table=findings_table(findings),
        no_findings=no_findings_line(report),
        avoidable=avoidable_line(report),
        lint=_lint(report),
        phases=phases.phases_table(report),
        steps=steps.steps_lines(report),
        batch_sweep=steps.batch_sweep_line(report),
        devices=devices.devices_table(report),
        idle=devices.idle_table(report),
        no_device=devices.no_device_line(report) or devices_omitted_line(report),
        step_breakdown=depth.step_breakdown_table(report),
        depth=depth.sections(report),
        top_kernels=top.top_kernels_table(report),
        top_ops=top.top_ops_table(report),
        record=reproducibility_record.record_table(report),
        recorded_outputs=recorded_outputs_table(report),
        inputs=inputs.inputs_table(report),
        counters=inputs.counters_table(report),
        quirks=inputs.counters_line(report),
        charts=_charts(report, Path(run_dir) if run_dir else None),
        repeatability=repeatability.lines(report),
        roofline=roofline.roofline_table(report),
        roofline_points=roofline.roofline_points(report),
        roofline_worst=roofline.roofline_worst_table(report),
    )


def _lint(report: Report) -> LintView | None:
    lines = lint_section.unconfirmed_lines(report)
    return LintView(lines[0], [Code(line) for line in lines[1:]]) if lines else None


def _charts(report: Report, run_dir: Path | None) -> Charts:
    meta = report.meta  # meta.json's record: the run's wall-clock start and end
    phase_list = report.phases
    device_list = report.devices
    if run_dir is not None:
        durations, rank = run_files.steady_step_durations(run_dir)
    else:
        durations, rank = run_files.trace_step_durations(report)
    s = report.steps
    marks = {"p10": s.steady_p10_ns, "median": s.steady_median_ns, "p90": s.steady_p90_ns}
    return Charts(
        timeline=Timeline(rows=list(zip(phase_list, aligned_details(report), strict=True)),
                          start_wall_ns=meta.start_wall_ns,
                          end_wall_ns=meta.end_wall_ns),
        multi_rank=len({p.rank for p in phase_list}) > 1
        or len(device_list) > RANK_DETAIL_MAX,
        device_rows=device_rows(device_list),
        kernel_shares=top.kernel_shares(report),
        op_shares=top.op_shares(report),
        step_durations=durations,
        step_rank=rank,
        step_marks={k: (v / 1e6 if v else None) for k, v in marks.items()},
        samples=run_files.read_samples(run_dir) if run_dir else None,
    )
