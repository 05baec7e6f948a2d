// Source text of an expression as Python's ast.unparse writes it, for messages
// that quote the code (`.to(self.device)`).
#pragma once

#include <string>

#include "fastenough/pysrc/syntax_tree.h"

namespace fastenough::lint {

std::string Unparse(const pysrc::Node* expr);

}  // namespace fastenough::lint
