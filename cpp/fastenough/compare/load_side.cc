#include "fastenough/compare/load_side.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unordered_map>

#include "fastenough/compare/npy_reader.h"
#include "fastenough/compare/npz_reader.h"
#include "fastenough/compare/records_index.h"
#include "fastenough/compare/safetensors_reader.h"

namespace fastenough::compare {

namespace fs = std::filesystem;

namespace {
bool HasSuffix(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsTensorFile(const fs::path& p) {
  const std::string name = p.filename().string();
  // Writers rename "<file>.tmp<pid>" into place: a leftover is an unfinished write.
  if (name.find(".tmp") != std::string::npos) return false;
  return HasSuffix(name, ".safetensors") || HasSuffix(name, ".npy") || HasSuffix(name, ".npz");
}

Status CheckUniqueKeys(const TensorSet& set) {
  std::unordered_map<std::string_view, const TensorRef*> seen;
  for (const TensorRef& t : set.tensors) {
    auto [it, fresh] = seen.emplace(t.key, &t);
    if (!fresh) {
      return DataLoss(set.root + ": key '" + t.key + "' appears twice (in " + it->second->file +
                      " and " + t.file + ")");
    }
  }
  return Status::Ok();
}
}  // namespace

Status LoadFile(const std::string& path, const std::string& key_prefix, const std::string& npy_key,
                TensorSet* set) {
  auto mapped = PaddedBuffer::MapFile(path);
  if (!mapped.ok()) return mapped.status();
  auto buf = std::make_unique<PaddedBuffer>(std::move(mapped).value());
  const char* d = buf->data();
  const size_t n = buf->size();
  if (n >= 6 && std::memcmp(d, "\x93NUMPY", 6) == 0) {
    auto ref = ReadNpy(path, reinterpret_cast<const uint8_t*>(d), n, 0, key_prefix + npy_key);
    if (!ref.ok()) return ref.status();
    set->tensors.push_back(std::move(ref).value());
  } else if (n >= 4 && std::memcmp(d, "PK", 2) == 0) {
    FE_RETURN_IF_ERROR(ReadNpz(path, *buf, key_prefix, &set->tensors, &set->buffers));
  } else {
    FE_RETURN_IF_ERROR(ReadSafetensors(path, *buf, key_prefix, &set->tensors));
  }
  set->buffers.push_back(std::move(buf));
  ++set->files;
  return Status::Ok();
}

StatusOr<TensorSet> LoadSide(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return NotFound(path + ": no such file or directory");
  TensorSet set;
  set.root = path;
  if (!fs::is_directory(st)) {
    FE_RETURN_IF_ERROR(LoadFile(path, "", "array", &set));
    return set;
  }
  fs::path dir(path);
  // A run directory: its outputs/ (meta.json marks one written by `fastenough run`).
  if (fs::is_directory(dir / "outputs", ec)) {
    dir /= "outputs";
  } else if (fs::exists(dir / "meta.json", ec)) {
    return NotFound(path + ": this run recorded no outputs (no outputs/ folder; call "
                    "fastenough.record(key, value) in the program)");
  }
  set.root = dir.string();
  std::vector<fs::path> files, indexes;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    if (IsTensorFile(it->path())) files.push_back(it->path());
    if (it->path().filename() == kRecordsIndex) indexes.push_back(it->path());
  }
  if (ec) return InvalidArgument(dir.string() + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    const fs::path rel = f.lexically_relative(dir);
    std::string prefix = rel.parent_path().generic_string();
    if (!prefix.empty()) prefix += "/";
    std::string stem = rel.filename().string();
    stem = stem.substr(0, stem.rfind('.'));
    std::string npz_prefix = prefix;
    if (HasSuffix(f.string(), ".npz")) npz_prefix += stem + "/";
    FE_RETURN_IF_ERROR(LoadFile(f.string(), npz_prefix, stem, &set));
  }
  if (set.tensors.empty() && indexes.empty()) {
    return NotFound(set.root + ": no tensors found (no .safetensors, .npy or .npz files)");
  }
  FE_RETURN_IF_ERROR(CheckUniqueKeys(set));
  std::sort(indexes.begin(), indexes.end());
  for (const fs::path& index : indexes) {
    std::string prefix = index.lexically_relative(dir).parent_path().generic_string();
    if (!prefix.empty()) prefix += "/";
    FE_RETURN_IF_ERROR(CheckRecordsIndex(index.string(), prefix, set));
  }
  return set;
}

}  // namespace fastenough::compare
