#include "fastenough/rundir/measurement.h"

#include <gtest/gtest.h>

namespace fastenough::rundir {
namespace {

AgentRecord Main(std::optional<std::string> torch, int64_t steps) {
  AgentRecord a;
  a.pid = 10;
  a.role = "main";
  a.torch = std::move(torch);
  a.steps = steps;
  a.tool_pause_ns = 300;
  a.tool_pauses = 3;
  return a;
}

StepSummary Steady(int64_t count) {
  StepSummary s;
  s.count = count;
  return s;
}

std::vector<std::string> Codes(const Measurement& m) {
  std::vector<std::string> out;
  for (const auto& r : m.reasons) out.push_back(r.code);
  return out;
}

TEST(RundirMeasurement, CompleteWhenEverySourceRanAndSawSteadySteps) {
  MeasurementInputs in;
  in.agents = {Main("2.13.0", 120)};
  in.steps = {Steady(100)};
  in.checks_file = true;
  in.traces_analysed = 1;
  Measurement m = AssessMeasurement(in);
  EXPECT_EQ(m.status, "complete");
  EXPECT_TRUE(m.reasons.empty());
  EXPECT_EQ(m.steady_steps, 100);
  EXPECT_EQ(m.processes, 1);
  EXPECT_EQ(m.tool_pause_ns, 300);
  EXPECT_EQ(m.tool_pauses, 3);
}

TEST(RundirMeasurement, NoAgentIsBlind) {
  Measurement m = AssessMeasurement({});
  EXPECT_EQ(m.status, "blind");
  EXPECT_EQ(Codes(m), std::vector<std::string>{"no-agent"});
  // A DataLoader worker's record alone is no process of the loop.
  MeasurementInputs in;
  AgentRecord w = Main("2.13.0", 0);
  w.role = "worker";
  in.agents = {w};
  EXPECT_EQ(Codes(AssessMeasurement(in)), std::vector<std::string>{"no-agent"});
}

TEST(RundirMeasurement, TorchNeverImportedOrUnseen) {
  MeasurementInputs in;
  in.agents = {Main(std::nullopt, 0)};
  Measurement m = AssessMeasurement(in);
  EXPECT_EQ(m.status, "blind");
  EXPECT_EQ(Codes(m), std::vector<std::string>{"no-torch"});
  in.agents[0].torch_imported_unseen = true;
  m = AssessMeasurement(in);
  EXPECT_EQ(Codes(m), std::vector<std::string>{"torch-unseen"});
  EXPECT_NE(m.reasons[0].text.find("did not see"), std::string::npos);
}

TEST(RundirMeasurement, ChecksThatStoppedAndFewSteadySteps) {
  MeasurementInputs in;
  in.agents = {Main("2.13.0", 8)};
  in.steps = {Steady(4)};
  in.checks_file = true;
  in.checks_error = "on_phase_end: IndexError: index 46881792 is out of bounds";
  in.trace_wanted = false;
  Measurement m = AssessMeasurement(in);
  EXPECT_EQ(m.status, "partial");
  EXPECT_EQ(Codes(m), (std::vector<std::string>{"checks-stopped", "few-steady-steps"}));
  EXPECT_NE(m.reasons[1].text.find("only 4 steady steps"), std::string::npos);
}

TEST(RundirMeasurement, AgentOffByItsOwnCostGuardIsNotCalledAnError) {
  MeasurementInputs in;
  in.agents = {Main("2.13.0", 200)};
  in.steps = {Steady(150)};
  in.checks_file = true;
  in.trace_wanted = false;
  in.agents[0].agent_error = "own cost: the agent's own time grew from 0.010 ms to 5.000 ms";
  in.agents[0].own_cost_off = true;  // own_cost.switched_off: the guard's, not an error
  Measurement m = AssessMeasurement(in);
  ASSERT_FALSE(m.reasons.empty());
  EXPECT_EQ(m.reasons[0].code, "agent-off");
  EXPECT_NE(m.reasons[0].text.find("because its own cost grew (own cost: the agent's"),
            std::string::npos);
  EXPECT_EQ(m.reasons[0].text.find("internal error"), std::string::npos);
  in.agents[0].agent_error = "module: RuntimeError: boom";
  in.agents[0].own_cost_off = false;
  m = AssessMeasurement(in);
  EXPECT_NE(m.reasons[0].text.find("after an internal error (module: RuntimeError"),
            std::string::npos);
}

TEST(RundirMeasurement, NoStepsAndNoTraceAndAgentOff) {
  MeasurementInputs in;
  in.agents = {Main("2.13.0", 0)};
  in.agents[0].agent_error = "module: RuntimeError: boom";
  Measurement m = AssessMeasurement(in);
  EXPECT_EQ(m.status, "blind");
  // The checks were on and wrote nothing; no step, so no steady figures.
  EXPECT_EQ(Codes(m), (std::vector<std::string>{"agent-off", "checks-missing", "no-steps"}));
  in.agents[0].agent_error.clear();
  in.agents[0].steps = 50;
  in.steps = {Steady(40)};
  in.checks_file = true;
  in.trace_wanted = true;
  m = AssessMeasurement(in);
  EXPECT_EQ(Codes(m), std::vector<std::string>{"no-trace"});
  EXPECT_EQ(m.status, "partial");
}

TEST(RundirMeasurement, TimingOnlySaysTheChecksWereOffAndNotMissing) {
  // fastenough run --timing-only (fastenough ab's timing runs): no checks.json
  // by request, which is neither "missing" nor a clean bill of health.
  MeasurementInputs in;
  in.agents = {Main("2.13.0", 200)};
  in.agents[0].checks = false;
  in.agents[0].timing_only = true;
  in.steps = {Steady(150)};
  in.trace_wanted = false;
  Measurement m = AssessMeasurement(in);
  EXPECT_EQ(m.status, "partial");
  EXPECT_EQ(Codes(m), std::vector<std::string>{"checks-off"});
  EXPECT_NE(m.reasons[0].text.find("--timing-only"), std::string::npos);
  EXPECT_NE(m.reasons[0].text.find("says nothing about the program"), std::string::npos);
  in.agents[0].timing_only = false;
  EXPECT_EQ(AssessMeasurement(in).status, "complete");
}

TEST(RundirMeasurement, JsonCarriesStatusAndReasons) {
  MeasurementInputs in;
  in.agents = {Main(std::nullopt, 0)};
  const std::string json = MeasurementJson(AssessMeasurement(in));
  EXPECT_NE(json.find("\"status\": \"blind\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"code\": \"no-torch\""), std::string::npos) << json;
}

}  // namespace
}  // namespace fastenough::rundir
