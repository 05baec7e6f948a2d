// libFuzzer target: any byte string through ParseTrace must give either a
// Status or a store, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fastenough/trace/load_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto store = fastenough::trace::ParseTrace(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (store.ok()) {
    // Touch the links Finalize() built so that bad indices show up.
    const auto& s = store.value();
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.launch_row[i] >= 0 && static_cast<size_t>(s.launch_row[i]) >= s.size()) __builtin_trap();
      if (s.cpu_op_row[i] >= 0 && static_cast<size_t>(s.cpu_op_row[i]) >= s.size()) __builtin_trap();
      (void)s.name_of(i);
    }
  }
  return 0;
}
