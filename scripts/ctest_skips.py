"""Print why ctest skipped each test it skipped, from ctest's JUnit file.

ctest marks a GoogleTest that called GTEST_SKIP as "***Skipped" (the
SKIP_REGULAR_EXPRESSION that gtest_discover_tests sets), but prints its output
only for failures, so the reason never shows. `ctest --output-junit FILE` keeps
every test's output; GoogleTest writes a skip as

    path/to/x_test.cc:71: Skipped
    corpus not present: /path
    [  SKIPPED ] Suite.Name (0 ms)

    python scripts/ctest_skips.py build/cp311-.../ctest-junit.xml
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET

_SKIPPED_AT = re.compile(r"^(?P<where>\S+:\d+): Skipped$")


def reasons(output: str) -> list[str]:
    """The messages of the GTEST_SKIPs in one test's output, each with its place."""
    out, lines = [], output.splitlines()
    for i, line in enumerate(lines):
        m = _SKIPPED_AT.match(line.strip())
        if not m:
            continue
        message = []
        for follow in lines[i + 1:]:
            if follow.startswith("[  SKIPPED ]") or _SKIPPED_AT.match(follow.strip()):
                break
            if follow.strip():
                message.append(follow.strip())
        out.append(f"{' '.join(message) or '(no message)'} ({m['where']})")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: ctest_skips.py CTEST_JUNIT_XML", file=sys.stderr)
        return 2
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"ctest_skips: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    skipped = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    for case in skipped:
        text = case.findtext("system-out") or ""
        why = reasons(text) or ["(ctest gave no reason)"]
        print(f"ctest: skipped {case.get('name')}: {'; '.join(why)}")
    if skipped:
        print(f"ctest: {len(skipped)} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
