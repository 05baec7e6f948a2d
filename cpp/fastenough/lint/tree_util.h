// Small questions about syntax-tree nodes that the lint rules share: the dotted
// name of a callee, a keyword argument, a constant. The C++ twins of the helpers
// rules written against Python's `ast` would use (astutil in the old Python lint).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fastenough/pysrc/syntax_tree.h"

namespace fastenough::lint {

using pysrc::Kind;
using pysrc::Node;
using pysrc::NodeList;

// `torch.nn.functional.softmax` for that attribute chain; "" when it is not a
// plain chain. A call in the chain keeps its callee's name with "()":
// `torch.no_grad()`, `model.to(device).eval` -> "model.to().eval".
std::string Dotted(const Node* n);

// The part after the last '.' ("softmax"), and before the first ('torch').
std::string_view LeafOf(std::string_view dotted);
std::string_view RootOf(std::string_view dotted);

// The last identifier of a callee or receiver: `experts` for `self.experts`,
// `f` for `f(x)`'s callee of a call; "" otherwise.
std::string_view LastName(const Node* n);

// For `<receiver>.<attr>(...)`: attr; else "". The receiver is call.func()->value().
std::string_view MethodName(const Node* call);

// The value of keyword `name` of a call; nullptr when absent.
const Node* Kwarg(const Node& call, std::string_view name);

// `f(**opts)`: keyword arguments we cannot see.
bool HasStarKwargs(const Node& call);

// Constant `True`, `False`, `None` (Python's `node.value is True` etc.).
bool IsTrue(const Node* n);
bool IsFalse(const Node* n);
bool IsNone(const Node* n);

// An int constant equal to `value` (a negative value also as `-<int>`), as
// Python's `type(v) is int and v == value`: True/False do not count.
bool IsIntConst(const Node* n, int64_t value);

// A str constant (any value) / with exactly this value.
bool IsStrConst(const Node* n);
bool IsStrConst(const Node* n, std::string_view value);

// A Constant that compares equal to 0 in Python (0, 0.0, 0j, False, -0).
bool IsZeroConst(const Node* n);

// Every plain name (Name.id) under `n`, sorted, without repeats.
std::vector<std::string_view> NamesIn(const Node* n);

}  // namespace fastenough::lint
