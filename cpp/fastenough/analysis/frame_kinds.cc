#include "fastenough/analysis/frame_kinds.h"

#include <sys/stat.h>

#include <array>

namespace fastenough::analysis {

namespace {

bool PathStartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

bool IsFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Join(const std::string& root, const std::string& rel) {
  if (root.empty()) return rel;
  return root.back() == '/' ? root + rel : root + "/" + rel;
}

// Under root (a directory): the path starts with it at a component boundary.
bool Under(std::string_view path, std::string_view root) {
  while (!root.empty() && root.back() == '/') root.remove_suffix(1);
  return !root.empty() && PathStartsWith(path, root) &&
         (path.size() == root.size() || path[root.size()] == '/');
}

// Packages whose frames are libraries wherever they were installed from; used
// only when no root holds the file (a trace analysed on another machine).
constexpr std::array<std::string_view, 40> kLibraryPackages = {
    "torch",           "torchvision",       "torchaudio",        "torchtext",
    "torchdata",       "transformers",      "tokenizers",        "accelerate",
    "datasets",        "huggingface_hub",   "safetensors",       "peft",
    "diffusers",       "sentence_transformers", "timm",          "lightning",
    "pytorch_lightning", "lightning_fabric", "lightning_utilities", "torchmetrics",
    "torch_geometric", "x_transformers",    "einops",            "numpy",
    "scipy",           "sklearn",           "pandas",            "tqdm",
    "triton",          "apex",              "deepspeed",         "fairscale",
    "xformers",        "flash_attn",        "vllm",              "sglang",
    "gymnasium",       "gym",               "matplotlib",        "PIL"};

}  // namespace

FrameKind ClassifyByName(std::string_view file) {
  if (file.empty() || file.front() == '<') return FrameKind::kLibrary;  // <built-in ...>, <frozen ...>
  if (file.find("/site-packages/") != std::string_view::npos ||
      file.find("/dist-packages/") != std::string_view::npos ||
      PathStartsWith(file, "site-packages/") || PathStartsWith(file, "dist-packages/")) {
    // fastenough installed as a package is still fastenough.
    const size_t at = file.find("-packages/");
    const std::string_view rest = file.substr(at + 10);
    return PathStartsWith(rest, "fastenough/") ? FrameKind::kTool : FrameKind::kLibrary;
  }
  if (file.front() == '/') {
    if (file.find("/lib/python3") != std::string_view::npos) return FrameKind::kLibrary;
    if (file.find("/fastenough/agent/") != std::string_view::npos ||
        file.find("/fastenough/measure/") != std::string_view::npos) {
      return FrameKind::kTool;
    }
    return FrameKind::kUser;
  }
  const size_t slash = file.find('/');
  const std::string_view first = slash == std::string_view::npos ? std::string_view() : file.substr(0, slash);
  if (first == "fastenough") return FrameKind::kTool;
  for (std::string_view p : kLibraryPackages) {
    if (first == p) return FrameKind::kLibrary;
  }
  // Relative paths of the standard library have no directory of their own:
  // "contextlib.py", "threading.py" read like a script's. Those the trace
  // names without roots stay the user's; with roots they are looked up.
  return FrameKind::kUser;
}

FrameClassifier::FrameClassifier(FrameRoots roots) : roots_(std::move(roots)) {}

FrameKind FrameClassifier::Classify(const std::string& file) const {
  auto it = cache_.find(file);
  if (it != cache_.end()) return it->second;
  const FrameKind k = Decide(file);
  cache_.emplace(file, k);
  return k;
}

FrameKind FrameClassifier::Decide(const std::string& file) const {
  if (file.empty() || file.front() == '<') return FrameKind::kLibrary;
  if (roots_.empty()) return ClassifyByName(file);
  // fastenough first: its package directory may sit inside site-packages.
  const std::pair<const std::vector<std::string>*, FrameKind> order[] = {
      {&roots_.tool, FrameKind::kTool},
      {&roots_.library, FrameKind::kLibrary},
      {&roots_.user, FrameKind::kUser}};
  if (file.front() == '/') {
    // The longest root holding the file decides (a user's venv inside their repo).
    size_t best = 0;
    FrameKind kind = ClassifyByName(file);
    for (const auto& [roots, k] : order) {
      for (const std::string& r : *roots) {
        if (Under(file, r) && r.size() > best) {
          best = r.size();
          kind = k;
        }
      }
    }
    return kind;
  }
  // A relative name is the file under one of the program's sys.path entries.
  // fastenough's own, whatever the entry: "fastenough/agent/...".
  if (PathStartsWith(file, "fastenough/")) return FrameKind::kTool;
  for (const auto& [roots, k] : order) {
    if (k == FrameKind::kTool) continue;
    for (const std::string& r : *roots) {
      if (IsFile(Join(r, file))) return k;
    }
  }
  return ClassifyByName(file);
}

}  // namespace fastenough::analysis
