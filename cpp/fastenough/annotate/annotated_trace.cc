#include "fastenough/annotate/annotated_trace.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string_view>

#include "fastenough/util/file_bytes.h"

namespace fastenough::annotate {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// True when the event list holds an element before close_offset: the
// previous non-space byte is not its '['.
bool ListHasElements(std::string_view text, int64_t close_offset) {
  for (int64_t i = close_offset - 1; i >= 0; --i) {
    const char c = text[static_cast<size_t>(i)];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c != '[';
  }
  return false;
}

Status WriteError(const std::string& path, const char* what) {
  return Status(StatusCode::kInvalidArgument,
                path + ": cannot write the annotated trace (" + what + ": " + std::strerror(errno) + ")");
}

// Writes the pieces in order to path (gzip level 1 when gz: a multi-GB trace
// compresses at ~100 MB/s instead of ~30 MB/s at the default level).
Status WritePieces(const std::string& path, bool gz, const std::vector<std::string_view>& pieces) {
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb1");
    if (f == nullptr) return WriteError(path, "open");
    for (std::string_view p : pieces) {
      while (!p.empty()) {
        const unsigned n = static_cast<unsigned>(std::min<size_t>(p.size(), 1u << 24));
        if (gzwrite(f, p.data(), n) != static_cast<int>(n)) {
          gzclose(f);
          return WriteError(path, "write");
        }
        p.remove_prefix(n);
      }
    }
    if (gzclose(f) != Z_OK) return WriteError(path, "close");
    return Status::Ok();
  }
  FILE* f = std::fopen(path.c_str(), "wbe");
  if (f == nullptr) return WriteError(path, "open");
  for (std::string_view p : pieces) {
    if (!p.empty() && std::fwrite(p.data(), 1, p.size(), f) != p.size()) {
      std::fclose(f);
      return WriteError(path, "write");
    }
  }
  if (std::fclose(f) != 0) return WriteError(path, "close");
  return Status::Ok();
}

// The output in order: the text up to the closing ']', a comma when the list
// already has elements, the events, the rest of the text.
StatusOr<std::vector<std::string_view>> Pieces(std::string_view text, int64_t close_offset,
                                               std::string_view events) {
  if (close_offset < 0 || static_cast<size_t>(close_offset) >= text.size() ||
      text[static_cast<size_t>(close_offset)] != ']') {
    return Status(StatusCode::kDataLoss, "no ']' closing the event list at byte " +
                                             std::to_string(close_offset));
  }
  const size_t at = static_cast<size_t>(close_offset);
  std::vector<std::string_view> pieces = {text.substr(0, at)};
  if (!events.empty()) {
    if (ListHasElements(text, close_offset)) pieces.push_back(",");
    pieces.push_back(events);
  }
  pieces.push_back(text.substr(at));
  return pieces;
}

}  // namespace

StatusOr<std::string> InsertEvents(std::string_view text, int64_t close_offset,
                                   std::string_view events) {
  auto pieces = Pieces(text, close_offset, events);
  if (!pieces.ok()) return pieces.status();
  std::string out;
  for (std::string_view p : pieces.value()) out.append(p);
  return out;
}

StatusOr<AnnotatedTrace> AnnotateTrace(const std::string& in_path, const std::string& out_path,
                                       const report::AnalyzeOptions& options) {
  AnnotatedTrace result;
  {
    auto rep = report::AnalyzeTraces({in_path}, options);
    if (!rep.ok()) return rep.status();
    result.report = std::move(rep).value();
  }
  const int64_t close = result.report.inputs.empty() ? -1 : result.report.inputs[0].events_close_offset;
  if (close < 0) {
    return Status(StatusCode::kDataLoss,
                  in_path + ": the trace is truncated (its event list never closes); an annotated "
                            "copy would be as damaged, so none was written");
  }
  const std::string events = AnnotationEventsJson(result.report.findings, &result.counts);
  uint64_t file_bytes = 0;
  bool truncated = false;
  auto buf = ReadFileBytes(in_path, &file_bytes, &truncated);
  if (!buf.ok()) return buf.status();
  const std::string_view text = buf.value().view();
  auto pieces = Pieces(text, close, events);
  if (!pieces.ok()) {
    return Status(StatusCode::kDataLoss,
                  in_path + ": the file changed while it was read (" + pieces.status().message() + ")");
  }
  const std::string tmp = out_path + ".tmp";
  Status st = WritePieces(tmp, EndsWith(out_path, ".gz"), pieces.value());
  if (!st.ok()) {
    std::remove(tmp.c_str());
    return st;
  }
  if (std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    Status err = WriteError(out_path, "rename");
    std::remove(tmp.c_str());
    return err;
  }
  return result;
}

}  // namespace fastenough::annotate
