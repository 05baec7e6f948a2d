"""The core and the module compile as a unity build (CMakeLists.txt,
FASTENOUGH_UNITY_BUILD): CMake concatenates batches of their .cc files, and the
anonymous namespaces of the files of one batch become one namespace. Two files
that define a helper of the same name there either fail to compile together
(same signature), which the build says, or, with different signatures, become
overloads of each other: a call then may silently pick the other file's helper.
So a helper's name in an anonymous namespace (or a `static` function) is unique
within its enclosing namespace across the files of a target; this test names
the ones that are not, before a batch puts them together."""

from __future__ import annotations

import collections
import re

from conftest import REPO

# The targets built as a unity build, and their sources (cpp/CMakeLists.txt:
# every .cc under fastenough/ but the tests; bindings/CMakeLists.txt).
TARGETS = {
    "fastenough_core": [p for p in sorted((REPO / "cpp" / "fastenough").rglob("*.cc"))
                        if not p.name.endswith("_test.cc")],
    "_core": sorted((REPO / "bindings").glob("*.cc")),
}
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "alignof",
             "static_assert", "operator", "defined"}


def _helpers(path) -> list[tuple[str, str, int]]:
    """(enclosing namespace, function name, line) of each function defined at
    namespace scope in an anonymous namespace of `path`, or declared `static`
    there. Relies on the project's style (clang-format, Google): namespace
    contents are not indented, a definition starts in column 0, a namespace
    ends with `}  // namespace`."""
    stack: list[str] = []
    out = []
    for ln, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r"namespace\s*([\w:]*)\s*\{", line)
        if m:
            stack.append(m.group(1) or "")
            continue
        if re.match(r"\}\s*//\s*namespace", line):
            if stack:
                stack.pop()
            continue
        if not line or line[0] in " \t}#/" or re.match(
                r"(namespace|using|template|struct|class|enum|typedef)\b", line):
            continue
        # The name before the first "(": a definition's, unless an "=" comes
        # first (a variable's initialiser: `constexpr double kNaN = ...quiet_NaN()`).
        m = re.search(r"(?:^|[\s*&:>])(\w+)\s*\(", line)
        if not m or "=" in line[:m.start(1)] or m.group(1) in NOT_NAMES:
            continue
        if "" in stack or line.startswith("static "):
            out.append(("::".join(s for s in stack if s), m.group(1), ln))
    return out


def test_helpers_of_anonymous_namespaces_are_unique_per_namespace_in_each_target():
    clashes = []
    for target, files in TARGETS.items():
        assert files, target
        where = collections.defaultdict(set)
        for path in files:
            for ns, name, ln in _helpers(path):
                where[(ns, name)].add(f"{path.relative_to(REPO)}:{ln}")
        clashes += [f"{target}: {ns}::{name} in {len(locs)} files: {', '.join(sorted(locs))}"
                    for (ns, name), locs in sorted(where.items())
                    if len({loc.rsplit(':', 1)[0] for loc in locs}) > 1]
    assert not clashes, (
        "helpers of the same name in the anonymous namespaces of files that a unity "
        "build compiles together (rename one, or share one in a header):\n"
        + "\n".join(clashes))


def test_the_check_sees_the_helpers_it_guards():
    # The scan reads the layout it relies on: a file known to hold helpers.
    found = _helpers(REPO / "cpp" / "fastenough" / "analysis" / "op_roles.cc")
    assert ("fastenough::analysis", "StartsWith", 10) in {(ns, n, ln) for ns, n, ln in found}
