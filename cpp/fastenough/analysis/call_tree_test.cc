// BuildCallTree's host order and parents against the definition: host rows
// sorted by (pid, tid, start, longer first, row), a parent the innermost
// enclosing slice of the same thread. The rows come in an order no reader
// keeps (threads interleaved, a thread out of time order, equal starts and
// equal slices), so both the grouping by thread and the per-thread sort are
// exercised.
#include "fastenough/analysis/call_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

namespace fastenough::analysis {
namespace {

using trace::EventKind;

int32_t Add(trace::EventStore& store, EventKind kind, int64_t pid, int64_t tid, int64_t ts,
            int64_t dur) {
  trace::SliceRow r;
  r.kind = kind;
  r.name = store.strings().Intern("op");
  r.pid = pid;
  r.tid = tid;
  r.ts_ns = ts;
  r.dur_ns = dur;
  store.AddSlice(r);
  return static_cast<int32_t>(store.size() - 1);
}

std::vector<uint32_t> ByDefinition(const trace::EventStore& store) {
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < store.size(); ++i) {
    if (IsHostSlice(store.kind[i])) rows.push_back(i);
  }
  std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    return std::make_tuple(store.pid[a], store.tid[a], store.ts_ns[a], -store.dur_ns[a], a) <
           std::make_tuple(store.pid[b], store.tid[b], store.ts_ns[b], -store.dur_ns[b], b);
  });
  return rows;
}

TEST(CallTreeTest, NestingOfAThreadWrittenOutOfOrder) {
  trace::EventStore store;
  // Children before their parent, as a trace written at each slice's end has them.
  const int32_t child = Add(store, EventKind::kCpuOp, 1, 7, 20, 10);
  const int32_t runtime = Add(store, EventKind::kRuntime, 1, 7, 22, 2);
  const int32_t parent = Add(store, EventKind::kCpuOp, 1, 7, 10, 50);
  const int32_t same_start = Add(store, EventKind::kUserAnnotation, 1, 7, 10, 100);
  const int32_t kernel = Add(store, EventKind::kKernel, 0, 3, 25, 5);
  const int32_t other_thread = Add(store, EventKind::kCpuOp, 1, 8, 21, 1);
  store.Finalize();
  const CallTree t = BuildCallTree(store);
  EXPECT_EQ(t.host_order, ByDefinition(store));
  EXPECT_EQ(t.parent[same_start], trace::kNoRow);
  EXPECT_EQ(t.parent[parent], same_start);  // same start, shorter: inside
  EXPECT_EQ(t.parent[child], parent);
  EXPECT_EQ(t.parent[runtime], child);
  EXPECT_EQ(t.parent[other_thread], trace::kNoRow);
  EXPECT_EQ(t.parent[kernel], trace::kNoRow);
}

TEST(CallTreeTest, AnAnnotationThatOutlivesTheCallItStartsInNestsWhereItEnds) {
  // profiler.step() in an optimizer hook opens ProfilerStep#1 inside
  // _record_function_enter_new; it lasts to the next step. The DataLoader's
  // enumerate(...) annotation opens the same way inside __next__ (ns).
  trace::EventStore store;
  const int32_t main = Add(store, EventKind::kPythonFunction, 1, 7, 0, 100000);
  const int32_t wrapper = Add(store, EventKind::kPythonFunction, 1, 7, 10000, 10000);
  const int32_t hook = Add(store, EventKind::kPythonFunction, 1, 7, 12000, 7000);
  const int32_t enter = Add(store, EventKind::kPythonFunction, 1, 7, 15000, 500);
  const int32_t step = Add(store, EventKind::kUserAnnotation, 1, 7, 15200, 44800);
  const int32_t rest_of_hook = Add(store, EventKind::kPythonFunction, 1, 7, 16000, 2000);
  const int32_t next = Add(store, EventKind::kPythonFunction, 1, 7, 21000, 9000);
  const int32_t enter2 = Add(store, EventKind::kPythonFunction, 1, 7, 21300, 400);
  const int32_t fetch = Add(store, EventKind::kUserAnnotation, 1, 7, 21500, 8400);
  const int32_t collate = Add(store, EventKind::kCpuOp, 1, 7, 22000, 1000);
  // Clock jitter: an op that ends 1 us after its frame is still its callee.
  const int32_t frame = Add(store, EventKind::kPythonFunction, 1, 7, 39000, 1999);
  const int32_t jitter = Add(store, EventKind::kCpuOp, 1, 7, 40000, 1000);
  store.Finalize();
  const CallTree t = BuildCallTree(store);
  EXPECT_EQ(t.parent[step], main);  // not enter: it outlives the hook's call chain
  EXPECT_EQ(t.parent[rest_of_hook], hook);  // the hook's own calls stay the hook's
  EXPECT_EQ(t.parent[next], step);  // the next step's calls are not the hook's
  EXPECT_EQ(t.parent[enter2], next);
  EXPECT_EQ(t.parent[fetch], next);
  EXPECT_EQ(t.parent[collate], fetch);
  EXPECT_EQ(t.parent[frame], step);
  EXPECT_EQ(t.parent[jitter], frame);
  EXPECT_EQ(t.parent[wrapper], main);
  EXPECT_EQ(t.parent[hook], wrapper);
  EXPECT_EQ(t.parent[enter], hook);
}

TEST(CallTreeTest, HostOrderIsTheSortedOrderForShuffledThreads) {
  std::mt19937 rng(35);
  for (int round = 0; round < 20; ++round) {
    trace::EventStore store;
    std::uniform_int_distribution<int64_t> pid(1, 3), tid(1, 4), ts(0, 40), dur(0, 6);
    std::uniform_int_distribution<int> kind(0, 5);
    const EventKind kinds[] = {EventKind::kCpuOp,  EventKind::kPythonFunction,
                               EventKind::kRuntime, EventKind::kUserAnnotation,
                               EventKind::kKernel, EventKind::kOther};
    const int64_t rows = 50 + round * 40;
    for (int64_t i = 0; i < rows; ++i) {
      // Half the rounds in time order per thread (the common case), half not.
      const int64_t t = round % 2 ? ts(rng) : i;
      Add(store, kinds[kind(rng)], pid(rng), round % 3 ? tid(rng) : -tid(rng), t, dur(rng));
    }
    store.Finalize();
    const CallTree t = BuildCallTree(store);
    ASSERT_EQ(t.host_order, ByDefinition(store)) << "round " << round;
    // Parents: the innermost earlier slice in host order of the same thread
    // that is still open at this one's start.
    for (size_t k = 0; k < t.host_order.size(); ++k) {
      const uint32_t r = t.host_order[k];
      int32_t want = trace::kNoRow;
      std::vector<uint32_t> open;
      for (size_t j = 0; j < k; ++j) {
        const uint32_t q = t.host_order[j];
        if (store.pid[q] != store.pid[r] || store.tid[q] != store.tid[r]) {
          open.clear();
          continue;
        }
        while (!open.empty() && store.end_ns(open.back()) <= store.ts_ns[q]) open.pop_back();
        open.push_back(q);
      }
      while (!open.empty() && store.end_ns(open.back()) <= store.ts_ns[r]) open.pop_back();
      if (!open.empty()) want = static_cast<int32_t>(open.back());
      ASSERT_EQ(t.parent[r], want) << "round " << round << " row " << r;
    }
  }
}

}  // namespace
}  // namespace fastenough::analysis
