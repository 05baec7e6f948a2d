"""Fits a network to an energy and its forces (lint fixture, issue 36 item 5).

The shape of functorch's Lennard-Jones example: make_prediction() runs the model
and a torch.func transform of it, and the training loop at the module's top
level backpropagates a loss derived from what it returns. Its name says
"prediction", but it is the training forward: no autograd-in-eval.
"""

import os

import torch
from torch import nn
from torch.func import jacrev, vmap
from torch.nn.functional import mse_loss

sigma, epsilon = 0.5, 4.0


def lennard_jones(r):
    return epsilon * ((sigma / r) ** 12 - (sigma / r) ** 6)


def lennard_jones_force(r):
    return -epsilon * ((-12 * sigma**12 / r**13) + (6 * sigma**6 / r**7))


r = torch.linspace(0.5, 2 * sigma, steps=1000, requires_grad=True)
drs = torch.outer(r, torch.tensor([1.0, 0, 0]))
norms = torch.norm(drs, dim=1).reshape(-1, 1)
training_energies = torch.stack(list(map(lennard_jones, norms))).reshape(-1, 1)
forces = map(lennard_jones_force, norms)
training_forces = torch.stack([f * dr for f, dr in zip(forces, drs, strict=True)])

model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))


def make_prediction(model, drs):
    norms = torch.norm(drs, dim=1).reshape(-1, 1)
    energies = model(norms)
    network_derivs = vmap(jacrev(model))(norms).squeeze(-1)
    forces = -network_derivs * drs / norms
    return energies, forces


def loss_fn(energies, forces, predicted_energies, predicted_forces):
    return mse_loss(energies, predicted_energies) + 0.01 * mse_loss(forces, predicted_forces) / 3


optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(int(os.environ.get("EPOCHS", "400"))):
    optimiser.zero_grad()
    (energies, forces) = make_prediction(model, drs)
    loss = loss_fn(training_energies, training_forces, energies, forces)
    loss.backward(retain_graph=True)
    optimiser.step()
    if epoch % 20 == 0:
        print(loss.cpu().item())
