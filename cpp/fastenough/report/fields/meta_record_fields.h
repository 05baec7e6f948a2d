// meta.json's record (report/meta_record.h), declared once: the report's
// meta writes these keys (Fields(Meta), rank_fields.h) and rundir reads
// meta.json through them (report::MetaRecordFromJson). The file is Python's
// (python/fastenough/supervisor/session.py writes it), so every key is
// Recorded(): written back only when the file had it, and its floats are
// spelt as Python spells them, so the report keeps the file's text.
#pragma once

#include "fastenough/report/fields/field.h"
#include "fastenough/report/meta_record.h"

namespace fastenough::report::fields {

inline constexpr Attr kPythonFloat{.python_float = true};
// A value written compact on one line in the indented report (the agents'
// records, meta.agents). A Recorded() key needs none: a record's keys are
// written compact, in the file's order (WriteFields).
inline constexpr Attr kOneLine{.one_line = true};

template <class V>
void Fields(V& v, Of<MetaGit>) {
  v.Name("meta_git");
  using T = MetaGit;
  v.Recorded("revision", &T::revision, Unit::kNone, "git rev-parse HEAD of the command's directory");
  v.Recorded("dirty", &T::dirty, Unit::kNone,
             "tracked files had uncommitted changes; null git status failed");
}

template <class V>
void Fields(V& v, Of<MetaAgentOpts>) {
  v.Name("meta_agent_opts");
  using T = MetaAgentOpts;
  v.Recorded("trace", &T::trace, Unit::kNone, "a profiler window was asked for");
  v.Recorded("trace_steps", &T::trace_steps, Unit::kCount, "steps in the profiler window");
  v.Recorded("warmup_steps", &T::warmup_steps, Unit::kCount,
             "steps counted as warmup before steady state");
  v.Recorded("probe", &T::probe, Unit::kNone, "the checks' probes were on (--probe)");
  v.Recorded("trace_gloo", &T::trace_gloo, Unit::kNone, "gloo (CPU) jobs recorded a trace");
  v.Recorded("trace_shapes", &T::trace_shapes, Unit::kNone, "the trace recorded input shapes");
  v.Recorded("timing_only", &T::timing_only, Unit::kNone,
             "--timing-only: steps timed, no checks and no profiler window");
  v.Recorded("trace_memory_mib", &T::trace_memory_mib, Unit::kNone,
             "--trace-memory: the most the profiler window may raise the peak RSS by, MiB",
             kPythonFloat);
  v.Recorded("analyze_in_job", &T::analyze_in_job, Unit::kNone,
             "--analyze-in-job: each rank analysed its own trace");
  v.Recorded("in_job_timeout", &T::in_job_timeout, Unit::kNone,
             "--in-job-timeout: the most seconds a rank waited for the others' summaries",
             kPythonFloat);
}

template <class V>
void Fields(V& v, Of<MetaSamplerBackend>) {
  v.Name("meta_sampler_backend");
  using T = MetaSamplerBackend;
  v.Recorded("name", &T::name, Unit::kNone, "nvml, npu-smi or proc");
  v.Recorded("present", &T::present, Unit::kNone, "the backend was found");
  v.Recorded("detail", &T::detail, Unit::kNone, "what was found, or why not");
}

template <class V>
void Fields(V& v, Of<MetaSampler>) {
  v.Name("meta_sampler");
  using T = MetaSampler;
  v.Recorded("hz", &T::hz, Unit::kNone, "samples a second asked for (--hz)", kPythonFloat);
  v.Recorded("backends", &T::backends, Unit::kNone, "what the sampler could read");
  v.Recorded("error", &T::error, Unit::kNone, "why the sampler did not start");
  v.Recorded("ticks", &T::ticks, Unit::kCount, "samples taken (the run ended)");
}

template <class V>
void Fields(V& v, Of<MetaDevice>) {
  v.Name("meta_device");
  using T = MetaDevice;
  v.Recorded("source", &T::source, Unit::kNone, "the backend that saw it (nvml, npu-smi)");
  v.Recorded("index", &T::index, Unit::kId, "the backend's index of the device");
  v.Recorded("name", &T::name, Unit::kNone, "the device's name");
  v.Recorded("uuid", &T::uuid, Unit::kNone, "the device's UUID; null unknown");
  v.Recorded("bus_id", &T::bus_id, Unit::kNone, "the device's PCI bus id; null unknown");
  v.Recorded("mem_total_bytes", &T::mem_total_bytes, Unit::kBytes,
             "the device's memory; null unknown");
}

template <class V>
void Fields(V& v, Of<MetaVisibleDevices>) {
  v.Name("meta_visible_devices");
  using T = MetaVisibleDevices;
  v.Recorded("variable", &T::variable, Unit::kNone,
             "the variable that picks the devices (CUDA_VISIBLE_DEVICES, ...)");
  v.Recorded("value", &T::value, Unit::kNone, "its value; null not set");
  v.Recorded("physical", &T::physical, Unit::kId,
             "the physical index of each device the program sees, in its order");
}

template <class V>
void Fields(V& v, Of<MetaOtherProcess>) {
  v.Name("meta_other_process");
  using T = MetaOtherProcess;
  v.Recorded("source", &T::source, Unit::kNone, "the backend that saw it (nvml, npu-smi)");
  v.Recorded("device", &T::device, Unit::kId, "the device it used (the backend's index)");
  v.Recorded("pid", &T::pid, Unit::kId, "its process id");
  v.Recorded("max_used_bytes", &T::max_used_bytes, Unit::kBytes,
             "the most device memory it was seen using; null unknown");
  v.Recorded("ticks_seen", &T::ticks_seen, Unit::kCount, "samples that saw it");
}

// The keys in the order the supervisor writes them (a file in that order
// comes back byte for byte: lists and objects on one line, compact).
template <class V>
void Fields(V& v, Of<MetaRecord>) {
  using T = MetaRecord;
  v.Recorded("schema", &T::schema, Unit::kNone,
             "fastenough run only: meta.json's schema (fastenough.meta/1)");
  v.Recorded("fastenough_version", &T::fastenough_version, Unit::kNone,
             "fastenough run only: the version that ran the command");
  v.Recorded("command", &T::command, Unit::kNone, "fastenough run only: the command, as argv");
  v.Recorded("cwd", &T::cwd, Unit::kNone, "fastenough run only: where the command ran");
  v.Recorded("git", &T::git, Unit::kNone,
             "fastenough run only: the work tree's revision; null not in a git work tree");
  v.Recorded("host", &T::host, Unit::kNone, "fastenough run only: the host's name");
  v.Recorded("supervisor_python", &T::supervisor_python, Unit::kNone,
             "fastenough run only: the Python version of the supervisor");
  v.Recorded("agent_opts", &T::agent_opts, Unit::kNone,
             "fastenough run only: what the run asked of the agent");
  v.Recorded("start_wall_ns", &T::start_wall_ns, Unit::kNs,
             "fastenough run only: wall clock when the command started");
  v.Recorded("end_wall_ns", &T::end_wall_ns, Unit::kNs,
             "fastenough run only: wall clock when it ended; null it never ended");
  v.Recorded("exit_status", &T::exit_status, Unit::kNone,
             "fastenough run only: its exit status; null killed by a signal or never ended");
  v.Recorded("signal", &T::signal, Unit::kNone,
             "fastenough run only: the signal that ended it; null none");
  v.Recorded("interrupted", &T::interrupted, Unit::kNone,
             "fastenough run only: the run was stopped (a signal reached the supervisor)");
  v.Recorded("sampler", &T::sampler, Unit::kNone,
             "fastenough run only: the device and process sampler");
  v.Recorded("devices", &T::devices, Unit::kNone,
             "fastenough run only: the devices the sampler saw (absent: it did not start)");
  v.Recorded("visible_devices", &T::visible_devices, Unit::kNone,
             "fastenough run only: the program's devices as physical ones; null no devices");
  v.Recorded("other_processes", &T::other_processes, Unit::kNone,
             "fastenough run only, once it ended: processes outside the run seen on a device");
}

}  // namespace fastenough::report::fields
