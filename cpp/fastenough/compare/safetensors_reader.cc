#include "fastenough/compare/safetensors_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fastenough::compare {

namespace {
constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the format's own limit is 100 MB

Status Bad(const std::string& path, const std::string& what) {
  return DataLoss(path + ": " + what);
}

// Product of dims with an overflow check (a corrupt header may hold huge dims).
bool CheckedBytes(const std::vector<int64_t>& shape, size_t elem, uint64_t* bytes) {
  unsigned __int128 n = elem;
  for (int64_t d : shape) {
    n *= static_cast<uint64_t>(d);
    if (n > (static_cast<unsigned __int128>(1) << 62)) return false;
  }
  *bytes = static_cast<uint64_t>(n);
  return true;
}
struct Span {
  uint64_t begin, end;
  std::string_view name;
};

std::string Bytes(uint64_t a, uint64_t b) {
  return "data bytes " + std::to_string(a) + ".." + std::to_string(b);
}

// The reference loader's rule (safetensors `validate`): sorted by offset, the
// tensors cover the data from byte 0 to its end with neither gap nor overlap,
// so no byte is shared by two tensors and none is left over.
Status CheckTiling(const std::string& path, std::vector<Span>* spans, uint64_t data_bytes) {
  std::sort(spans->begin(), spans->end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const Span* last = nullptr;
  for (const Span& s : *spans) {
    if (s.begin < covered) {
      return Bad(path, "tensor '" + std::string(s.name) + "' (" + Bytes(s.begin, s.end) +
                           ") overlaps tensor '" + std::string(last->name) + "' (" +
                           Bytes(last->begin, last->end) + ")");
    }
    if (s.begin > covered) return Bad(path, Bytes(covered, s.begin) + " belong to no tensor");
    covered = s.end;
    last = &s;
  }
  if (covered != data_bytes) return Bad(path, Bytes(covered, data_bytes) + " belong to no tensor");
  return Status::Ok();
}
}  // namespace

Status ReadSafetensors(const std::string& path, const PaddedBuffer& file,
                       std::string_view key_prefix, std::vector<TensorRef>* out) {
  const uint64_t size = file.size();
  if (size < 8) {
    return Bad(path, "truncated at byte " + std::to_string(size) +
                         ": a safetensors file starts with an 8-byte header length");
  }
  uint64_t n;
  std::memcpy(&n, file.data(), 8);
  if (n > kMaxHeaderBytes) {
    return Bad(path, "header length " + std::to_string(n) +
                         " at byte 0 is not plausible (not a safetensors file?)");
  }
  if (8 + n > size) {
    return Bad(path, "truncated at byte " + std::to_string(size) + ": the header claims " +
                         std::to_string(n) + " bytes of JSON from byte 8 (to byte " +
                         std::to_string(8 + n) + ")");
  }
  const uint64_t data_start = 8 + n;
  // The bytes after the header (tensor data, then the buffer's zero padding)
  // are readable, which is all simdjson needs past the end of the JSON text.
  simdjson::dom::parser parser;
  simdjson::dom::object header;
  auto err = parser.parse(file.data() + 8, n, false).get_object().get(header);
  if (err != simdjson::SUCCESS) {
    return Bad(path, "header JSON at bytes 8.." + std::to_string(data_start) +
                         " is not a JSON object (" + simdjson::error_message(err) + ")");
  }
  // Every tensor's data span, to check that they tile the data as the reference
  // loader requires, and the names seen (JSON objects may repeat a key).
  std::vector<Span> spans;
  std::unordered_set<std::string_view> names;
  for (auto field : header) {
    const std::string_view name = field.key;
    if (!names.insert(name).second) {
      return Bad(path, "tensor '" + std::string(name) + "' is named twice in the header (bytes 8.." +
                           std::to_string(data_start) + "): which one to compare is ambiguous");
    }
    if (name == "__metadata__") continue;
    const std::string where = "tensor '" + std::string(name) + "' in the header (bytes 8.." +
                              std::to_string(data_start) + ")";
    simdjson::dom::object t;
    std::string_view dtype_name;
    simdjson::dom::array shape_arr, offsets;
    if (field.value.get_object().get(t) != simdjson::SUCCESS ||
        t["dtype"].get_string().get(dtype_name) != simdjson::SUCCESS ||
        t["shape"].get_array().get(shape_arr) != simdjson::SUCCESS ||
        t["data_offsets"].get_array().get(offsets) != simdjson::SUCCESS) {
      return Bad(path, where + ": needs dtype, shape and data_offsets");
    }
    TensorRef ref;
    ref.key = std::string(key_prefix) + std::string(name);
    ref.file = path;
    auto dtype = DTypeFromSafetensors(dtype_name);
    if (!dtype) {
      return Unimplemented(path + ": " + where + ": dtype " + std::string(dtype_name) +
                           " is not supported (F64 F32 F16 BF16 I64..I8 U64..U8 BOOL are)");
    }
    ref.dtype = *dtype;
    for (auto d : shape_arr) {
      int64_t v;
      if (d.get_int64().get(v) != simdjson::SUCCESS || v < 0) {
        return Bad(path, where + ": shape holds a value that is not a count");
      }
      ref.shape.push_back(v);
    }
    uint64_t begin = 0, end = 0;
    if (offsets.size() != 2 || offsets.at(0).get_uint64().get(begin) != simdjson::SUCCESS ||
        offsets.at(1).get_uint64().get(end) != simdjson::SUCCESS || end < begin) {
      return Bad(path, where + ": data_offsets is not [begin, end]");
    }
    uint64_t want;
    if (!CheckedBytes(ref.shape, ElementSize(ref.dtype), &want) || want != end - begin) {
      return Bad(path, where + ": data_offsets span " + std::to_string(end - begin) +
                           " bytes, but the shape and dtype need a different size");
    }
    if (end > size - data_start) {
      return Bad(path, "truncated at byte " + std::to_string(size) + ": tensor '" +
                           std::string(name) + "' ends at byte " +
                           std::to_string(data_start + end));
    }
    ref.data = reinterpret_cast<const uint8_t*>(file.data()) + data_start + begin;
    ref.bytes = end - begin;
    spans.push_back({begin, end, name});
    out->push_back(std::move(ref));
  }
  return CheckTiling(path, &spans, size - data_start);
}

}  // namespace fastenough::compare
