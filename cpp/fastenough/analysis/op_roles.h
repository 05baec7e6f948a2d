// What a host op or a kernel *is*, by the names current libraries give them:
// the name rules the deeper trace analyses share (per-step breakdown, kernel
// efficiency, critical path, graphs). Each rule quotes the names it matches;
// docs/trace-depth.md lists them with their sources.
#pragma once

#include <string_view>

namespace fastenough::analysis {

// Data loading as the TensorBoard plugin counted it (tb_plugin
// profiler/event_parser.py, StepParser._parse_step):
//   "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"  (torch.utils.data)
//   "enumerate(DataPipe)#MapperIterDataPipe"                       (torchdata DataPipes)
bool IsDataLoadingName(std::string_view name);

// A host op that stands for a collective: the plugin's NcclOpNameSet /
// GlooOpNameSet ("nccl:all_reduce", "gloo:broadcast", ...) generalised to the
// prefixes "nccl:", "gloo:", "hccl:", "rccl:", "c10d::" ("c10d::allreduce_")
// and the wrapper PyTorch records around every collective, "record_param_comms".
bool IsCollectiveOpName(std::string_view name);

// Runtime calls that block the host until the device has caught up: HTA's
// CPGraph.BLOCKING_SYNC_CALLS (cudaDeviceSynchronize, cudaStreamSynchronize,
// cudaEventQuery, cudaEventSynchronize, cudaMemcpy, cudaMemcpyAsync), their
// driver-API and HIP twins, and the blocking HIP copy hipMemcpyWithStream.
bool IsBlockingCallName(std::string_view name);

// Graph replays: "cudaGraphLaunch" (also "cudaGraphLaunch_v10000"), "cuGraphLaunch",
// "hipGraphLaunch". The kernels of a replay carry the launch's correlation id.
bool IsGraphLaunchName(std::string_view name);

// Kernels that run on tensor cores (NVIDIA) or matrix cores (AMD), by name:
//   NVIDIA  cuBLAS/cuDNN/CUTLASS: "hmma", "imma", "tensorop", "wgmma", "gmma", "xmma",
//           the MMA shapes "s16816", "h16816", "s1688", "h1688", "i8816";
//           attention kernels built on mma: "flash_fwd", "flash_bwd", "flash::", "fmha_"
//   AMD     "mfma", hipBLASLt/Tensile tiles "_MI16x16x4"-style ("_mi" + digits + "x"),
//           composable_kernel "xdl" / "xdlops", RDNA "wmma"
// Triton kernels cannot be classified from their names (their dot() may or
// may not use tensor cores) and count as not tensor-core.
bool IsTensorCoreKernelName(std::string_view name);

// Inductor / Triton kernels: "triton_poi_fused_add_0", "triton_red_...",
// "triton_per_...", "triton_tem_fused_mm_...", "triton__0d1d2d".
bool IsTritonKernelName(std::string_view name);

// Host ranges that mark a torch.compile'd region:
//   "Torch-Compiled Region: 0/0" (user_annotation, torch >= 2.2),
//   "CompiledFunction" / "CompiledFunctionBackward" (autograd functions),
//   "## Call CompiledFxGraph f3q2... ##" (inductor's compiled graph call).
bool IsCompiledRegionName(std::string_view name);

}  // namespace fastenough::analysis
