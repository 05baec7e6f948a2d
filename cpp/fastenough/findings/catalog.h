// The finding catalog (docs/findings.md): for each stable code its title
// and the action text a researcher reads. Detectors take title and action
// from here so that wording lives in one place.
#pragma once

#include <string_view>
#include <vector>

#include "fastenough/findings/finding.h"

namespace fastenough::findings {

struct CatalogEntry {
  std::string_view code;
  std::string_view source;  // trace | agent | lint | sampler (the first that applies)
  std::string_view title;
  std::string_view action;
  // The waste changes the program's results, not only its speed (dropout left
  // on in evaluation): such findings are listed before every other.
  bool changes_results = false;
};

const std::vector<CatalogEntry>& Catalog();
// nullptr for an unknown code.
const CatalogEntry* FindCatalogEntry(std::string_view code);

// A finding with code, title, action and source filled from the catalog.
Finding NewFinding(std::string_view code, Verdict verdict, int rank);

}  // namespace fastenough::findings
