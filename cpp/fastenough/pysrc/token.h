// Tokens of Python source, as the tokenizer hands them to the parser.
#pragma once

#include <cstdint>
#include <string_view>

namespace fastenough::pysrc {

enum class TokenKind : uint8_t { kName, kNumber, kString, kOp, kNewline, kIndent, kDedent, kEnd };

enum class Op : uint8_t {
  kNone,
  kLPar, kRPar, kLSqb, kRSqb, kLBrace, kRBrace,
  kColon, kComma, kSemi, kDot, kEllipsis, kRArrow, kColonEqual, kExclamation,
  kPlus, kMinus, kStar, kSlash, kDoubleSlash, kPercent, kAt, kDoubleStar,
  kVBar, kAmper, kCircumflex, kTilde, kLeftShift, kRightShift,
  kLess, kGreater, kEqual, kEqEqual, kNotEqual, kLessEqual, kGreaterEqual,
  // augmented assignments, in BinOperator order of their operator
  kPlusEqual, kMinEqual, kStarEqual, kAtEqual, kSlashEqual, kPercentEqual,
  kDoubleStarEqual, kLeftShiftEqual, kRightShiftEqual, kVBarEqual, kCircumflexEqual,
  kAmperEqual, kDoubleSlashEqual,
};

// Hard keywords. Soft keywords (match, case, type, _) are names the parser
// looks at in context.
enum class Keyword : uint8_t {
  kNone,
  kFalse, kNoneKw, kTrue, kAnd, kAs, kAssert, kAsync, kAwait, kBreak, kClass, kContinue,
  kDef, kDel, kElif, kElse, kExcept, kFinally, kFor, kFrom, kGlobal, kIf, kImport, kIn,
  kIs, kLambda, kNonlocal, kNot, kOr, kPass, kRaise, kReturn, kTry, kWhile, kWith, kYield,
};

// String literal prefix flags (Token::code of a kString token).
inline constexpr uint8_t kStrF = 1, kStrB = 2, kStrR = 4, kStrTriple = 8, kStrU = 16;

struct Token {
  TokenKind kind = TokenKind::kEnd;
  // kOp: Op; kName: Keyword (kNone for a plain name); kString: kStr* flags.
  uint8_t code = 0;
  // kString: length of the prefix (0..2) before the opening quote.
  uint8_t prefix_len = 0;
  uint32_t begin = 0, end = 0;  // byte offsets into the source
  int32_t line = 0, col = 0, end_line = 0, end_col = 0;

  Op op() const { return kind == TokenKind::kOp ? static_cast<Op>(code) : Op::kNone; }
  Keyword keyword() const {
    return kind == TokenKind::kName ? static_cast<Keyword>(code) : Keyword::kNone;
  }
};

}  // namespace fastenough::pysrc
