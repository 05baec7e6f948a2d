#include "fastenough/lint/lint_files.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "fastenough/lint/source_lint.h"
#include "fastenough/pysrc/arena.h"

namespace fastenough::lint {

namespace {

// The whole file, or the reason it cannot be read (strerror's text, as
// Python's OSError.strerror gives it).
bool ReadWhole(const std::string& path, std::string* data, std::string* why) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *why = std::strerror(errno);
    return false;
  }
  data->clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data->append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) {
    *why = std::strerror(err);
    return false;
  }
  return true;
}

struct WorkerResult {
  std::vector<LintFinding> findings;
  std::vector<FileError> errors;
  uint64_t bytes = 0, parse_ns = 0, analyse_ns = 0;
};

}  // namespace

FilesLintResult LintFiles(const std::vector<std::string>& paths, const RuleSelection& selection,
                          const LintFilesOptions& options) {
  int threads = options.threads > 0 ? options.threads
                                    : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::clamp<int>(threads, 1, std::max<int>(1, static_cast<int>(paths.size())));
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done{0};
  std::vector<WorkerResult> results(threads);

  auto work = [&](WorkerResult& r) {
    pysrc::Arena arena;
    std::string data, why;
    for (size_t i = next++; i < paths.size(); i = next++) {
      const std::string& path = paths[i];
      if (!ReadWhole(path, &data, &why)) {
        r.errors.push_back(FileError{path, 0, "cannot read: " + why + ": skipped"});
      } else {
        r.bytes += data.size();
        LintOutput out = LintSource(path, data, selection, arena);
        r.parse_ns += out.parse_ns;
        r.analyse_ns += out.analyse_ns;
        if (out.error) r.errors.push_back(std::move(*out.error));
        std::move(out.findings.begin(), out.findings.end(), std::back_inserter(r.findings));
      }
      const uint64_t n = ++done;
      if (options.progress) options.progress(n, paths.size());
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, std::ref(results[t]));
  work(results[0]);
  for (std::thread& t : pool) t.join();

  FilesLintResult out;
  out.files = paths.size();
  for (WorkerResult& r : results) {
    out.bytes += r.bytes;
    out.parse_ns += r.parse_ns;
    out.analyse_ns += r.analyse_ns;
    std::move(r.findings.begin(), r.findings.end(), std::back_inserter(out.findings));
    std::move(r.errors.begin(), r.errors.end(), std::back_inserter(out.errors));
  }
  std::sort(out.findings.begin(), out.findings.end());
  std::sort(out.errors.begin(), out.errors.end());
  return out;
}

}  // namespace fastenough::lint
