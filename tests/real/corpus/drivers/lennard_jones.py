"""A neural Lennard-Jones potential fitted to energies and forces, written for
fastenough's tests in the style of functorch's examples/lennard_jones (pytorch
repository): a small Tanh MLP maps a pair distance to an energy, the forces
are the negative derivative of that energy, taken per sample with
`vmap(jacrev(model))`, and Adam fits both at once. Not vendored: nobody
upstream wrote this file (the upstream example is GPL-3.0, adapted from
muhrin/milad; this one is the project's own). As upstream, the displacement
vectors are made once from distances that require grad, so every step's
graph hangs off the same input graph (the targets' too) and the step calls
`loss.backward(retain_graph=True)`. CPU, deterministic.

    python lennard_jones.py [--steps 600] [--points 100] [--print-every 20]
                            [--times times.json]

--times writes each step's wall time and the main thread's CPU time
(seconds, JSON: {"wall": [...], "cpu": [...]}): the tests compare the first
steps with the last, plain and under the tool (CPU time: a loaded machine
stretches wall time, not the work a step does).
"""

import argparse
import json
import time

import torch
from torch import nn
from torch.func import jacrev, vmap

SIGMA = 0.5
EPSILON = 4.0


def pair_energy(dist: torch.Tensor) -> torch.Tensor:
    """The 12-6 potential: 4 eps ((s/r)^12 - (s/r)^6), here with EPSILON as 4 eps."""
    q6 = (SIGMA / dist) ** 6
    return EPSILON * (q6 * q6 - q6)


def pair_force(dist: torch.Tensor) -> torch.Tensor:
    """Magnitude of the force, -dE/dr."""
    return EPSILON * (12 * SIGMA ** 12 / dist ** 13 - 6 * SIGMA ** 6 / dist ** 7)


def energy_model() -> nn.Module:
    layers: list[nn.Module] = [nn.Linear(1, 16), nn.Tanh()]
    for _ in range(3):
        layers += [nn.Linear(16, 16), nn.Tanh()]
    layers.append(nn.Linear(16, 1))
    return nn.Sequential(*layers)


def predict(model: nn.Module, displacements: torch.Tensor):
    dist = displacements.norm(dim=1, keepdim=True)
    energies = model(dist)
    # d(energy)/d(distance) per sample: one jacobian per row, vectorised.
    de_dr = vmap(jacrev(model))(dist).squeeze(-1)
    forces = -de_dr * displacements / dist
    return energies, forces


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--print-every", type=int, default=20)
    ap.add_argument("--times", default=None, help="write per-step seconds here (JSON)")
    args = ap.parse_args()
    torch.manual_seed(0)

    dist = torch.linspace(SIGMA, 2 * SIGMA, args.points, requires_grad=True)
    # Displacements along +x, built once from distances that require grad.
    displacements = torch.outer(dist, torch.tensor([1.0, 0.0, 0.0]))
    r = displacements.norm(dim=1, keepdim=True)
    # As upstream, the targets are computed sample by sample from the same
    # displacements and stay attached to that graph: every backward runs
    # through them too (hundreds of small nodes; a quirk of the example, kept,
    # since it is what the program does).
    target_energy = torch.stack([pair_energy(d) for d in r]).reshape(-1, 1)
    target_force = torch.stack([pair_force(d) * v / d
                                for d, v in zip(r, displacements, strict=True)])

    model = energy_model()
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    mse = nn.functional.mse_loss
    wall, cpu = [], []
    for step in range(args.steps):
        t0, c0 = time.perf_counter(), time.thread_time()
        optimiser.zero_grad()
        energies, forces = predict(model, displacements)
        loss = mse(energies, target_energy) + 0.01 * mse(forces, target_force) / 3
        loss.backward(retain_graph=True)
        optimiser.step()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        if step % args.print_every == 0:
            print(f"step {step:4d}  loss {loss.item():.6f}")
    if args.times:
        with open(args.times, "w") as f:
            json.dump({"wall": wall, "cpu": cpu}, f)


if __name__ == "__main__":
    main()
