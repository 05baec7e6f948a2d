// libFuzzer target: any byte string through ParseModule must give a tree or a
// ParseError, never a crash, hang or sanitizer report; a tree it returns must
// be walkable and within the depth limit.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fastenough/pysrc/dump.h"
#include "fastenough/pysrc/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastenough::pysrc::Arena arena;
  std::string_view source(reinterpret_cast<const char*>(data), size);
  fastenough::pysrc::ParseResult r = fastenough::pysrc::ParseModule(source, arena);
  if (r.ok()) {
    size_t nodes = 0;
    fastenough::pysrc::WalkTree(r.module, [&](const fastenough::pysrc::Node* n) {
      ++nodes;
      if (n->end_line < n->line && fastenough::pysrc::HasPosition(n->kind)) __builtin_trap();
    });
    (void)fastenough::pysrc::DumpTree(*r.module);
    (void)nodes;
  } else if (r.error.message.empty()) {
    __builtin_trap();
  }
  return 0;
}
