// Process-tree sampling from procfs: the CPU time and resident memory of a
// root process and all its descendants (a torchrun job, a shell script that
// starts python, DataLoader workers). The tree is rebuilt every tick from the
// ppid links in /proc/<pid>/stat, because children come and go.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fastenough/util/status.h"

namespace fastenough::sample {

// The fields of one /proc/<pid>/stat line that the sampler uses.
struct ProcStat {
  pid_t pid = 0;
  pid_t ppid = 0;
  uint64_t cpu_ticks = 0;  // utime + stime, in clock ticks (sysconf(_SC_CLK_TCK))
  int64_t rss_pages = 0;
};

// Parses "1234 (python3 -m x) S 1200 ... utime stime ... rss ...". The command
// name sits in parentheses and may itself hold spaces and ')' characters, so
// the fields are counted from the *last* ')'.
std::optional<ProcStat> ParseProcStat(std::string_view line);

// One reading of the tree.
struct TreeReading {
  int processes = 0;
  uint64_t cpu_ticks = 0;  // summed utime+stime of the processes alive now
  int64_t rss_bytes = 0;
  std::unordered_map<pid_t, uint64_t> ticks_by_pid;
};

class ProcTree {
 public:
  // proc_root is "/proc" except in tests.
  explicit ProcTree(std::string proc_root = "/proc");

  // Reads every /proc/<pid>/stat and sums the subtree under root. A root that
  // is gone yields an empty reading (processes == 0), not an error.
  TreeReading Read(pid_t root) const;

  // CPU % of the tree between two readings `elapsed_ns` apart: 100 = one core
  // busy. Per process, so that a child that exits between the readings does
  // not make the sum go backwards; a new process counts all its ticks.
  double CpuPercent(const TreeReading& before, const TreeReading& after, int64_t elapsed_ns) const;

  // The same, per process: only the processes that used CPU between the two
  // readings (an idle DataLoader worker is absent, i.e. 0).
  std::vector<std::pair<pid_t, double>> CpuPercentByPid(const TreeReading& before,
                                                        const TreeReading& after,
                                                        int64_t elapsed_ns) const;

  // Every pid in the subtree under root (root included when alive).
  std::vector<pid_t> Pids(pid_t root) const;

 private:
  std::vector<ProcStat> ReadAll() const;

  std::string proc_root_;
  long ticks_per_s_;
  long page_bytes_;
};

}  // namespace fastenough::sample
