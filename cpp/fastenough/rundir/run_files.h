// Readers for the files the agent and the sampler write into a run directory
// (docs/run-directory.md). They are append-only and may end in a half-written
// line after a crash, so a bad line is skipped and noted in `problems`, never
// fatal; a missing file is simply empty.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastenough::rundir {

// One line of phases.jsonl:
//   {"rank":0,"pid":123,"phase":"warmup","mode":"train","edge":"end","mono_ns":..,
//    "wall_ns":..,"synced":true,"auto":true,"memory":{"device":"cuda:0","allocated_bytes":..,
//    "reserved_bytes":..,"alloc_peak_bytes":..,"reserved_peak_bytes":..,"rss_bytes":..}}
struct PhaseEdge {
  int rank = 0;
  int64_t pid = 0;
  std::string phase;
  std::string mode;  // "train" | "eval"; "" in run directories of older agents
  bool begin = true;
  int64_t mono_ns = 0;
  int64_t wall_ns = 0;
  bool synced = false;
  bool automatic = false;
  std::string device;  // memory.device, "" when absent
  std::optional<int64_t> allocated, reserved, alloc_peak, reserved_peak, rss;
};

// One line of steps.jsonl:
//   {"rank":0,"pid":123,"index":7,"start_mono_ns":..,"end_mono_ns":..,"start_wall_ns":..,
//    "end_wall_ns":..,"items":32,"tokens":null,"source":"optimizer","phase":"steady",
//    "mode":"train"}
struct StepRecord {
  int rank = 0;
  int64_t pid = 0;
  int64_t index = 0;
  int64_t start_mono_ns = 0, end_mono_ns = 0, start_wall_ns = 0, end_wall_ns = 0;
  std::optional<int64_t> items, tokens;
  std::string source;
  std::string phase;
  std::string mode;  // "train" | "eval"; "" in run directories of older agents
};

// One row of samples.csv (see sample/sampler.h for the header).
struct SampleRow {
  int64_t wall_ns = 0;
  std::string source;  // nvml | npu-smi | proc
  int device = -1;
  std::optional<double> util_pct, power_w, cpu_pct;
  std::optional<int64_t> mem_used_bytes, mem_total_bytes, sm_clock_mhz, rss_bytes;
};

struct RunFiles {
  std::vector<PhaseEdge> edges;
  std::vector<StepRecord> steps;
  std::vector<SampleRow> samples;
  std::vector<std::string> problems;  // "phases.jsonl:3: not a JSON object"
};

void ReadPhases(const std::string& path, RunFiles* out);
void ReadSteps(const std::string& path, RunFiles* out);
void ReadSamples(const std::string& path, RunFiles* out);

// The most bytes one file of a run directory is read to: steps.jsonl of a
// million steps is about 300 MB. A larger file (a sparse file, a runaway writer)
// is skipped rather than read into memory.
inline constexpr uint64_t kMaxRunFileBytes = uint64_t{2} << 30;

// Whole file as text; nullopt when it is missing or cannot be read. The program
// owns its run directory while it runs and may leave anything where a file is
// expected: a FIFO, a device, a huge sparse file. Those are skipped without ever
// waiting or reading without end (util/file_bytes.h ReadRegularFile), and
// `problems` gets "<label>: not a regular file (a FIFO or pipe); skipped".
std::optional<std::string> ReadFile(const std::string& path, std::string_view label = {},
                                    std::vector<std::string>* problems = nullptr);

}  // namespace fastenough::rundir
