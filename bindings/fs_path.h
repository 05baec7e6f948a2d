// Paths cross the binding as the bytes the operating system uses, never as
// UTF-8 text: a directory named b"exp\xff" is a valid path that Python holds as
// "exp\udcff" (os.fsdecode's surrogateescape). nanobind's std::filesystem::path
// caster takes str, bytes or os.PathLike through PyUnicode_FSConverter, which
// turns those surrogates back into the original bytes; std::string would refuse
// them with a TypeError.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/filesystem.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fastenough::bindings {

using FsPath = std::filesystem::path;

inline std::vector<std::string> NativePaths(const std::vector<FsPath>& paths) {
  std::vector<std::string> out;
  out.reserve(paths.size());
  for (const FsPath& p : paths) out.push_back(p.native());
  return out;
}

// A path the core produced, back to Python as os.fsdecode would give it.
inline nanobind::str FsStr(const std::string& path) {
  return nanobind::steal<nanobind::str>(
      PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size())));
}

}  // namespace fastenough::bindings
