#!/usr/bin/env python3
"""Generate large, realistic Kineto (PyTorch profiler) Chrome-trace files for benchmarks.

The output mimics what torch.profiler writes for a data-parallel training job on one
A100 rank (compare /work/shared/corpus/hta/nccl_parser_config/nccl_data.json.gz):
deviceProperties, distributedInfo, ProfilerStep#N annotations, nested python_function /
cpu_op trees with "External id", "Input Dims" and "Input type", cuda_runtime launches
with "correlation", kernels on several streams with long templated names, gpu_memcpy /
gpu_memset with "bytes", NCCL kernels with collective args, ac2g flow pairs (s/f),
metadata ('M') events and the same pretty-printed layout (one key group per line).

The host and device are simulated together, so the timeline is consistent: a kernel
starts no earlier than its launch and no earlier than the previous kernel on its
stream ends; cudaStreamSynchronize and blocking device-to-host copies last until the
device drains. Idle gaps caused by the host come from the data loader wait at each
step start, the Python work after the loss.item() sync, and the optimizer's chain of
small kernels (launch-bound).

Deterministic for a given seed and options. A JSON sidecar (<output>.truth.json)
records what was generated: event counts by phase/category, kernel count, total
kernel time, device busy time (union), etc., so a benchmark can sanity-check an
analysis.

  python bench/gen_trace.py --size 100MB -o bench/out/trace_100MB.json
  python bench/gen_trace.py --steps 3 --streams 4 --seed 7 --gzip -o small.json.gz
  python bench/gen_trace.py --size 20MB --rank 3 --world-size 16 --seed 3 -o r3.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import time

# Timestamps are simulated in integer nanoseconds and printed as microseconds with
# three decimals ("ts": 4458676522718.702), as Kineto with baseTimeNanoseconds does.
BASE_US = 4458676388068_751  # ns; an arbitrary steady-clock origin like the corpus'
BASE_TIME_NANOSECONDS = 1711964646000000000

PID = 2910249
MAIN_TID = 2910249
BWD_TID = 2919752  # autograd engine thread (pt_autograd_0)

COMPUTE_STREAM = 7
NCCL_STREAM = 20
COPY_STREAM = 24
SIDE_STREAMS_START = 28

DTYPE_BYTES = 4

# Kernel name -> static tail of its args (grid/block/registers...), computed once.
GEMM_NAMES = [
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_"
    "aligna4_alignc4_execute_kernel_trt",
    "ampere_sgemm_128x64_tn",
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>"
    "(cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4::Params)",
    "ampere_sgemm_64x64_nn",
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align4>"
    "(cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align4::Params)",
]
K_LAYERNORM = (
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
    "(int, float, float const*, float const*, float const*, float*, float*, float*)"
)
K_LAYERNORM_BWD_IN = (
    "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float, "
    "float>(float const*, float const*, float const*, float const*, float const*, float*, int)"
)
K_LAYERNORM_BWD_GB = (
    "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<float, float>"
    "(long, long, float const*, float const*, float const*, float const*, float*, float*)"
)
_GELU_L = (
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
    "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}"
)
K_GELU = (
    f"void at::native::vectorized_elementwise_kernel<4, {_GELU_L}, at::detail::Array<char*, 2> >"
    f"(int, {_GELU_L}, at::detail::Array<char*, 2>)"
)
_GELUB_L = (
    "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
    "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
    "{lambda(float, float)#1}"
)
K_GELU_BWD = (
    f"void at::native::vectorized_elementwise_kernel<4, {_GELUB_L}, "
    f"at::detail::Array<char*, 3> >(int, {_GELUB_L}, at::detail::Array<char*, 3>)"
)
K_ADD = (
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)"
)
_SUM_OP = (
    "at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<"
    "float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4>"
)
K_REDUCE = f"void at::native::reduce_kernel<128, 4, {_SUM_OP} >({_SUM_OP})"
K_SOFTMAX = (
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)"
)
K_NLL = (
    "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
    "float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, "
    "long, long)"
)
_MTA_META = "at::native::(anonymous namespace)::TensorListMetadata<4>"
_MTA_FN = (
    "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
    "(at::native::ADAM_MODE)1, false>"
)
K_ADAM = (
    f"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<{_MTA_META}, "
    f"{_MTA_FN}, float*, double, double, double, double, double, double, bool, float*, "
    f"float*>({_MTA_META}, {_MTA_FN}, float*, double, double, double, double, double, double, "
    f"bool, float*, float*)"
)
_MTA2 = "at::native::(anonymous namespace)::TensorListMetadata<2>"
_MTA2_FN = "at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 2, 1, 1>"
K_FOREACH_MUL = (
    f"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<{_MTA2}, {_MTA2_FN}, "
    f"std::multiplies<float>, float>({_MTA2}, {_MTA2_FN}, std::multiplies<float>, float)"
)
K_CAT = (
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, "
    "1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned "
    "int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, "
    "unsigned int)"
)
K_ROTARY = (
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::"
    "native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    "> >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::"
    "binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::"
    "gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::"
    "binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::"
    "BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > "
    "const&)::{lambda(int)#1})"
)
K_NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def parse_size(text: str) -> int:
    t = text.strip().upper().replace("IB", "B")
    for suffix, mult in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3), ("G", 10**9),
                         ("M", 10**6), ("K", 10**3), ("B", 1)):
        if t.endswith(suffix):
            return int(float(t[: -len(suffix)]) * mult)
    return int(t)


def fmt_us(ns: int) -> str:
    return f"{ns // 1000}.{ns % 1000:03d}"


class Generator:
    def __init__(self, seed: int, streams: int, layers: int, hidden: int, batch: int,
                 world_size: int = 8, rank: int = 0) -> None:
        self.rng = random.Random(seed)
        self.streams = max(1, streams)
        self.layers = layers
        self.hidden = hidden
        self.batch = batch
        self.world_size = world_size
        self.rank = rank
        self.t = BASE_US + 1_000_000  # host clock (ns)
        self.ext = 0  # External id
        self.corr = 0  # correlation id (shared by launch, GPU activity and ac2g flow)
        self.ev_idx = 0
        self.py_id = 0
        self.py_stack: list[tuple[int, int]] = []
        self.seq = 1000  # autograd sequence number
        self.stream_free: dict[int, int] = {COMPUTE_STREAM: 0}
        side = []
        if self.streams >= 2:
            self.stream_free[NCCL_STREAM] = 0
        if self.streams >= 3:
            self.stream_free[COPY_STREAM] = 0
        for i in range(max(0, self.streams - 3)):
            s = SIDE_STREAMS_START + 4 * i
            self.stream_free[s] = 0
            side.append(s)
        self.side_streams = side
        self.side_rr = 0
        self.host: list = []  # host-side events of the current step (strings)
        self.gpu: list[str] = []  # device-side events + their f flows
        self.tid = MAIN_TID
        # Ground truth.
        self.counts: dict[str, int] = {}
        self.kernel_count = 0
        self.kernel_ns = 0
        self.nccl_kernel_count = 0
        self.nccl_kernel_ns = 0
        self.memcpy_count = 0
        self.memcpy_ns = 0
        self.memcpy_bytes = 0
        self.memset_count = 0
        self.memset_ns = 0
        self.memset_bytes = 0
        self.gpu_intervals: list[tuple[int, int]] = []
        self.kernel_ns_by_stream: dict[int, int] = {}
        self.step_ns: list[int] = []
        self.first_ts = None
        self.last_end = 0
        self._kernel_tail: dict[tuple[str, int], str] = {}

    # ---- counting helpers -------------------------------------------------------------
    def _count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def _jit(self, ns: int, spread: float = 0.2) -> int:
        # Multiplicative jitter, deterministic through self.rng.
        return max(1000, int(ns * (1.0 + spread * (2.0 * self.rng.random() - 1.0))))

    # ---- host events ------------------------------------------------------------------
    def open(self, cat: str, name: str, args: str = "", overhead_ns: int = 3000) -> list:
        """Start a host event whose duration is known only after its children ran.

        Returns a handle; close() renders the event into its reserved slot so the
        output keeps Kineto's parent-before-child order.
        """
        self.ext += 1
        self.ev_idx += 1
        h = [len(self.host), cat, name, self.tid, self.t, self.ext, self.ev_idx, args]
        self.host.append(None)
        self.t += self._jit(overhead_ns)
        return h

    def close(self, h: list, tail_ns: int = 2000) -> None:
        self.t += self._jit(tail_ns)
        idx, cat, name, tid, start, ext, ev_idx, args = h
        self._count("X/" + cat)
        if cat == "python_function":
            pid_, parent = self.py_stack.pop()
            a = f'"Python parent id": {parent}, "Python id": {pid_}, "Ev Idx": {ev_idx}'
        else:
            a = f'"External id": {ext},"Record function id": 0, "Ev Idx": {ev_idx}{args}'
        self.host[idx] = (
            f'  {{\n    "ph": "X", "cat": "{cat}", "name": "{name}", "pid": {PID}, '
            f'"tid": {tid},\n    "ts": {fmt_us(start)}, "dur": {fmt_us(self.t - start)},\n'
            f'    "args": {{\n      {a}\n    }}\n  }}'
        )

    def leaf(self, name: str, args: str, dur_ns: int) -> None:
        h = self.open("cpu_op", name, args, overhead_ns=dur_ns)
        self.close(h, tail_ns=500)

    def _runtime(self, name: str, cbid: int, ext: int, start: int, dur: int,
                 corr: int | None) -> None:
        self._count("X/cuda_runtime")
        c = f', "correlation": {corr}' if corr is not None else ""
        self.host.append(
            f'  {{\n    "ph": "X", "cat": "cuda_runtime", "name": "{name}", "pid": {PID}, '
            f'"tid": {self.tid},\n    "ts": {fmt_us(start)}, "dur": {fmt_us(dur)},\n'
            f'    "args": {{\n      "External id": {ext},      "cbid": {cbid}{c}\n    }}\n  }}'
        )
        if corr is not None:
            self._count("s/ac2g")
            self.host.append(
                f'  {{\n    "ph": "s", "id": {corr}, "pid": {PID}, "tid": {self.tid}, '
                f'"ts": {fmt_us(start)},\n    "cat": "ac2g", "name": "ac2g"\n  }}'
            )

    # ---- device activities ------------------------------------------------------------
    def _gpu_start(self, stream: int, launch_ns: int, after: int = 0) -> int:
        return max(launch_ns + self._jit(4000, 0.5), self.stream_free[stream], after)

    def _record_interval(self, start: int, dur: int) -> None:
        self.gpu_intervals.append((start, start + dur))
        if self.first_ts is None or start < self.first_ts:
            self.first_ts = start
        if start + dur > self.last_end:
            self.last_end = start + dur

    def _flow_f(self, corr: int, stream: int, start: int) -> None:
        self._count("f/ac2g")
        self.gpu.append(
            f'  {{\n    "ph": "f", "id": {corr}, "pid": 0, "tid": {stream}, '
            f'"ts": {fmt_us(start)},\n    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }}'
        )

    def launch(self, kname: str, dur_ns: int, stream: int = COMPUTE_STREAM, grid: int = 512,
               extra: str = "", after: int = 0, exc: bool = False) -> int:
        """cudaLaunchKernel from the current host op + the kernel it produces."""
        ext = self.ext
        self.corr += 1
        corr = self.corr
        rt_start = self.t
        rt_dur = self._jit(5500, 0.4)
        self._runtime("cudaLaunchKernelExC" if exc else "cudaLaunchKernel",
                      430 if exc else 211, ext, rt_start, rt_dur, corr)
        self.t += rt_dur
        start = self._gpu_start(stream, rt_start, after)
        dur = self._jit(dur_ns, 0.1)
        self.stream_free[stream] = start + dur
        key = (kname, grid)
        tail = self._kernel_tail.get(key)
        if tail is None:
            regs = 32 + (len(kname) * 7) % 96
            smem = (len(kname) * 131) % 49152
            tail = (
                f'      "registers per thread": {regs},      "shared memory": {smem},      '
                f'"blocks per SM": {grid / 108:.6f},      "warps per SM": {grid * 4 / 108:.6f},'
                f'      "grid": [{grid}, 1, 1],      "block": [128, 1, 1],      '
                f'"est. achieved occupancy %": {min(100, grid // 8)}'
            )
            self._kernel_tail[key] = tail
        self._count("X/kernel")
        self.gpu.append(
            f'  {{\n    "ph": "X", "cat": "kernel", "name": "{kname}", "pid": 0, '
            f'"tid": {stream},\n    "ts": {fmt_us(start)}, "dur": {fmt_us(dur)},\n'
            f'    "args": {{\n      "External id": {ext},      "queued": 0, "device": 0, '
            f'"context": 1,      "stream": {stream}, "correlation": {corr},{tail}{extra}\n'
            f'    }}\n  }}'
        )
        self._flow_f(corr, stream, start)
        self.kernel_count += 1
        self.kernel_ns += dur
        self.kernel_ns_by_stream[stream] = self.kernel_ns_by_stream.get(stream, 0) + dur
        if stream == NCCL_STREAM:
            self.nccl_kernel_count += 1
            self.nccl_kernel_ns += dur
        self._record_interval(start, dur)
        return start + dur

    def memcpy(self, kind: str, nbytes: int, stream: int, blocking: bool) -> int:
        """cudaMemcpyAsync + gpu_memcpy. A pageable copy blocks the host until it ends."""
        ext = self.ext
        self.corr += 1
        corr = self.corr
        rt_start = self.t
        start = self._gpu_start(stream, rt_start)
        gbps = 12.0 if "Pageable" in kind else 22.0
        dur = max(1500, int(nbytes / gbps))  # bytes / (GB/s) = ns
        self.stream_free[stream] = start + dur
        rt_dur = (start + dur - rt_start + self._jit(3000)) if blocking else self._jit(7000)
        self._runtime("cudaMemcpyAsync", 41, ext, rt_start, rt_dur, corr)
        self.t += rt_dur
        self._count("X/gpu_memcpy")
        self.gpu.append(
            f'  {{\n    "ph": "X", "cat": "gpu_memcpy", "name": "{kind}", "pid": 0, '
            f'"tid": {stream},\n    "ts": {fmt_us(start)}, "dur": {fmt_us(dur)},\n'
            f'    "args": {{\n      "External id": {ext},      "device": 0, "context": 1,'
            f'      "stream": {stream}, "correlation": {corr},      "bytes": {nbytes}, '
            f'"memory bandwidth (GB/s)": {nbytes / dur}\n    }}\n  }}'
        )
        self._flow_f(corr, stream, start)
        self.memcpy_count += 1
        self.memcpy_ns += dur
        self.memcpy_bytes += nbytes
        self._record_interval(start, dur)
        return start + dur

    def memset(self, nbytes: int, stream: int = COMPUTE_STREAM) -> None:
        ext = self.ext
        self.corr += 1
        corr = self.corr
        rt_start = self.t
        rt_dur = self._jit(4500)
        self._runtime("cudaMemsetAsync", 51, ext, rt_start, rt_dur, corr)
        self.t += rt_dur
        start = self._gpu_start(stream, rt_start)
        dur = max(1000, nbytes // 1000)
        self.stream_free[stream] = start + dur
        self._count("X/gpu_memset")
        self.gpu.append(
            f'  {{\n    "ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, '
            f'"tid": {stream},\n    "ts": {fmt_us(start)}, "dur": {fmt_us(dur)},\n'
            f'    "args": {{\n      "External id": {ext},      "device": 0, "context": 1,'
            f'      "stream": {stream}, "correlation": {corr},      "bytes": {nbytes}, '
            f'"memory bandwidth (GB/s)": {nbytes / dur}\n    }}\n  }}'
        )
        self._flow_f(corr, stream, start)
        self.memset_count += 1
        self.memset_ns += dur
        self.memset_bytes += nbytes
        self._record_interval(start, dur)

    def stream_sync(self, stream: int = COMPUTE_STREAM) -> None:
        """cudaStreamSynchronize: the host waits until the stream drains."""
        start = self.t
        dur = max(self._jit(2500), self.stream_free[stream] - start + self._jit(2000))
        self._runtime("cudaStreamSynchronize", 131, self.ext, start, dur, None)
        self.t += dur

    # ---- model ------------------------------------------------------------------------
    def dims(self, *shapes) -> str:
        d = ", ".join("[" + ", ".join(str(x) for x in s) + "]" for s in shapes)
        ty = ", ".join('"float"' if s else '"Scalar"' for s in shapes)
        return f', "Input Dims": [{d}], "Input type": [{ty}]'

    def py(self, name: str) -> list:
        self.py_id += 1
        parent = self.py_stack[-1][0] if self.py_stack else 0
        self.py_stack.append((self.py_id, parent))
        return self.open("python_function", name, overhead_ns=2500)

    def linear(self, i: int, fan_in: int, fan_out: int) -> None:
        b = self.batch
        pf = self.py("torch/nn/modules/linear.py(116): forward")
        op = self.open("cpu_op", "aten::linear", self.dims((b, fan_in), (fan_out, fan_in),
                                                            (fan_out,)))
        self.leaf("aten::t", self.dims((fan_out, fan_in)), 2500)
        mm = self.open("cpu_op", "aten::addmm", self.dims((fan_out,), (b, fan_in),
                                                          (fan_in, fan_out), (), ()))
        flops = 2 * b * fan_in * fan_out
        self.launch(GEMM_NAMES[i % len(GEMM_NAMES)], max(8000, flops // 60_000), grid=
                    max(8, b * fan_out // 16384))
        self.close(mm)
        self.close(op)
        self.close(pf)

    def elementwise(self, op_name: str, kname: str, numel: int, stream: int = COMPUTE_STREAM
                    ) -> None:
        h = self.open("cpu_op", op_name, self.dims((self.batch, numel // self.batch),
                                                   (self.batch, numel // self.batch)))
        self.launch(kname, max(3000, numel * DTYPE_BYTES * 3 // 1500), stream=stream,
                    grid=max(1, numel // 512))
        self.close(h)

    def forward_layer(self, i: int) -> None:
        b, h = self.batch, self.hidden
        blk = self.py(f"nn.Module: Block_{i}")
        ln = self.open("cpu_op", "aten::layer_norm", self.dims((b, h), (h,), (h,), (), ()))
        nl = self.open("cpu_op", "aten::native_layer_norm", self.dims((b, h), (h,), (h,), ()))
        self.launch(K_LAYERNORM, max(4000, b * h * 8 // 1500), grid=b)
        self.close(nl)
        self.close(ln)
        self.linear(i, h, 4 * h)
        self.elementwise("aten::gelu", K_GELU, b * 4 * h)
        self.linear(i + 1, 4 * h, h)
        if self.side_streams:
            s = self.side_streams[self.side_rr % len(self.side_streams)]
            self.side_rr += 1
            self.elementwise("aten::mul", K_ROTARY, b * h // 4, stream=s)
            self.elementwise("aten::cat", K_CAT, b * h // 4, stream=s)
        self.elementwise("aten::add", K_ADD, b * h)
        self.close(blk)

    def backward_layer(self, i: int) -> None:
        b, h = self.batch, self.hidden
        self.seq -= 1

        def node(name: str) -> tuple[list, list]:
            seq = f', "Sequence number": {self.seq}, "Fwd thread id": 1'
            outer = self.open("cpu_op", f"autograd::engine::evaluate_function: {name}", seq)
            inner = self.open("cpu_op", name, seq)
            return outer, inner

        for lin, (fi, fo) in enumerate(((4 * h, h), (h, 4 * h))):
            o, n = node("AddmmBackward0")
            for _ in range(2):
                mm = self.open("cpu_op", "aten::mm", self.dims((b, fo), (fo, fi)))
                self.launch(GEMM_NAMES[(i + lin + 1) % len(GEMM_NAMES)],
                            max(8000, 2 * b * fi * fo // 60_000), grid=max(8, b * fi // 16384))
                self.close(mm)
            sm = self.open("cpu_op", "aten::sum", self.dims((b, fo), (), ()))
            self.launch(K_REDUCE, max(3000, b * fo * 4 // 2000), grid=max(1, fo // 128))
            self.close(sm)
            self.close(n)
            self.close(o)
            if lin == 0:
                o, n = node("GeluBackward0")
                self.elementwise("aten::gelu_backward", K_GELU_BWD, b * 4 * h)
                self.close(n)
                self.close(o)
        o, n = node("NativeLayerNormBackward0")
        lb = self.open("cpu_op", "aten::native_layer_norm_backward",
                       self.dims((b, h), (b, h), (b, 1), (b, 1), (h,), (h,), ()))
        self.launch(K_LAYERNORM_BWD_IN, max(4000, b * h * 12 // 1500), grid=b)
        self.launch(K_LAYERNORM_BWD_GB, max(3000, b * h * 8 // 1500), grid=max(1, h // 32))
        self.close(lb)
        self.close(n)
        self.close(o)

    def allreduce(self, nelems: int) -> None:
        if NCCL_STREAM not in self.stream_free:
            return
        args = (
            f', "Collective name": "allreduce", "In msg nelems": {nelems}, "Out msg nelems": '
            f'{nelems}, "Group size": {self.world_size}, "dtype": "Float", '
            f'"In split size": "[]", "Out split size": "[]", "Process Group Name": "0", '
            f'"Process Group Description": "default_pg", "Process Group Ranks": '
            f'"[{", ".join(str(r) for r in range(self.world_size))}]"'
        )
        rp = self.open("cpu_op", "record_param_comms", args)
        ua = self.open("user_annotation", "nccl:all_reduce", "")
        # The NCCL stream waits for the gradients (cudaStreamWaitEvent on the compute stream).
        dur = max(20_000, int(nelems * DTYPE_BYTES * 2 * (self.world_size - 1)
                              / self.world_size / 250.0))
        self.launch(K_NCCL, dur, stream=NCCL_STREAM, grid=8, extra=args,
                    after=self.stream_free[COMPUTE_STREAM], exc=True)
        self.close(ua)
        self.close(rp)

    def step(self, n: int) -> None:
        b, h = self.batch, self.hidden
        self.tid = MAIN_TID
        step_start = self.t
        ps = self.open("user_annotation", f"ProfilerStep#{n}", "", overhead_ns=1000)
        # Data loader: the host is busy producing the batch while the device idles.
        slow = self.rng.random() < 0.15
        dl = self.open("user_annotation",
                       "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "",
                       overhead_ns=(9_000_000 if slow else 900_000))
        self.close(dl)
        for _ in range(2):
            to = self.open("cpu_op", "aten::to", self.dims((b, h), (), (), (), ()))
            tc = self.open("cpu_op", "aten::_to_copy", self.dims((b, h), (), (), (), ()))
            cp = self.open("cpu_op", "aten::copy_", self.dims((b, h), (b, h), ()))
            if COPY_STREAM in self.stream_free:
                self.memcpy("Memcpy HtoD (Pinned -> Device)", b * h * DTYPE_BYTES,
                            COPY_STREAM, blocking=False)
            else:
                self.memcpy("Memcpy HtoD (Pageable -> Device)", b * h * DTYPE_BYTES,
                            COMPUTE_STREAM, blocking=True)
            self.close(cp)
            self.close(tc)
            self.close(to)
        if COPY_STREAM in self.stream_free:
            # The compute stream waits for the copy stream.
            self.stream_free[COMPUTE_STREAM] = max(self.stream_free[COMPUTE_STREAM],
                                                   self.stream_free[COPY_STREAM])
        zg = self.open("user_annotation", "Optimizer.zero_grad#AdamW.zero_grad", "")
        for _ in range(3):
            z = self.open("cpu_op", "aten::zeros", self.dims((), (), (), (), ()))
            self.memset(h * 4 * h * DTYPE_BYTES // 8)
            self.close(z)
        self.close(zg)
        fw = self.py("nn.Module: Model_0")
        for i in range(self.layers):
            self.forward_layer(i)
        self.close(fw)
        ce = self.open("cpu_op", "aten::cross_entropy_loss", self.dims((b, h), (b,), (), (), ()))
        self.elementwise("aten::_log_softmax", K_SOFTMAX, b * h)
        self.elementwise("aten::nll_loss_forward", K_NLL, b)
        self.close(ce)
        # Backward on the autograd thread; gradient buckets all-reduced on the NCCL stream.
        bw = self.open("cpu_op", "autograd::engine::evaluate_function: torch::autograd::"
                       "AccumulateGrad", "")
        self.close(bw)
        self.tid = BWD_TID
        bucket = 0
        for i in reversed(range(self.layers)):
            self.backward_layer(i)
            bucket += 8 * h * h + 6 * h
            if (self.layers - i) % 4 == 0 or i == 0:
                self.allreduce(bucket)
                bucket = 0
        self.tid = MAIN_TID
        # Optimizer: one fused Adam per parameter group plus a foreach scale: a chain of
        # small kernels launched back to back (launch-bound: gaps between kernels).
        after = max(self.stream_free.get(NCCL_STREAM, 0), 0)
        opt = self.open("user_annotation", "Optimizer.step#AdamW.step", "")
        for g in range(max(4, self.layers // 2)):
            fa = self.open("cpu_op", "aten::_fused_adamw_", self.dims((h, h), (h, h), (h, h)))
            self.launch(K_ADAM, 6000, grid=64, after=after if g == 0 else 0)
            self.close(fa, tail_ns=6000)
            fm = self.open("cpu_op", "aten::_foreach_mul_", self.dims((h, h), ()))
            self.launch(K_FOREACH_MUL, 2500, grid=32)
            self.close(fm, tail_ns=6000)
        self.close(opt)
        # loss.item() for logging: a blocking device-to-host copy, so the host waits for the
        # whole step's device work; the Python logging after it leaves the device idle.
        it = self.open("cpu_op", "aten::item", self.dims(()))
        ls = self.open("cpu_op", "aten::_local_scalar_dense", self.dims(()))
        self.memcpy("Memcpy DtoH (Device -> Pageable)", 4, COMPUTE_STREAM, blocking=True)
        self.stream_sync(COMPUTE_STREAM)
        self.close(ls)
        self.close(it, tail_ns=400_000)
        self.close(ps, tail_ns=5000)
        self.step_ns.append(self.t - step_start)
        self._count("steps")

    def render_step(self) -> str:
        # Kineto writes host events first, then device activities with their flows.
        text = ",\n".join(self.host) + ",\n" + ",\n".join(self.gpu)
        self.host = []
        self.gpu = []
        return text

    # ---- header / trailer -------------------------------------------------------------
    def header(self) -> str:
        props = []
        for i in range(8):
            props.append(
                f'    {{\n      "id": {i}, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": '
                f'84990623744,\n      "computeMajor": 8, "computeMinor": 0,\n      '
                f'"maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n      '
                f'"regsPerBlock": 65536, "warpSize": 32,\n      "sharedMemPerBlock": 49152, '
                f'"numSms": 108\n    , "regsPerMultiprocessor": 65536, '
                f'"sharedMemPerBlockOptin": 166912, "sharedMemPerMultiprocessor": 167936\n    }}'
            )
        ranks = ", ".join(str(r) for r in range(self.world_size))
        dist = (
            f'{{"backend": "nccl", "rank": {self.rank}, "world_size": {self.world_size}, '
            f'"pg_count": 1, "pg_config": [{{"pg_name": "0", "pg_desc": "default_pg", '
            f'"backend_config": "cuda:nccl", "pg_size": {self.world_size}, "ranks": [{ranks}]}}]'
            f', "nccl_version": "2.21.5"}}'
        )
        return (
            '\n{\n  "schemaVersion": 1,\n  "deviceProperties": [\n' + ",\n".join(props)
            + f'\n  ],\n  "distributedInfo": {dist},\n  "record_shapes": 1,\n'
            + '  "with_stack": 1,\n  "traceEvents": [\n'
        )

    def trailer(self) -> str:
        ev = []
        t0 = fmt_us(BASE_US + 500_000)

        def meta(name: str, pid, tid, key: str, value: str) -> None:
            self._count("M")
            ev.append(
                f'  {{\n    "name": "{name}", "ph": "M", "ts": {t0}, "pid": {pid}, "tid": {tid},'
                f'\n    "args": {{\n      "{key}": {value}\n    }}\n  }}'
            )

        meta("process_name", PID, 0, "name", '"python3.11"')
        meta("process_labels", PID, 0, "labels", '"CPU"')
        meta("process_sort_index", PID, 0, "sort_index", str(PID))
        meta("process_name", 0, 0, "name", '"python3.11"')
        meta("process_labels", 0, 0, "labels", '"GPU 0"')
        meta("process_sort_index", 0, 0, "sort_index", "16777216")
        for s in sorted(self.stream_free):
            meta("thread_name", 0, s, "name", f'"stream {s} "')
            meta("thread_sort_index", 0, s, "sort_index", str(s + 268435456))
        meta("thread_name", PID, MAIN_TID, "name", f'"thread {MAIN_TID} (python3.11)"')
        meta("thread_sort_index", PID, MAIN_TID, "sort_index", str(MAIN_TID))
        meta("thread_name", PID, BWD_TID, "name", f'"thread {BWD_TID} (pt_autograd_0)"')
        meta("thread_sort_index", PID, BWD_TID, "sort_index", str(BWD_TID))
        end = max(self.t, self.last_end)
        self._count("X/Trace")
        ev.append(
            f'  {{\n    "ph": "X", "cat": "Trace", "ts": {fmt_us(BASE_US)}, '
            f'"dur": {fmt_us(end - BASE_US)},\n    "pid": "Spans", "tid": "PyTorch Profiler",\n'
            f'    "name": "PyTorch Profiler (0)",\n'
            f'    "args": {{\n      "Op count": 0\n    }}\n  }}'
        )
        self._count("i")
        ev.append(
            f'  {{\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
            f'    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": {fmt_us(BASE_US)}\n  }}'
        )
        self._count("i")
        ev.append(
            f'  {{\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
            f'    "pid": "", "tid": "", "ts": {fmt_us(end + 1000)}\n  }}'
        )
        return (
            ",\n".join(ev) + '\n  ],\n  "traceName": "bench/gen_trace.py",\n'
            + '  "displayTimeUnit": "ms",\n'
            + f'  "baseTimeNanoseconds": {BASE_TIME_NANOSECONDS}\n}}'
        )

    def truth(self) -> dict:
        iv = sorted(self.gpu_intervals)
        busy = 0
        cur_s, cur_e = None, None
        for s, e in iv:
            if cur_e is None or s > cur_e:
                if cur_e is not None:
                    busy += cur_e - cur_s
                cur_s, cur_e = s, e
            elif e > cur_e:
                cur_e = e
        if cur_e is not None:
            busy += cur_e - cur_s
        span = (self.last_end - self.first_ts) if self.first_ts is not None else 0
        steps = sorted(self.step_ns)
        events = sum(v for k, v in self.counts.items() if k != "steps")
        return {
            "events": events,
            "event_counts": dict(sorted(self.counts.items())),
            "steps": self.counts.get("steps", 0),
            "step_median_ns": steps[len(steps) // 2] if steps else 0,
            "kernel_count": self.kernel_count,
            "kernel_ns": self.kernel_ns,
            "kernel_ns_by_stream": {str(k): v for k, v in sorted(self.kernel_ns_by_stream.items())},
            "nccl_kernel_count": self.nccl_kernel_count,
            "nccl_kernel_ns": self.nccl_kernel_ns,
            "memcpy_count": self.memcpy_count,
            "memcpy_ns": self.memcpy_ns,
            "memcpy_bytes": self.memcpy_bytes,
            "memset_count": self.memset_count,
            "memset_ns": self.memset_ns,
            "memset_bytes": self.memset_bytes,
            "device_busy_ns": busy,
            "device_span_ns": span,
            "device_idle_ns": span - busy,
            "streams": sorted(self.stream_free),
        }


def generate(out_path: str, size: int | None, steps: int | None, streams: int, seed: int,
             use_gzip: bool, layers: int | None, hidden: int, batch: int,
             quiet: bool = False, rank: int = 0, world_size: int = 8) -> dict:
    if size is None and steps is None:
        raise SystemExit("gen_trace: give --size and/or --steps")
    t0 = time.perf_counter()
    if layers is None:
        layers = 24
        if size is not None and steps is not None:
            # Calibrate the model depth so that `steps` steps come near `size` bytes.
            probe = Generator(seed, streams, 4, hidden, batch)
            probe.step(0)
            per_layer = len(probe.render_step()) / 4
            layers = max(1, int(size / steps / per_layer))
    gen = Generator(seed, streams, layers, hidden, batch, world_size=world_size, rank=rank)
    tmp = out_path + ".tmp"
    raw = open(tmp, "wb")  # noqa: SIM115
    sink = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) if use_gzip else raw
    written = 0
    head = gen.header().encode()
    sink.write(head)
    written += len(head)
    n = 0
    step_base = 100
    while True:
        gen.step(step_base + n)
        chunk = gen.render_step()
        data = (chunk if n == 0 else ",\n" + chunk).encode()
        sink.write(data)
        written += len(data)
        n += 1
        if size is not None and written >= size:
            break
        if size is None and n >= steps:
            break
        if not quiet and n % 20 == 0:
            el = time.perf_counter() - t0
            print(f"  {written / 1e6:8.1f} MB  {n} steps  {el:5.1f}s", file=sys.stderr)
    tail = (",\n" + gen.trailer()).encode()
    sink.write(tail)
    written += len(tail)
    if use_gzip:
        sink.close()
    raw.close()
    os.replace(tmp, out_path)
    truth = gen.truth()
    truth.update({
        "generator": "bench/gen_trace.py",
        "path": os.path.basename(out_path),
        "json_bytes": written,
        "file_bytes": os.path.getsize(out_path),
        "gzip": use_gzip,
        "seed": seed,
        "streams_option": streams,
        "layers": layers,
        "hidden": hidden,
        "batch": batch,
        "rank": rank,
        "world_size": world_size,
        "generate_s": round(time.perf_counter() - t0, 3),
    })
    with open(out_path + ".truth.json", "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    if not quiet:
        print(f"gen_trace: {out_path}: {written / 1e6:.1f} MB JSON, {truth['events']} events, "
              f"{n} steps, {truth['generate_s']:.1f}s", file=sys.stderr)
    return truth


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", required=True, help="output path (.json or .json.gz)")
    p.add_argument("--size", type=parse_size, default=None,
                   help="stop at the first step boundary where the uncompressed JSON "
                   "reaches this size: 100MB, 1GB or a byte count")
    p.add_argument("--steps", type=int, default=None,
                   help="number of ProfilerSteps; with --size it sets the model depth so "
                   "that about N steps fill SIZE (SIZE still decides where to stop)")
    p.add_argument("--streams", type=int, default=4,
                   help="device streams: 1 compute; 2 + NCCL; 3 + copy stream; more = side "
                   "compute streams (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gzip", action="store_true", help="gzip the output (level 1)")
    p.add_argument("--layers", type=int, default=None, help="model depth (default 24)")
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--rank", type=int, default=0,
                   help="the rank written in distributedInfo (give each rank its own --seed "
                   "too, so that their timings differ as real ranks' do)")
    p.add_argument("--world-size", type=int, default=8, help="distributedInfo's world_size")
    p.add_argument("-q", "--quiet", action="store_true")
    a = p.parse_args(argv)
    if not 0 <= a.rank < a.world_size:
        p.error(f"--rank {a.rank} is not in 0..{a.world_size - 1} (--world-size {a.world_size})")
    out = a.output
    if a.gzip and not out.endswith(".gz"):
        out += ".gz"
    d = os.path.dirname(out)
    if d:
        os.makedirs(d, exist_ok=True)
    generate(out, a.size, a.steps, a.streams, a.seed, a.gzip, a.layers, a.hidden, a.batch,
             quiet=a.quiet, rank=a.rank, world_size=a.world_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
