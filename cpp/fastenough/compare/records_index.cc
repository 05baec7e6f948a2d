#include "fastenough/compare/records_index.h"

#include <simdjson.h>

#include <filesystem>
#include <unordered_map>

namespace fastenough::compare {

Status CheckRecordsIndex(const std::string& index_path, const std::string& key_prefix,
                         const TensorSet& set) {
  auto text = PaddedBuffer::MapFile(index_path);
  if (!text.ok()) return text.status();
  simdjson::dom::parser parser;
  simdjson::dom::object doc, keys;
  simdjson::dom::array shards;
  if (parser.parse(text->data(), text->size(), false).get_object().get(doc) != simdjson::SUCCESS ||
      doc["shards"].get_array().get(shards) != simdjson::SUCCESS ||
      doc["keys"].get_object().get(keys) != simdjson::SUCCESS) {
    return DataLoss(index_path + ": not a fastenough.records/1 index (JSON with shards and keys)");
  }
  const std::filesystem::path dir = std::filesystem::path(index_path).parent_path();
  for (auto s : shards) {
    std::string_view name;
    std::error_code ec;
    if (s.get_string().get(name) != simdjson::SUCCESS ||
        !std::filesystem::exists(dir / std::string(name), ec)) {
      return DataLoss(index_path + ": names shard " + std::string(name) +
                      ", which is missing (was the run cut short, or the folder copied in part?)");
    }
  }
  std::unordered_map<std::string_view, const TensorRef*> by_key;
  for (const TensorRef& t : set.tensors) by_key.emplace(t.key, &t);
  for (auto field : keys) {
    const std::string key = key_prefix + std::string(field.key);
    std::string_view dtype_name, shard;
    simdjson::dom::object e;
    simdjson::dom::array shape;
    if (field.value.get_object().get(e) != simdjson::SUCCESS ||
        e["dtype"].get_string().get(dtype_name) != simdjson::SUCCESS ||
        e["shard"].get_string().get(shard) != simdjson::SUCCESS ||
        e["shape"].get_array().get(shape) != simdjson::SUCCESS) {
      return DataLoss(index_path + ": entry of key '" + key + "' lacks shard, dtype or shape");
    }
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      return DataLoss(index_path + ": key '" + key + "' is in the index but in no shard (" +
                      std::string(shard) + " was expected to hold it)");
    }
    const TensorRef& t = *it->second;
    std::vector<int64_t> dims;
    for (auto d : shape) {
      int64_t v;
      dims.push_back(d.get_int64().get(v) == simdjson::SUCCESS ? v : -1);
    }
    auto dtype = DTypeFromSafetensors(dtype_name);
    if (!dtype || *dtype != t.dtype || dims != t.shape) {
      return DataLoss(index_path + ": key '" + key + "' is " + std::string(dtype_name) +
                      " in the index but " + DTypeName(t.dtype) + " of another shape or dtype in " +
                      t.file + " (files from two runs mixed?)");
    }
  }
  return Status::Ok();
}

}  // namespace fastenough::compare
