// The syntax tree of a Python module, shaped like CPython's `ast` so that code
// written against `ast` ports line for line and so that the parser can be
// checked node for node against CPython (tests/python/lint/test_pysrc_parser.py).
//
// Differences from `ast`, all deliberate:
// - no ctx (Load/Store/Del) and no type comments: nothing here needs them;
// - operators (BinOp.op, UnaryOp.op, BoolOp.op, AugAssign.op) are a byte on the
//   node, and Compare.ops are nodes of kind kCmpOp with that byte;
// - Global/Nonlocal names and MatchClass.kwd_attrs are kIdentifier nodes;
// - Constant keeps its kind, the literal's source text and, for str and bytes,
//   the decoded value.
//
// Every child lives in one of three single slots (one[]) or five list slots
// (many[]). The accessors below name them after the `ast` fields; a field name
// maps to the same slot in every kind that has it, and no kind has two fields
// in one slot, so `node.value()` is right for Return, Attribute and keyword
// alike. An absent optional child is nullptr; an absent list is empty.
#pragma once

#include <cstdint>
#include <string_view>

namespace fastenough::pysrc {

enum class Kind : uint8_t {
  kModule,
  // statements
  kFunctionDef, kAsyncFunctionDef, kClassDef, kReturn, kDelete, kAssign, kTypeAlias,
  kAugAssign, kAnnAssign, kFor, kAsyncFor, kWhile, kIf, kWith, kAsyncWith, kMatch,
  kRaise, kTry, kTryStar, kAssert, kImport, kImportFrom, kGlobal, kNonlocal, kExpr,
  kPass, kBreak, kContinue,
  // expressions
  kBoolOp, kNamedExpr, kBinOp, kUnaryOp, kLambda, kIfExp, kDict, kSet, kListComp,
  kSetComp, kDictComp, kGeneratorExp, kAwait, kYield, kYieldFrom, kCompare, kCall,
  kFormattedValue, kJoinedStr, kConstant, kAttribute, kSubscript, kStarred, kName,
  kList, kTuple, kSlice,
  // the other node types of `ast`
  kComprehension, kExceptHandler, kArguments, kArg, kKeyword, kAlias, kWithItem,
  kMatchCase, kMatchValue, kMatchSingleton, kMatchSequence, kMatchMapping, kMatchClass,
  kMatchStar, kMatchAs, kMatchOr, kTypeVar, kParamSpec, kTypeVarTuple,
  // ours: a comparison operator (Compare.ops) and a bare identifier
  kCmpOp, kIdentifier,
};
inline constexpr int kKindCount = static_cast<int>(Kind::kIdentifier) + 1;

// The `ast` class name of a kind ("FunctionDef", "Call", ...; "cmpop", "identifier").
std::string_view KindName(Kind kind);

// BinOp / AugAssign operators, in `ast` order.
enum class BinOperator : uint8_t {
  kAdd, kSub, kMult, kMatMult, kDiv, kMod, kPow, kLShift, kRShift, kBitOr, kBitXor,
  kBitAnd, kFloorDiv,
};
enum class UnaryOperator : uint8_t { kInvert, kNot, kUAdd, kUSub };
enum class BoolOperator : uint8_t { kAnd, kOr };
enum class CmpOperator : uint8_t { kEq, kNotEq, kLt, kLtE, kGt, kGtE, kIs, kIsNot, kIn, kNotIn };
enum class ConstantKind : uint8_t {
  kNone, kTrue, kFalse, kEllipsis, kInt, kFloat, kComplex, kStr, kBytes,
};
std::string_view OperatorName(BinOperator op);    // "Add", "MatMult", ...
std::string_view OperatorName(UnaryOperator op);  // "USub", ...
std::string_view OperatorName(BoolOperator op);   // "And", "Or"
std::string_view OperatorName(CmpOperator op);    // "Eq", "IsNot", ...

struct Node;

// A list field: a view of node pointers owned by the tree's arena. Entries may
// be nullptr where `ast` has None (Dict.keys for `**d`, arguments.kw_defaults).
struct NodeList {
  Node* const* data = nullptr;
  uint32_t count = 0;

  Node* const* begin() const { return data; }
  Node* const* end() const { return data + count; }
  uint32_t size() const { return count; }
  bool empty() const { return count == 0; }
  Node* operator[](uint32_t i) const { return data[i]; }
  Node* front() const { return data[0]; }
  Node* back() const { return data[count - 1]; }
};

struct Node {
  Kind kind = Kind::kModule;
  // BinOp/AugAssign: BinOperator; UnaryOp: UnaryOperator; BoolOp: BoolOperator;
  // kCmpOp: CmpOperator; Constant: ConstantKind; FormattedValue: conversion
  // ('s', 'r', 'a', or 0 for none); ImportFrom: level; AnnAssign: simple;
  // comprehension: is_async.
  uint8_t op = 0;
  // Constant: an int that fits int64_t (int_value is set); str/bytes with an
  // escape the decoder kept raw (\N{...}).
  bool int_fits = false;
  bool raw_escape = false;
  // Height of the subtree (a leaf is 1): the parser refuses trees deeper than
  // kMaxTreeDepth, so recursive walks over any tree it returns stay shallow.
  uint16_t depth = 1;
  // Position as `ast` gives it: 1-based lines, 0-based UTF-8 byte columns, the
  // end exclusive. Zero where `ast` has none (comprehension, arguments,
  // withitem, match_case).
  int32_t line = 0, col = 0, end_line = 0, end_col = 0;
  // Name.id, Attribute.attr, FunctionDef/ClassDef/arg/keyword(.arg)/alias/
  // ExceptHandler/MatchAs/MatchStar/TypeVar/ParamSpec/TypeVarTuple name,
  // ImportFrom.module, MatchMapping.rest, identifier; empty when absent (a
  // keyword `**kw` has no arg).
  std::string_view name;
  std::string_view asname;  // alias.asname
  // Constant: the decoded value of str/bytes (UTF-8 / raw bytes), else the
  // literal's source text ("0x_ff", "1e3", "2j"); JoinedStr parts hold their text.
  std::string_view text;
  int64_t int_value = 0;

  Node* one[3] = {nullptr, nullptr, nullptr};
  NodeList many[5];

  // ---- single children ----------------------------------------------------
  // slot 0: value, test, func, left, operand, elt, subject, exc, context_expr,
  //         pattern, cls, lower, args (FunctionDef/Lambda: the kArguments node),
  //         type (ExceptHandler), vararg, bound
  Node* value() const { return one[0]; }
  Node* test() const { return one[0]; }
  Node* func() const { return one[0]; }
  Node* left() const { return one[0]; }
  Node* operand() const { return one[0]; }
  Node* elt() const { return one[0]; }
  Node* subject() const { return one[0]; }
  Node* exc() const { return one[0]; }
  Node* context_expr() const { return one[0]; }
  Node* pattern() const { return one[0]; }
  Node* cls() const { return one[0]; }
  Node* lower() const { return one[0]; }
  Node* arguments() const { return one[0]; }  // FunctionDef.args, Lambda.args
  Node* type() const { return one[0]; }       // ExceptHandler.type
  Node* vararg() const { return one[0]; }
  Node* bound() const { return one[0]; }
  // slot 1: target, right, body (IfExp/Lambda: one expression), slice, upper,
  //         cause, msg, optional_vars, guard, kwarg, returns, format_spec,
  //         key (DictComp), type_name (TypeAlias.name)
  Node* target() const { return one[1]; }
  Node* right() const { return one[1]; }
  Node* body_expr() const { return one[1]; }
  Node* slice() const { return one[1]; }
  Node* upper() const { return one[1]; }
  Node* cause() const { return one[1]; }
  Node* msg() const { return one[1]; }
  Node* optional_vars() const { return one[1]; }
  Node* guard() const { return one[1]; }
  Node* kwarg() const { return one[1]; }
  Node* returns() const { return one[1]; }
  Node* format_spec() const { return one[1]; }
  Node* key() const { return one[1]; }
  Node* type_name() const { return one[1]; }
  // slot 2: iter, orelse (IfExp: one expression), annotation (AnnAssign, arg),
  //         step, default_value (TypeVar, 3.13)
  Node* iter() const { return one[2]; }
  Node* orelse_expr() const { return one[2]; }
  Node* annotation() const { return one[2]; }
  Node* step() const { return one[2]; }
  Node* default_value() const { return one[2]; }

  // ---- list children -------------------------------------------------------
  // list 0: body, posonlyargs
  NodeList body() const { return many[0]; }
  NodeList posonlyargs() const { return many[0]; }
  // list 1: orelse, decorator_list, keys (Dict, MatchMapping), ops, defaults
  NodeList orelse() const { return many[1]; }
  NodeList decorator_list() const { return many[1]; }
  NodeList keys() const { return many[1]; }
  NodeList ops() const { return many[1]; }
  NodeList defaults() const { return many[1]; }
  // list 2: targets, items, cases, handlers, names, values, elts, generators,
  //         comparators, args (Call, arguments), bases, ifs, patterns
  NodeList targets() const { return many[2]; }
  NodeList items() const { return many[2]; }
  NodeList cases() const { return many[2]; }
  NodeList handlers() const { return many[2]; }
  NodeList names() const { return many[2]; }
  NodeList values() const { return many[2]; }
  NodeList elts() const { return many[2]; }
  NodeList generators() const { return many[2]; }
  NodeList comparators() const { return many[2]; }
  NodeList args() const { return many[2]; }
  NodeList bases() const { return many[2]; }
  NodeList ifs() const { return many[2]; }
  NodeList patterns() const { return many[2]; }
  // list 3: finalbody, keywords (Call, ClassDef), kwonlyargs, kwd_attrs
  NodeList finalbody() const { return many[3]; }
  NodeList keywords() const { return many[3]; }
  NodeList kwonlyargs() const { return many[3]; }
  NodeList kwd_attrs() const { return many[3]; }
  // list 4: type_params, kw_defaults, kwd_patterns
  NodeList type_params() const { return many[4]; }
  NodeList kw_defaults() const { return many[4]; }
  NodeList kwd_patterns() const { return many[4]; }

  // ---- typed scalars -------------------------------------------------------
  BinOperator bin_op() const { return static_cast<BinOperator>(op); }
  UnaryOperator unary_op() const { return static_cast<UnaryOperator>(op); }
  BoolOperator bool_op() const { return static_cast<BoolOperator>(op); }
  CmpOperator cmp_op() const { return static_cast<CmpOperator>(op); }
  ConstantKind constant_kind() const { return static_cast<ConstantKind>(op); }
  int level() const { return op; }  // ImportFrom

  bool is(Kind k) const { return kind == k; }
};

// Kind groups the rules ask about.
bool IsStatement(Kind k);
bool IsExpression(Kind k);
inline bool IsFunction(Kind k) { return k == Kind::kFunctionDef || k == Kind::kAsyncFunctionDef; }
inline bool IsComprehension(Kind k) {
  return k == Kind::kListComp || k == Kind::kSetComp || k == Kind::kDictComp ||
         k == Kind::kGeneratorExp;
}
// Has a position in `ast` (stmt, expr, excepthandler, arg, keyword, alias,
// pattern, type_param).
bool HasPosition(Kind k);

// The children of a node in `ast` field order (the order ast.iter_child_nodes
// yields them), skipping absent ones. `visit` is called as visit(Node*).
template <typename Visit>
void ForEachChild(const Node& n, Visit&& visit);

}  // namespace fastenough::pysrc

#include "fastenough/pysrc/syntax_tree_children.h"  // IWYU pragma: export
