// libFuzzer target: the roofline parsers on any bytes. The input is split at
// NUL bytes into Input Dims, Input type and Concrete Inputs texts, modelled
// under every op name the model knows; the whole input is also tried as a
// --peaks file. Any answer must be a Status or finite, non-negative work;
// never a crash or a sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fastenough/roofline/device_peaks.h"
#include "fastenough/roofline/op_work.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace rl = fastenough::roofline;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view part[3];
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t nul = in.find('\0', start);
    part[i] = in.substr(std::min(start, in.size()), nul == std::string_view::npos ? in.npos : nul - start);
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  static const char* kNames[] = {
      "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
      "aten::_scaled_mm", "aten::_grouped_mm", "aten::scaled_dot_product_attention",
      "aten::_scaled_dot_product_flash_attention_backward", "aten::_efficient_attention_forward",
      "aten::_flash_attention_backward", "aten::convolution", "aten::_convolution", "aten::conv2d",
      "aten::conv_transpose2d", "aten::cudnn_convolution", "aten::convolution_backward",
      "aten::add", "aten::add_", "aten::mul", "aten::gt", "aten::copy_", "aten::sum",
      "aten::mean", "aten::argmax", "aten::native_layer_norm", "aten::native_layer_norm_backward",
      "aten::_fused_rms_norm", "aten::native_batch_norm", "aten::_softmax", "aten::softmax",
      "aten::_softmax_backward_data", "aten::embedding", "aten::embedding_dense_backward"};
  auto call = rl::ParseOpCall("aten::mm", part[0], part[1], part[2]);
  if (call.ok()) {
    for (const char* n : kNames) {
      call->name = n;
      auto w = rl::ModelOp(*call);
      if (!w.ok()) continue;
      if (!(w->flops >= 0) || !(w->bytes >= 0) || std::isnan(w->flops) || std::isnan(w->bytes)) {
        __builtin_trap();
      }
    }
  }
  rl::PeakTable t = rl::PeakTable::Builtin();
  if (t.ApplyOverride(in).ok()) {
    for (const auto& d : t.devices()) {
      if (!(d.memory_tb_per_s >= 0) || !(d.bf16 >= 0)) __builtin_trap();
    }
  }
  (void)t.Lookup(part[0]);
  return 0;
}
