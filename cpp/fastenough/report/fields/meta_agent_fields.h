// meta.agents[]: each Python process's agent record (report/meta_agent.h),
// declared once: rundir reads agent/<pid>.json through it
// (rundir/agent_records.cc) and the report's meta writes it back (Fields(Meta),
// rank_fields.h). The file is Python's (agent/process_record.py writes it):
// every key is Recorded(), written back only when the file had it, in the
// file's order, with Python's spelling of a float.
#pragma once

#include "fastenough/report/fields/field.h"
#include "fastenough/report/fields/meta_record_fields.h"
#include "fastenough/report/meta_agent.h"

namespace fastenough::report::fields {

template <class V>
void Fields(V& v, Of<MetaAgentDevice>) {
  v.Name("meta_agent_device");
  using T = MetaAgentDevice;
  v.Recorded("device", &T::device, Unit::kNone, "torch's name of the device (cuda:0; cpu)");
  v.Recorded("name", &T::name, Unit::kNone, "the device's name (the processor, for cpu)");
}

template <class V>
void Fields(V& v, Of<MetaAgentCompile>) {
  v.Name("meta_agent_compile");
  using T = MetaAgentCompile;
  v.Recorded("compile_time_ns", &T::compile_time_ns, Unit::kNs,
             "time torch.compile spent compiling; null dynamo never imported");
  v.Recorded("compiles", &T::compiles, Unit::kCount, "frames compiled; null as above");
  v.Recorded("recompiles", &T::recompiles, Unit::kCount,
             "compiles of a frame after its first (guard failures); null as above");
}

template <class V>
void Fields(V& v, Of<MetaAgentWindowSuperseded>) {
  v.Name("meta_agent_window_superseded");
  using T = MetaAgentWindowSuperseded;
  v.Recorded("mode", &T::mode, Unit::kNone, "the mode of the steps the first window recorded");
  v.Recorded("first_step", &T::first_step, Unit::kIndex, "its first step");
  v.Recorded("last_step", &T::last_step, Unit::kIndex, "its last step");
}

template <class V>
void Fields(V& v, Of<MetaAgentWindow>) {
  v.Name("meta_agent_window");
  using T = MetaAgentWindow;
  v.Recorded("trace", &T::trace, Unit::kNone,
             "the trace the window wrote, relative to the run directory; null none");
  v.Recorded("first_step", &T::first_step, Unit::kIndex, "the window's first step");
  v.Recorded("last_step", &T::last_step, Unit::kIndex,
             "its last step; null it recorded none");
  v.Recorded("start_wall_ns", &T::start_wall_ns, Unit::kNs, "wall clock when it started");
  v.Recorded("end_wall_ns", &T::end_wall_ns, Unit::kNs, "wall clock when it stopped");
  v.Recorded("with_stack", &T::with_stack, Unit::kNone, "it recorded Python stacks");
  v.Recorded("record_shapes", &T::record_shapes, Unit::kNone, "it recorded input shapes");
  v.Recorded("mode", &T::mode, Unit::kNone, "the mode of the steps it recorded");
  v.Recorded("skipped", &T::skipped, Unit::kNone, "why no window ran, or why it kept nothing");
  v.Recorded("moved", &T::moved, Unit::kNone, "why the window ran again on other steps");
  v.Recorded("superseded", &T::superseded, Unit::kNone,
             "the first window's steps, when a second one replaced its trace");
  v.Recorded("peak_rss_rise_bytes", &T::peak_rss_rise_bytes, Unit::kBytes,
             "how much the window raised the process's peak RSS; null unknown");
  v.Recorded("stopped_early", &T::stopped_early, Unit::kNone,
             "why the window ended before its steps (the memory bound); null it did not");
  v.Recorded("memory_bound_bytes", &T::memory_bound_bytes, Unit::kBytes,
             "what fastenough's memory bound allowed the process");
  v.Recorded("rss_released_bytes", &T::rss_released_bytes, Unit::kBytes,
             "how much the RSS fell when the profiler's records were freed; null unknown");
  v.Recorded("thread_cpu_ns", &T::thread_cpu_ns, Unit::kNs,
             "the main thread's CPU time over the window's steps");
  v.Recorded("run_delay_ns", &T::run_delay_ns, Unit::kNs,
             "the main thread's wait for a core over the window's steps (Linux's "
             "schedstat run_delay: ready to run, every core taken); null unknown");
  v.Recorded("not_moved", &T::not_moved, Unit::kNone,
             "why the window did not run again where it should have (the memory bound)");
}

template <class V>
void Fields(V& v, Of<MetaAgentDataLoader>) {
  v.Name("meta_agent_dataloader");
  using T = MetaAgentDataLoader;
  v.Recorded("dataset", &T::dataset, Unit::kNone, "the dataset's class; null none");
  v.Recorded("num_workers", &T::num_workers, Unit::kCount, "its worker processes");
  v.Recorded("pin_memory", &T::pin_memory, Unit::kNone, "it pinned its batches");
  v.Recorded("batch_size", &T::batch_size, Unit::kCount, "its batch size; null a batch sampler's own");
  v.Recorded("in_memory", &T::in_memory, Unit::kNone,
             "a TensorDataset: each item is an index into tensors already in memory");
}

template <class V>
void Fields(V& v, Of<MetaAgentSite>) {
  v.Name("meta_agent_site");
  using T = MetaAgentSite;
  v.Recorded("file", &T::file, Unit::kNone, "the program's file");
  v.Recorded("line", &T::line, Unit::kNone, "the line in it");
  v.Recorded("function", &T::function, Unit::kNone, "the function the line is in");
}

template <class V>
void Fields(V& v, Of<MetaAgentStepSplit>) {
  v.Name("meta_agent_step_split");
  using T = MetaAgentStepSplit;
  v.Recorded("steps", &T::steps, Unit::kCount, "timed steady steps of the mode");
  v.Recorded("step_ns", &T::step_ns, Unit::kNs, "their host time, summed");
  v.Recorded("forward_ns", &T::forward_ns, Unit::kNs, "of which in the model's forward");
  v.Recorded("backward_ns", &T::backward_ns, Unit::kNs, "in backward passes");
  v.Recorded("optimizer_ns", &T::optimizer_ns, Unit::kNs, "in optimizer steps");
  v.Recorded("data_ns", &T::data_ns, Unit::kNs, "waiting for a DataLoader's batch");
  v.Recorded("steps_with_forward", &T::steps_with_forward, Unit::kCount,
             "steps that ran a forward of the model");
  v.Recorded("steps_with_backward", &T::steps_with_backward, Unit::kCount,
             "steps that ran a backward pass");
  v.Recorded("steps_with_optimizer", &T::steps_with_optimizer, Unit::kCount,
             "steps that ran an optimizer step");
  v.Recorded("steps_training_flag", &T::steps_training_flag, Unit::kCount,
             "steps whose model was in train mode");
  v.Recorded("steps_grad_enabled", &T::steps_grad_enabled, Unit::kCount,
             "steps whose forward ran with autograd on");
  v.Recorded("data_ns_p10", &T::data_ns_p10, Unit::kNs,
             "the DataLoader wait of nearly every timed step (their 10th percentile)");
}

template <class V>
void Fields(V& v, Of<MetaAgentCpu>) {
  v.Name("meta_agent_cpu");
  using T = MetaAgentCpu;
  v.Recorded("cores", &T::cores, Unit::kCount, "cores the process may run on");
  v.Recorded("torch_threads", &T::torch_threads, Unit::kCount,
             "torch's intra-op threads; null torch not imported");
  v.Recorded("omp_num_threads", &T::omp_num_threads, Unit::kNone,
             "OMP_NUM_THREADS as set; null unset");
}

template <class V>
void Fields(V& v, Of<MetaAgentOwnCostInterval>) {
  v.Name("meta_agent_own_cost_interval");
  using T = MetaAgentOwnCostInterval;
  v.Recorded("steps", &T::steps, Unit::kCount, "the interval's steps");
  v.Recorded("own_ns_per_step", &T::own_ns_per_step, Unit::kNs,
             "the agent's own time a step in it");
  v.Recorded("share", &T::share, Unit::kShare, "that time's share of the steps' time",
             kPythonFloat);
  v.Recorded("records", &T::records, Unit::kCount, "the agent's records at its end");
}

template <class V>
void Fields(V& v, Of<MetaAgentOwnCost>) {
  v.Name("meta_agent_own_cost");
  using T = MetaAgentOwnCost;
  v.Recorded("hook_ns", &T::hook_ns, Unit::kNs, "the agent's own time in the program's steps");
  v.Recorded("hook_calls", &T::hook_calls, Unit::kCount, "its hooks' calls");
  v.Recorded("steps", &T::steps, Unit::kCount, "steps counted");
  v.Recorded("ns_per_step", &T::ns_per_step, Unit::kNs,
             "its own time a step; null no steps");
  v.Recorded("steady_intervals", &T::steady_intervals, Unit::kCount,
             "steady intervals the guard measured");
  v.Recorded("base_ns_per_step", &T::base_ns_per_step, Unit::kNs,
             "the guard's base: its least own time a step in the first intervals");
  v.Recorded("peak_ns_per_step", &T::peak_ns_per_step, Unit::kNs,
             "its most own time a step in an interval");
  v.Recorded("last_interval", &T::last_interval, Unit::kNone,
             "the latest interval; null none yet");
  v.Recorded("records", &T::records, Unit::kCount, "the agent's records (hooks, sites)");
  v.Recorded("base_records", &T::base_records, Unit::kCount, "its records at the base");
  v.Recorded("peak_records", &T::peak_records, Unit::kCount, "its most records");
  v.Recorded("switched_off", &T::switched_off, Unit::kNone,
             "why the guard switched the agent off (its cost grew); null it did not");
}

template <class V>
void Fields(V& v, Of<MetaAgentRecords>) {
  v.Name("meta_agent_records");
  using T = MetaAgentRecords;
  v.Recorded("dir", &T::dir, Unit::kNone, "where fastenough.record wrote");
  v.Recorded("keys", &T::keys, Unit::kCount, "tensors recorded");
  v.Recorded("bytes", &T::bytes, Unit::kBytes, "their bytes");
  v.Recorded("dtypes", &T::dtypes, Unit::kCount, "tensors by dtype", Attr{}, View<AsMap>{});
  v.Recorded("shards", &T::shards, Unit::kCount, "files written");
  v.Recorded("error", &T::error, Unit::kNone, "why the writer stopped; null it did not");
}

template <class V>
void Fields(V& v, Of<MetaAgentPythonRoots>) {
  v.Name("meta_agent_python_roots");
  using T = MetaAgentPythonRoots;
  v.Recorded("user", &T::user, Unit::kNone, "sys.path entries of the program's own code");
  v.Recorded("library", &T::library, Unit::kNone, "of the standard library and site-packages");
  v.Recorded("tool", &T::tool, Unit::kNone, "of fastenough");
}

// The keys in the order the agent writes them (process_record.write).
template <class V>
void Fields(V& v, Of<MetaAgent>) {
  v.Name("meta_agent");
  using T = MetaAgent;
  v.Recorded("pid", &T::pid, Unit::kId, "the process id");
  v.Recorded("rank", &T::rank, Unit::kId, "its rank (RANK); null not a distributed job");
  v.Recorded("local_rank", &T::local_rank, Unit::kId, "LOCAL_RANK; null unset");
  v.Recorded("world_size", &T::world_size, Unit::kCount, "WORLD_SIZE; null unset");
  v.Recorded("role", &T::role, Unit::kNone,
             "main (the program), rank (a job's rank), worker (a DataLoader's) or launcher");
  v.Recorded("python", &T::python, Unit::kNone, "its Python version");
  v.Recorded("torch", &T::torch, Unit::kNone, "torch's version; null the agent never had torch");
  v.Recorded("cuda", &T::cuda, Unit::kNone, "torch.version.cuda; null a build without it");
  v.Recorded("devices", &T::devices, Unit::kNone, "the devices torch saw");
  v.Recorded("compile", &T::compile, Unit::kNone, "torch.compile's work");
  v.Recorded("profile", &T::profile, Unit::kNone,
             "the profiler window: what it recorded, or why not; null none was tried");
  v.Recorded("steps", &T::steps, Unit::kCount, "steps the agent counted");
  v.Recorded("step_source", &T::step_source, Unit::kNone,
             "what marked the current mode's steps (module, optimizer, ...); null none");
  v.Recorded("step_sources", &T::step_sources, Unit::kNone,
             "what marked each mode's steps, by mode; null none", Attr{}, View<AsMap>{});
  v.Recorded("mode_switches", &T::mode_switches, Unit::kCount, "switches between modes");
  v.Recorded("steps_deferred", &T::steps_deferred, Unit::kCount,
             "steps the native hooks counted without running the agent's Python");
  v.Recorded("batch_dim", &T::batch_dim, Unit::kIndex,
             "the input dimension items are counted along (1: sequence-first models)");
  v.Recorded("dataloaders", &T::dataloaders, Unit::kNone, "the DataLoaders the program iterated");
  v.Recorded("dataloader_site", &T::dataloader_site, Unit::kNone,
             "the user's line iterating a DataLoader, by mode", Attr{}, View<AsMap>{});
  v.Recorded("step_split", &T::step_split, Unit::kNone,
             "host time of each mode's timed steady steps, by part", Attr{}, View<AsMap>{});
  v.Recorded("model_call_site", &T::model_call_site, Unit::kNone,
             "the user's line calling the main model, by mode", Attr{}, View<AsMap>{});
  v.Recorded("model_swaps", &T::model_swaps, Unit::kCount, "times the main model was replaced");
  v.Recorded("tool_pause_ns", &T::tool_pause_ns, Unit::kNs,
             "time the loop stood still for the tool (phase edges, the window's start and stop)");
  v.Recorded("tool_pauses", &T::tool_pauses, Unit::kCount, "those pauses");
  v.Recorded("profile_cost_ns", &T::profile_cost_ns, Unit::kNs,
             "the profiler window's own time (start, steps, stop, export)");
  v.Recorded("cpu", &T::cpu, Unit::kNone, "the CPU budget");
  v.Recorded("boot_mono_ns", &T::boot_mono_ns, Unit::kNs,
             "monotonic clock when the agent started");
  v.Recorded("boot_wall_ns", &T::boot_wall_ns, Unit::kNs, "wall clock when it started");
  v.Recorded("agent_error", &T::agent_error, Unit::kNone,
             "why the agent switched itself off; null it ran to the end");
  v.Recorded("own_cost", &T::own_cost, Unit::kNone, "the agent's own cost and its guard");
  v.Recorded("torch_attach", &T::torch_attach, Unit::kNone,
             "how torch reached the agent (import, before-agent, late); null never");
  v.Recorded("torch_imported_unseen", &T::torch_imported_unseen, Unit::kNone,
             "the program imported torch in a way the agent did not see");
  v.Recorded("checks", &T::checks, Unit::kNone, "the checks ran");
  v.Recorded("timing_only", &T::timing_only, Unit::kNone,
             "--timing-only: no checks and no profiler window, by request");
  v.Recorded("records", &T::records, Unit::kNone,
             "what fastenough.record kept; null it was not used");
  v.Recorded("python_roots", &T::python_roots, Unit::kNone,
             "the program's sys.path by kind; null torch never reached the agent");
  v.Recorded("libraries", &T::libraries, Unit::kNone,
             "versions of the libraries the program imported, by module", Attr{}, View<AsMap>{});
  v.Recorded("main_started", &T::main_started, Unit::kNone,
             "the program's first line ran (false: python exited before it)");
}

}  // namespace fastenough::report::fields
