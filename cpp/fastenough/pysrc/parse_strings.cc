// String literals: adjacent literals joined into one Constant, or into a
// JoinedStr when one of them is an f-string; escapes decoded.
#include <string>
#include <vector>

#include "fastenough/pysrc/fstring_scan.h"
#include "fastenough/pysrc/parser_impl.h"
#include "fastenough/pysrc/tokenizer.h"

namespace fastenough::pysrc {
namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the escapes of a literal's text as Python does. Escapes that need
// a table we do not carry (\N{name}) stay as written and set `raw_escape`.
void DecodeEscapes(std::string_view s, bool bytes, std::string* out, bool* raw_escape) {
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (c != '\\') {
      if (c == '\r') {  // source lines end in \n once read, as CPython reads them
        if (i + 1 < n && s[i + 1] == '\n') ++i;
        c = '\n';
      }
      out->push_back(c);
      continue;
    }
    if (i + 1 >= n) {
      out->push_back('\\');
      break;
    }
    char d = s[++i];
    switch (d) {
      case '\n': break;
      case '\r':
        if (i + 1 < n && s[i + 1] == '\n') ++i;
        break;
      case '\\': case '\'': case '"': out->push_back(d); break;
      case 'a': out->push_back('\a'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'v': out->push_back('\v'); break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        uint32_t v = static_cast<uint32_t>(d - '0');
        for (int k = 0; k < 2 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k) {
          v = v * 8 + static_cast<uint32_t>(s[++i] - '0');
        }
        if (bytes) {
          out->push_back(static_cast<char>(v & 0xFF));
        } else {
          AppendUtf8(v, out);
        }
        break;
      }
      case 'x': case 'u': case 'U': {
        int digits = d == 'x' ? 2 : d == 'u' ? 4 : 8;
        if (bytes && d != 'x') {
          out->push_back('\\');
          out->push_back(d);
          break;
        }
        uint32_t v = 0;
        bool ok = true;
        for (int k = 0; ok && k < digits; ++k) {
          int h = i + 1 + k < n ? HexValue(s[i + 1 + k]) : -1;
          if (h < 0) ok = false; else v = v * 16 + static_cast<uint32_t>(h);
        }
        if (!ok || v > 0x10FFFF) {  // CPython refuses these; keep the text
          out->push_back('\\');
          out->push_back(d);
          *raw_escape = true;
          break;
        }
        i += digits;
        if (bytes) {
          out->push_back(static_cast<char>(v));
        } else {
          AppendUtf8(v, out);
        }
        break;
      }
      case 'N':
        if (!bytes) *raw_escape = true;
        out->push_back('\\');
        out->push_back('N');
        break;
      default:
        out->push_back('\\');
        out->push_back(d);
        break;
    }
  }
}

// Raw text with line ends normalised to \n.
void AppendRaw(std::string_view s, std::string* out) {
  if (s.find('\r') == std::string_view::npos) {
    out->append(s);
    return;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
      out->push_back('\n');
    } else {
      out->push_back(s[i]);
    }
  }
}

}  // namespace

// Builds the parts of one JoinedStr (or of a format spec) from the scanner's
// callbacks: literal text is merged across chunks and literals, fields become
// FormattedValue nodes.
class FStringBuilder : public FStringVisitor {
 public:
  FStringBuilder(ParserImpl& p, const Token& first, bool raw, std::string* lit)
      : p_(p), first_(first), raw_(raw), lit_(lit) {}

  void set_raw(bool raw) { raw_ = raw; }
  const std::vector<Node*>& parts() const { return parts_; }
  void Flush() {
    if (lit_->empty()) return;
    Node* c = Part(Kind::kConstant);
    c->op = static_cast<uint8_t>(ConstantKind::kStr);
    c->text = p_.arena_.Copy(*lit_);
    c->raw_escape = raw_escape_;
    raw_escape_ = false;
    lit_->clear();
    parts_.push_back(c);
  }

  void Literal(size_t begin, size_t end) override {
    std::string_view s = p_.src_.substr(begin, end - begin);
    if (raw_) {
      AppendRaw(s, lit_);
    } else {
      DecodeEscapes(s, false, lit_, &raw_escape_);
    }
  }
  void AppendDecoded(const Token& t) { p_.DecodeInto(t, lit_, &raw_escape_); }

  void Field(const FStringField& f) override {
    if (p_.failed()) return;
    if (f.debug_end != 0) AppendRaw(p_.src_.substr(f.expr_begin, f.debug_end - f.expr_begin), lit_);
    Flush();
    Node* value = p_.ParseFieldExpression(f.expr_begin, f.expr_end);
    if (value == nullptr) return;
    Node* fv = Part(Kind::kFormattedValue);
    fv->one[0] = value;
    char conversion = f.conversion;
    if (f.debug_end != 0 && conversion == 0 && !f.has_spec) conversion = 'r';
    fv->op = static_cast<uint8_t>(conversion);
    if (f.has_spec) {
      std::string spec_lit;
      FStringBuilder spec(p_, first_, raw_, &spec_lit);
      FStringScanner scanner(p_.src_, '\0', true, raw_);
      if (scanner.ScanSpec(f.spec_begin, f.spec_end, &spec) == kScanFailed) {
        p_.Fail(first_, scanner.error());
        return;
      }
      spec.Flush();
      Node* joined = Part(Kind::kJoinedStr);
      size_t mark = p_.Mark();
      for (Node* part : spec.parts()) p_.Push(part);
      joined->many[2] = p_.Collect(mark);
      fv->one[1] = p_.SetDepth(joined);
    }
    if (p_.SetDepth(fv) == nullptr) return;
    parts_.push_back(fv);
  }

 private:
  // Parts take the position of the whole literal (as CPython 3.11 gives them).
  Node* Part(Kind kind) {
    Node* n = p_.New(kind, first_);
    const Token& last = p_.Prev();
    n->end_line = last.end_line;
    n->end_col = last.end_col;
    return n;
  }

  ParserImpl& p_;
  const Token& first_;
  bool raw_;
  std::string* lit_;
  std::vector<Node*> parts_;
  bool raw_escape_ = false;  // the pending literal kept a \N{...} escape
};

bool ParserImpl::DecodeInto(const Token& t, std::string* out, bool* raw_escape) {
  const size_t quote = (t.code & kStrTriple) ? 3 : 1;
  size_t begin = t.begin + t.prefix_len + quote;
  size_t end = t.end - quote;
  std::string_view body = src_.substr(begin, end > begin ? end - begin : 0);
  if (t.code & kStrR) {
    AppendRaw(body, out);
  } else {
    DecodeEscapes(body, (t.code & kStrB) != 0, out, raw_escape);
  }
  return true;
}

Node* ParserImpl::Strings() {
  const Token& first = Cur();
  size_t end = p_;
  bool any_f = false, any_bytes = false, any_str = false;
  while (toks_[end].kind == TokenKind::kString) {
    uint8_t flags = toks_[end].code;
    any_f |= (flags & kStrF) != 0;
    ((flags & kStrB) ? any_bytes : any_str) = true;
    ++end;
  }
  if (any_bytes && any_str) return Fail(first, "cannot mix bytes and nonbytes literals");
  buffer_.clear();
  if (!any_f) {
    Node* n = New(Kind::kConstant, first);
    n->op = static_cast<uint8_t>(any_bytes ? ConstantKind::kBytes : ConstantKind::kStr);
    bool raw_escape = false;
    for (size_t i = p_; i < end; ++i) DecodeInto(toks_[i], &buffer_, &raw_escape);
    n->raw_escape = raw_escape;
    n->text = arena_.Copy(buffer_);
    p_ = end;
    return Finish(n);
  }
  Node* joined = New(Kind::kJoinedStr, first);
  size_t start = p_;
  p_ = end;  // the parts take the whole literal's position, so Prev() is its last token
  std::string lit;
  FStringBuilder builder(*this, first, false, &lit);
  for (size_t i = start; i < end; ++i) {
    const Token& t = toks_[i];
    if (!(t.code & kStrF)) {
      builder.AppendDecoded(t);
      continue;
    }
    const bool triple = (t.code & kStrTriple) != 0;
    const char quote = src_[t.begin + t.prefix_len];
    builder.set_raw((t.code & kStrR) != 0);
    FStringScanner scanner(src_, quote, triple, (t.code & kStrR) != 0);
    size_t body = t.begin + t.prefix_len + (triple ? 3 : 1);
    if (scanner.ScanBody(body, &builder) == kScanFailed) return Fail(t, scanner.error());
    if (failed()) return nullptr;
  }
  builder.Flush();
  size_t mark = Mark();
  for (Node* part : builder.parts()) Push(part);
  joined->many[2] = Collect(mark);
  return Finish(joined);
}

Node* ParserImpl::ParseFieldExpression(size_t begin, size_t end) {
  // The field's line and column, counted from the start of the file's line
  // structure: find the line start before `begin`.
  int32_t line = 1;
  size_t line_start = 0;
  // Count from the current token (the literal's start) for speed.
  const Token& lit = Prev();
  size_t from = 0;
  for (size_t i = p_; i-- > 0;) {
    if (toks_[i].kind != TokenKind::kString || toks_[i].begin > begin) continue;
    from = toks_[i].begin;
    line = toks_[i].line;
    line_start = toks_[i].begin - static_cast<size_t>(toks_[i].col);
    break;
  }
  (void)lit;
  for (size_t i = from; i < begin; ++i) {
    char c = src_[i];
    if (c == '\n' || (c == '\r' && (i + 1 >= src_.size() || src_[i + 1] != '\n'))) {
      ++line;
      line_start = i + 1;
    }
  }
  TokenizeRange range;
  range.begin = static_cast<uint32_t>(begin);
  range.end = static_cast<uint32_t>(end);
  range.line = line;
  range.col = static_cast<int32_t>(begin - line_start);
  range.in_brackets = true;
  std::vector<Token> tokens;
  if (!Tokenize(src_, range, &tokens, error_)) return nullptr;
  if (tokens.size() == 1) return Fail(tokens[0], "f-string: valid expression required before '}'");
  ParserImpl sub(src_, arena_, std::move(tokens), error_, recursion_ + 1);
  if (recursion_ + 1 > kMaxRecursion) return FailTooDeep(Prev());
  return sub.FStringField();
}

}  // namespace fastenough::pysrc
