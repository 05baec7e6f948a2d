// Progress callbacks from the core (worker threads, GIL released) into Python:
// at most ~10 calls a second, always the final one, and a callback that
// raises is reported as unraisable instead of breaking the analysis.
#pragma once

#include <nanobind/nanobind.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

namespace fastenough::bindings {

class ProgressRelay {
 public:
  explicit ProgressRelay(nanobind::object callback) : callback_(std::move(callback)) {}
  ProgressRelay(const ProgressRelay&) = delete;
  ProgressRelay& operator=(const ProgressRelay&) = delete;

  // A function for the core's options; empty when no callback was given. The
  // relay must outlive the call it is passed to.
  std::function<void(uint64_t, uint64_t)> Function() {
    if (callback_.is_none()) return {};
    return [this](uint64_t done, uint64_t total) { Call(done, total); };
  }

 private:
  void Call(uint64_t done, uint64_t total) {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    nanobind::gil_scoped_acquire gil;
    try {
      callback_(done, total);
    } catch (nanobind::python_error& e) {
      e.discard_as_unraisable("fastenough progress callback");
    }
  }
  nanobind::object callback_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point last_ =
      std::chrono::steady_clock::now() - std::chrono::seconds(1);
};

}  // namespace fastenough::bindings
