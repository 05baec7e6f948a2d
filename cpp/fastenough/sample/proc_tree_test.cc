#include "fastenough/sample/proc_tree.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace fastenough::sample {
namespace {

TEST(SampleProcStat, ParsesNameWithSpacesAndParens) {
  // comm "a) (b c" — the fields must be counted from the last ')'.
  std::string line =
      "4321 (a) (b c) S 77 4321 4321 0 -1 4194560 100 0 0 0 123 45 0 0 20 0 3 0 555 1000000 "
      "2500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  auto s = ParseProcStat(line);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->pid, 4321);
  EXPECT_EQ(s->ppid, 77);
  EXPECT_EQ(s->cpu_ticks, 168u);  // utime 123 + stime 45
  EXPECT_EQ(s->rss_pages, 2500);
}

TEST(SampleProcStat, RejectsTruncatedLine) {
  EXPECT_FALSE(ParseProcStat("12 (x) S 1 2 3").has_value());
  EXPECT_FALSE(ParseProcStat("garbage").has_value());
}

int64_t MonoNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// A child that spins for at most `seconds`, with a sleeping grandchild.
pid_t SpawnBusyChild(double seconds) {
  pid_t pid = fork();
  if (pid == 0) {
    pid_t g = fork();
    if (g == 0) {
      sleep(5);
      _exit(0);
    }
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    volatile uint64_t x = 0;
    while (std::chrono::steady_clock::now() < end) x = x + 1;
    kill(g, SIGKILL);
    waitpid(g, nullptr, 0);
    _exit(0);
  }
  return pid;
}

TEST(SampleProcTree, BusyChildTreeHasCpuAndRss) {
  ProcTree tree;
  pid_t child = SpawnBusyChild(1.5);
  ASSERT_GT(child, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TreeReading a = tree.Read(child);
  int64_t t0 = MonoNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  TreeReading b = tree.Read(child);
  int64_t t1 = MonoNs();
  EXPECT_EQ(b.processes, 2);  // the spinner and its sleeping child
  EXPECT_GT(b.rss_bytes, 0);
  double cpu = tree.CpuPercent(a, b, t1 - t0);
  // One spinning thread gets what the scheduler leaves it: close to 100 % of a
  // core on an idle machine, 18 % at load average 6 on two cores (20 % was the
  // bound here and failed then). A sleeping tree reads 0 (the next test); 2 %
  // is two clock ticks in 700 ms, so any real spinning passes and sleep fails.
  EXPECT_GT(cpu, 2.0);
  EXPECT_LT(cpu, 150.0);

  // The tree of this test process includes the child.
  std::vector<pid_t> pids = tree.Pids(getpid());
  EXPECT_NE(std::find(pids.begin(), pids.end(), child), pids.end());

  waitpid(child, nullptr, 0);
  EXPECT_EQ(tree.Read(child).processes, 0);  // gone: empty reading, no error
}

TEST(SampleProcTree, SleepingChildUsesNoCpu) {
  ProcTree tree;
  pid_t child = fork();
  if (child == 0) {
    sleep(3);
    _exit(0);
  }
  TreeReading a = tree.Read(child);
  int64_t t0 = MonoNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  TreeReading b = tree.Read(child);
  double cpu = tree.CpuPercent(a, b, MonoNs() - t0);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(b.processes, 1);
  EXPECT_LT(cpu, 10.0);
}

TEST(SampleProcTree, CpuPercentIgnoresExitedProcesses) {
  ProcTree tree;
  TreeReading before, after;
  before.ticks_by_pid = {{1, 100}, {2, 50}};
  after.ticks_by_pid = {{1, 150}, {3, 25}};  // 2 exited, 3 is new
  long hz = sysconf(_SC_CLK_TCK);
  // (150-100) + 25 = 75 ticks over 1 s.
  EXPECT_NEAR(tree.CpuPercent(before, after, 1000000000), 100.0 * 75 / hz, 1e-9);
}

TEST(SampleProcTree, CpuPercentByPidNamesOnlyProcessesThatRan) {
  ProcTree tree;
  TreeReading before, after;
  before.ticks_by_pid = {{1, 100}, {2, 50}, {4, 10}};
  after.ticks_by_pid = {{1, 150}, {3, 25}, {4, 10}};  // 2 exited, 3 is new, 4 idle
  long hz = sysconf(_SC_CLK_TCK);
  auto by_pid = tree.CpuPercentByPid(before, after, 1000000000);
  ASSERT_EQ(by_pid.size(), 2u);
  EXPECT_EQ(by_pid[0].first, 1);
  EXPECT_NEAR(by_pid[0].second, 100.0 * 50 / hz, 1e-9);
  EXPECT_EQ(by_pid[1].first, 3);
  EXPECT_NEAR(by_pid[1].second, 100.0 * 25 / hz, 1e-9);
  EXPECT_TRUE(tree.CpuPercentByPid(before, after, 0).empty());
}

}  // namespace
}  // namespace fastenough::sample
