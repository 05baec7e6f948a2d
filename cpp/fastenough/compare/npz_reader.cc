#include "fastenough/compare/npz_reader.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "fastenough/compare/npy_reader.h"

namespace fastenough::compare {

namespace {
constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfCentralDir = 0x06054b50;
constexpr uint32_t kZip64End = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;

// at + n <= size without overflow (offsets come from a possibly corrupt file).
bool Fits(uint64_t at, uint64_t n, uint64_t size) { return at <= size && n <= size - at; }

uint16_t U16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t U32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t U64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

struct Member {
  std::string name;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0, uncompressed = 0, local_offset = 0;
  uint64_t data_at = 0;  // after the local header
};

struct Zip {
  const std::string& path;
  const uint8_t* data;
  uint64_t size;
  Status Bad(uint64_t offset, const std::string& what) const {
    return DataLoss(path + ": " + what + " at byte " + std::to_string(offset));
  }
};

// The central directory's offset and entry count, from the end record (and
// its zip64 twin when the 32-bit fields are saturated).
Status FindCentralDirectory(const Zip& z, uint64_t* cd_offset, uint64_t* entries) {
  if (z.size < 22) return z.Bad(z.size, "truncated .npz (shorter than a zip end record)");
  const uint64_t lowest = z.size > 22 + 65535 ? z.size - 22 - 65535 : 0;
  for (uint64_t at = z.size - 22;; --at) {
    if (U32(z.data + at) == kEndOfCentralDir) {
      *entries = U16(z.data + at + 10);
      *cd_offset = U32(z.data + at + 16);
      if ((*cd_offset == 0xffffffffu || *entries == 0xffffu) && at >= 20 &&
          U32(z.data + at - 20) == kZip64Locator) {
        const uint64_t z64 = U64(z.data + at - 20 + 8);
        if (!Fits(z64, 56, z.size) || U32(z.data + z64) != kZip64End) {
          return z.Bad(z64, "corrupt .npz: no zip64 end record");
        }
        *entries = U64(z.data + z64 + 32);
        *cd_offset = U64(z.data + z64 + 48);
      }
      return Status::Ok();
    }
    if (at == lowest) break;
  }
  return z.Bad(z.size, "truncated or corrupt .npz: no zip end-of-central-directory record");
}

// Zip64 extra field (id 1): the 64-bit values of the fields saturated at 0xffffffff.
void ApplyZip64Extra(const uint8_t* extra, uint64_t len, Member* m, bool usize_sat,
                     bool csize_sat, bool offset_sat) {
  uint64_t i = 0;
  while (i + 4 <= len) {
    const uint16_t id = U16(extra + i), n = U16(extra + i + 2);
    const uint8_t* p = extra + i + 4;
    if (i + 4 + n > len) return;
    if (id == 1) {
      uint64_t k = 0;
      if (usize_sat && k + 8 <= n) m->uncompressed = U64(p + k), k += 8;
      if (csize_sat && k + 8 <= n) m->compressed = U64(p + k), k += 8;
      if (offset_sat && k + 8 <= n) m->local_offset = U64(p + k), k += 8;
      return;
    }
    i += 4 + n;
  }
}

Status ReadMembers(const Zip& z, uint64_t at, uint64_t entries, std::vector<Member>* members) {
  for (uint64_t e = 0; e < entries; ++e) {
    if (!Fits(at, 46, z.size) || U32(z.data + at) != kCentralHeader) {
      return z.Bad(at, "corrupt .npz: central directory entry " + std::to_string(e) + " missing");
    }
    const uint8_t* h = z.data + at;
    Member m;
    m.method = U16(h + 10);
    m.crc = U32(h + 16);
    m.compressed = U32(h + 20);
    m.uncompressed = U32(h + 24);
    const uint16_t name_len = U16(h + 28), extra_len = U16(h + 30), comment_len = U16(h + 32);
    m.local_offset = U32(h + 42);
    if (!Fits(at, 46ull + name_len + extra_len + comment_len, z.size)) {
      return z.Bad(at, "corrupt .npz: central directory entry runs past the end");
    }
    m.name.assign(reinterpret_cast<const char*>(h + 46), name_len);
    ApplyZip64Extra(h + 46 + name_len, extra_len, &m, m.uncompressed == 0xffffffffu,
                    m.compressed == 0xffffffffu, m.local_offset == 0xffffffffu);
    members->push_back(std::move(m));
    at += 46 + name_len + extra_len + comment_len;
  }
  return Status::Ok();
}

// Where each member's data starts, from its local header.
Status LocateData(const Zip& z, std::vector<Member>* members) {
  for (Member& m : *members) {
    const uint64_t lo = m.local_offset;
    if (!Fits(lo, 30, z.size) || U32(z.data + lo) != kLocalHeader) {
      return z.Bad(lo, "corrupt .npz: member '" + m.name + "' has no local header");
    }
    m.data_at = lo + 30 + U16(z.data + lo + 26) + U16(z.data + lo + 28);
    if (!Fits(m.data_at, m.compressed, z.size)) {
      return z.Bad(z.size, "truncated .npz: member '" + m.name + "' (" +
                               std::to_string(m.compressed) + " bytes from byte " +
                               std::to_string(m.data_at) + ") ends past the end");
    }
  }
  return Status::Ok();
}

// What Python's zipfile refuses too: a name given twice (which array is 'x'?)
// and members whose bytes overlap, each other or the central directory. The
// overlapping-entries bomb lists one deflated member many times: each entry
// would inflate the same bytes again (522 KB became 3.1 GB). Once members are
// disjoint, deflate's own bound (~1032:1, checked per member) bounds the whole.
Status CheckMembersDisjoint(const Zip& z, const std::vector<Member>& members,
                            uint64_t cd_offset) {
  std::unordered_set<std::string_view> names;
  for (const Member& m : members) {
    if (!names.insert(m.name).second) {
      return z.Bad(m.local_offset, "corrupt .npz: member '" + m.name + "' appears twice");
    }
  }
  std::vector<const Member*> order;
  for (const Member& m : members) order.push_back(&m);
  std::sort(order.begin(), order.end(),
            [](const Member* a, const Member* b) { return a->local_offset < b->local_offset; });
  for (size_t i = 0; i < order.size(); ++i) {
    const Member& m = *order[i];
    const uint64_t end = m.data_at + m.compressed;
    const uint64_t next = i + 1 < order.size() ? order[i + 1]->local_offset : cd_offset;
    if (end > next) {
      const std::string other = i + 1 < order.size() ? "member '" + order[i + 1]->name + "'"
                                                     : std::string("the central directory");
      return z.Bad(next, "corrupt .npz: member '" + m.name + "' (bytes " +
                             std::to_string(m.local_offset) + ".." + std::to_string(end) +
                             ") overlaps " + other + ", which starts");
    }
  }
  return Status::Ok();
}

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
}  // namespace

Status ReadNpz(const std::string& path, const PaddedBuffer& file, std::string_view key_prefix,
               std::vector<TensorRef>* out, std::vector<std::unique_ptr<PaddedBuffer>>* buffers) {
  const Zip z{path, reinterpret_cast<const uint8_t*>(file.data()), file.size()};
  uint64_t cd_offset = 0, entries = 0;
  FE_RETURN_IF_ERROR(FindCentralDirectory(z, &cd_offset, &entries));
  std::vector<Member> members;
  FE_RETURN_IF_ERROR(ReadMembers(z, cd_offset, entries, &members));
  FE_RETURN_IF_ERROR(LocateData(z, &members));
  FE_RETURN_IF_ERROR(CheckMembersDisjoint(z, members, cd_offset));
  std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> inflater;
  for (const Member& m : members) {
    const uint64_t data_at = m.data_at;
    std::string key = m.name;
    if (key.size() > 4 && key.compare(key.size() - 4, 4, ".npy") == 0) key.resize(key.size() - 4);
    key = std::string(key_prefix) + key;
    const std::string member_path = path + " (member " + m.name + ")";
    if (m.method == 0) {
      auto ref = ReadNpy(member_path, z.data + data_at, m.compressed, data_at, key);
      if (!ref.ok()) return ref.status();
      ref->file = path;
      out->push_back(std::move(ref).value());
      continue;
    }
    if (m.method != 8) {
      return Unimplemented(path + ": member '" + m.name + "' uses zip method " +
                           std::to_string(m.method) + " (only stored and deflate are read)");
    }
    // Deflate expands at most ~1032:1; a larger claim is a corrupt directory.
    if (m.uncompressed / 1032 > m.compressed + 1) {
      return z.Bad(cd_offset, "corrupt .npz: member '" + m.name + "' claims " +
                                  std::to_string(m.uncompressed) + " bytes from " +
                                  std::to_string(m.compressed) + " compressed");
    }
    auto buf = PaddedBuffer::Allocate(m.uncompressed);
    if (!buf.ok()) return buf.status();
    if (!inflater) inflater.reset(libdeflate_alloc_decompressor());
    if (!inflater) return Internal("cannot allocate a deflate decompressor");
    size_t got = 0;
    const libdeflate_result r =
        libdeflate_deflate_decompress(inflater.get(), z.data + data_at, m.compressed,
                                      buf->mutable_data(), m.uncompressed, &got);
    if (r != LIBDEFLATE_SUCCESS || got != m.uncompressed) {
      return z.Bad(data_at, "corrupt .npz: member '" + m.name + "' does not inflate to " +
                                std::to_string(m.uncompressed) + " bytes");
    }
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(buf->data());
    if (libdeflate_crc32(0, bytes, got) != m.crc) {
      return z.Bad(data_at, "corrupt .npz: member '" + m.name + "' fails its CRC-32");
    }
    auto ref = ReadNpy(member_path + " inflated", bytes, got, 0, key);
    if (!ref.ok()) return ref.status();
    ref->file = path;
    out->push_back(std::move(ref).value());
    buffers->push_back(std::make_unique<PaddedBuffer>(std::move(buf).value()));
  }
  return Status::Ok();
}

}  // namespace fastenough::compare
