// A string equal for two subtrees exactly when Python's ast.dump of them is
// equal (kinds, names, constants, operators, children; not positions), to group
// calls by "the same input expression".
#pragma once

#include <string>

#include "fastenough/pysrc/syntax_tree.h"

namespace fastenough::lint {

std::string StructuralKey(const pysrc::Node* n);

}  // namespace fastenough::lint
