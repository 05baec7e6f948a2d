#include "fastenough/pysrc/tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fastenough::pysrc {
namespace {

std::vector<Token> Lex(std::string_view src, ParseError* error = nullptr) {
  std::vector<Token> out;
  ParseError local;
  TokenizeRange range;
  range.end = static_cast<uint32_t>(src.size());
  bool ok = Tokenize(src, range, &out, error != nullptr ? error : &local);
  if (error == nullptr) EXPECT_TRUE(ok) << local.message;
  return out;
}

std::string Kinds(const std::vector<Token>& toks) {
  std::string s;
  for (const Token& t : toks) {
    switch (t.kind) {
      case TokenKind::kName: s += "N"; break;
      case TokenKind::kNumber: s += "#"; break;
      case TokenKind::kString: s += "S"; break;
      case TokenKind::kOp: s += "o"; break;
      case TokenKind::kNewline: s += "n"; break;
      case TokenKind::kIndent: s += ">"; break;
      case TokenKind::kDedent: s += "<"; break;
      case TokenKind::kEnd: s += "$"; break;
    }
  }
  return s;
}

TEST(PysrcTokenizer, IndentationBlankLinesAndComments) {
  auto t = Lex("if x:\n\n    # comment\n    y = 1\n  \nz\n");
  EXPECT_EQ(Kinds(t), "NNon>No#n<Nn$");
}

TEST(PysrcTokenizer, NoNewlinesInsideBracketsOrAfterContinuation) {
  EXPECT_EQ(Kinds(Lex("f(a,\n  b)\nx = 1 + \\\n  2\n")), "NoNoNonNo#o#n$");
}

TEST(PysrcTokenizer, DedentsAtEndAndNewlineWithoutTrailingLineBreak) {
  EXPECT_EQ(Kinds(Lex("def f():\n  return 1")), "NNooon>N#n<$");
}

TEST(PysrcTokenizer, PositionsAreLineAndByteColumn) {
  auto t = Lex("a = 'é'\nbb\n");
  ASSERT_GE(t.size(), 5u);
  EXPECT_EQ(t[2].kind, TokenKind::kString);
  EXPECT_EQ(t[2].col, 4);
  EXPECT_EQ(t[2].end_col, 8);  // é is two bytes
  EXPECT_EQ(t[4].line, 2);
  EXPECT_EQ(t[4].col, 0);
}

TEST(PysrcTokenizer, StringPrefixesTripleQuotesAndFStrings) {
  auto t = Lex("rb'\\'' f\"{x['a']:>{w}}\" '''a\nb''' u'x' Rf'{y}'\n");
  ASSERT_EQ(Kinds(t), "SSSSSn$");
  EXPECT_EQ(t[0].code & (kStrB | kStrR), kStrB | kStrR);
  EXPECT_TRUE(t[1].code & kStrF);
  EXPECT_TRUE(t[2].code & kStrTriple);
  EXPECT_EQ(t[2].end_line, 2);
  EXPECT_TRUE(t[4].code & kStrF);
  EXPECT_TRUE(t[4].code & kStrR);
}

TEST(PysrcTokenizer, Pep701NestedQuotesInFStrings) {
  EXPECT_EQ(Kinds(Lex("f\"{d[\"k\"]}\"\n")), "Sn$");
}

TEST(PysrcTokenizer, NumbersAndLongestOperators) {
  auto t = Lex("0x_1f 1_000.5e-3j .5 1if x else 2 a **= b //= c -> d := e ... !=\n");
  EXPECT_EQ(Kinds(t), "####NNN#NoNoNoNoNoon$");
  EXPECT_EQ(t[9].op(), Op::kDoubleStarEqual);
  EXPECT_EQ(t[11].op(), Op::kDoubleSlashEqual);
  EXPECT_EQ(t[13].op(), Op::kRArrow);
  EXPECT_EQ(t[15].op(), Op::kColonEqual);
  EXPECT_EQ(t[17].op(), Op::kEllipsis);
  EXPECT_EQ(t[18].op(), Op::kNotEqual);
}

TEST(PysrcTokenizer, KeywordsAreMarkedSoftKeywordsAreNames) {
  auto t = Lex("not match type async\n");
  EXPECT_EQ(t[0].keyword(), Keyword::kNot);
  EXPECT_EQ(t[1].keyword(), Keyword::kNone);
  EXPECT_EQ(t[2].keyword(), Keyword::kNone);
  EXPECT_EQ(t[3].keyword(), Keyword::kAsync);
}

TEST(PysrcTokenizer, CrlfAndFormFeed) {
  EXPECT_EQ(Kinds(Lex("if a:\r\n\f    b\r\n")), "NNon>Nn<$");
}

TEST(PysrcTokenizer, NonAsciiNames) {
  // Letters of any script, combining marks after the first character, and a
  // letter outside the BMP; x\u00b2 (superscript two) is not one of them.
  for (const char* src : {"\u03b1 = 1\n", "caf\u00e9 = 1\n", "\u65e5\u672c = 1\n",
                          "a\u0301 = 1\n", "\u210c = 1\n", "\U0001D49C = 1\n"}) {
    ParseError e;
    const std::vector<Token> tokens = Lex(src, &e);
    EXPECT_TRUE(e.message.empty()) << src << ": " << e.message;
    ASSERT_FALSE(tokens.empty());
    EXPECT_EQ(tokens[0].kind, TokenKind::kName) << src;
  }
}

TEST(PysrcTokenizer, Errors) {
  static const std::string deep(300, '(');
  struct Case {
    const char* src;
    const char* message;
    int line;
  } cases[] = {
      {"x = 'abc\n", "unterminated string literal (detected at line 1)", 1},
      {"x = '''abc\n\n", "unterminated triple-quoted string literal (detected at line 3)", 1},
      {"f(a, [b)\n", "closing parenthesis ')' does not match opening parenthesis '['", 1},
      {"x)\n", "unmatched ')'", 1},
      {"f(\n\n", "'(' was never closed", 1},
      {"if a:\n    b\n  c\n", "unindent does not match any outer indentation level", 3},
      {"a = 1 \\ 2\n", "unexpected character after line continuation character", 1},
      {"a = $\n", "invalid character '$'", 1},
      // Names with non-ASCII characters: XID_Start first, XID_Continue after,
      // before NFKC (x\u00b2 is not x2), with CPython's messages.
      {"\u20ac = 2\n", "invalid character '\u20ac' (U+20AC)", 1},
      {"y = 1\na\u00e9\u20ac = 1\n", "invalid character '\u20ac' (U+20AC)", 2},
      {"x\u00b2 = 1\n", "invalid character '\u00b2' (U+00B2)", 1},
      {"x\u00a0= 1\n", "invalid non-printable character U+00A0", 1},
      {"\U0001F600 = 1\n", "invalid character '\U0001F600' (U+1F600)", 1},
      {"f'{x!z}'\n", "f-string: invalid conversion character: expected 's', 'r', or 'a'", 1},
      {deep.c_str(), "too many nested parentheses", 1},
  };
  for (const Case& c : cases) {
    ParseError e;
    Lex(c.src, &e);
    EXPECT_EQ(e.message, c.message) << c.src;
    EXPECT_EQ(e.line, c.line) << c.src;
  }
}

}  // namespace
}  // namespace fastenough::pysrc
