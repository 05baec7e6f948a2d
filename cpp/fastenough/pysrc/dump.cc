#include "fastenough/pysrc/dump.h"

#include <cstdio>

namespace fastenough::pysrc {
namespace {

void Hex(std::string_view s, std::string* out) {
  static const char* kDigits = "0123456789abcdef";
  for (unsigned char c : s) {
    out->push_back(kDigits[c >> 4]);
    out->push_back(kDigits[c & 15]);
  }
}

void Attributes(const Node& n, std::string* out) {
  auto attr = [&](const char* key, std::string_view value, bool none_if_empty = true) {
    *out += ' ';
    *out += key;
    *out += '=';
    if (value.empty() && none_if_empty) {
      *out += "None";
    } else {
      *out += value;
    }
  };
  switch (n.kind) {
    case Kind::kName: attr("id", n.name); break;
    case Kind::kAttribute: attr("attr", n.name); break;
    case Kind::kFunctionDef:
    case Kind::kAsyncFunctionDef:
    case Kind::kClassDef:
    case Kind::kTypeVar:
    case Kind::kParamSpec:
    case Kind::kTypeVarTuple:
    case Kind::kIdentifier: attr("name", n.name); break;
    case Kind::kArg: attr("arg", n.name); break;
    case Kind::kKeyword: attr("arg", n.name); break;
    case Kind::kAlias:
      attr("name", n.name);
      attr("asname", n.asname);
      break;
    case Kind::kImportFrom:
      attr("module", n.name);
      attr("level", std::to_string(n.level()));
      break;
    case Kind::kExceptHandler:
    case Kind::kMatchAs:
    case Kind::kMatchStar: attr("name", n.name); break;
    case Kind::kMatchMapping: attr("rest", n.name); break;
    case Kind::kBinOp:
    case Kind::kAugAssign: attr("op", OperatorName(n.bin_op())); break;
    case Kind::kUnaryOp: attr("op", OperatorName(n.unary_op())); break;
    case Kind::kBoolOp: attr("op", OperatorName(n.bool_op())); break;
    case Kind::kCmpOp: attr("op", OperatorName(n.cmp_op())); break;
    case Kind::kAnnAssign: attr("simple", std::to_string(n.op)); break;
    case Kind::kComprehension: attr("is_async", std::to_string(n.op)); break;
    case Kind::kFormattedValue:
      attr("conversion", n.op == 0 ? std::string("-1") : std::to_string(n.op));
      break;
    case Kind::kMatchSingleton:
    case Kind::kConstant: {
      std::string v;
      switch (n.constant_kind()) {
        case ConstantKind::kNone: v = "None"; break;
        case ConstantKind::kTrue: v = "True"; break;
        case ConstantKind::kFalse: v = "False"; break;
        case ConstantKind::kEllipsis: v = "Ellipsis"; break;
        case ConstantKind::kInt: v = "int:" + std::string(n.text); break;
        case ConstantKind::kFloat: v = "float:" + std::string(n.text); break;
        case ConstantKind::kComplex: v = "complex:" + std::string(n.text); break;
        case ConstantKind::kStr:
          v = "str:";
          if (n.raw_escape) {
            v += '?';
          } else {
            Hex(n.text, &v);
          }
          break;
        case ConstantKind::kBytes:
          v = "bytes:";
          Hex(n.text, &v);
          break;
      }
      attr("value", v, false);
      break;
    }
    default: break;
  }
}

void DumpNode(const Node& n, const std::string& field, int indent, bool positions,
              std::string* out) {
  out->append(static_cast<size_t>(indent) * 2, ' ');
  *out += field;
  *out += ": ";
  *out += KindName(n.kind);
  if (positions && HasPosition(n.kind)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " @%d:%d-%d:%d", n.line, n.col, n.end_line, n.end_col);
    *out += buf;
  }
  Attributes(n, out);
  *out += '\n';
  const bool inner_positions = positions && n.kind != Kind::kJoinedStr;
  const KindFields kf = FieldsOf(n.kind);
  for (uint8_t i = 0; i < kf.count; ++i) {
    const FieldRef& f = kf.fields[i];
    if (!f.list) {
      if (n.one[f.slot] != nullptr) {
        DumpNode(*n.one[f.slot], f.name, indent + 1, inner_positions, out);
      }
      continue;
    }
    const NodeList list = n.many[f.slot];
    for (uint32_t k = 0; k < list.size(); ++k) {
      std::string name = std::string(f.name) + "[" + std::to_string(k) + "]";
      if (list[k] == nullptr) {
        out->append(static_cast<size_t>(indent + 1) * 2, ' ');
        *out += name + ": None\n";
      } else {
        DumpNode(*list[k], name, indent + 1, inner_positions, out);
      }
    }
  }
}

}  // namespace

std::string DumpTree(const Node& root) {
  std::string out;
  DumpNode(root, "root", 0, true, &out);
  return out;
}

}  // namespace fastenough::pysrc
