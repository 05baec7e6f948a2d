// OpCall: one cpu op's recorded arguments, as record_shapes=True writes them:
//   "name": "aten::addmm",
//   "args": {"Input Dims": [[128], [5, 128], [128, 128], [], []],
//            "Input type": ["float", "float", "float", "Scalar", "Scalar"],
//            "Concrete Inputs": ["", "", "", "1", "1"]}
// The three lists run in parallel, one entry per argument of the op's schema.
// A tensor has its shape in Input Dims and its dtype name in Input type; a
// TensorList has a list of shapes ("TensorList"); scalars, int lists and None
// have [] and "Scalar" / "ScalarList" / "". Concrete Inputs (PyTorch 2.1+)
// spells a scalar or an int list as text: "1", "True", "[1, 1]", "0.".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastenough/roofline/dtype.h"
#include "fastenough/util/status.h"

namespace fastenough::roofline {

struct OpArg {
  std::vector<int64_t> dims;                    // a tensor's shape ([] for 0-d and non-tensors)
  std::vector<std::vector<int64_t>> list_dims;  // a TensorList's shapes
  std::string type;                             // raw Input type entry
  std::string concrete;                         // raw Concrete Inputs entry, "" when absent
  Dtype dtype = Dtype::kUnknown;                // from type; kUnknown for non-tensors

  bool is_tensor() const { return dtype != Dtype::kUnknown; }
  double numel() const;  // product of dims (1 for a 0-d tensor); a double: no overflow
  double bytes() const { return numel() * DtypeBytes(dtype); }
  // Concrete value as an int list: "[1, 2]" -> {1, 2}, "3" -> {3}; nullopt when
  // absent or not integers.
  std::optional<std::vector<int64_t>> ints() const;
  std::optional<int64_t> int_value() const;
  // "True" / "False" (also "1" / "0"); nullopt when absent.
  std::optional<bool> bool_value() const;
  std::optional<double> double_value() const;
};

struct OpCall {
  std::string name;  // "aten::mm"
  std::vector<OpArg> args;
  bool has_concrete = false;  // the trace had a Concrete Inputs list

  // The i-th argument, or nullptr past the end.
  const OpArg* arg(size_t i) const { return i < args.size() ? &args[i] : nullptr; }
};

// Parses the raw JSON texts of the three lists (as the trace reader keeps
// them: EventStore::input_dims / input_types). concrete_json may be empty.
// InvalidArgument when a text is not a JSON list of the expected shape, the
// lists' lengths differ, or a dim is negative or above 2^40 (no real tensor).
StatusOr<OpCall> ParseOpCall(std::string_view name, std::string_view input_dims_json,
                             std::string_view input_types_json,
                             std::string_view concrete_json = {});

}  // namespace fastenough::roofline
