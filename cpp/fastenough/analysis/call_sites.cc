#include "fastenough/analysis/call_sites.h"

#include <simdjson.h>

#include "fastenough/util/file_bytes.h"

namespace fastenough::analysis {

namespace {

std::string Key(std::string_view caller, std::string_view callee) {
  std::string k;
  k.reserve(caller.size() + callee.size() + 1);
  k.append(caller).push_back('\n');
  k.append(callee);
  return k;
}

std::string SidecarOf(const std::string& trace_path) {
  for (std::string_view suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
    if (trace_path.size() > suffix.size() &&
        trace_path.compare(trace_path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return trace_path.substr(0, trace_path.size() - suffix.size()) + ".callsites.json";
    }
  }
  return std::string();
}

}  // namespace

StatusOr<CallSites> CallSites::Parse(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) {
    return InvalidArgument("callsites: not JSON");
  }
  simdjson::dom::array calls;
  if (doc["calls"].get_array().get(calls) != simdjson::SUCCESS) {
    return InvalidArgument("callsites: no \"calls\" array");
  }
  CallSites out;
  for (simdjson::dom::element row : calls) {
    simdjson::dom::array a;
    std::string_view caller, callee;
    int64_t line = 0, count = 0;
    if (row.get_array().get(a) != simdjson::SUCCESS || a.size() != 4 ||
        a.at(0).get_string().get(caller) != simdjson::SUCCESS ||
        a.at(1).get_string().get(callee) != simdjson::SUCCESS ||
        a.at(2).get_int64().get(line) != simdjson::SUCCESS ||
        a.at(3).get_int64().get(count) != simdjson::SUCCESS || line <= 0 || count <= 0) {
      continue;  // a row of another shape: skipped, the others stand
    }
    Best& b = out.lines_[Key(caller, callee)];
    if (count > b.count || (count == b.count && static_cast<int>(line) < b.line)) {
      b.line = static_cast<int>(line);
      b.count = count;
    }
  }
  return out;
}

CallSites CallSites::ForTrace(const std::string& trace_path) {
  const std::string side = SidecarOf(trace_path);
  if (side.empty()) return CallSites();
  uint64_t bytes = 0;
  bool truncated = false;
  StatusOr<PaddedBuffer> text = ReadFileBytes(side, &bytes, &truncated);
  if (!text.ok()) return CallSites();
  StatusOr<CallSites> parsed = Parse(text->view());
  return parsed.ok() ? std::move(parsed).value() : CallSites();
}

int CallSites::LineOf(std::string_view caller, std::string_view callee) const {
  auto it = lines_.find(Key(caller, callee));
  return it == lines_.end() ? 0 : it->second.line;
}

}  // namespace fastenough::analysis
