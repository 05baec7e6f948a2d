// Sampler entry points (device and process sampling for `fastenough run`).
// The sampler runs on its own C++ thread; start/stop release the GIL (start
// may dlopen NVML and run npu-smi, stop joins the thread).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "fastenough/sample/sampler.h"
#include "fs_path.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {

using sample::Sampler;

void CheckStatus(const Status& s) {
  if (!s.ok()) ThrowStatus(s);
}

nb::list Backends(const Sampler& s) {
  nb::list out;
  for (const auto& b : s.backends()) {
    nb::dict d;
    d["name"] = b.name;
    d["present"] = b.present;
    d["detail"] = b.detail;
    out.append(d);
  }
  return out;
}

nb::list Devices(const Sampler& s) {
  nb::list out;
  for (const auto& [source, info] : s.Devices()) {
    nb::dict d;
    d["source"] = source;
    d["index"] = info.index;
    d["name"] = info.name;
    d["uuid"] = info.uuid.empty() ? nb::none() : nb::cast(info.uuid);
    d["bus_id"] = info.bus_id.empty() ? nb::none() : nb::cast(info.bus_id);
    d["mem_total_bytes"] = info.mem_total_bytes ? nb::cast(*info.mem_total_bytes) : nb::none();
    out.append(d);
  }
  return out;
}

nb::list Others(const Sampler& s) {
  nb::list out;
  for (const auto& p : s.OtherProcesses()) {
    nb::dict d;
    d["source"] = p.source;
    d["device"] = p.device;
    d["pid"] = static_cast<int64_t>(p.pid);
    d["max_used_bytes"] = p.max_used_bytes >= 0 ? nb::cast(p.max_used_bytes) : nb::none();
    d["ticks_seen"] = p.ticks_seen;
    out.append(d);
  }
  return out;
}

}  // namespace

void RegisterSample(nb::module_& m) {
  nb::class_<Sampler>(m, "Sampler",
                      "Samples devices (NVML, npu-smi) and a process tree (procfs) into a CSV "
                      "on a C++ thread of its own.")
      .def(
          "__init__",
          [](Sampler* self, const FsPath& csv_path, double hz, bool nvml, bool npu_smi,
             const std::string& nvml_library, const std::string& npu_smi_command) {
            sample::SamplerOptions o;
            o.csv_path = csv_path.native();
            o.hz = hz;
            o.nvml = nvml;
            o.npu_smi = npu_smi;
            o.nvml_library = nvml_library;
            o.npu_smi_command = npu_smi_command;
            new (self) Sampler(std::move(o));
          },
          nb::arg("csv_path"), nb::arg("hz") = 2.0, nb::arg("nvml") = true,
          nb::arg("npu_smi") = true, nb::arg("nvml_library") = "",
          nb::arg("npu_smi_command") = "")
      .def("start",
           [](Sampler& s) {
             Status st;
             {
               nb::gil_scoped_release release;
               st = s.Start();
             }
             CheckStatus(st);
           })
      .def("set_root_pid", [](Sampler& s, int64_t pid) { s.SetRootPid(static_cast<pid_t>(pid)); },
           nb::arg("pid"))
      .def("stop",
           [](Sampler& s) {
             Status st;
             {
               nb::gil_scoped_release release;
               st = s.Stop();
             }
             CheckStatus(st);
           })
      .def("backends", &Backends, "[{name, present, detail}] for nvml, npu-smi and proc")
      .def("devices", &Devices, "[{source, index, name, uuid, bus_id, mem_total_bytes}]")
      .def("other_processes", &Others,
           "[{source, device, pid, max_used_bytes, ticks_seen}]: processes outside the sampled "
           "tree seen on a device")
      .def_prop_ro("ticks", [](const Sampler& s) { return s.ticks(); });
}

}  // namespace fastenough::bindings
