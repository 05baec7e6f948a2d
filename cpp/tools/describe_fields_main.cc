// Prints the declared fields of fastenough's JSON documents as data
// (report/fields/declared.h), one JSON array of {path, type, unit, nullable,
// kind, meaning}: what the JSON Schema, docs/report-schema.md's tables and a
// typed model are to be generated from (also _core.describe_fields).
//
//   describe_fields rank-summary | report
#include <cstdio>

#include "fastenough/report/fields/declared.h"

int main(int argc, char** argv) {
  const auto json = fastenough::report::fields::DescribeFieldsJson(argc == 2 ? argv[1] : "");
  if (!json.ok()) {
    std::fprintf(stderr, "describe_fields: %s\nusage: describe_fields rank-summary|report\n",
                 json.status().message().c_str());
    return 2;
  }
  std::fputs(json.value().c_str(), stdout);
  return 0;
}
