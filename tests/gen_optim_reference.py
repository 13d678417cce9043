#!/usr/bin/python3
"""Generate tests/data/optim_torch_ref.h: 25-step trajectories of torch.optim (PyTorch 1.13, CPU)
for SGD, Adam, AdamW, Adagrad, RMSprop, Adamax, NAdam, RAdam, Adadelta, Rprop and ASGD under several option
sets, which tests/test_optim_torch.c compares with ctorch (rtol 1e-5).

NAdam: PyTorch 1.13 computes mu_product_next as mu_product * mu * mu_next (mu counted twice, fixed
in PyTorch 2.0 to mu_product * mu_next); the script runs 1.13's own _single_tensor_nadam with that
one expression replaced. Decoupled weight decay (NAdam / RAdam, PyTorch >= 2.1; not in 1.13) is
generated as PyTorch 2.x defines it: param.mul_(1 - lr * weight_decay) before a step without
weight decay.

Operation order: ctorch follows PyTorch's current fused kernels (docs/optim.md). PyTorch 1.13's
single-tensor optimizers already apply the same steps in the same order, SGD's maximize included
(1.13 negates the gradient before adding weight decay, as the fused kernel does: the script checks
this against an SGD written here in the current order, sgd_current_order). What differs is only
rounding: 1.13's CPU addcdiv is self + (value*t1)/t2 (three roundings, not fma(value, t1/t2, self)),
its exp_avg update is mul_(beta1).add_(g, alpha=1-beta1) instead of lerp, and torch.maximum
propagates NaN where ctorch's amsgrad keeps vmax > v ? vmax : v. These stay far inside rtol 1e-5
after 25 steps (tests/test_optim_torch.c).

Usage: /usr/bin/python3 tests/gen_optim_reference.py > tests/data/optim_torch_ref.h
"""
import inspect

import torch
import torch.optim.nadam as _nadam

_src = inspect.getsource(_nadam._single_tensor_nadam)
assert _src.count("mu_product * mu * mu_next") == 1, "torch's NAdam changed: review the fix"
_ns = dict(vars(_nadam))
exec(_src.replace("mu_product * mu * mu_next", "mu_product * mu_next"), _ns)
_nadam._single_tensor_nadam = _ns["_single_tensor_nadam"]

N = 16
STEPS = 25

CONFIGS = [
    # (kind, options)
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.02)),
    ("SGD", dict(lr=0.05, momentum=0.8, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=0.1, maximize=True)),
    ("ADAM", dict(lr=0.01)),
    ("ADAM", dict(lr=0.01, weight_decay=0.05, amsgrad=True)),
    ("ADAM", dict(lr=0.02, betas=(0.3, 0.99), eps=1e-6, maximize=True)),
    ("ADAMW", dict(lr=0.01)),
    ("ADAMW", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("ADAGRAD", dict(lr=0.05)),
    ("ADAGRAD", dict(lr=0.05, lr_decay=0.01, weight_decay=0.05, initial_accumulator_value=0.1)),
    ("ADAGRAD", dict(lr=0.05, eps=1e-6, maximize=True)),
    ("RMSPROP", dict(lr=0.01)),
    ("RMSPROP", dict(lr=0.01, momentum=0.9, weight_decay=0.01)),
    ("RMSPROP", dict(lr=0.01, centered=True, alpha=0.5)),
    ("RMSPROP", dict(lr=0.01, centered=True, momentum=0.5, maximize=True)),
    ("ADAMAX", dict(lr=0.01)),
    ("ADAMAX", dict(lr=0.01, weight_decay=0.05, maximize=True)),
    ("ADAMAX", dict(lr=0.02, betas=(0.3, 0.99), eps=1e-6)),
    ("NADAM", dict(lr=0.01)),
    ("NADAM", dict(lr=0.01, weight_decay=0.05, momentum_decay=0.1, betas=(0.3, 0.99))),
    ("NADAM", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RADAM", dict(lr=0.01)),
    ("RADAM", dict(lr=0.01, weight_decay=0.05, betas=(0.3, 0.9), eps=1e-6)),
    ("RADAM", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("ADADELTA", dict(lr=1.0)),
    ("ADADELTA", dict(lr=0.5, rho=0.5, eps=1e-4, weight_decay=0.05, maximize=True)),
    ("RPROP", dict(lr=0.01)),
    ("RPROP", dict(lr=0.05, etas=(0.3, 2.0), step_sizes=(1e-3, 0.02), maximize=True)),
    ("ASGD", dict(lr=0.01)),
    ("ASGD", dict(lr=0.05, lambd=0.1, alpha=0.5, t0=5, weight_decay=0.05)),
    ("ASGD", dict(lr=0.02, t0=3, maximize=True)),
]
AUX = {"RPROP": "step_size", "ASGD": "ax"}  # a state buffer compared too
DEFAULT_EPS = {"ADAGRAD": 1e-10, "ADADELTA": 1e-6}


def sgd_current_order(p, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0,
                      nesterov=False, maximize=False):
    """SGD in the order of PyTorch's current fused kernel, with f32 torch ops."""
    p = p.clone()
    buf = None
    out = []
    for g in grads:
        g = g.clone()
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g.add(p, alpha=weight_decay)
        if momentum != 0:
            buf = g.clone() if buf is None else buf.mul(momentum).add(g, alpha=1 - dampening)
            g = g.add(buf, alpha=momentum) if nesterov else buf
        p = p.add(g, alpha=-lr)
        out.append(p.clone())
    return out


def torch_traj(kind, opts, p0, grads):
    p = torch.nn.Parameter(p0.clone())
    cls = {"SGD": torch.optim.SGD, "ADAM": torch.optim.Adam, "ADAMW": torch.optim.AdamW,
           "ADAGRAD": torch.optim.Adagrad, "RMSPROP": torch.optim.RMSprop,
           "ADAMAX": torch.optim.Adamax, "NADAM": torch.optim.NAdam, "RADAM": torch.optim.RAdam,
           "ADADELTA": torch.optim.Adadelta, "RPROP": torch.optim.Rprop,
           "ASGD": torch.optim.ASGD}[kind]
    opts = dict(opts)
    decay = 1.0
    if opts.pop("decoupled_weight_decay", False):
        decay = 1.0 - opts["lr"] * opts.pop("weight_decay")
    opt = cls([p], **opts)
    out, aux = [], []
    for g in grads:
        p.grad = g.clone()
        if decay != 1.0:
            with torch.no_grad():
                p.mul_(decay)
        opt.step()
        out.append(p.detach().clone())
        aux.append(opt.state[p][AUX[kind]].clone() if kind in AUX else torch.zeros_like(p))
    return out, aux


def c_floats(vals):
    return ", ".join(float(v).hex() for v in vals)


def main():
    gen = torch.Generator().manual_seed(1234)
    p0 = torch.rand(N, generator=gen, dtype=torch.float32) * 2 - 1
    grads = [torch.rand(N, generator=gen, dtype=torch.float32) * 2 - 1 for _ in range(STEPS)]
    print("/* Generated by tests/gen_optim_reference.py with PyTorch %s: do not edit. */"
          % torch.__version__)
    print("#ifndef CTORCH_OPTIM_TORCH_REF_H\n#define CTORCH_OPTIM_TORCH_REF_H\n")
    print("#define OPT_REF_N %d\n#define OPT_REF_STEPS %d\n#define OPT_REF_NCFG %d\n"
          % (N, STEPS, len(CONFIGS)))
    print("static const float opt_ref_p0[OPT_REF_N] = {%s};" % c_floats(p0.tolist()))
    print("static const float opt_ref_grads[OPT_REF_STEPS][OPT_REF_N] = {")
    for g in grads:
        print("    {%s}," % c_floats(g.tolist()))
    print("};")
    print("typedef struct {\n    int kind; /* ct_optim_kind */\n    double lr, momentum, dampening,"
          " weight_decay, beta1, beta2, eps, lr_decay, init_acc, alpha, rho, momentum_decay;\n"
          "    int nesterov, amsgrad, maximize, centered, decoupled;\n"
          "    double etaminus, etaplus, step_min, step_max, lambd, t0;\n"
          "    const char *aux; /* a state buffer compared too (NULL: none) */\n"
          "    float traj[OPT_REF_STEPS][OPT_REF_N], aux_traj[OPT_REF_STEPS][OPT_REF_N];\n"
          "} opt_ref_cfg;")
    print("static const opt_ref_cfg opt_ref_cfgs[OPT_REF_NCFG] = {")
    for kind, o in CONFIGS:
        traj, aux = torch_traj(kind, o, p0, grads)
        if kind == "SGD":
            cur = sgd_current_order(p0, grads, **o)
            diff = max((a - b).abs().max().item() for a, b in zip(traj, cur))
            assert diff <= 1e-6, "torch.optim.SGD 1.13 departs from the current order: %g" % diff
        betas = o.get("betas", (0.9, 0.999))
        defaults_eps = DEFAULT_EPS.get(kind, 1e-8)
        fields = [
            "CT_OPTIM_" + kind, o["lr"], o.get("momentum", 0.0), o.get("dampening", 0.0),
            o.get("weight_decay", 1e-2 if kind == "ADAMW" else 0.0), betas[0], betas[1],
            o.get("eps", defaults_eps), o.get("lr_decay", 0.0),
            o.get("initial_accumulator_value", 0.0), o.get("alpha", 0.75 if kind == "ASGD" else 0.99), o.get("rho", 0.9),
            o.get("momentum_decay", 4e-3)]
        etas = o.get("etas", (0.5, 1.2))
        steps = o.get("step_sizes", (1e-6, 50.0))
        more = [etas[0], etas[1], steps[0], steps[1], o.get("lambd", 1e-4), o.get("t0", 1e6)]
        flags = [int(bool(o.get(k))) for k in
                 ("nesterov", "amsgrad", "maximize", "centered", "decoupled_weight_decay")]
        print("    {%s, %s, %s, %s, %s," % (
            fields[0], ", ".join(repr(float(x)) for x in fields[1:]),
            ", ".join(str(f) for f in flags), ", ".join(repr(float(x)) for x in more),
            '"%s"' % AUX[kind] if kind in AUX else "NULL"))
        for tr in (traj, aux):
            print("     {")
            for t in tr:
                print("         {%s}," % c_floats(t.tolist()))
            print("     },")
        print("    },")
    print("};\n\n#endif")


if __name__ == "__main__":
    main()
