// A rank the machine kept late. On a host-only job (CPU ranks over gloo) the
// ranks share the machine's cores with each other and with whatever else runs:
// a rank the scheduler keeps waiting for a core arrives late at every
// collective, its ops and its waits between them stretched, without having
// more to do. Its trace alone cannot tell that from a rank with more work (the
// DDP tutorial's two equal ranks beside three busy loops: rank 1 worked 9.1 ms
// a step against rank 0's 5.2 and was named straggler-rank and load-imbalance
// in the session-8 CI rehearsal). Each rank's agent records its main thread's
// time on a core and its wait for one over the profiler window
// (profile.thread_cpu_ns; profile.run_delay_ns, Linux's schedstat run_delay:
// ready to run, every core taken), which tell them apart. A straggler-rank or
// load-imbalance finding is the machine's, not the program's, when its rank
// waited for a core, a window step, at least half the per-step saving the
// finding claims more than the other ranks did (their median), and did not
// work that much more on one: it is left out, and the measurement says which
// rank waited and how long. (Wait alone does not tell: a rank with more work
// waits more for the cores it needs on a loaded machine, 24 ms a step against
// 7.4 for test_in_job_analysis's heavy rank at load 2.5; a rank that sleeps
// waits for no core.)
#pragma once

#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/rundir/agent_records.h"
#include "fastenough/rundir/measurement.h"

namespace fastenough::rundir {

// The ranks' loop records with a window and a recorded wait decide; a job
// with a device, or a rank without a record, keeps its findings.
void LeaveOutRankFindingsTheSchedulerExplains(const std::vector<AgentRecord>& agents,
                                              bool has_device,
                                              std::vector<findings::Finding>* findings,
                                              Measurement* measurement);

}  // namespace fastenough::rundir
