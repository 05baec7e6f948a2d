#include "fastenough/sample/proc_tree.h"

#include <algorithm>

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace fastenough::sample {

namespace {

bool ParseInt(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::optional<ProcStat> ParseProcStat(std::string_view line) {
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt
  //  majflt cmajflt utime stime cutime cstime priority nice num_threads
  //  itrealvalue starttime vsize rss ..."
  size_t open = line.find('(');
  size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  int64_t pid = 0;
  std::string_view pid_text = line.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!ParseInt(pid_text, &pid)) return std::nullopt;

  // Fields after ")": index 0 = state (field 3 of the man page).
  std::vector<std::string_view> fields;
  std::string_view rest = line.substr(close + 1);
  size_t i = 0;
  while (i < rest.size() && fields.size() < 22) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\n')) ++i;
    size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\n') ++j;
    if (j > i) fields.push_back(rest.substr(i, j - i));
    i = j;
  }
  // state=0 ppid=1 ... utime=11 stime=12 ... rss=21
  if (fields.size() < 22) return std::nullopt;
  int64_t ppid = 0, utime = 0, stime = 0, rss = 0;
  if (!ParseInt(fields[1], &ppid) || !ParseInt(fields[11], &utime) ||
      !ParseInt(fields[12], &stime) || !ParseInt(fields[21], &rss)) {
    return std::nullopt;
  }
  ProcStat s;
  s.pid = static_cast<pid_t>(pid);
  s.ppid = static_cast<pid_t>(ppid);
  s.cpu_ticks = static_cast<uint64_t>(utime < 0 ? 0 : utime) + static_cast<uint64_t>(stime < 0 ? 0 : stime);
  s.rss_pages = rss;
  return s;
}

ProcTree::ProcTree(std::string proc_root)
    : proc_root_(std::move(proc_root)),
      ticks_per_s_(sysconf(_SC_CLK_TCK)),
      page_bytes_(sysconf(_SC_PAGESIZE)) {
  if (ticks_per_s_ <= 0) ticks_per_s_ = 100;
  if (page_bytes_ <= 0) page_bytes_ = 4096;
}

std::vector<ProcStat> ProcTree::ReadAll() const {
  std::vector<ProcStat> out;
  DIR* dir = opendir(proc_root_.c_str());
  if (dir == nullptr) return out;
  std::string path;
  char buf[1024];
  while (dirent* e = readdir(dir)) {
    const char* name = e->d_name;
    if (name[0] < '0' || name[0] > '9') continue;
    path = proc_root_ + "/" + name + "/stat";
    // Processes vanish between readdir and open: that is normal, skip them.
    FILE* f = std::fopen(path.c_str(), "re");
    if (f == nullptr) continue;
    size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
    std::fclose(f);
    if (auto s = ParseProcStat(std::string_view(buf, n))) out.push_back(*s);
  }
  closedir(dir);
  return out;
}

namespace {
std::vector<const ProcStat*> Subtree(const std::vector<ProcStat>& all, pid_t root) {
  std::unordered_map<pid_t, std::vector<const ProcStat*>> children;
  const ProcStat* root_stat = nullptr;
  for (const ProcStat& s : all) {
    children[s.ppid].push_back(&s);
    if (s.pid == root) root_stat = &s;
  }
  std::vector<const ProcStat*> out;
  if (root_stat == nullptr) return out;
  out.push_back(root_stat);
  for (size_t i = 0; i < out.size(); ++i) {
    auto it = children.find(out[i]->pid);
    if (it == children.end()) continue;
    for (const ProcStat* c : it->second) {
      if (c->pid != out[i]->pid) out.push_back(c);
    }
  }
  return out;
}
}  // namespace

TreeReading ProcTree::Read(pid_t root) const {
  TreeReading r;
  std::vector<ProcStat> all = ReadAll();
  for (const ProcStat* s : Subtree(all, root)) {
    ++r.processes;
    r.cpu_ticks += s->cpu_ticks;
    r.rss_bytes += s->rss_pages * page_bytes_;
    r.ticks_by_pid[s->pid] = s->cpu_ticks;
  }
  return r;
}

std::vector<pid_t> ProcTree::Pids(pid_t root) const {
  std::vector<pid_t> out;
  std::vector<ProcStat> all = ReadAll();
  for (const ProcStat* s : Subtree(all, root)) out.push_back(s->pid);
  return out;
}

double ProcTree::CpuPercent(const TreeReading& before, const TreeReading& after,
                            int64_t elapsed_ns) const {
  if (elapsed_ns <= 0) return 0;
  uint64_t delta = 0;
  for (const auto& [pid, ticks] : after.ticks_by_pid) {
    auto it = before.ticks_by_pid.find(pid);
    uint64_t prev = it == before.ticks_by_pid.end() ? 0 : it->second;
    if (ticks > prev) delta += ticks - prev;
  }
  double cpu_s = static_cast<double>(delta) / static_cast<double>(ticks_per_s_);
  return 100.0 * cpu_s / (static_cast<double>(elapsed_ns) * 1e-9);
}

std::vector<std::pair<pid_t, double>> ProcTree::CpuPercentByPid(const TreeReading& before,
                                                                const TreeReading& after,
                                                                int64_t elapsed_ns) const {
  std::vector<std::pair<pid_t, double>> out;
  if (elapsed_ns <= 0) return out;
  const double seconds = static_cast<double>(elapsed_ns) * 1e-9;
  for (const auto& [pid, ticks] : after.ticks_by_pid) {
    auto it = before.ticks_by_pid.find(pid);
    uint64_t prev = it == before.ticks_by_pid.end() ? 0 : it->second;
    if (ticks <= prev) continue;
    double cpu_s = static_cast<double>(ticks - prev) / static_cast<double>(ticks_per_s_);
    out.emplace_back(pid, 100.0 * cpu_s / seconds);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fastenough::sample
