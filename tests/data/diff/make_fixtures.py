"""Writes a.json and b.json: two hand-made Kineto traces for `fastenough diff`.

Three ProfilerStep windows of 100 µs each (the first is warm-up). Every step:
aten::linear > aten::addmm -> a cutlass GEMM kernel, aten::relu -> an
elementwise kernel, aten::copy_ -> a device-to-host memcpy.
In b.json the GEMM kernel takes 80 µs instead of 40 (2x slower) and the relu
and its kernel are gone; everything else is the same.

Run from this folder: python make_fixtures.py
"""

import json

GEMM = ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
        "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)")
RELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::clamp_min_scalar_kernel_impl, "
        "at::detail::Array<char*, 2> >(int, at::native::clamp_min_scalar_kernel_impl, "
        "at::detail::Array<char*, 2>)")
DIMS = [[8, 64], [128, 64], [128]]


def trace(gemm_us: float, with_relu: bool) -> dict:
    ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
          {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}]
    ext = corr = 0

    def op(name, ts, dur, dims=None):
        nonlocal ext
        ext += 1
        args = {"External id": ext}
        if dims is not None:
            args["Input Dims"] = dims
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
                   "dur": dur, "args": args})

    def launch(call, ts, cat, name, dts, ddur, **extra):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": call, "pid": 1, "tid": 1, "ts": ts,
                   "dur": 4, "args": {"correlation": corr, "External id": ext}})
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": dts, "dur": ddur,
                   "args": {"correlation": corr, "External id": ext, "device": 0, "stream": 7,
                            **extra}})

    for n in (1, 2, 3):
        t = 100 * (n - 1)
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1,
                   "tid": 1, "ts": t, "dur": 100})
        op("aten::linear", t + 5, 30, DIMS)
        op("aten::addmm", t + 6, 25, DIMS)
        launch("cudaLaunchKernel", t + 10, "kernel", GEMM, t + 15, gemm_us)
        if with_relu:
            op("aten::relu", t + 40, 10, [[8, 128]])
            launch("cudaLaunchKernel", t + 42, "kernel", RELU, t + 96, 3)
        op("aten::copy_", t + 60, 15, [[8, 128], [8, 128]])
        launch("cudaMemcpyAsync", t + 62, "gpu_memcpy", "Memcpy DtoH (Device -> Pinned)",
               t + 70, 4, bytes=4096)
    return {"schemaVersion": 1, "traceEvents": ev}


if __name__ == "__main__":
    for name, doc in (("a.json", trace(40, True)), ("b.json", trace(80, False))):
        with open(name, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
