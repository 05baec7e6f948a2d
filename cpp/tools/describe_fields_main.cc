// Prints the declared fields of fastenough's JSON documents as data
// (report/fields/declared.h), one JSON array of {path, type, unit, nullable,
// kind, meaning}: what the JSON Schema, docs/report-schema.md's tables and a
// typed model are to be generated from.
//
//   describe_fields rank-summary | report
#include <cstdio>
#include <string_view>

#include "fastenough/report/fields/declared.h"
#include "fastenough/report/json_writer.h"

int main(int argc, char** argv) {
  using namespace fastenough::report;
  const std::string_view which = argc == 2 ? argv[1] : "";
  if (which != "rank-summary" && which != "report") {
    std::fprintf(stderr, "usage: describe_fields rank-summary|report\n");
    return 2;
  }
  const auto rows = which == "report" ? fields::DescribeReport() : fields::DescribeRankSummary();
  JsonWriter w(1);
  w.BeginArray();
  for (const auto& f : rows) {
    w.BeginObject();
    w.Field("path", f.path);
    w.Field("type", f.type);
    w.Field("unit", f.unit);
    w.Field("nullable", f.nullable);
    w.Field("kind", f.kind);
    w.Field("meaning", f.meaning);
    w.EndObject();
  }
  w.EndArray();
  std::printf("%s\n", w.str().c_str());
  return 0;
}
