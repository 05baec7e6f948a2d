// parse_only PATH: the "bare parse" baseline of bench/: read an uncompressed
// .json into a padded string and run a simdjson DOM parse, nothing else.
#include <simdjson.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parse_only PATH\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  simdjson::padded_string json;
  if (auto e = simdjson::padded_string::load(argv[1]).get(json)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(e));
    return 1;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto e = parser.parse(json).get(doc)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(e));
    return 1;
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("bytes %zu\nseconds %.3f\nMB/s %.1f\nimplementation %s\n", json.size(), secs,
              json.size() / 1e6 / secs, simdjson::get_active_implementation()->name().c_str());
  return 0;
}
