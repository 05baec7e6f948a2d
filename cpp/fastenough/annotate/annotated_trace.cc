#include "fastenough/annotate/annotated_trace.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string_view>

#include "fastenough/trace/load_trace.h"
#include "fastenough/util/file_bytes.h"

namespace fastenough::annotate {
namespace {

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

Status WriteError(const std::string& name, const char* what) {
  return Status(StatusCode::kInvalidArgument,
                name + ": cannot write the annotated trace (" + what + ": " + std::strerror(errno) + ")");
}

// Streams `pieces` through zlib's deflate into `f` as one gzip member
// (windowBits 15 + 16). Level 1: a multi-GB trace compresses at ~100 MB/s
// instead of ~30 MB/s at the default level. (deflate, not gzopen/gzwrite: the
// vendored zlib carries only the stream API.)
bool DeflatePieces(FILE* f, const std::vector<std::string_view>& pieces) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  std::vector<unsigned char> out(1u << 20);
  bool ok = true;
  auto drain = [&](int flush) {
    do {
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) return false;
      const size_t n = out.size() - z.avail_out;
      if (n > 0 && std::fwrite(out.data(), 1, n, f) != n) return false;
    } while (z.avail_out == 0);
    return true;
  };
  for (std::string_view p : pieces) {
    while (ok && !p.empty()) {
      const size_t n = std::min<size_t>(p.size(), 1u << 24);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
      z.avail_in = static_cast<uInt>(n);
      ok = drain(Z_NO_FLUSH);
      p.remove_prefix(n);
    }
  }
  ok = ok && drain(Z_FINISH);
  deflateEnd(&z);
  return ok;
}

// Writes the pieces in order to the open descriptor fd (left open: the caller
// made it and commits or removes the file), gzip-compressed when gz.
Status WritePieces(int fd, const std::string& name, bool gz,
                   const std::vector<std::string_view>& pieces) {
  const int own = dup(fd);
  if (own < 0) return WriteError(name, "dup");
  FILE* f = fdopen(own, "wb");
  if (f == nullptr) {
    close(own);
    return WriteError(name, "open");
  }
  bool ok = true;
  if (gz) {
    ok = DeflatePieces(f, pieces);
  } else {
    for (std::string_view p : pieces) {
      if (!p.empty() && std::fwrite(p.data(), 1, p.size(), f) != p.size()) {
        ok = false;
        break;
      }
    }
  }
  if (!ok) {
    const int err = errno;
    std::fclose(f);
    errno = err;
    return WriteError(name, "write");
  }
  if (std::fclose(f) != 0) return WriteError(name, "close");
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

StatusOr<AnnotatedTrace> AnnotateTrace(const std::string& in_path, int out_fd,
                                       const std::string& out_name, bool gzip,
                                       const pipeline::AnalyzeOptions& options) {
  AnnotatedTrace result;
  {
    auto rep = pipeline::AnalyzeTraces({in_path}, options);
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
  auto buf = ReadFileBytes(in_path, &file_bytes, &truncated, trace::TraceGunzipOptions());
  if (!buf.ok()) return buf.status();
  const std::string_view text = buf.value().view();
  auto pieces = Pieces(text, close, events);
  if (!pieces.ok()) {
    return Status(StatusCode::kDataLoss,
                  in_path + ": the file changed while it was read (" + pieces.status().message() + ")");
  }
  FE_RETURN_IF_ERROR(WritePieces(out_fd, out_name, gzip, pieces.value()));
  return result;
}

}  // namespace fastenough::annotate
