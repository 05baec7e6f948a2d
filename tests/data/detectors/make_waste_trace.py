#!/usr/bin/env python3
"""Writes waste_trace.json: a synthetic but Kineto-shaped CUDA trace of an
evaluation loop with three kinds of avoidable waste per step.

No GPU was available when this fixture was made, so this script emits what
torch.profiler(activities=[CPU, CUDA], record_shapes=True, with_stack=True)
writes for the program below on an A100 (event shapes copied from the HTA
corpus traces: cpu_op / python_function / cuda_runtime / kernel / gpu_memcpy /
cuda_sync slices, "External id" and "correlation" links, ac2g flows):

    for step, batch in enumerate(batches):              # eval.py
        x = batch.to("cuda")                            # eval.py(52): pageable copy
        h = model(x)                                    # eval.py(54)
        #   moe.py(31): for e in self.experts: y = y + e(h)   (8 small fp32 linears)
        #   moe.py(33): out = self.proj(y)                    (one big fp32 linear)
        score += out.sum().item()                       # eval.py(58): .item() per step
        log_progress(step)                              # eval.py(60): host-only Python
        prof.step()

Deterministic: no randomness, fixed timings. Run it to regenerate the fixture:
    python tests/data/detectors/make_waste_trace.py [out.json]
"""

import json
import os
import sys

PID = 4242
TID = 4242
STREAM = 7
BASE_US = 1_000_000.0  # trace-relative microseconds of the first event
STEPS = 8

# Timings in microseconds (A100, fp32, batch of 256 x 1024 floats = 1 MiB).
COPY_BYTES = 4 * 256 * 1024 * 4  # 4 MiB of pageable input per step
COPY_US = 700.0                   # pageable HtoD runs at ~6 GB/s
EXPERTS = 8
EXPERT_HOST_US = 45.0             # Python + dispatch per expert call
EXPERT_KERNEL_US = 14.0           # ampere_sgemm_32x32_sliced1x4_nn on 256 x 1024 x 1024
PROJ_KERNEL_US = 300.0            # ampere_sgemm_128x64_nn on 256 x 1024 x 4096
LOG_US = 250.0                    # host-only Python after the .item()


class Trace:
    def __init__(self):
        self.events = []
        self.ext = 0
        self.corr = 0
        self.py_id = 0

    def x(self, cat, name, ts, dur, pid=PID, tid=TID, args=None):
        ev = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
              "ts": round(ts, 3), "dur": round(dur, 3)}
        if args is not None:
            ev["args"] = args
        self.events.append(ev)
        return ev

    def py(self, name, ts, dur):
        self.py_id += 1
        return self.x("python_function", name, ts, dur,
                      args={"Python parent id": self.py_id - 1, "Python id": self.py_id,
                            "Python thread": 0})

    def op(self, name, ts, dur, dims=None, types=None, strides=None):
        self.ext += 1
        args = {"External id": self.ext, "Record function id": 0, "Ev Idx": self.ext - 1}
        if dims is not None:
            args["Input Dims"] = dims
            args["Input type"] = types
            args["Input Strides"] = strides
        self.x("cpu_op", name, ts, dur, args=args)
        return self.ext

    def runtime(self, name, ts, dur, cbid):
        self.corr += 1
        self.x("cuda_runtime", name, ts, dur,
               args={"External id": self.ext, "cbid": cbid, "correlation": self.corr})
        return self.corr

    def flow(self, corr, host_ts, dev_ts):
        self.events.append({"ph": "s", "id": corr, "pid": PID, "tid": TID, "ts": round(host_ts, 3),
                            "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": corr, "pid": 0, "tid": STREAM, "ts": round(dev_ts, 3),
                            "cat": "ac2g", "name": "ac2g", "bp": "e"})

    def kernel(self, name, launch_ts, launch_dur, ts, dur, grid, block):
        corr = self.runtime("cudaLaunchKernel", launch_ts, launch_dur, 211)
        self.x("kernel", name, ts, dur, pid=0, tid=STREAM, args={
            "External id": self.ext, "queued": 0, "device": 0, "context": 1, "stream": STREAM,
            "correlation": corr, "registers per thread": 128, "shared memory": 16384,
            "blocks per SM": 0.5, "warps per SM": 2.0, "grid": grid, "block": block,
            "est. achieved occupancy %": 6})
        self.flow(corr, launch_ts, ts)

    def memcpy(self, name, launch_ts, launch_dur, ts, dur, nbytes):
        corr = self.runtime("cudaMemcpyAsync", launch_ts, launch_dur, 41)
        self.x("gpu_memcpy", name, ts, dur, pid=0, tid=STREAM, args={
            "External id": self.ext, "device": 0, "context": 1, "stream": STREAM,
            "correlation": corr, "bytes": nbytes,
            "memory bandwidth (GB/s)": round(nbytes / (dur * 1e3), 3)})
        self.flow(corr, launch_ts, ts)


def step(tr, n, t0):
    """One evaluation step starting at t0; returns its end."""
    t = t0
    dev = t0  # the device is idle at the start of each step (the .item() drained it)
    step_start = t

    # x = batch.to("cuda"): pageable copy, the host call blocks for the whole copy.
    f_copy = t
    t += 3
    to_ts = t
    tr.op("aten::to", to_ts, COPY_US + 40, [[256, 4096], [], [], [], []],
          ["float", "ScalarType", "", "", ""], [[4096, 1], [], [], [], []])
    tr.op("aten::_to_copy", to_ts + 2, COPY_US + 36, [[256, 4096]], ["float"], [[4096, 1]])
    tr.op("aten::empty_strided", to_ts + 4, 5, [[], [], [], [], [], []], ["", "", "", "", "", ""],
          [[], [], [], [], [], []])
    tr.op("aten::copy_", to_ts + 11, COPY_US + 25, [[256, 4096], [256, 4096], []],
          ["float", "float", "Scalar"], [[4096, 1], [4096, 1], []])
    copy_ts = to_ts + 20
    tr.memcpy("Memcpy HtoD (Pageable -> Device)", to_ts + 14, COPY_US + 20, copy_ts, COPY_US,
              COPY_BYTES)
    dev = copy_ts + COPY_US
    t = to_ts + COPY_US + 40 + 2
    tr.py("eval.py(52): evaluate", f_copy, t - f_copy)

    # h = model(x): the MoE block loops over 8 small experts, then one big projection.
    f_model = t
    t += 4
    f_moe = t
    t += 3
    for _expert in range(EXPERTS):
        call_ts = t
        t += 12  # module __call__ overhead in Python
        lin_ts = t
        dims = [[256, 1024], [1024, 1024], [1024]]
        types = ["float", "float", "float"]
        strides = [[1024, 1], [1024, 1], [1]]
        tr.op("aten::linear", lin_ts, 28, dims, types, strides)
        tr.op("aten::t", lin_ts + 2, 4, [[1024, 1024]], ["float"], [[1024, 1]])
        tr.op("aten::addmm", lin_ts + 7, 20, [[1024], [256, 1024], [1024, 1024], [], []],
              ["float", "float", "float", "Scalar", "Scalar"], [[1], [1024, 1], [1, 1024], [], []])
        launch_ts = lin_ts + 14
        k_ts = max(dev, launch_ts + 6)
        tr.kernel("ampere_sgemm_32x32_sliced1x4_nn", launch_ts, 8, k_ts, EXPERT_KERNEL_US,
                  [8, 8, 4], [128, 1, 1])
        dev = k_ts + EXPERT_KERNEL_US
        t = call_ts + EXPERT_HOST_US
        tr.py("torch/nn/modules/linear.py(116): forward", lin_ts - 2, 32)
        tr.py("torch/nn/modules/module.py(1520): _call_impl", call_ts, EXPERT_HOST_US - 2)
    moe_end = t
    tr.py("moe.py(31): forward", f_moe, moe_end - f_moe)
    # out = self.proj(y): one big fp32 linear, queued behind the experts.
    proj_ts = t + 2
    tr.op("aten::linear", proj_ts, 30, [[256, 1024], [4096, 1024], [4096]],
          ["float", "float", "float"], [[1024, 1], [1024, 1], [1]])
    tr.op("aten::t", proj_ts + 2, 4, [[4096, 1024]], ["float"], [[1024, 1]])
    tr.op("aten::addmm", proj_ts + 7, 22, [[4096], [256, 1024], [1024, 4096], [], []],
          ["float", "float", "float", "Scalar", "Scalar"], [[1], [1024, 1], [1, 1024], [], []])
    k_ts = max(dev, proj_ts + 21 + 6)
    tr.kernel("ampere_sgemm_128x64_nn", proj_ts + 21, 8, k_ts, PROJ_KERNEL_US, [32, 4, 1],
              [256, 1, 1])
    dev = k_ts + PROJ_KERNEL_US
    tr.py("moe.py(33): forward", proj_ts - 1, 33)
    t = proj_ts + 34
    tr.py("eval.py(54): evaluate", f_model, t - f_model)

    # score += out.sum().item(): a reduction, then a blocking 4-byte read-back.
    f_item = t
    t += 3
    tr.op("aten::sum", t, 15, [[256, 4096], []], ["float", ""], [[4096, 1], []])
    k_ts = max(dev, t + 13)
    tr.kernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
              "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>"
              "::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
              "float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
              "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)"
              "::{lambda(float, float)#1}>, unsigned int, float, 4>)",
              t + 6, 7, k_ts, 9, [1, 1, 1], [512, 1, 1])
    dev = k_ts + 9
    t += 17
    item_ts = t
    # The host blocks in cudaStreamSynchronize until the queue drains.
    mc_launch = item_ts + 6
    mc_ts = max(dev, mc_launch + 5)
    sync_ts = mc_launch + 9
    sync_end = mc_ts + 2 + 3
    item_dur = sync_end - item_ts + 4
    tr.op("aten::item", item_ts, item_dur, [[]], ["float"], [[]])
    tr.op("aten::_local_scalar_dense", item_ts + 2, item_dur - 3, [[]], ["float"], [[]])
    tr.memcpy("Memcpy DtoH (Device -> Pageable)", mc_launch, 8, mc_ts, 2, 4)
    sync_corr = tr.runtime("cudaStreamSynchronize", sync_ts, sync_end - sync_ts, 131)
    tr.x("cuda_sync", "Stream Sync", mc_ts + 2, sync_end - mc_ts - 2, pid=0, tid=STREAM, args={
        "External id": tr.ext, "cuda_sync_kind": "Stream Sync", "stream": STREAM,
        "correlation": sync_corr, "device": 0, "context": 1})
    t = item_ts + item_dur + 2
    tr.py("eval.py(58): evaluate", f_item, t - f_item)

    # log_progress(step): host-only Python while the device has nothing queued.
    tr.py("eval.py(60): evaluate", t, LOG_US)
    tr.py("logutil.py(14): log_progress", t + 2, LOG_US - 4)
    t += LOG_US + 5
    tr.x("user_annotation", f"ProfilerStep#{n}", step_start, t - step_start,
         args={"External id": 0})
    return t + 3


def build():
    tr = Trace()
    t = BASE_US
    tr.events.append({"name": "process_name", "ph": "M", "ts": BASE_US, "pid": PID, "tid": 0,
                      "args": {"name": "python3"}})
    tr.events.append({"name": "thread_name", "ph": "M", "ts": BASE_US, "pid": PID, "tid": TID,
                      "args": {"name": "thread 4242 (python3)"}})
    tr.events.append({"name": "process_name", "ph": "M", "ts": BASE_US, "pid": 0, "tid": 0,
                      "args": {"name": "python3"}})
    tr.events.append({"name": "thread_name", "ph": "M", "ts": BASE_US, "pid": 0, "tid": STREAM,
                      "args": {"name": f"stream {STREAM}"}})
    start = t
    for n in range(STEPS):
        t = step(tr, n, t)
    tr.py("eval.py(70): <module>", start - 5, t - start + 10)
    tr.events.append({"ph": "X", "cat": "Trace", "ts": round(start - 10, 3),
                      "dur": round(t - start + 20, 3), "pid": "Spans", "tid": "PyTorch Profiler",
                      "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
    return {
        "schemaVersion": 1,
        "deviceProperties": [{
            "id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85031714816,
            "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
            "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
            "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
            "sharedMemPerMultiprocessor": 167936, "numSms": 108,
            "sharedMemPerBlockOptin": 166912}],
        "cupti_version": 18, "cuda_runtime_version": 12010, "cuda_driver_version": 12020,
        "trace_id": "F4A1D2C3B4A5968778695A4B3C2D1E0F",
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1733130000000000000,
        "traceEvents": tr.events,
        "traceName": "waste_trace.json",
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "waste_trace.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(build(), f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
