// Unparse against the text CPython's ast.unparse gives for the same
// expressions (the expected strings were produced by ast.unparse on Python 3.11).
#include "fastenough/lint/unparse.h"

#include <gtest/gtest.h>

#include <string_view>

#include "fastenough/pysrc/parser.h"

namespace fastenough::lint {
namespace {

std::string UnparseSource(std::string_view src) {
  pysrc::Arena arena;
  std::string text(src);
  text += "\n";
  pysrc::ParseResult r = pysrc::ParseModule(text, arena);
  EXPECT_TRUE(r.ok()) << src << ": " << r.error.message;
  if (!r.ok()) return "";
  return Unparse(r.module->body()[0]->value());
}

struct Case {
  std::string_view source;
  std::string_view unparsed;
};

constexpr Case kCases[] = {
    {"self.device", "self.device"},
    {"x.to(device, non_blocking=True)", "x.to(device, non_blocking=True)"},
    {"a[1:2, ::3]", "a[1:2, ::3]"},
    {"f(*args, **kw)", "f(*args, **kw)"},
    {"-x ** 2", "-x ** 2"},
    {"(-x) ** 2", "(-x) ** 2"},
    {"a if b else c", "a if b else c"},
    {"lambda x, *y, z=1, **k: x + z", "lambda x, *y, z=1, **k: x + z"},
    {"[i for i in range(3) if i]", "[i for i in range(3) if i]"},
    {"{k: v for k, v in d.items()}", "{k: v for k, v in d.items()}"},
    {"{1, 2}", "{1, 2}"},
    {"()", "()"},
    {"(1,)", "(1,)"},
    {"'it\\'s'", "\"it's\""},
    {"f\"{x!r:>10} and {y}\"", "f'{x!r:>10} and {y}'"},
    {"not (a and b or c)", "not (a and b or c)"},
    {"a < b <= c", "a < b <= c"},
    {"x @ y.T", "x @ y.T"},
    {"b'\\x00'", "b'\\x00'"},
    {"1e3 + 0x10 + 2j", "1000.0 + 16 + 2j"},
    {"a.b.c()[0]", "a.b.c()[0]"},
    {"{**a, 'b': 1}", "{**a, 'b': 1}"},
    {"x[...]", "x[...]"},
    {"x[a:b]", "x[a:b]"},
    {"(a := 3)", "(a := 3)"},
    {"*a, b", "(*a, b)"},
    {"-(-1)", "--1"},
    {"~x", "~x"},
    {"a - (b - c)", "a - (b - c)"},
    {"(a - b) - c", "a - b - c"},
    {"a ** b ** c", "a ** b ** c"},
    {"(a ** b) ** c", "(a ** b) ** c"},
    {"f(x for x in y)", "f((x for x in y))"},
    {"torch.device('cuda:0')", "torch.device('cuda:0')"},
    {"None", "None"},
    {"...", "..."},
    {"cuda if torch.cuda.is_available() else 'cpu'", "cuda if torch.cuda.is_available() else 'cpu'"},
    {"batch['input_ids'].to(self.device)", "batch['input_ids'].to(self.device)"},
    {"x.to(dtype=torch.float16)", "x.to(dtype=torch.float16)"},
    {"'a\\nb'", "'a\\nb'"},
    {"1_000", "1000"},
    {"0.1", "0.1"},
};

TEST(Unparse, AsCPythonAstUnparse) {
  for (const Case& c : kCases) EXPECT_EQ(UnparseSource(c.source), c.unparsed) << c.source;
}

}  // namespace
}  // namespace fastenough::lint
