// The declared fields (field.h) of a finding, as the report's findings[] and
// a rank summary's write it (report_json.cc WriteFinding; rank_summary_json.cc
// reads it back). Not written: the trace marks and claims (`--annotate`).
#pragma once

#include <simdjson.h>

#include <limits>
#include <optional>
#include <string>
#include <variant>

#include "fastenough/findings/finding.h"
#include "fastenough/report/fields/field.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"

namespace fastenough::report::fields {

template <class V>
void Fields(V& v, Of<findings::Location>) {
  v.Name("location");
  using T = findings::Location;
  // Every key is optional: the report writes those that are set.
  v.FieldIf("file", &T::file, Unit::kNone, "the source file", [](const T& l) { return !l.file.empty(); });
  v.FieldIf("line", &T::line, Unit::kNone, "the line of the call in `file`",
            [](const T& l) { return !l.file.empty() && l.line > 0; });
  v.FieldIf("def_line", &T::def_line, Unit::kNone,
            "the line of the function's def, when only that is known",
            [](const T& l) { return !l.file.empty() && l.def_line > 0 && l.line <= 0; });
  v.FieldIf("inside", &T::inside, Unit::kNone, "the function the line is in",
            [](const T& l) { return !l.inside.empty(); });
  v.FieldIf("function", &T::function, Unit::kNone, "a Python function",
            [](const T& l) { return !l.function.empty(); });
  v.FieldIf("op", &T::op, Unit::kNone, "an op's name", [](const T& l) { return !l.op.empty(); });
  v.FieldIf("kernel", &T::kernel, Unit::kNone, "a kernel's name",
            [](const T& l) { return !l.kernel.empty(); });
  v.FieldIf("stream", &T::stream, Unit::kId, "a stream", [](const T& l) { return l.stream >= 0; });
  v.FieldIf("rank", &T::rank, Unit::kId, "a rank", [](const T& l) { return l.rank >= 0; });
}

template <class V>
void Fields(V& v, Of<findings::Saving>) {
  using T = findings::Saving;
  v.Field("per_step_ns", &T::per_step_ns, Unit::kNs, "what fixing it saves per step; null unknown",
          kNullIfNegative);
  v.Field("share_of_step", &T::share_of_step, Unit::kShare,
          "per_step_ns as a share of the steady step; null unknown", kNullIfNegative);
  v.Field("total_ns", &T::total_ns, Unit::kNs, "over the whole trace window; null unknown",
          kNullIfNegative);
  v.Field("upper_bound", &T::upper_bound, Unit::kNone, "an upper bound from measured time");
}

template <class V>
void Fields(V& v, Of<findings::SourceSite>) {
  using T = findings::SourceSite;
  v.Field("file", &T::file, Unit::kNone, "the source file lint matched");
  v.Field("line", &T::line, Unit::kNone, "its line", Attr{.least = "1"});
  v.Field("rule", &T::rule, Unit::kNone, "the lint rule");
}

template <class V>
void Fields(V& v, Of<findings::Finding>) {
  v.Name("finding");
  using T = findings::Finding;
  v.Field("code", &T::code, Unit::kNone, "the finding's code (docs/findings.md)",
          Attr{.pattern = "^[a-z0-9]+(-[a-z0-9]+)*$"});
  v.Custom(
      "verdict", "string", Unit::kNone, "avoidable | bounded | insufficient-evidence",
      [](JsonWriter& w, const T& f, const WriteContext&) { w.String(findings::VerdictName(f.verdict)); },
      [](ObjectReader& o, T& f) {
        const std::string name = o.String("verdict");
        for (auto verdict : {findings::Verdict::kAvoidable, findings::Verdict::kBounded,
                             findings::Verdict::kInsufficientEvidence}) {
          if (name == findings::VerdictName(verdict)) return void(f.verdict = verdict);
        }
        o.Fail("verdict", "unknown verdict '" + name + "'");
      },
      OneOf("avoidable|bounded|insufficient-evidence"));
  v.Field("title", &T::title, Unit::kNone, "one line", Attr{.non_empty = true});
  v.Field("source", &T::source, Unit::kNone, "trace | agent | lint | sampler",
          OneOf("trace|agent|sampler|lint"));
  // Typed as the JSON is: an integer, a number (null: a number that was not
  // finite), a string; the names are each code's (docs/findings.md).
  v.Field("evidence", &T::evidence, Unit::kNone,
          "named measured figures; the unit is in the key (_ns, _bytes, _share, _per_step); "
          "docs/findings.md names each code's",
          Attr{}, View<AsMap>{});
  v.Field("where", &T::where, Unit::kNone, "where it is, in the program and in the trace");
  v.Field("saving", &T::saving, Unit::kNone, "what fixing it saves");
  v.Field("action", &T::action, Unit::kNone, "what to do", Attr{.non_empty = true});
  // Findings whose savings count some of the same time: not to be added up.
  v.FieldIf("overlaps", &T::overlaps, Unit::kNone, "codes of findings whose savings overlap this one's",
            [](const T& f) { return !f.overlaps.empty(); });
  v.Field("rank", &T::rank, Unit::kId, "the rank it was found on; null across ranks",
          Attr{.null = Null::kNegative, .least = "0"});
  v.FieldIf("also_in_source", &T::also_in_source, Unit::kNone,
            "where lint matched the same pattern in the source (a run's report)",
            [](const T& f) { return !f.also_in_source.empty(); });
}

}  // namespace fastenough::report::fields
