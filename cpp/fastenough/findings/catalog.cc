#include "fastenough/findings/catalog.h"

namespace fastenough::findings {

const std::vector<CatalogEntry>& Catalog() {
  static const std::vector<CatalogEntry> kCatalog = {
      {"gpu-idle-host-bound", "trace", "Device idle while the host is still launching",
       "The device waits for the host to submit work. Reduce per-step Python and launch "
       "overhead: torch.compile (mode=\"reduce-overhead\") or CUDA graphs for static shapes, "
       "larger batches, fewer small ops in the loop."},
      {"small-kernels", "trace", "Many kernels shorter than their launch",
       "Kernels finish faster than the host can launch them. Fuse chains of small ops "
       "(torch.compile), capture the step in a CUDA graph for static shapes, or batch the work "
       "into fewer, larger kernels."},
      {"sync-in-loop", "trace", "Host waits for the device inside the step loop",
       "Remove the synchronisation from the hot loop: keep values on the device (accumulate "
       "metrics as tensors, read them once after the loop), avoid .item()/.cpu()/.tolist()/"
       "bool(tensor) and data-dependent shapes (nonzero, unique) per step."},
      {"pageable-memcpy", "trace", "Copies from pageable host memory",
       "Allocate host tensors in pinned memory (DataLoader(pin_memory=True) or "
       "tensor.pin_memory()) and copy with .to(device, non_blocking=True) so the copy can "
       "overlap compute."},
      {"transfer-in-loop", "trace", "Host-device transfers in every step",
       "Move data that does not change to the device once before the loop, prefetch the next "
       "batch on a side stream (pinned + non_blocking), and keep results on the device until "
       "the end."},
      {"cpu-fallback", "trace", "Ops executed on the CPU inside a device program",
       "Run these ops on the device (move the tensors or the op there) so the round-trip "
       "copies and the host computation disappear; check for ops without a device kernel."},
      {"serial-small-gemm", "trace", "The same small matmul repeated in a Python loop",
       "Replace the loop over experts/heads/segments by one batched or grouped GEMM "
       "(torch.bmm on stacked weights, grouped_mm, or sort-and-group tokens per expert); "
       "check that the device really runs one kernel and that outputs agree."},
      {"unfused-projections", "trace", "Separate projections of one input",
       "Merge the projections that read the same input into one linear with concatenated "
       "weights (qkv_proj, gate_up_proj) and split the output."},
      {"no-tensor-cores", "trace", "FP32 matmuls on a device with tensor cores",
       "Under the current fp32 protocol this is bounded. TF32 "
       "(torch.backends.cuda.matmul.allow_tf32 / set_float32_matmul_precision(\"high\")) or "
       "BF16 autocast would use tensor cores, but they change numerics: compare outputs "
       "against a tolerance fixed in advance and label it a protocol change."},
      {"dataloader-bound", "trace", "Steps wait for the next batch",
       "Feed the loop faster: DataLoader(num_workers>0, pin_memory=True, persistent_workers="
       "True, prefetch_factor), cache preprocessing offline, or move decoding off the main "
       "process."},
      {"comm-not-overlapped", "trace", "Collectives not overlapped by compute",
       "Overlap communication with compute (DDP bucketing / gradient_as_bucket_view, FSDP "
       "prefetch, async collectives on a side stream) or reduce its volume; confirm which "
       "collectives depend on the compute right before them."},
      {"devices-take-turns", "trace", "The devices take turns",
       "The model's layers are spread over the devices (of one process, or the ranks of a "
       "pipeline), so each waits for the one before it (placement spreads storage, it is not "
       "pipeline parallelism). Overlap them: split each batch into micro-batches and keep every "
       "stage busy (torch.distributed.pipelining, or streams per device), or, when the model "
       "fits one device, run one replica per device on its own share of the inputs."},
      {"load-imbalance", "trace", "The ranks do unequal work per step",
       "Give every rank the same work: shard by tokens or cost, not by samples (sort and "
       "bucket variable-length inputs before sharding), move layers from the heaviest pipeline "
       "stage to the lighter ones, and keep rank-0-only work (logging, evaluation, "
       "checkpointing) out of the step."},
      {"straggler-rank", "trace", "One rank is consistently late into collectives",
       "Find what makes that rank slower before the collective (uneven data, a different "
       "device, a noisy neighbour, host contention) and balance it."},
      {"low-occupancy", "trace", "Hot kernel runs far below the device's capacity",
       "Check the kernel with a profiler (Nsight Compute / rocprof) before changing it: a grid "
       "with fewer blocks than SMs wants a larger batch or a split-K / persistent kernel; a "
       "resource-limited one (registers, shared memory) may need another kernel or tile "
       "configuration; torch.compile max-autotune or a library upgrade may pick a better one."},
      {"ops-near-roof", "trace", "Hot ops run near the device's roof",
       "The device is busy and its heaviest ops already run at 70% or more of what it can do "
       "at their shapes and dtypes (the roofline): these ops are bounded by the device under "
       "the current protocol. Further gains need less work (smaller or fewer shapes, lower "
       "precision, fusion that removes memory traffic) or a faster device; look at the ops "
       "below their roof and at host time first."},
      {"gemm-wave-quantization", "trace", "GEMM output tiles fill only part of the last wave of SMs",
       "The GEMM's output tiles do not divide evenly over the SMs, so its last wave leaves most "
       "SMs idle. Change a dim so the tiles fill the waves (batch, hidden or vocabulary size), "
       "or let the library pick a split-K / stream-K kernel (torch.compile max-autotune); time "
       "the op at both shapes (fastenough replay) before changing the model."},
      {"gemm-dims-unaligned", "trace", "GEMM dims not a multiple of what the tensor cores need",
       "Pad the GEMM's dims to the multiple the tensor cores need for its dtype (8 for "
       "BF16/FP16, 16 for FP8/INT8, 4 for TF32): vocabulary, hidden and head sizes; "
       "pad_to_multiple_of in tokenizers and embeddings."},
      {"gemm-memory-bound-shape", "trace", "Tall-skinny GEMM, memory-bound by its shape",
       "The GEMM has too little work per byte to use the tensor cores (below the device's "
       "ridge): its time is the weights' and activations' traffic. Give it more rows per "
       "weight read (larger batch, merge the projections that read the same weights, fuse it "
       "with its neighbours) or accept it as memory-bound."},
      {"attention-short-sequence", "trace", "Short-sequence attention dominated by fixed cost",
       "Attention over sequences this short spends its time on per-block fixed cost, not on "
       "work. Pack sequences (varlen / nested tensors), batch more sequences per call, or try "
       "the plain matmul path (math SDPA backend) for these shapes; time both (fastenough "
       "replay)."},
      {"fp32-in-mixed-precision", "trace", "FP32 matrix op in a model that runs BF16/FP16",
       "This matmul/attention/convolution runs in FP32 while the rest of the model's matrix "
       "work runs in 16 bits: it was left outside autocast (a layer cast to float, a module "
       "called outside the autocast region, an input created as float). Bring it under the "
       "same precision if the numerics allow it; compare outputs against a tolerance."},
      {"autograd-in-eval", "agent", "Autograd graph recorded in an evaluation forward",
       "Wrap evaluation in torch.inference_mode() (or no_grad)."},
      {"train-mode-in-eval", "agent", "Training-mode layers during evaluation",
       "Call model.eval() before evaluation: dropout and batch-norm statistics in training "
       "mode change the results, not only the speed.",
       true},
      {"kv-cache-in-scoring", "agent", "Key/value cache built in a pure scoring forward",
       "Pass use_cache=False for scoring forwards."},
      {"unused-outputs", "agent", "Hidden states or attentions requested and dropped",
       "Do not request output_hidden_states/output_attentions that are not used."},
      {"full-vocab-logits", "agent", "Logits computed for every position",
       "Select the needed positions before the LM head (logits_to_keep)."},
      {"padding-waste", "agent", "Padded tokens in batches",
       "Use dynamic padding, truncate to real length or bucket by length."},
      {"duplicate-weights", "agent", "The same weights resident more than once",
       "Free the copies that are no longer needed; share storage with the original "
       "Parameter."},
      {"memory-headroom", "agent", "Peak memory far below capacity",
       "Sweep the batch size for the throughput knee (fastenough.sweep_batch)."},
      {"memory-near-limit", "agent", "Peak memory near capacity",
       "Lower the batch or free redundant residency before it fails."},
      {"recompile-in-steady", "agent", "torch.compile recompiles after warmup",
       "Mark dynamic dimensions or pad to fixed shapes so steady steps reuse one graph."},
      {"device-shared", "sampler", "Other processes use the same device",
       "Run on a device of your own or account for the contention in measurements."},
      {"recompute-prefix", "agent", "Each step recomputes a growing input",
       "The loop feeds the whole sequence so far to the model at every step (autoregressive "
       "generation without a key/value cache): O(n^2) work for n steps. Keep a KV cache "
       "(use_cache=True with past_key_values, or model.generate) and feed only the new "
       "token; compute logits for the last position only (logits_to_keep=1, or slice the "
       "hidden state before the output layer)."},
      {"step-bound", "agent", "What bounds the steady step",
       "Nothing here is avoidable waste: the step is bound by the work it does under the "
       "current protocol. Further gains need a different protocol (precision, batch, model) "
       "or a faster kernel path; if the wait is short enough, stop here."},
      {"cpu-oversubscribed", "agent", "More compute threads than cores",
       "Give each process cores / processes threads (torch.set_num_threads, or "
       "OMP_NUM_THREADS) so that threads x processes does not exceed the cores; threads that "
       "compete for a core run each step several times slower."},
  };
  return kCatalog;
}

const CatalogEntry* FindCatalogEntry(std::string_view code) {
  for (const auto& e : Catalog()) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

Finding NewFinding(std::string_view code, Verdict verdict, int rank) {
  Finding f;
  f.code = std::string(code);
  f.verdict = verdict;
  f.rank = rank;
  if (const CatalogEntry* e = FindCatalogEntry(code)) {
    f.title = std::string(e->title);
    f.action = std::string(e->action);
    f.source = std::string(e->source == "sampler" ? "sampler" : "trace");
    if (e->source == "agent") f.source = "agent";
  }
  return f;
}

}  // namespace fastenough::findings
