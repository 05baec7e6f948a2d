// Each part of the binding registers its functions from its own file.
#pragma once

#include <nanobind/nanobind.h>

namespace fastenough::bindings {
void RegisterTrace(nanobind::module_& m);   // trace_bindings.cc
void RegisterSample(nanobind::module_& m);  // sample_bindings.cc
void RegisterRundir(nanobind::module_& m);  // rundir_bindings.cc
void RegisterChecks(nanobind::module_& m);  // checks_bindings.cc
void RegisterStepHook(nanobind::module_& m);  // step_hook_bindings.cc
void RegisterDecide(nanobind::module_& m);  // decide_bindings.cc
void RegisterStats(nanobind::module_& m);  // stats_bindings.cc
void RegisterCompare(nanobind::module_& m);  // compare_bindings.cc
void RegisterDiff(nanobind::module_& m);  // diff_bindings.cc
void RegisterPysrc(nanobind::module_& m);  // pysrc_bindings.cc
void RegisterLint(nanobind::module_& m);  // lint_bindings.cc
void RegisterCallThrough(nanobind::module_& m);  // call_through_bindings.cc
void RegisterUnits(nanobind::module_& m);  // units_bindings.cc
}  // namespace fastenough::bindings
