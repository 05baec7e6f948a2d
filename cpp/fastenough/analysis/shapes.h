// Shape census: for the hottest CPU ops, the distinct (Input Dims, Input
// type, Input Strides, Concrete Inputs) they were called with, and how often / how long. This
// is the input of per-shape kernel work (docs/method.md) and needs a
// trace recorded with record_shapes=True:
//   args: {"Input Dims": [[8, 512], [512, 512]], "Input type": ["float", "float"],
//          "Input Strides": [[512, 1], [1, 512]]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct ShapeRow {
  std::string op;
  std::string input_dims;     // raw JSON text, "" when absent
  std::string input_types;    // raw JSON text
  std::string input_strides;  // raw JSON text
  std::string input_concrete;  // raw JSON text of "Concrete Inputs" (scalars as text), "" when absent
  int64_t count = 0;
  int64_t total_ns = 0;       // inclusive host time of these calls
  int64_t device_ns = 0;      // device activity they launched (direct External id)
};

// The shapes of the `top_ops` heaviest op names (by inclusive time), at most
// `per_op` shapes each; sorted by op rank then total_ns desc. Empty when the
// trace has no shapes.
std::vector<ShapeRow> ShapeCensus(const trace::EventStore& store, size_t top_ops = 10,
                                  size_t per_op = 5);

}  // namespace fastenough::analysis
