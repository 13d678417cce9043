#!/usr/bin/python3
"""Gradient differential harness, second op set: the random cases of torchdiff_more.py for its
differentiable ops (elu ... softplus, lerp, group/batch norm, sort/topk/kthvalue values, gather /
scatter and friends, cat/stack/flip/roll/repeat/tril/triu/movedim, pooling, conv, interpolate, pad,
norm, addmm/baddbmm, scalar fmod/remainder, div with a rounding mode) with f32/f64 inputs, through
ctorch (driver.c's "g:" mode) and torch 1.13 with torchdiff_grad.py's upstream gradient, tolerances,
classification and options:
  /usr/bin/python3 scripts/torchdiff/torchdiff_grad_more.py --lib build/libctorch.a [-n N] [--seed S]
(needs torch; never run by the tests)."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchdiff as td  # noqa: E402
import torchdiff_more as tm  # noqa: E402
import torchdiff_grad as tg  # noqa: E402

tg.GRAD_OPS = set(['elu', 'hardtanh', 'leaky_relu', 'softplus', 'lerp', 'lerp_scalar',
                   'group_norm', 'batch_norm', 'sort_v', 'topk_v', 'kth_v', 'gather', 'scatter',
                   'scatter_add', 'index_select', 'index_add', 'masked_fill', 'masked_select',
                   'take_along_dim', 'cat', 'stack', 'flip', 'roll', 'repeat', 'tril', 'triu',
                   'movedim', 'max_pool2d', 'avg_pool2d', 'adaptive_avg_pool2d', 'max_pool2d_ex',
                   'avg_pool2d_ex', 'interpolate', 'interpolate_scale', 'conv1d', 'conv2d', 'pad',
                   'norm', 'addmm', 'baddbmm', 'fmod_scalar', 'remainder_scalar', 'div_trunc',
                   'div_floor', 'floor_divide', 'div_trunc_scalar', 'div_floor_scalar', 'dot',
                   'mv', 'outer', 'cross', 'trace', 'diagonal', 'diag', 'tile', 'diff', 'nansum',
                   'nanmean', 'var_mean_0', 'var_mean_1', 'std_mean_0', 'std_mean_1',
                   'meshgrid', 'einsum', 'median', 'nanmedian', 'median_dim_v',
                   'nanmedian_dim_v', 'cummax_v', 'cummin_v', 'logcumsumexp', 'rot90', 'kron',
                   'repeat_interleave'])
# inputs that are buffers, not parameters (torch refuses requires_grad on them): the driver's
# "op/<mask>" form keeps them out of autograd on ctorch's side as well
NO_GRAD = {'batch_norm': (1, 2)}  # running_mean, running_var

_gen_case = tg.gen_case


def empty_window(line, thunk, op):
    """max pooling with a window that holds no input element (all padding, through dilation):
    torch 1.13 reports an index past the input there and its backward writes out of bounds
    (heap corruption, the process aborts); ctorch drops that gradient. Not generated."""
    if op not in ('max_pool2d', 'max_pool2d_ex'):
        return False
    I = [int(x) for x in line.split()[-(9 if op == 'max_pool2d_ex' else 8):]]
    ceil = op == 'max_pool2d_ex' and I[8]
    for j, n in enumerate(thunk.T[0].shape[-2:]):
        k, s, p, d = I[j], I[2 + j], I[4 + j], I[6 + j]
        # torch's output size (floor division toward -inf, as Python's //)
        out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
        if ceil and (out - 1) * s >= n + p:
            out -= 1
        if any(all(not 0 <= o * s - p + t * d < n for t in range(k)) for o in range(out)):
            return True
    return False


def gen_case(rng):
    while True:
        line, thunk, op, dts = _gen_case(rng)
        if not empty_window(line, thunk, op):
            break
    ng = NO_GRAD.get(op, ())
    thunk.nograd = ng
    if ng:
        mask = sum(1 << k for k in range(len(thunk.T)) if k not in ng)
        line = line.replace(op, '%s/%d' % (op, mask), 1)
    return line, thunk, op, dts


def run_torch(thunk):
    """torchdiff_grad.run_torch, leaving the NO_GRAD inputs without requires_grad"""
    ts = [t for k, t in enumerate(thunk.T)
          if t is not None and t.dtype in tg.FL and k not in thunk.nograd]
    for t in ts:
        t.requires_grad_(True)
    try:
        r = thunk()
    except Exception as ex:
        return 'ERR forward: ' + str(ex).split('\n')[0][:120], ts
    if not isinstance(r, torch.Tensor) or r.dtype not in tg.FL or not r.requires_grad:
        return 'SKIP', ts
    try:
        r.backward(tg.upstream(r))
    except Exception as ex:
        return 'ERR backward: ' + str(ex).split('\n')[0][:120], ts
    return 'OK', ts


if __name__ == '__main__':
    td.gen = tm.gen2
    tg.gen_case = gen_case
    tg.run_torch = run_torch
    tg.main()
