#include "fastenough/analysis/op_roles.h"

#include <cctype>
#include <string>

namespace fastenough::analysis {

namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string Lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

bool Has(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

// "_mi16x16x4" in a lowercased Tensile / hipBLASLt kernel name
// ("Cijk_Alik_Bljk_SB_..._MT64x16x32_MI16x16x1_SN_..."): a matrix-core tile.
bool HasMatrixInstructionTile(std::string_view n) {
  for (size_t i = n.find("_mi"); i != std::string_view::npos; i = n.find("_mi", i + 1)) {
    size_t j = i + 3;
    size_t digits = 0;
    while (j < n.size() && std::isdigit(static_cast<unsigned char>(n[j]))) {
      ++j;
      ++digits;
    }
    if (digits > 0 && j < n.size() && n[j] == 'x') return true;
  }
  return false;
}

}  // namespace

bool IsDataLoadingName(std::string_view n) {
  return (StartsWith(n, "enumerate(DataLoader)#") && EndsWith(n, ".__next__")) ||
         StartsWith(n, "enumerate(DataPipe)#");
}

bool IsCollectiveOpName(std::string_view n) {
  return StartsWith(n, "nccl:") || StartsWith(n, "gloo:") || StartsWith(n, "hccl:") ||
         StartsWith(n, "rccl:") || StartsWith(n, "c10d::") || n == "record_param_comms";
}

bool IsBlockingCallName(std::string_view n) {
  return n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize" || n == "cudaEventQuery" ||
         n == "cudaEventSynchronize" || n == "cudaMemcpy" || n == "cudaMemcpyAsync" ||
         n == "cuCtxSynchronize" || n == "cuStreamSynchronize" || n == "cuEventSynchronize" ||
         n == "hipDeviceSynchronize" || n == "hipStreamSynchronize" || n == "hipEventQuery" ||
         n == "hipEventSynchronize" || n == "hipMemcpy" || n == "hipMemcpyAsync" ||
         n == "hipMemcpyWithStream";
}

bool IsGraphLaunchName(std::string_view n) {
  return StartsWith(n, "cudaGraphLaunch") || StartsWith(n, "cuGraphLaunch") ||
         StartsWith(n, "hipGraphLaunch");
}

bool IsTensorCoreKernelName(std::string_view name) {
  const std::string n = Lower(name);
  for (const char* m : {"hmma", "imma", "tensorop", "wgmma", "gmma", "xmma", "s16816", "h16816",
                        "s1688", "h1688", "i8816", "flash_fwd", "flash_bwd", "flash::", "fmha_",
                        "mfma", "xdl", "wmma"}) {
    if (Has(n, m)) return true;
  }
  return HasMatrixInstructionTile(n);
}

bool IsTritonKernelName(std::string_view n) { return StartsWith(n, "triton_"); }

bool IsCompiledRegionName(std::string_view n) {
  return StartsWith(n, "Torch-Compiled Region") || n == "CompiledFunction" ||
         n == "CompiledFunctionBackward" || StartsWith(n, "## Call CompiledFxGraph");
}

}  // namespace fastenough::analysis
