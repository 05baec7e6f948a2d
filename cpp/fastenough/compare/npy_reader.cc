#include "fastenough/compare/npy_reader.h"

#include <cstring>
#include <string_view>

namespace fastenough::compare {

namespace {
constexpr char kMagic[] = "\x93NUMPY";

// The value text after 'name': in the header dict, or empty.
std::string_view ValueOf(std::string_view header, std::string_view name) {
  for (char q : {'\'', '"'}) {
    const std::string quoted = std::string(1, q) + std::string(name) + std::string(1, q);
    size_t at = header.find(quoted);
    if (at == std::string_view::npos) continue;
    at = header.find(':', at + quoted.size());
    if (at == std::string_view::npos) return {};
    size_t begin = at + 1;
    while (begin < header.size() && header[begin] == ' ') ++begin;
    return header.substr(begin);
  }
  return {};
}

std::string_view QuotedString(std::string_view v) {
  if (v.empty() || (v[0] != '\'' && v[0] != '"')) return {};
  const size_t end = v.find(v[0], 1);
  return end == std::string_view::npos ? std::string_view{} : v.substr(1, end - 1);
}

// "(3, 4)" / "(5,)" / "()" -> dims; false when it is not a tuple of counts.
bool ParseShape(std::string_view v, std::vector<int64_t>* shape) {
  if (v.empty() || v[0] != '(') return false;
  size_t i = 1;
  while (true) {
    while (i < v.size() && (v[i] == ' ' || v[i] == ',')) ++i;
    if (i >= v.size()) return false;
    if (v[i] == ')') return true;
    if (v[i] < '0' || v[i] > '9') return false;
    int64_t d = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
      if (d > (int64_t{1} << 50)) return false;
      d = d * 10 + (v[i] - '0');
      ++i;
    }
    shape->push_back(d);
  }
}
}  // namespace

StatusOr<TensorRef> ReadNpy(const std::string& path, const uint8_t* data, size_t size,
                            uint64_t base, std::string key) {
  auto bad = [&](uint64_t offset, const std::string& what) {
    return DataLoss(path + ": " + what + " at byte " + std::to_string(base + offset));
  };
  if (size < 10) return bad(size, "truncated .npy header");
  if (std::memcmp(data, kMagic, 6) != 0) return bad(0, "not a .npy array (no \\x93NUMPY magic)");
  const uint8_t major = data[6];
  uint64_t header_len, header_at;
  if (major == 1) {
    header_len = data[8] | (static_cast<uint32_t>(data[9]) << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return bad(size, "truncated .npy header");
    uint32_t len;
    std::memcpy(&len, data + 8, 4);
    header_len = len;
    header_at = 12;
  } else {
    return bad(6, ".npy format version " + std::to_string(major) + " is not known");
  }
  if (header_at + header_len > size) {
    return bad(size, "truncated .npy header (it claims " + std::to_string(header_len) +
                         " bytes from byte " + std::to_string(base + header_at) + ")");
  }
  const std::string_view header(reinterpret_cast<const char*>(data + header_at), header_len);
  TensorRef ref;
  ref.key = std::move(key);
  ref.file = path;
  const std::string_view descr = QuotedString(ValueOf(header, "descr"));
  if (descr.empty()) return bad(header_at, ".npy header has no descr");
  auto dtype = DTypeFromNumpyDescr(descr);
  if (!dtype) {
    return Unimplemented(path + ": .npy dtype '" + std::string(descr) +
                         "' is not supported (little-endian f8 f4 f2 i8..i1 u8..u1 b1 are)");
  }
  ref.dtype = *dtype;
  const std::string_view fortran = ValueOf(header, "fortran_order");
  if (fortran.substr(0, 4) == "True") {
    return Unimplemented(path + ": Fortran-order arrays are not supported; save "
                                "np.ascontiguousarray(x) instead");
  }
  if (fortran.substr(0, 5) != "False") return bad(header_at, ".npy header has no fortran_order");
  if (!ParseShape(ValueOf(header, "shape"), &ref.shape)) {
    return bad(header_at, ".npy header has no readable shape");
  }
  const uint64_t data_at = header_at + header_len;
  unsigned __int128 want = ElementSize(ref.dtype);
  for (int64_t d : ref.shape) {
    want *= static_cast<uint64_t>(d);
    if (want > (static_cast<unsigned __int128>(1) << 62)) return bad(header_at, "shape too large");
  }
  if (data_at + static_cast<uint64_t>(want) > size) {
    return bad(size, "truncated .npy data (the shape needs " +
                         std::to_string(static_cast<uint64_t>(want)) + " bytes from byte " +
                         std::to_string(base + data_at) + ")");
  }
  ref.data = data + data_at;
  ref.bytes = static_cast<uint64_t>(want);
  return ref;
}

}  // namespace fastenough::compare
