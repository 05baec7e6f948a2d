#include "fastenough/trace/load_trace.h"

#include "fastenough/trace/chrome_trace_reader.h"
#include "fastenough/util/file_bytes.h"
#include "fastenough/trace/json_scan.h"
#include "fastenough/util/gzip.h"
#include "fastenough/util/inflate_limit.h"

namespace fastenough::trace {

GunzipOptions TraceGunzipOptions() {
  GunzipOptions o = CompressedInputLimits();
  o.check_head = [](std::string_view head) {
    // JSON text: an optional UTF-8 byte order mark, white space, then the
    // '{' or '[' the reader requires (its own words for anything else).
    size_t i = head.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' ||
                               head[i] == '\t')) {
      ++i;
    }
    if (i == head.size() || head[i] == '{' || head[i] == '[') return Status::Ok();
    return Status(StatusCode::kInvalidArgument,
                  "not a trace: expected '{' or '[' at byte " + std::to_string(i) +
                      " of the decompressed text, found " +
                      Excerpt(head.data() + i, head.data() + head.size()));
  };
  return o;
}

namespace {

// The reader's message without the path it starts with, nor its own
// "truncated: " ("x.json.gz: truncated: the file ends before the event list" ->
// "the file ends before the event list").
std::string TruncatedDetail(const std::string& message, const std::string& path) {
  std::string_view m = message;
  if (m.starts_with(path + ": ")) m.remove_prefix(path.size() + 2);
  if (m.starts_with("truncated: ")) m.remove_prefix(11);
  return std::string(m);
}

}  // namespace

StatusOr<EventStore> LoadTrace(const std::string& path, const LoadOptions& options) {
  uint64_t file_bytes = 0;
  bool gzip_truncated = false;
  auto buf = ReadFileBytes(path, &file_bytes, &gzip_truncated, TraceGunzipOptions());
  if (!buf.ok()) return buf.status();
  EventStore store;
  store.path = path;
  store.file_bytes = file_bytes;
  if (gzip_truncated) store.counters().Add(Counter::gzip_truncated);
  Status read = ReadChromeTrace(&buf.value(), path, options, &store);
  if (!read.ok() && gzip_truncated) {
    // A .json.gz cut short (a copy or an upload that stopped): the text it held
    // so far is no trace, and the file is not "empty" but truncated.
    std::string what = path + ": truncated: the gzip stream ends after " +
                       std::to_string(file_bytes) + " bytes of the file";
    what += buf->size() == 0 ? std::string(", before any of the trace's text")
                             : " (" + std::to_string(buf->size()) +
                                   " bytes of text decompressed): " +
                                   TruncatedDetail(read.message(), path);
    return Status(read.code(), what);
  }
  FE_RETURN_IF_ERROR(read);
  store.Finalize();
  return store;
}

StatusOr<EventStore> ParseTrace(std::string_view json, const LoadOptions& options) {
  EventStore store;
  store.file_bytes = json.size();
  PaddedBuffer buf;
  const auto* bytes = reinterpret_cast<const uint8_t*>(json.data());
  if (LooksLikeGzip(bytes, json.size())) {
    bool truncated = false;
    auto out = GunzipToPadded(bytes, json.size(), &truncated, TraceGunzipOptions());
    if (!out.ok()) return Status(out.status().code(), "<memory>: " + out.status().message());
    buf = std::move(out).value();
    if (truncated) store.counters().Add(Counter::gzip_truncated);
  } else {
    buf = PaddedBuffer::CopyOf(json);
  }
  FE_RETURN_IF_ERROR(ReadChromeTrace(&buf, "<memory>", options, &store));
  store.Finalize();
  return store;
}

}  // namespace fastenough::trace
