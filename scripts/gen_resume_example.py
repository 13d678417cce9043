#!/usr/bin/python3
"""Write examples/data/resume_adamw.pt for examples/resume_torch_training.c: a small MLP
(Linear(4, 16), tanh, Linear(16, 1)) trained by PyTorch 1.13 for 30 full-batch AdamW steps on a
fixed regression problem under a cosine learning-rate schedule (CosineAnnealingLR, T_max 60),
with the usual two parameter groups (weight decay on the weight matrices, none on the biases),
saved as a training checkpoint
    {"model": model.state_dict(), "optimizer": opt.state_dict(),
     "scheduler": sched.state_dict(), "epoch": 30, "data": {"x": x, "y": y},
     "expected_losses": [the next 30 losses torch computes]}
so that the C example can resume the run and check its losses against torch's.

Usage: /usr/bin/python3 scripts/gen_resume_example.py examples/data/resume_adamw.pt
"""
import sys

import torch

torch.manual_seed(5)
x = torch.randn(64, 4)
y = (x[:, :1] * 0.7 - x[:, 1:2] * x[:, 2:3] + 0.3 * torch.sin(3 * x[:, 3:4]))
model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
decay = [model[0].weight, model[2].weight]
no_decay = [model[0].bias, model[2].bias]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                         {"params": no_decay, "weight_decay": 0.0}], lr=0.02, amsgrad=True)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=60, eta_min=0.001)


def step():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    return loss.item()


for _ in range(30):
    step()
ckpt = {"model": {k: v.clone() for k, v in model.state_dict().items()},
        "optimizer": __import__("copy").deepcopy(opt.state_dict()),
        "scheduler": dict(sched.state_dict()), "epoch": 30,
        "data": {"x": x, "y": y}}
ckpt["expected_losses"] = [step() for _ in range(30)]
torch.save(ckpt, sys.argv[1])
