#include "fastenough/pysrc/parser.h"

#include <gtest/gtest.h>

#include <string>

#include "fastenough/pysrc/dump.h"

namespace fastenough::pysrc {
namespace {

std::string Dump(std::string_view src) {
  Arena arena;
  ParseResult r = ParseModule(src, arena);
  if (!r.ok()) return "error " + std::to_string(r.error.line) + ": " + r.error.message;
  return DumpTree(*r.module);
}

ParseError Error(std::string_view src) {
  Arena arena;
  ParseResult r = ParseModule(src, arena);
  EXPECT_FALSE(r.ok()) << src;
  return r.error;
}

TEST(PysrcParser, CallWithKeywordsAndAttributePositions) {
  EXPECT_EQ(Dump("x.item(a, *b, k=1, **kw)\n"),
            "root: Module\n"
            "  body[0]: Expr @1:0-1:24\n"
            "    value: Call @1:0-1:24\n"
            "      func: Attribute @1:0-1:6 attr=item\n"
            "        value: Name @1:0-1:1 id=x\n"
            "      args[0]: Name @1:7-1:8 id=a\n"
            "      args[1]: Starred @1:10-1:12\n"
            "        value: Name @1:11-1:12 id=b\n"
            "      keywords[0]: keyword @1:14-1:17 arg=k\n"
            "        value: Constant @1:16-1:17 value=int:1\n"
            "      keywords[1]: keyword @1:19-1:23 arg=None\n"
            "        value: Name @1:21-1:23 id=kw\n");
}

TEST(PysrcParser, ParenthesizedChainStartsAtTheParenthesis) {
  // CPython: a node spans the tokens of its rule, the '(' of the atom included.
  EXPECT_EQ(Dump("(a)(b) + (c)\n"),
            "root: Module\n"
            "  body[0]: Expr @1:0-1:12\n"
            "    value: BinOp @1:0-1:12 op=Add\n"
            "      left: Call @1:0-1:6\n"
            "        func: Name @1:1-1:2 id=a\n"
            "        args[0]: Name @1:4-1:5 id=b\n"
            "      right: Name @1:10-1:11 id=c\n");
}

TEST(PysrcParser, GeneratorArgumentSpansTheCallParentheses) {
  std::string d = Dump("f(x for x in y if x)\n");
  EXPECT_NE(d.find("args[0]: GeneratorExp @1:1-1:20"), std::string::npos) << d;
  EXPECT_NE(d.find("ifs[0]: Name @1:18-1:19 id=x"), std::string::npos) << d;
}

TEST(PysrcParser, CompoundStatementsEndAtTheirLastToken) {
  std::string d = Dump("for i in r:\n    a = i;\n\n# c\nb\n");
  EXPECT_NE(d.find("body[0]: For @1:0-2:10"), std::string::npos) << d;
}

TEST(PysrcParser, DecoratedFunctionStartsAtDef) {
  std::string d = Dump("@torch.no_grad()\nasync def f(a, /, b=1, *c, d, e=2, **f) -> int:\n  pass\n");
  EXPECT_NE(d.find("body[0]: AsyncFunctionDef @2:0-3:6 name=f"), std::string::npos) << d;
  EXPECT_NE(d.find("posonlyargs[0]: arg @2:12-2:13 arg=a"), std::string::npos) << d;
  EXPECT_NE(d.find("kw_defaults[0]: None"), std::string::npos) << d;
  EXPECT_NE(d.find("decorator_list[0]: Call @1:1-1:16"), std::string::npos) << d;
}

TEST(PysrcParser, StringsAreDecodedAndJoined) {
  // 'a\x41' 'b' -> "aAb" (hex 614162); f-string parts and a debug field.
  std::string d = Dump("s = 'a\\x41' 'b'\nt = f'x{y=}{z!s:>{w}}'\n");
  EXPECT_NE(d.find("value: Constant @1:4-1:15 value=str:614162"), std::string::npos) << d;
  EXPECT_NE(d.find("values[0]: Constant value=str:78793d"), std::string::npos) << d;  // "xy="
  EXPECT_NE(d.find("values[1]: FormattedValue conversion=114"), std::string::npos) << d;
  EXPECT_NE(d.find("values[2]: FormattedValue conversion=115"), std::string::npos) << d;
  EXPECT_NE(d.find("format_spec: JoinedStr"), std::string::npos) << d;
}

TEST(PysrcParser, SoftKeywords) {
  std::string d = Dump(
      "match = re.match(p, s)\n"
      "match x:\n"
      "    case [a, *rest] if a: pass\n"
      "    case {'k': 1, **kw} | Point(x=0): pass\n"
      "type = 3\n"
      "type Alias[T] = list[T]\n");
  EXPECT_NE(d.find("body[1]: Match @2:0-4:42"), std::string::npos) << d;
  EXPECT_NE(d.find("pattern: MatchSequence @3:9-3:19"), std::string::npos) << d;
  EXPECT_NE(d.find("MatchClass"), std::string::npos) << d;
  EXPECT_NE(d.find("body[3]: TypeAlias"), std::string::npos) << d;
  EXPECT_NE(d.find("body[2]: Assign"), std::string::npos) << d;
}

TEST(PysrcParser, WithItemsParenthesizedOrATuple) {
  std::string items = Dump("with (a as b, c):\n  pass\n");
  EXPECT_NE(items.find("items[1]: withitem"), std::string::npos) << items;
  std::string tuple = Dump("with (a, b) as c:\n  pass\n");
  EXPECT_NE(tuple.find("context_expr: Tuple @1:5-1:11"), std::string::npos) << tuple;
}

TEST(PysrcParser, SyntaxErrors) {
  EXPECT_EQ(Error("if x\n  y\n").message, "expected ':'");
  ParseError e = Error("def f():\nreturn 1\n");
  EXPECT_EQ(e.message, "expected an indented block after function definition on line 1");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(Error("a = 1\n  b = 2\n").message, "unexpected indent");
  EXPECT_EQ(Error("print 'hello'\n").message, "invalid syntax");
  EXPECT_EQ(Error("f(x for x in y, 1)\n").message, "Generator expression must be parenthesized");
  EXPECT_EQ(Error("def f(a=1, b): pass\n").message,
            "non-default argument follows default argument");
  EXPECT_EQ(Error("try:\n  pass\nx = 1\n").message, "expected 'except' or 'finally' block");
  EXPECT_EQ(Error("x = b'a' 'b'\n").message, "cannot mix bytes and nonbytes literals");
}

// When the tokenizer fails later in the file, CPython reports the parser's
// error if the parser failed first, unless an unclosed bracket was opened on an
// earlier line or the tokenizer's error is of another kind.
TEST(PysrcParser, SyntaxErrorBeforeATokenizerError) {
  EXPECT_EQ(Error("def f(:\n").message, "invalid syntax");
  EXPECT_EQ(Error("def f(:\n\n\nx = (\n").message, "invalid syntax");
  EXPECT_EQ(Error("x = (1,\n").message, "'(' was never closed");
  ParseError e = Error("x = [1, 2\ny = 3\n");
  EXPECT_EQ(e.message, "'[' was never closed");
  EXPECT_EQ(e.line, 1);
  e = Error("print 'hello'\nx = 'abc\n");
  EXPECT_EQ(e.message.rfind("unterminated string literal", 0), 0u) << e.message;
  EXPECT_EQ(e.line, 2);
}

TEST(PysrcParser, DeepNestingIsRefusedNotACrash) {
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  ParseError e = Error(nots + "x\n");
  EXPECT_TRUE(e.too_deep);
  std::string chain = "x = 1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  e = Error(chain + "\n");
  EXPECT_TRUE(e.too_deep);
}

TEST(PysrcParser, EmptyAndCommentOnlyFiles) {
  EXPECT_EQ(Dump(""), "root: Module\n");
  EXPECT_EQ(Dump("# only a comment\n\n"), "root: Module\n");
}

}  // namespace
}  // namespace fastenough::pysrc
