// {"user": [dirs], "library": [dirs], "tool": [dirs]} from Python (the traced
// program's sys.path by kind, fastenough.frames.current_roots()) as
// analysis::FrameRoots; None or a missing key gives empty lists.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>
#include <vector>

#include "fastenough/analysis/frame_kinds.h"

namespace fastenough::bindings {

inline analysis::FrameRoots FrameRootsFrom(nanobind::handle roots) {
  analysis::FrameRoots out;
  if (roots.is_none() || !nanobind::isinstance<nanobind::dict>(roots)) return out;
  nanobind::dict d = nanobind::borrow<nanobind::dict>(roots);
  auto list = [&](const char* key, std::vector<std::string>* into) {
    if (!d.contains(key)) return;
    for (nanobind::handle h : d[key]) {
      if (nanobind::isinstance<nanobind::str>(h)) into->push_back(nanobind::cast<std::string>(h));
    }
  };
  list("user", &out.user);
  list("library", &out.library);
  list("tool", &out.tool);
  return out;
}

}  // namespace fastenough::bindings
