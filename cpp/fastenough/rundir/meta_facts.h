// meta.json, as the supervisor writes it: the facts the run report uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/report/meta_record.h"

namespace fastenough::rundir {

// meta.json as the supervisor writes it (the fields used here):
//   {"command":["python","x.py"],"cwd":"/home/a/proj","start_wall_ns":..,"end_wall_ns":..,"exit_status":0,
//    "signal":null,"visible_devices":{"physical":[1,0]},
//    "devices":[{"source":"nvml","index":0,"name":..,"mem_total_bytes":..}],
//    "other_processes":[{"source":"nvml","device":0,"pid":77,"max_used_bytes":..}]}
struct MetaFacts {
  std::vector<std::string> command;
  std::string cwd;  // where the command ran ("" when unknown)
  std::optional<int64_t> start_wall_ns, end_wall_ns, exit_status, signal;
  std::vector<int> visible_physical;
  struct Other {
    std::string source;
    int device = -1;
    int64_t pid = 0;
    int64_t max_used_bytes = -1;
  };
  std::vector<Other> others;
  // The whole record, read through its declaration (report/meta_record.h) for
  // the report's meta; empty when a key was of another type (a problem then).
  report::MetaRecord record;
  bool trace_wanted = true;  // agent_opts.trace: the run asked for a profiler window
};

MetaFacts ReadMeta(const std::string& path, std::vector<std::string>* problems);

}  // namespace fastenough::rundir
