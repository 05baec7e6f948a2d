// Status / StatusOr: the error model of the core. No exceptions cross a core
// API; the binding turns a non-ok Status into a Python exception.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fastenough {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from the user (flag, value)
  kNotFound,         // a file or a named thing is missing
  kDataLoss,         // input is damaged beyond recovery (structural)
  kUnimplemented,    // a format or feature this build does not handle
  kResourceExhausted,  // the input is too large (a compression bomb, memory)
  kInternal,         // a bug in fastenough
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

const char* StatusCodeName(StatusCode code);

// Holds either a value or a non-ok Status.
template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace fastenough

#define FE_RETURN_IF_ERROR(expr)            \
  do {                                      \
    ::fastenough::Status fe_status_ = (expr); \
    if (!fe_status_.ok()) return fe_status_; \
  } while (0)
