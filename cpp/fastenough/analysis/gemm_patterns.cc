#include "fastenough/analysis/gemm_patterns.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "fastenough/analysis/python_stack.h"

namespace fastenough::analysis {

using trace::EventKind;
using trace::kNoRow;

bool IsMatmulOp(std::string_view n) {
  return n == "aten::linear" || n == "aten::matmul" || n == "aten::mm" || n == "aten::addmm" ||
         n == "aten::bmm" || n == "aten::baddbmm";
}

bool IsAttentionOp(std::string_view n) {
  // The fused attention ops (SDPA and its CPU/flash/efficient kernels, the
  // native MHA fast path): matmul work that consumes the projections before it.
  return n.rfind("aten::", 0) == 0 &&
         (n.find("scaled_dot_product") != std::string_view::npos ||
          n.find("attention") != std::string_view::npos);
}

std::string_view FirstInputDims(std::string_view d) {
  const size_t open = d.find('[', d.find('[') + 1);
  if (open == std::string_view::npos) return d;
  const size_t close = d.find(']', open);
  if (close == std::string_view::npos) return d;
  return d.substr(open, close - open + 1);
}

namespace {

// "[[8, 16], [4, 16], []]" -> {{8, 16}, {4, 16}, {}}; empty on another shape.
std::vector<std::vector<int64_t>> ParseDims(std::string_view d) {
  std::vector<std::vector<int64_t>> out;
  size_t i = d.find('[');
  if (i == std::string_view::npos) return out;
  ++i;
  std::vector<int64_t>* cur = nullptr;
  int64_t v = 0;
  bool digits = false;
  for (; i < d.size(); ++i) {
    const char ch = d[i];
    if (ch == '[') {
      out.emplace_back();
      cur = &out.back();
    } else if (ch >= '0' && ch <= '9') {
      v = v * 10 + (ch - '0');
      digits = true;
    } else if (ch == ',' || ch == ']') {
      if (digits && cur != nullptr) cur->push_back(v);
      v = 0;
      digits = false;
      if (ch == ']') {
        if (cur == nullptr) break;  // the outer list closes
        cur = nullptr;
      }
    }
  }
  return out;
}

int64_t Prod(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
  return p;
}

}  // namespace

int64_t MatmulFlops(std::string_view op, std::string_view dims_json) {
  const auto d = ParseDims(dims_json);
  if (op == "aten::linear" && d.size() >= 2 && !d[0].empty() && d[1].size() == 2) {
    return 2 * Prod(d[0], 0, d[0].size() - 1) * d[0].back() * d[1][0];
  }
  if ((op == "aten::mm" || op == "aten::matmul") && d.size() >= 2 && d[0].size() == 2 &&
      d[1].size() == 2) {
    return 2 * d[0][0] * d[0][1] * d[1][1];
  }
  if (op == "aten::addmm" && d.size() >= 3 && d[1].size() == 2 && d[2].size() == 2) {
    return 2 * d[1][0] * d[1][1] * d[2][1];
  }
  if (op == "aten::bmm" && d.size() >= 2 && d[0].size() == 3 && d[1].size() == 3) {
    return 2 * d[0][0] * d[0][1] * d[0][2] * d[1][2];
  }
  return -1;
}

namespace {

bool IsScope(const trace::EventStore& store, int32_t row) {
  const EventKind k = store.kind[row];
  if (k == EventKind::kCpuOp || k == EventKind::kUserAnnotation) return true;
  if (k != EventKind::kPythonFunction) return false;
  const PythonFrame f = ParsePythonFrame(store.name_of(row));
  return f.valid() && !IsLibraryFrame(f.file);
}

}  // namespace

std::vector<GemmRun> FindGemmRuns(const trace::EventStore& store, const CallTree& tree,
                                  const timeline::IntervalSet& busy, size_t min_len, RunKey key) {
  const size_t n = store.size();
  // 1: a matmul; 2: a fused attention op, which only ends runs (a UNet's
  // attention block: to_q, to_k, to_v, then SDPA, then to_out, all [8,64,64]
  // x [64,64] on the CPU, was one "serial" run of four where the projections
  // feed the attention and its output feeds to_out).
  std::vector<uint8_t> matmul_name(store.strings().size(), 0);
  for (StringId id = 1; id < store.strings().size(); ++id) {
    const std::string_view name = store.strings().Get(id);
    matmul_name[id] = IsMatmulOp(name) ? 1 : IsAttentionOp(name) ? 2 : 0;
  }
  // Top-level matmul calls with their scope.
  struct Call {
    int32_t scope;
    uint32_t row;
    uint32_t seq;  // position in host order: (pid, tid, start)
    bool gate = false;  // an attention op: ends runs, never in one
  };
  std::vector<Call> calls;
  // Top-level matmul row -> index into `stats`, -1 for other rows: a column,
  // since every kernel walks up its call chain looking for one (a hash
  // lookup per level was most of this function's time on large traces).
  std::vector<int32_t> call_index(n, -1);
  for (uint32_t r : tree.host_order) {
    if (store.kind[r] != EventKind::kCpuOp || !matmul_name[store.name[r]]) continue;
    int32_t scope = kNoRow;
    bool nested = false;
    for (int32_t p = tree.parent[r]; p != kNoRow; p = tree.parent[p]) {
      if (store.kind[p] == EventKind::kCpuOp && matmul_name[store.name[p]] == 1) {
        nested = true;
        break;
      }
      if (IsScope(store, p)) {
        scope = p;
        break;
      }
    }
    if (nested) continue;
    call_index[r] = static_cast<int32_t>(calls.size());
    calls.push_back({scope, r, static_cast<uint32_t>(calls.size()),
                     matmul_name[store.name[r]] == 2});
  }
  // Kernels per call: walk up from the launch to the top-level matmul op.
  struct Stat {
    int64_t ns = 0, count = 0, first_start = std::numeric_limits<int64_t>::max(), last_end = 0;
    int32_t first_row = kNoRow;
  };
  std::vector<Stat> stats(calls.size());
  if (!calls.empty()) {
    for (size_t i = 0; i < n; ++i) {
      if (store.kind[i] != EventKind::kKernel) continue;
      int32_t p = store.launch_row[i] != kNoRow ? store.launch_row[i] : store.cpu_op_row[i];
      for (; p != kNoRow; p = tree.parent[p]) {
        if (call_index[p] >= 0) break;
      }
      if (p == kNoRow) continue;
      Stat& s = stats[static_cast<size_t>(call_index[p])];
      s.ns += store.dur_ns[i];
      s.count += 1;
      if (store.ts_ns[i] < s.first_start) {
        s.first_start = store.ts_ns[i];
        s.first_row = static_cast<int32_t>(i);
      }
      s.last_end = std::max(s.last_end, store.end_ns(i));
    }
  }
  // A program with no device activity at all (a CPU run) has no kernels to
  // time: each call's own host duration stands in for its kernel time, and
  // the host time between calls for the device gaps.
  const bool host_timed = busy.empty();
  if (host_timed) {
    for (const Call& c : calls) {
      Stat& s = stats[static_cast<size_t>(call_index[c.row])];
      s.ns = store.dur_ns[c.row];
      s.count = 1;
      s.first_start = store.ts_ns[c.row];
      s.last_end = store.end_ns(c.row);
      s.first_row = static_cast<int32_t>(c.row);
    }
  }
  // A matmul of another key between two sibling calls, in any scope of the
  // same thread (an LSTM cell's gate projections, nested in aten::lstm_cell,
  // between time_sequence_prediction's per-timestep Linear(51, 1) calls),
  // ends their run: the loop's iterations do other matmul work, a recurrence
  // or a layer stack, not a batch of independent small matmuls.
  // next_other[s]: the first host-order position after s whose key differs.
  auto key_of = [&](uint32_t row) {
    return key == RunKey::kAllInputs ? store.strings().Get(store.input_dims[row])
                                     : FirstInputDims(store.strings().Get(store.input_dims[row]));
  };
  auto same_key = [&](uint32_t a, uint32_t b) {
    if ((matmul_name[store.name[a]] == 2) != (matmul_name[store.name[b]] == 2)) return false;
    return store.input_dims[a] == store.input_dims[b] || key_of(a) == key_of(b);
  };
  std::vector<uint32_t> next_other(calls.size(), static_cast<uint32_t>(calls.size()));
  for (size_t s = calls.size(); s-- > 1;) {
    next_other[s - 1] =
        same_key(calls[s].row, calls[s - 1].row) ? next_other[s] : static_cast<uint32_t>(s);
  }
  auto same_thread = [&](uint32_t a, uint32_t b) {
    return store.pid[a] == store.pid[b] && store.tid[a] == store.tid[b];
  };
  std::stable_sort(calls.begin(), calls.end(), [&](const Call& a, const Call& b) {
    if (a.scope != b.scope) return a.scope < b.scope;
    return store.ts_ns[a.row] < store.ts_ns[b.row];
  });
  std::vector<GemmRun> runs;
  size_t i = 0;
  while (i < calls.size()) {
    size_t j = i + 1;
    if (calls[i].gate) {
      i = j;
      continue;
    }
    const bool has_dims = store.input_dims[calls[i].row] != kNoString;
    auto nothing_else_between = [&](const Call& a, const Call& b) {
      return !same_thread(a.row, b.row) || a.seq > b.seq || next_other[a.seq] >= b.seq;
    };
    while (has_dims && j < calls.size() && calls[j].scope == calls[i].scope &&
           same_key(calls[j].row, calls[i].row) && nothing_else_between(calls[j - 1], calls[j])) {
      ++j;
    }
    if (j - i >= min_len) {
      GemmRun run;
      run.scope = calls[i].scope;
      run.host_timed = host_timed;
      run.min_kernel_ns = std::numeric_limits<int64_t>::max();
      int64_t prev_end = -1;
      for (size_t k = i; k < j; ++k) {
        const uint32_t r = calls[k].row;
        const Stat& st = stats[static_cast<size_t>(call_index[r])];
        run.calls.push_back(r);
        if (store.input_dims[r] != store.input_dims[calls[i].row]) run.identical_dims = false;
        if (store.name[r] != store.name[calls[i].row]) run.same_op_name = false;
        run.kernel_count += st.count;
        run.kernel_ns += st.ns;
        run.min_kernel_ns = std::min(run.min_kernel_ns, st.ns);
        run.max_kernel_ns = std::max(run.max_kernel_ns, st.ns);
        const int64_t flops = MatmulFlops(store.name_of(r), store.strings().Get(store.input_dims[r]));
        run.max_flops = flops < 0 || (k > i && run.max_flops < 0) ? -1 : std::max(run.max_flops, flops);
        if (st.count > 0) {
          if (run.kernel_name.empty()) run.kernel_name = std::string(store.name_of(st.first_row));
          if (prev_end >= 0 && st.first_start > prev_end) {
            // Only the part where the whole device was idle is recoverable.
            run.gap_ns += (st.first_start - prev_end) - busy.LengthWithin(prev_end, st.first_start);
          }
          if (run.start_ns == 0) run.start_ns = st.first_start;
          prev_end = std::max(prev_end, st.last_end);
          run.end_ns = prev_end;
        }
      }
      if (run.kernel_count == 0) {
        run.min_kernel_ns = 0;
        run.start_ns = store.ts_ns[calls[i].row];
        run.end_ns = store.end_ns(calls[j - 1].row);
      }
      runs.push_back(std::move(run));
    }
    i = j;
  }
  std::sort(runs.begin(), runs.end(),
            [](const GemmRun& a, const GemmRun& b) { return a.start_ns < b.start_ns; });
  return runs;
}

}  // namespace fastenough::analysis
