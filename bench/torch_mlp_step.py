#!/usr/bin/env python3
"""PyTorch's time for bench_autograd's training step, for docs/autograd.md: MLP 64-128-10,
batch 64, cross entropy (mean), backward, SGD (lr 0.01), 2 threads, best of 5 runs of 200 steps.
Run with Debian's python3-torch (1.13): python3 bench/torch_mlp_step.py"""
import time

import torch

torch.set_num_threads(2)
torch.manual_seed(0)
w1 = torch.randn(128, 64, requires_grad=True)
b1 = torch.zeros(128, requires_grad=True)
w2 = torch.randn(10, 128, requires_grad=True)
b2 = torch.zeros(10, requires_grad=True)
x = torch.randn(64, 64)
y = torch.zeros(64, dtype=torch.int64)
opt = torch.optim.SGD([w1, b1, w2, b2], lr=0.01)


def step():
    opt.zero_grad(set_to_none=True)
    h = torch.relu(torch.nn.functional.linear(x, w1, b1))
    loss = torch.nn.functional.cross_entropy(torch.nn.functional.linear(h, w2, b2), y)
    loss.backward()
    opt.step()


for _ in range(50):
    step()
best = 1e9
for _ in range(5):
    t0 = time.perf_counter()
    for _ in range(200):
        step()
    best = min(best, (time.perf_counter() - t0) / 200)
print(f"torch {torch.__version__} mlp_step batch=64 step_us={best * 1e6:.1f}")
