// parse_python FILE_OR_DIR...: parses every .py file with the C++ parser and
// prints files, bytes, failures and the time per MB; the parse floor of
// `fastenough lint` (bench/README.md).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fastenough/pysrc/parser.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p, ec); it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && it->path().extension() == ".py") files.push_back(it->path());
      }
    } else {
      files.push_back(p);
    }
  }
  std::vector<std::string> texts;
  size_t bytes = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
    bytes += texts.back().size();
  }
  fastenough::pysrc::Arena arena;
  size_t failed = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < texts.size(); ++i) {
    arena.Reset();
    auto r = fastenough::pysrc::ParseModule(texts[i], arena);
    if (!r.ok()) {
      ++failed;
      if (failed <= 5) {
        std::fprintf(stderr, "%s:%d:%d: %s\n", files[i].c_str(), r.error.line, r.error.col,
                     r.error.message.c_str());
      }
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%zu files, %.1f MB, %zu not parsed, %.3f s, %.1f MB/s\n", files.size(),
              bytes / 1e6, failed, s, bytes / 1e6 / s);
  return 0;
}
