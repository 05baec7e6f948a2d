"""`--device NAME` and `--peaks FILE.json` (docs/roofline.md): what each rank's
roofline is held to. The peaks file is read as every JSON input is
(inputs/json_input.py: a regular file, bounded, UTF-8, not nested deeper than a
peaks file can be, no NaN); the core then checks its content
(roofline::MakePeakSettings: keys, dtypes, figures) and the device name (an
unknown one is refused with the closest names of the table), before any trace is
read. Every refusal is a UsageError / BadInputError: exit 2, no traceback."""

from __future__ import annotations

from fastenough.errors import UsageError
from fastenough.visible import visible

# A peaks file names a few devices: a few KB. Larger is not one.
MAX_PEAKS_BYTES = 1 << 20
# {"devices": [{"tflops": {...}}]}: 4 levels.
MAX_PEAKS_DEPTH = 8
MAX_DEVICE_CHARS = 200


def peak_options(device: str | None, peaks: str | None) -> dict[str, str]:
    """The core's keyword arguments (device, peaks: the file's text; "" for none),
    checked by the core at once: a bad file or an unknown device is refused here,
    before any trace is read."""
    from fastenough import _core
    from fastenough.inputs.json_input import parse_json, read_bytes

    out = {"device": "", "peaks": ""}
    # argparse makes `--device=--` an empty list: no name at all.
    if device is not None and not isinstance(device, str):
        device = ""
    if peaks is not None and not isinstance(peaks, str):
        raise UsageError("--peaks: give the path of a peaks file (docs/roofline.md)")
    if device is not None:
        name = device.strip()
        if not name or len(name) > MAX_DEVICE_CHARS or not name.isprintable():
            raise UsageError(f"--device {visible(device[:MAX_DEVICE_CHARS])}: give a device "
                             "name of the peak table (docs/roofline.md), e.g. \"H100 SXM\"")
        out["device"] = name
    if peaks is not None:
        data = read_bytes(peaks, MAX_PEAKS_BYTES, what="--peaks")
        parse_json(data, f"--peaks {visible(peaks)}", MAX_PEAKS_DEPTH, MAX_PEAKS_BYTES)
        out["peaks"] = data.decode("utf-8")
    if out["device"] or out["peaks"]:
        try:
            _core.check_peaks(**out)
        except UsageError as e:
            where = f"--peaks {visible(peaks)}: " if peaks is not None and \
                str(e).startswith("peaks file") else ""
            raise UsageError(where + visible(str(e))) from None
    return out
