// load_trace PATH: loads a trace with fastenough's reader and prints what it
// found and how long it took (a profiling aid; bench/ has the real numbers).
#include <chrono>
#include <cstdio>

#include "fastenough/trace/load_trace.h"

int main(int argc, char** argv) {
  using namespace fastenough::trace;
  if (argc != 2) {
    std::fprintf(stderr, "usage: load_trace PATH\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto store = LoadTrace(argv[1]);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  size_t kernels = 0;
  for (auto k : store->kind) kernels += k == EventKind::kKernel;
  std::printf("format %s\nevents %llu\nslices %zu\nkernels %zu\nrank %d%s\njson_bytes %llu\n",
              TraceFormatName(store->format), (unsigned long long)store->event_count,
              store->size(), kernels, store->rank, store->rank_known ? "" : " (unknown)",
              (unsigned long long)store->json_bytes);
  for (size_t i = 0; i < kCounterCount; ++i) {
    const auto c = static_cast<Counter>(i);
    if (store->counters().Get(c) != 0) {
      std::printf("counter %s %llu\n", std::string(GetCounterInfo(c).name).c_str(),
                  (unsigned long long)store->counters().Get(c));
    }
  }
  std::printf("seconds %.3f\nMB/s %.1f\n", secs, store->json_bytes / 1e6 / secs);
  return 0;
}
