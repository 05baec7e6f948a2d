#include "fastenough/sample/npu_smi.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sys/wait.h>

namespace fastenough::sample {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// "| a | b | c |" -> {"a","b","c"}; lines not framed by '|' give {}.
std::vector<std::string_view> Cells(std::string_view line) {
  line = Trim(line);
  std::vector<std::string_view> out;
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return out;
  line = line.substr(1, line.size() - 2);
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == '|') {
      out.push_back(Trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

std::optional<double> Number(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s == "NA" || s == "N/A" || s == "-") return std::nullopt;
  std::string t(s);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0') return std::nullopt;
  return v;
}

bool IsInteger(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "3161 / 65536" pairs from the tokens after AICore%: returns (used, total) in MB.
std::vector<std::pair<std::optional<double>, std::optional<double>>> Pairs(
    const std::vector<std::string_view>& toks, size_t from) {
  std::vector<std::pair<std::optional<double>, std::optional<double>>> out;
  size_t i = from;
  while (i + 2 < toks.size()) {
    if (toks[i + 1] == "/") {
      out.emplace_back(Number(toks[i]), Number(toks[i + 2]));
      i += 3;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

StatusOr<NpuSmiTable> ParseNpuSmiInfo(std::string_view text) {
  NpuSmiTable table;
  bool header_has_hbm = false;
  bool in_process_table = false;
  std::optional<size_t> pending;  // index of a device whose second row is expected
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.find("HBM-Usage") != std::string_view::npos) header_has_hbm = true;
    if (line.find("Process id") != std::string_view::npos) {
      in_process_table = true;
      pending.reset();
      continue;
    }
    std::vector<std::string_view> cells = Cells(line);
    if (cells.size() < 3) {
      if (nl == text.size()) break;
      continue;
    }
    if (in_process_table) {
      // | NPU  Chip | Process id | Process name | Process memory(MB) |
      if (cells.size() < 4) continue;
      std::vector<std::string_view> first = Tokens(cells[0]);
      if (first.empty() || !IsInteger(first[0]) || !IsInteger(cells[1])) continue;
      int npu = std::atoi(std::string(first[0]).c_str());
      for (size_t d = 0; d < table.devices.size(); ++d) {
        if (table.devices[d].index != npu) continue;
        DeviceProcess p;
        p.pid = static_cast<pid_t>(std::atol(std::string(cells[1]).c_str()));
        if (auto mb = Number(cells[3])) p.used_bytes = static_cast<int64_t>(*mb * 1024 * 1024);
        table.readings[d].processes.push_back(p);
      }
      continue;
    }
    std::vector<std::string_view> first = Tokens(cells[0]);
    std::vector<std::string_view> third = Tokens(cells[2]);
    if (pending) {
      // Second row: chip [device] | bus id | AICore% used / total [used / total]
      DeviceReading& r = table.readings[*pending];
      table.devices[*pending].bus_id = std::string(cells[1]);
      if (!third.empty()) {
        if (auto u = Number(third[0])) r.util_pct = *u;
      }
      auto pairs = Pairs(third, 1);
      std::optional<std::pair<std::optional<double>, std::optional<double>>> mem;
      if (header_has_hbm && pairs.size() >= 2 && pairs[1].second && *pairs[1].second > 0) {
        mem = pairs[1];
      } else if (!pairs.empty()) {
        mem = pairs[0];
      }
      if (mem) {
        constexpr double kMiB = 1024.0 * 1024.0;
        if (mem->first) r.mem_used_bytes = static_cast<int64_t>(*mem->first * kMiB);
        if (mem->second && *mem->second > 0) {
          r.mem_total_bytes = static_cast<int64_t>(*mem->second * kMiB);
          table.devices[*pending].mem_total_bytes = r.mem_total_bytes;
        }
      }
      pending.reset();
      continue;
    }
    // First row: "<npu id> <name>" | health | power temp ...
    if (first.size() >= 2 && IsInteger(first[0]) && !third.empty()) {
      DeviceInfo info;
      info.index = std::atoi(std::string(first[0]).c_str());
      info.name = std::string(first[1]);
      DeviceReading r;
      r.index = info.index;
      if (auto w = Number(third[0])) r.power_w = *w;
      table.devices.push_back(std::move(info));
      table.readings.push_back(std::move(r));
      pending = table.devices.size() - 1;
    }
    if (nl == text.size()) break;
  }
  if (table.devices.empty()) return DataLoss("npu-smi output has no device rows");
  return table;
}

StatusOr<std::string> RunCommand(const std::string& command) {
  FILE* p = popen((command + " 2>/dev/null").c_str(), "re");
  if (p == nullptr) return NotFound("cannot run " + command);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
    return NotFound(command + " failed (status " + std::to_string(rc) + ")");
  }
  return out;
}

std::string NpuSmiBackend::DefaultCommand() {
  const char* env = std::getenv("FASTENOUGH_NPU_SMI");
  return env != nullptr && env[0] != '\0' ? env : "npu-smi info";
}

StatusOr<std::unique_ptr<NpuSmiBackend>> NpuSmiBackend::Load(const std::string& command) {
  StatusOr<std::string> out = RunCommand(command);
  if (!out.ok()) return out.status();
  StatusOr<NpuSmiTable> table = ParseNpuSmiInfo(*out);
  if (!table.ok()) return NotFound("npu-smi shows no device: " + table.status().message());
  std::unique_ptr<NpuSmiBackend> b(new NpuSmiBackend());
  b->command_ = command;
  b->devices_ = std::move(table->devices);
  return b;
}

std::vector<DeviceReading> NpuSmiBackend::Read() {
  StatusOr<std::string> out = RunCommand(command_);
  if (!out.ok()) return {};
  StatusOr<NpuSmiTable> table = ParseNpuSmiInfo(*out);
  if (!table.ok()) return {};
  return std::move(table->readings);
}

}  // namespace fastenough::sample
