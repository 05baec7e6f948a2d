#include "fastenough/pysrc/syntax_tree.h"

#include <array>

namespace fastenough::pysrc {
namespace {

constexpr std::array<std::string_view, kKindCount> kKindNames = {
    "Module",
    "FunctionDef", "AsyncFunctionDef", "ClassDef", "Return", "Delete", "Assign", "TypeAlias",
    "AugAssign", "AnnAssign", "For", "AsyncFor", "While", "If", "With", "AsyncWith", "Match",
    "Raise", "Try", "TryStar", "Assert", "Import", "ImportFrom", "Global", "Nonlocal", "Expr",
    "Pass", "Break", "Continue",
    "BoolOp", "NamedExpr", "BinOp", "UnaryOp", "Lambda", "IfExp", "Dict", "Set", "ListComp",
    "SetComp", "DictComp", "GeneratorExp", "Await", "Yield", "YieldFrom", "Compare", "Call",
    "FormattedValue", "JoinedStr", "Constant", "Attribute", "Subscript", "Starred", "Name",
    "List", "Tuple", "Slice",
    "comprehension", "ExceptHandler", "arguments", "arg", "keyword", "alias", "withitem",
    "match_case", "MatchValue", "MatchSingleton", "MatchSequence", "MatchMapping", "MatchClass",
    "MatchStar", "MatchAs", "MatchOr", "TypeVar", "ParamSpec", "TypeVarTuple",
    "cmpop", "identifier",
};

// Field tables, in `ast` _fields order (ctx, op and type_comment left out).
constexpr FieldRef S(const char* n, uint8_t slot) { return {n, false, slot}; }
constexpr FieldRef L(const char* n, uint8_t slot) { return {n, true, slot}; }

constexpr FieldRef kModuleF[] = {L("body", 0)};
constexpr FieldRef kFunctionF[] = {S("args", 0), L("body", 0), L("decorator_list", 1),
                                   S("returns", 1), L("type_params", 4)};
constexpr FieldRef kClassF[] = {L("bases", 2), L("keywords", 3), L("body", 0),
                                L("decorator_list", 1), L("type_params", 4)};
constexpr FieldRef kValueF[] = {S("value", 0)};
constexpr FieldRef kTargetsF[] = {L("targets", 2)};
constexpr FieldRef kAssignF[] = {L("targets", 2), S("value", 0)};
constexpr FieldRef kTypeAliasF[] = {S("name", 1), L("type_params", 4), S("value", 0)};
constexpr FieldRef kAugAssignF[] = {S("target", 1), S("value", 0)};
constexpr FieldRef kAnnAssignF[] = {S("target", 1), S("annotation", 2), S("value", 0)};
constexpr FieldRef kForF[] = {S("target", 1), S("iter", 2), L("body", 0), L("orelse", 1)};
constexpr FieldRef kWhileF[] = {S("test", 0), L("body", 0), L("orelse", 1)};
constexpr FieldRef kWithF[] = {L("items", 2), L("body", 0)};
constexpr FieldRef kMatchF[] = {S("subject", 0), L("cases", 2)};
constexpr FieldRef kRaiseF[] = {S("exc", 0), S("cause", 1)};
constexpr FieldRef kTryF[] = {L("body", 0), L("handlers", 2), L("orelse", 1),
                              L("finalbody", 3)};
constexpr FieldRef kAssertF[] = {S("test", 0), S("msg", 1)};
constexpr FieldRef kNamesF[] = {L("names", 2)};
constexpr FieldRef kValuesF[] = {L("values", 2)};
constexpr FieldRef kNamedExprF[] = {S("target", 1), S("value", 0)};
constexpr FieldRef kBinOpF[] = {S("left", 0), S("right", 1)};
constexpr FieldRef kOperandF[] = {S("operand", 0)};
constexpr FieldRef kLambdaF[] = {S("args", 0), S("body", 1)};
constexpr FieldRef kIfExpF[] = {S("test", 0), S("body", 1), S("orelse", 2)};
constexpr FieldRef kDictF[] = {L("keys", 1), L("values", 2)};
constexpr FieldRef kEltsF[] = {L("elts", 2)};
constexpr FieldRef kCompF[] = {S("elt", 0), L("generators", 2)};
constexpr FieldRef kDictCompF[] = {S("key", 1), S("value", 0), L("generators", 2)};
constexpr FieldRef kCompareF[] = {S("left", 0), L("ops", 1), L("comparators", 2)};
constexpr FieldRef kCallF[] = {S("func", 0), L("args", 2), L("keywords", 3)};
constexpr FieldRef kFormattedF[] = {S("value", 0), S("format_spec", 1)};
constexpr FieldRef kSubscriptF[] = {S("value", 0), S("slice", 1)};
constexpr FieldRef kSliceF[] = {S("lower", 0), S("upper", 1), S("step", 2)};
constexpr FieldRef kComprehensionF[] = {S("target", 1), S("iter", 2), L("ifs", 2)};
constexpr FieldRef kHandlerF[] = {S("type", 0), L("body", 0)};
constexpr FieldRef kArgumentsF[] = {L("posonlyargs", 0), L("args", 2),       S("vararg", 0),
                                    L("kwonlyargs", 3),  L("kw_defaults", 4), S("kwarg", 1),
                                    L("defaults", 1)};
constexpr FieldRef kArgF[] = {S("annotation", 2)};
constexpr FieldRef kWithItemF[] = {S("context_expr", 0), S("optional_vars", 1)};
constexpr FieldRef kMatchCaseF[] = {S("pattern", 0), S("guard", 1), L("body", 0)};
constexpr FieldRef kPatternsF[] = {L("patterns", 2)};
constexpr FieldRef kMatchMappingF[] = {L("keys", 1), L("patterns", 2)};
constexpr FieldRef kMatchClassF[] = {S("cls", 0), L("patterns", 2), L("kwd_attrs", 3),
                                     L("kwd_patterns", 4)};
constexpr FieldRef kMatchAsF[] = {S("pattern", 0)};
constexpr FieldRef kTypeVarF[] = {S("bound", 0), S("default_value", 2)};
constexpr FieldRef kTypeParamF[] = {S("default_value", 2)};

template <size_t N>
constexpr KindFields F(const FieldRef (&a)[N]) { return {a, static_cast<uint8_t>(N)}; }
constexpr KindFields kNone = {nullptr, 0};

}  // namespace

std::string_view KindName(Kind kind) { return kKindNames[static_cast<int>(kind)]; }

std::string_view OperatorName(BinOperator op) {
  static constexpr std::string_view k[] = {"Add",    "Sub",    "Mult",  "MatMult", "Div",
                                           "Mod",    "Pow",    "LShift", "RShift", "BitOr",
                                           "BitXor", "BitAnd", "FloorDiv"};
  return k[static_cast<int>(op)];
}
std::string_view OperatorName(UnaryOperator op) {
  static constexpr std::string_view k[] = {"Invert", "Not", "UAdd", "USub"};
  return k[static_cast<int>(op)];
}
std::string_view OperatorName(BoolOperator op) { return op == BoolOperator::kAnd ? "And" : "Or"; }
std::string_view OperatorName(CmpOperator op) {
  static constexpr std::string_view k[] = {"Eq", "NotEq", "Lt", "LtE", "Gt",
                                           "GtE", "Is",   "IsNot", "In", "NotIn"};
  return k[static_cast<int>(op)];
}

KindFields FieldsOf(Kind kind) {
  switch (kind) {
    case Kind::kModule: return F(kModuleF);
    case Kind::kFunctionDef:
    case Kind::kAsyncFunctionDef: return F(kFunctionF);
    case Kind::kClassDef: return F(kClassF);
    case Kind::kReturn:
    case Kind::kExpr:
    case Kind::kAwait:
    case Kind::kYield:
    case Kind::kYieldFrom:
    case Kind::kAttribute:
    case Kind::kStarred:
    case Kind::kKeyword:
    case Kind::kMatchValue: return F(kValueF);
    case Kind::kDelete: return F(kTargetsF);
    case Kind::kAssign: return F(kAssignF);
    case Kind::kTypeAlias: return F(kTypeAliasF);
    case Kind::kAugAssign: return F(kAugAssignF);
    case Kind::kAnnAssign: return F(kAnnAssignF);
    case Kind::kFor:
    case Kind::kAsyncFor: return F(kForF);
    case Kind::kWhile:
    case Kind::kIf: return F(kWhileF);
    case Kind::kWith:
    case Kind::kAsyncWith: return F(kWithF);
    case Kind::kMatch: return F(kMatchF);
    case Kind::kRaise: return F(kRaiseF);
    case Kind::kTry:
    case Kind::kTryStar: return F(kTryF);
    case Kind::kAssert: return F(kAssertF);
    case Kind::kImport:
    case Kind::kImportFrom:
    case Kind::kGlobal:
    case Kind::kNonlocal: return F(kNamesF);
    case Kind::kBoolOp:
    case Kind::kJoinedStr: return F(kValuesF);
    case Kind::kNamedExpr: return F(kNamedExprF);
    case Kind::kBinOp: return F(kBinOpF);
    case Kind::kUnaryOp: return F(kOperandF);
    case Kind::kLambda: return F(kLambdaF);
    case Kind::kIfExp: return F(kIfExpF);
    case Kind::kDict: return F(kDictF);
    case Kind::kSet:
    case Kind::kList:
    case Kind::kTuple: return F(kEltsF);
    case Kind::kListComp:
    case Kind::kSetComp:
    case Kind::kGeneratorExp: return F(kCompF);
    case Kind::kDictComp: return F(kDictCompF);
    case Kind::kCompare: return F(kCompareF);
    case Kind::kCall: return F(kCallF);
    case Kind::kFormattedValue: return F(kFormattedF);
    case Kind::kSubscript: return F(kSubscriptF);
    case Kind::kSlice: return F(kSliceF);
    case Kind::kComprehension: return F(kComprehensionF);
    case Kind::kExceptHandler: return F(kHandlerF);
    case Kind::kArguments: return F(kArgumentsF);
    case Kind::kArg: return F(kArgF);
    case Kind::kWithItem: return F(kWithItemF);
    case Kind::kMatchCase: return F(kMatchCaseF);
    case Kind::kMatchSequence:
    case Kind::kMatchOr: return F(kPatternsF);
    case Kind::kMatchMapping: return F(kMatchMappingF);
    case Kind::kMatchClass: return F(kMatchClassF);
    case Kind::kMatchAs: return F(kMatchAsF);
    case Kind::kTypeVar: return F(kTypeVarF);
    case Kind::kParamSpec:
    case Kind::kTypeVarTuple: return F(kTypeParamF);
    default: return kNone;
  }
}

bool IsIdentifierField(Kind kind, const FieldRef& f) {
  return (kind == Kind::kGlobal || kind == Kind::kNonlocal) ||
         (kind == Kind::kMatchClass && f.list && f.slot == 3);
}

bool IsStatement(Kind k) { return k >= Kind::kFunctionDef && k <= Kind::kContinue; }
bool IsExpression(Kind k) { return k >= Kind::kBoolOp && k <= Kind::kSlice; }

bool HasPosition(Kind k) {
  if (IsStatement(k) || IsExpression(k)) return true;
  switch (k) {
    case Kind::kExceptHandler:
    case Kind::kArg:
    case Kind::kKeyword:
    case Kind::kAlias:
    case Kind::kMatchValue:
    case Kind::kMatchSingleton:
    case Kind::kMatchSequence:
    case Kind::kMatchMapping:
    case Kind::kMatchClass:
    case Kind::kMatchStar:
    case Kind::kMatchAs:
    case Kind::kMatchOr:
    case Kind::kTypeVar:
    case Kind::kParamSpec:
    case Kind::kTypeVarTuple: return true;
    default: return false;
  }
}

}  // namespace fastenough::pysrc
