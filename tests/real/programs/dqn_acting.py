"""cleanrl's dqn.py (CartPole-v1) in small, as its loop runs: epsilon-greedy
acting with q_network(torch.Tensor(obs)) on every environment step, outside
torch.no_grad(); from learning_starts on, a training step every
train_frequency steps (the target network under no_grad, a TD loss, backward,
Adam) and a target-network update every target_network_frequency steps.

    python dqn_acting.py [--total-timesteps 4000]
"""

from __future__ import annotations

import argparse
import random

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class QNetwork(nn.Module):
    def __init__(self, env):
        super().__init__()
        self.network = nn.Sequential(
            nn.Linear(int(np.array(env.single_observation_space.shape).prod()), 120), nn.ReLU(),
            nn.Linear(120, 84), nn.ReLU(),
            nn.Linear(84, env.single_action_space.n))

    def forward(self, x):
        return self.network(x)


def linear_schedule(start_e: float, end_e: float, duration: int, t: int) -> float:
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


# At module level, as in cleanrl: the networks live until the interpreter exits.
if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--total-timesteps", type=int, default=4000)
    ap.add_argument("--learning-starts", type=int, default=500)
    ap.add_argument("--train-frequency", type=int, default=10)
    ap.add_argument("--target-network-frequency", type=int, default=250)
    ap.add_argument("--batch-size", type=int, default=128)
    args = ap.parse_args()
    seed = 1
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")])
    envs.single_action_space.seed(seed)
    q_network = QNetwork(envs)
    optimizer = torch.optim.Adam(q_network.parameters(), lr=2.5e-4)
    target_network = QNetwork(envs)
    target_network.load_state_dict(q_network.state_dict())
    # The replay buffer (stable-baselines3's ReplayBuffer in cleanrl), in arrays.
    size = args.total_timesteps
    b_obs = np.zeros((size, 4), np.float32)
    b_next = np.zeros((size, 4), np.float32)
    b_act = np.zeros((size, 1), np.int64)
    b_rew = np.zeros(size, np.float32)
    b_done = np.zeros(size, np.float32)
    rng = np.random.default_rng(seed)

    obs, _ = envs.reset(seed=seed)
    acting = episodes = 0
    for global_step in range(args.total_timesteps):
        epsilon = linear_schedule(1.0, 0.05, args.total_timesteps // 2, global_step)
        if random.random() < epsilon:
            actions = np.array([envs.single_action_space.sample()])
        else:
            q_values = q_network(torch.Tensor(obs))
            actions = torch.argmax(q_values, dim=1).cpu().numpy()
            acting += 1
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        episodes += int(terminations[0] or truncations[0])
        real_next = next_obs.copy()
        if truncations[0] or terminations[0]:
            real_next = obs  # autoreset: the next observation is the new episode's
        b_obs[global_step], b_next[global_step] = obs[0], real_next[0]
        b_act[global_step], b_rew[global_step] = actions[0], rewards[0]
        b_done[global_step] = float(terminations[0])
        obs = next_obs

        if global_step > args.learning_starts:
            if global_step % args.train_frequency == 0:
                idx = rng.integers(0, global_step + 1, args.batch_size)
                with torch.no_grad():
                    target_max, _ = target_network(torch.from_numpy(b_next[idx])).max(dim=1)
                    td_target = torch.from_numpy(b_rew[idx]) + 0.99 * target_max * (
                        1 - torch.from_numpy(b_done[idx]))
                old_val = q_network(torch.from_numpy(b_obs[idx])).gather(
                    1, torch.from_numpy(b_act[idx])).squeeze()
                loss = F.mse_loss(td_target, old_val)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            if global_step % args.target_network_frequency == 0:
                target_network.load_state_dict(q_network.state_dict())
    envs.close()
    print(f"acting forwards: {acting}; episodes: {episodes}")
