// Serialises a Report as fastenough.report/1 JSON (the one place that does).
#pragma once

#include <string>

#include "fastenough/report/report.h"

namespace fastenough::report {

std::string ReportToJson(const Report& report);

}  // namespace fastenough::report
