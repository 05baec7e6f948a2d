#include "fastenough/pysrc/tokenizer.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "fastenough/pysrc/code_points.h"
#include "fastenough/pysrc/fstring_scan.h"

namespace fastenough::pysrc {
namespace {

bool IsNameStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsNameByte(unsigned char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(unsigned char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

class TokenizerImpl {
 public:
  TokenizerImpl(std::string_view src, const TokenizeRange& range, std::vector<Token>* out,
                ParseError* error)
      : src_(src),
        pos_(range.begin),
        end_(range.end),
        line_(range.line),
        line_start_(range.begin - static_cast<uint32_t>(range.col)),
        in_brackets_(range.in_brackets),
        out_(out),
        error_(error) {}

  bool Run();

 private:
  void Emit(TokenKind kind, uint8_t code, uint32_t begin, uint32_t end) {
    Token t;
    t.kind = kind;
    t.code = code;
    t.begin = begin;
    t.end = end;
    t.line = line_;
    t.col = static_cast<int32_t>(begin - line_start_);
    t.end_line = line_;
    t.end_col = static_cast<int32_t>(end - line_start_);
    out_->push_back(t);
  }
  bool Fail(uint32_t at, std::string message) {
    // Errors are rare: find the line of `at` by counting from a line we know.
    int32_t line = at >= line_start_ ? line_ : 1;
    uint32_t start = at >= line_start_ ? line_start_ : 0;
    for (uint32_t i = start; i < at && i < src_.size(); ++i) {
      char c = src_[i];
      if (c == '\n' || (c == '\r' && (i + 1 >= src_.size() || src_[i + 1] != '\n'))) {
        ++line;
        start = i + 1;
      }
    }
    error_->line = line;
    error_->col = static_cast<int32_t>(at - start);
    error_->message = std::move(message);
    return false;
  }
  // A name with non-ASCII bytes: every character must be one Python allows in
  // names (verify_identifier in CPython's tokenizer, with its messages).
  bool VerifyName(uint32_t begin, uint32_t end) {
    const std::string_view name = src_.substr(begin, end - begin);
    for (size_t i = 0; i < name.size();) {
      const size_t at = i;
      const uint32_t ch = DecodeAt(name, &i);
      if (at == 0 ? IsIdentifierStart(ch) : IsIdentifierContinue(ch)) continue;
      char hex[16];
      std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(ch));
      if (IsPrintable(ch)) {
        return Fail(begin + static_cast<uint32_t>(at),
                    "invalid character '" + std::string(name.substr(at, i - at)) + "' (U+" +
                        hex + ")");
      }
      return Fail(begin + static_cast<uint32_t>(at),
                  std::string("invalid non-printable character U+") + hex);
    }
    return true;
  }
  // Advances line bookkeeping over source[from, to) (a multi-line string).
  void CountLines(uint32_t from, uint32_t to) {
    for (uint32_t i = from; i < to; ++i) {
      char c = src_[i];
      if (c == '\n' || (c == '\r' && (i + 1 >= to || src_[i + 1] != '\n'))) {
        ++line_;
        line_start_ = i + 1;
      }
    }
  }
  // The line of offset `at` (at >= line_start_), without moving the bookkeeping.
  int32_t LineOf(uint32_t at) const {
    int32_t line = line_;
    for (uint32_t i = line_start_; i < at && i < src_.size(); ++i) {
      char c = src_[i];
      if (c == '\n' || (c == '\r' && (i + 1 >= src_.size() || src_[i + 1] != '\n'))) ++line;
    }
    return line;
  }
  uint32_t NewlineLength(uint32_t p) const {
    if (src_[p] == '\r' && p + 1 < end_ && src_[p + 1] == '\n') return 2;
    return 1;
  }
  bool Indentation(std::vector<int>& indents);
  bool Operator();
  void Number();
  bool String(uint32_t start);

  std::string_view src_;
  uint32_t pos_;
  uint32_t end_;
  int32_t line_;
  uint32_t line_start_;
  bool in_brackets_;
  std::vector<Token>* out_;
  ParseError* error_;
  std::string brackets_;  // open brackets, innermost last
  std::vector<uint32_t> bracket_pos_;
};

// At the start of a logical line: skip blank and comment-only lines, then
// compare the indentation with the stack. Returns false on an error; leaves
// pos_ at the first token of the line (or at the end).
bool TokenizerImpl::Indentation(std::vector<int>& indents) {
  while (true) {
    int col = 0;
    uint32_t p = pos_;
    while (p < end_) {
      char c = src_[p];
      if (c == ' ') {
        ++col;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8;
      } else if (c == '\f') {
        col = 0;
      } else {
        break;
      }
      ++p;
    }
    if (p >= end_) {
      pos_ = p;
      return true;
    }
    char c = src_[p];
    if (c == '#' || c == '\n' || c == '\r') {
      while (p < end_ && src_[p] != '\n' && src_[p] != '\r') ++p;
      if (p >= end_) {
        pos_ = p;
        return true;
      }
      p += NewlineLength(p);
      ++line_;
      line_start_ = p;
      pos_ = p;
      continue;
    }
    pos_ = p;
    if (col > indents.back()) {
      indents.push_back(col);
      Emit(TokenKind::kIndent, 0, line_start_, p);
    } else {
      while (col < indents.back()) {
        indents.pop_back();
        Emit(TokenKind::kDedent, 0, p, p);
      }
      if (col != indents.back()) {
        return Fail(p, "unindent does not match any outer indentation level");
      }
    }
    return true;
  }
}

bool TokenizerImpl::Run() {
  std::vector<int> indents{0};
  bool at_line_start = !in_brackets_;
  bool line_has_tokens = false;
  out_->reserve(out_->size() + (end_ - pos_) / 4 + 8);
  while (true) {
    if (at_line_start) {
      at_line_start = false;
      if (!Indentation(indents)) return false;
    }
    if (pos_ >= end_) break;
    const unsigned char c = static_cast<unsigned char>(src_[pos_]);
    switch (c) {
      case ' ': case '\t': case '\f':
        ++pos_;
        continue;
      case '#':
        while (pos_ < end_ && src_[pos_] != '\n' && src_[pos_] != '\r') ++pos_;
        continue;
      case '\\': {
        uint32_t p = pos_ + 1;
        if (p >= end_) return Fail(pos_, "unexpected EOF while parsing");
        if (src_[p] != '\n' && src_[p] != '\r') {
          return Fail(pos_, "unexpected character after line continuation character");
        }
        pos_ = p + NewlineLength(p);
        ++line_;
        line_start_ = pos_;
        continue;
      }
      case '\n': case '\r': {
        bool logical_end = brackets_.empty() && !in_brackets_;
        if (logical_end && line_has_tokens) {
          Emit(TokenKind::kNewline, 0, pos_, pos_ + 1);
          line_has_tokens = false;
        }
        pos_ += NewlineLength(pos_);
        ++line_;
        line_start_ = pos_;
        if (logical_end) at_line_start = true;
        continue;
      }
      case '\0':
        return Fail(pos_, "source code cannot contain null bytes");
      default: break;
    }
    line_has_tokens = true;
    if (IsNameStart(c)) {
      uint32_t start = pos_;
      if (StringPrefixLength(src_, pos_) >= 0) {
        if (!String(start)) return false;
        continue;
      }
      bool ascii = c < 0x80;
      while (pos_ < end_ && IsNameByte(static_cast<unsigned char>(src_[pos_]))) {
        ascii = ascii && static_cast<unsigned char>(src_[pos_]) < 0x80;
        ++pos_;
      }
      if (!ascii && !VerifyName(start, pos_)) return false;
      Emit(TokenKind::kName,
           static_cast<uint8_t>(KeywordOf(src_.substr(start, pos_ - start))), start, pos_);
      continue;
    }
    if (c == '\'' || c == '"') {
      if (!String(pos_)) return false;
      continue;
    }
    if (IsDigit(c) || (c == '.' && pos_ + 1 < end_ && IsDigit(src_[pos_ + 1]))) {
      Number();
      continue;
    }
    if (!Operator()) return false;
  }
  if (!brackets_.empty()) {
    std::string msg = "'";
    msg += brackets_.back();
    msg += "' was never closed";
    return Fail(bracket_pos_.back(), msg);
  }
  if (!in_brackets_) {
    if (line_has_tokens) Emit(TokenKind::kNewline, 0, pos_, pos_);
    while (indents.size() > 1) {
      indents.pop_back();
      Emit(TokenKind::kDedent, 0, pos_, pos_);
    }
  }
  Emit(TokenKind::kEnd, 0, pos_, pos_);
  return true;
}

bool TokenizerImpl::String(uint32_t start) {
  std::string err;
  size_t err_at = 0;
  size_t end = ScanStringLiteral(src_, start, &err, &err_at);
  if (end == kScanFailed || end > end_) {
    if (end != kScanFailed) {
      err = "unterminated string literal";
      err_at = end_;
    }
    uint32_t at = static_cast<uint32_t>(err_at > end_ ? end_ : err_at);
    if (err.rfind("unterminated", 0) == 0) {
      // CPython points at the string and names the line where it noticed.
      err += " (detected at line " + std::to_string(LineOf(at)) + ")";
      return Fail(start, err);
    }
    return Fail(at, err);
  }
  int plen = StringPrefixLength(src_, start);
  uint8_t flags = 0;
  for (int i = 0; i < plen; ++i) {
    switch (src_[start + i]) {
      case 'f': case 'F': flags |= kStrF; break;
      case 'b': case 'B': flags |= kStrB; break;
      case 'r': case 'R': flags |= kStrR; break;
      default: flags |= kStrU; break;
    }
  }
  uint32_t q = start + static_cast<uint32_t>(plen);
  if (q + 2 < src_.size() && src_[q + 1] == src_[q] && src_[q + 2] == src_[q]) {
    flags |= kStrTriple;
  }
  Token t;
  t.kind = TokenKind::kString;
  t.code = flags;
  t.prefix_len = static_cast<uint8_t>(plen);
  t.begin = start;
  t.end = static_cast<uint32_t>(end);
  t.line = line_;
  t.col = static_cast<int32_t>(start - line_start_);
  CountLines(start, static_cast<uint32_t>(end));
  t.end_line = line_;
  t.end_col = static_cast<int32_t>(end - line_start_);
  out_->push_back(t);
  pos_ = static_cast<uint32_t>(end);
  return true;
}

void TokenizerImpl::Number() {
  uint32_t start = pos_;
  auto digits = [&](bool (*ok)(unsigned char)) {
    while (pos_ < end_ && (ok(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) ++pos_;
  };
  char c = src_[pos_];
  char x = pos_ + 1 < end_ ? src_[pos_ + 1] : '\0';
  if (c == '0' && (x == 'x' || x == 'X' || x == 'o' || x == 'O' || x == 'b' || x == 'B')) {
    pos_ += 2;
    digits(IsHexDigit);  // octal/binary digits are a subset; CPython checks them, we need not
  } else {
    digits(IsDigit);
    if (pos_ < end_ && src_[pos_] == '.') {
      ++pos_;
      digits(IsDigit);
    }
    if (pos_ < end_ && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      uint32_t p = pos_ + 1;
      if (p < end_ && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < end_ && IsDigit(src_[p])) {
        pos_ = p;
        digits(IsDigit);
      }
    }
    if (pos_ < end_ && (src_[pos_] == 'j' || src_[pos_] == 'J')) ++pos_;
  }
  Emit(TokenKind::kNumber, 0, start, pos_);
}

bool TokenizerImpl::Operator() {
  const uint32_t start = pos_;
  const char c = src_[pos_];
  auto at = [&](uint32_t k) { return pos_ + k < end_ ? src_[pos_ + k] : '\0'; };
  Op op = Op::kNone;
  uint32_t len = 1;
  switch (c) {
    case '(': case '[': case '{': {
      if (brackets_.size() >= static_cast<size_t>(kMaxNesting)) {
        return Fail(pos_, "too many nested parentheses");
      }
      brackets_.push_back(c);
      bracket_pos_.push_back(pos_);
      op = c == '(' ? Op::kLPar : c == '[' ? Op::kLSqb : Op::kLBrace;
      break;
    }
    case ')': case ']': case '}': {
      char open = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (brackets_.empty()) {
        return Fail(pos_, in_brackets_ ? "f-string: unmatched '" + std::string(1, c) + "'"
                                       : "unmatched '" + std::string(1, c) + "'");
      }
      if (brackets_.back() != open) {
        return Fail(pos_, "closing parenthesis '" + std::string(1, c) +
                              "' does not match opening parenthesis '" + brackets_.back() +
                              "'");
      }
      brackets_.pop_back();
      bracket_pos_.pop_back();
      op = c == ')' ? Op::kRPar : c == ']' ? Op::kRSqb : Op::kRBrace;
      break;
    }
    case ':': if (at(1) == '=') { op = Op::kColonEqual; len = 2; } else { op = Op::kColon; } break;
    case ',': op = Op::kComma; break;
    case ';': op = Op::kSemi; break;
    case '.':
      if (at(1) == '.' && at(2) == '.') { op = Op::kEllipsis; len = 3; } else { op = Op::kDot; }
      break;
    case '~': op = Op::kTilde; break;
    case '-':
      if (at(1) == '>') { op = Op::kRArrow; len = 2; }
      else if (at(1) == '=') { op = Op::kMinEqual; len = 2; }
      else { op = Op::kMinus; }
      break;
    case '+': if (at(1) == '=') { op = Op::kPlusEqual; len = 2; } else { op = Op::kPlus; } break;
    case '%': if (at(1) == '=') { op = Op::kPercentEqual; len = 2; } else { op = Op::kPercent; } break;
    case '@': if (at(1) == '=') { op = Op::kAtEqual; len = 2; } else { op = Op::kAt; } break;
    case '&': if (at(1) == '=') { op = Op::kAmperEqual; len = 2; } else { op = Op::kAmper; } break;
    case '|': if (at(1) == '=') { op = Op::kVBarEqual; len = 2; } else { op = Op::kVBar; } break;
    case '^':
      if (at(1) == '=') { op = Op::kCircumflexEqual; len = 2; } else { op = Op::kCircumflex; }
      break;
    case '=': if (at(1) == '=') { op = Op::kEqEqual; len = 2; } else { op = Op::kEqual; } break;
    case '!': if (at(1) == '=') { op = Op::kNotEqual; len = 2; } else { op = Op::kExclamation; } break;
    case '*':
      if (at(1) == '*') {
        if (at(2) == '=') { op = Op::kDoubleStarEqual; len = 3; } else { op = Op::kDoubleStar; len = 2; }
      } else if (at(1) == '=') { op = Op::kStarEqual; len = 2; }
      else { op = Op::kStar; }
      break;
    case '/':
      if (at(1) == '/') {
        if (at(2) == '=') { op = Op::kDoubleSlashEqual; len = 3; } else { op = Op::kDoubleSlash; len = 2; }
      } else if (at(1) == '=') { op = Op::kSlashEqual; len = 2; }
      else { op = Op::kSlash; }
      break;
    case '<':
      if (at(1) == '<') {
        if (at(2) == '=') { op = Op::kLeftShiftEqual; len = 3; } else { op = Op::kLeftShift; len = 2; }
      } else if (at(1) == '=') { op = Op::kLessEqual; len = 2; }
      else if (at(1) == '>') { op = Op::kNotEqual; len = 2; }  // Barry as FLUFL; parser rejects
      else { op = Op::kLess; }
      break;
    case '>':
      if (at(1) == '>') {
        if (at(2) == '=') { op = Op::kRightShiftEqual; len = 3; } else { op = Op::kRightShift; len = 2; }
      } else if (at(1) == '=') { op = Op::kGreaterEqual; len = 2; }
      else { op = Op::kGreater; }
      break;
    default: {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) return Fail(pos_, "invalid non-printable character");
      return Fail(pos_, std::string("invalid character '") + c + "'");
    }
  }
  pos_ += len;
  Emit(TokenKind::kOp, static_cast<uint8_t>(op), start, pos_);
  return true;
}

}  // namespace

Keyword KeywordOf(std::string_view s) {
  switch (s.size()) {
    case 2:
      if (s == "if") return Keyword::kIf;
      if (s == "in") return Keyword::kIn;
      if (s == "is") return Keyword::kIs;
      if (s == "as") return Keyword::kAs;
      if (s == "or") return Keyword::kOr;
      break;
    case 3:
      if (s == "for") return Keyword::kFor;
      if (s == "def") return Keyword::kDef;
      if (s == "not") return Keyword::kNot;
      if (s == "and") return Keyword::kAnd;
      if (s == "try") return Keyword::kTry;
      if (s == "del") return Keyword::kDel;
      break;
    case 4:
      if (s == "None") return Keyword::kNoneKw;
      if (s == "True") return Keyword::kTrue;
      if (s == "else") return Keyword::kElse;
      if (s == "elif") return Keyword::kElif;
      if (s == "from") return Keyword::kFrom;
      if (s == "pass") return Keyword::kPass;
      if (s == "with") return Keyword::kWith;
      break;
    case 5:
      if (s == "False") return Keyword::kFalse;
      if (s == "class") return Keyword::kClass;
      if (s == "while") return Keyword::kWhile;
      if (s == "yield") return Keyword::kYield;
      if (s == "break") return Keyword::kBreak;
      if (s == "raise") return Keyword::kRaise;
      if (s == "async") return Keyword::kAsync;
      if (s == "await") return Keyword::kAwait;
      break;
    case 6:
      if (s == "return") return Keyword::kReturn;
      if (s == "import") return Keyword::kImport;
      if (s == "lambda") return Keyword::kLambda;
      if (s == "assert") return Keyword::kAssert;
      if (s == "global") return Keyword::kGlobal;
      if (s == "except") return Keyword::kExcept;
      break;
    case 7:
      if (s == "finally") return Keyword::kFinally;
      break;
    case 8:
      if (s == "continue") return Keyword::kContinue;
      if (s == "nonlocal") return Keyword::kNonlocal;
      break;
    default: break;
  }
  return Keyword::kNone;
}

bool Tokenize(std::string_view source, const TokenizeRange& range, std::vector<Token>* out,
              ParseError* error) {
  TokenizerImpl impl(source, range, out, error);
  return impl.Run();
}

}  // namespace fastenough::pysrc
