#include "fastenough/lint/lint_files.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "fastenough/lint/source_lint.h"
#include "fastenough/pysrc/arena.h"
#include "fastenough/util/file_bytes.h"

namespace fastenough::lint {

namespace {

// Python sources larger than this are not source anyone wrote (the largest
// generated modules in site-packages are a few MiB): skipped unread.
constexpr uint64_t kMaxSourceBytes = uint64_t{64} << 20;

// The whole file by the rules every input follows (util/file_bytes.h: regular
// files only, opened without blocking, at most kMaxSourceBytes), or why not.
bool ReadWhole(const std::string& path, std::string* data, std::string* why) {
  Status st = ReadRegularFile(path, kMaxSourceBytes, data);
  if (st.ok()) return true;
  *why = st.message();
  return false;
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
        // "cannot read: not a regular file (a FIFO or pipe): skipped"
        const bool says_cannot = why.rfind("cannot ", 0) == 0;
        r.errors.push_back(FileError{path, 0, (says_cannot ? "" : "cannot read: ") + why + ": skipped"});
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
