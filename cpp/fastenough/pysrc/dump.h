// A line-per-node text dump of a syntax tree, for tests: the same text is
// made from CPython's `ast` by tests/python/pysrc_dump.py, so the two parsers
// can be compared line by line.
//
//   <indent><field>: <Kind> @<line>:<col>-<end_line>:<end_col> <attributes>
//
// Fields in `ast` order; positions only for kinds that have them in `ast`,
// and none inside f-strings (CPython 3.11 and 3.12 place those differently).
// Constants: str/bytes as hex of their bytes (str:? when an escape was kept
// raw), numbers as their source text (the Python side normalises).
#pragma once

#include <string>

#include "fastenough/pysrc/syntax_tree.h"

namespace fastenough::pysrc {

std::string DumpTree(const Node& root);

}  // namespace fastenough::pysrc
