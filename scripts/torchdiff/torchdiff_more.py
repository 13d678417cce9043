#!/usr/bin/python3
"""Differential harness, second op set: the nn / indexing / sorting ops that torchdiff.py does not
generate (activations with parameters, lerp, group/batch norm, sort/topk/kthvalue, gather/scatter
and friends, cat/stack/flip/roll/repeat/tril, pooling, conv, interpolate, pad, one_hot, unique,
nonzero, norm, addmm/baddbmm, argmin, shifts, scalar fmod/remainder, movedim). Same driver, line
format, classification and options as torchdiff.py:
  /usr/bin/python3 scripts/torchdiff/torchdiff_more.py --lib build/libctorch.a [-n N] [--seed S]
(needs torch; never run by the tests)."""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchdiff as td  # noqa: E402

FL = td.FLOATS


def fdt(rng, d):
    """mostly a floating dtype (the nn ops), sometimes d as drawn"""
    return d if rng.random() < 0.15 else rng.choice(FL)


def idx_tensor(rng, shape, hi, dt=5, neg=True):
    n = 1
    for s in shape:
        n *= s
    lo = -hi if (neg and rng.random() < 0.2) else 0
    vals = [rng.randint(lo, max(hi - 1, 0)) + (1 if rng.random() < 0.02 else 0) for _ in range(n)]
    return td.rtensor(rng, dt, shape, vals=vals)


def gen2(rng):
    op = rng.choice(['elu', 'hardtanh', 'leaky_relu', 'softplus', 'lerp', 'lerp_scalar',
                     'group_norm', 'batch_norm', 'batch_norm_rm', 'batch_norm_rv', 'sort_v',
                     'sort_i', 'argsort', 'topk_v', 'topk_i', 'kth_v', 'kth_i', 'argmin', 'gather',
                     'scatter', 'scatter_add', 'index_select', 'index_add', 'masked_fill',
                     'masked_select', 'take_along_dim', 'cat', 'stack', 'flip', 'roll', 'repeat',
                     'tril', 'triu', 'max_pool2d', 'avg_pool2d', 'adaptive_avg_pool2d', 'conv1d',
                     'conv2d', 'interpolate', 'pad', 'one_hot', 'unique_v', 'unique_i',
                     'unique_c', 'nonzero', 'norm', 'addmm', 'baddbmm', 'bitwise_left_shift',
                     'bitwise_right_shift', 'fmod_scalar', 'remainder_scalar', 'movedim',
                     'max_pool2d_ex', 'max_pool2d_ex_i', 'avg_pool2d_ex', 'interpolate_scale',
                     'div_trunc', 'div_floor', 'floor_divide', 'div_trunc_scalar',
                     'div_floor_scalar', 'dot', 'mv', 'outer', 'cross', 'trace', 'diagonal',
                     'diag', 'tile', 'diff', 'nansum', 'nanmean', 'var_mean_0', 'var_mean_1',
                     'std_mean_0', 'std_mean_1', 'meshgrid', 'einsum', 'einsum', 'median',
                     'nanmedian', 'median_dim_v', 'median_dim_i', 'nanmedian_dim_v',
                     'nanmedian_dim_i', 'cummax_v', 'cummax_i', 'cummin_v', 'cummin_i',
                     'logcumsumexp', 'rot90', 'kron', 'repeat_interleave', 'searchsorted',
                     'searchsorted', 'bucketize', 'isin', 'aminmax_0', 'aminmax_1', 'bincount', 'cov',
                     'corrcoef', 'trapezoid', 'hstack', 'vstack', 'dstack', 'column_stack',
                     'tensor_split', 'tensor_split_i', 'tensordot', 'addmv', 'addr', 'addr',
                     'matrix_power', 'logdet', 'block_diag', 'cartesian_prod', 'diag_embed',
                     'vander', 'logspace', 'margin_ranking_loss', 'hinge_embedding_loss',
                     'soft_margin_loss', 'cosine_embedding_loss', 'poisson_nll_loss',
                     'gaussian_nll_loss', 'pairwise_distance', 'triplet_margin_loss',
                     'multilabel_soft_margin_loss', 'pixel_shuffle', 'pixel_unshuffle',
                     'cumulative_trapezoid', 'cumulative_trapezoid_x', 'matrix_norm', 'pinv',
                     'multi_dot', 'cdist'])
    d = rng.randrange(10)
    d2 = rng.randrange(10) if rng.random() < 0.3 else d
    D, I, T = [], [], []
    rs = td.rshape
    pick = rng.choice
    if op in ('elu', 'hardtanh', 'leaky_relu', 'softplus'):
        a = td.rtensor(rng, fdt(rng, d), rs(rng)); T = [a]
        if op == 'elu':
            D = [pick([1.0, 0.5, 2.0, -1.0, 0.0])]
            thunk = lambda: F.elu(a, D[0])
        elif op == 'hardtanh':
            D = pick([[-1.0, 1.0], [0.0, 6.0], [-0.5, 2.5], [2.0, -2.0], [0.0, 0.0]])
            thunk = lambda: F.hardtanh(a, D[0], D[1])
        elif op == 'leaky_relu':
            D = [pick([0.01, 0.2, -0.5, 0.0, 1.5])]
            thunk = lambda: F.leaky_relu(a, D[0])
        else:
            D = [pick([1.0, 2.0, 0.5, 3.0]), pick([20.0, 1.0, 5.0, 0.5])]
            thunk = lambda: F.softplus(a, D[0], D[1])
    elif op in ('lerp', 'lerp_scalar'):
        s = rs(rng); dd = fdt(rng, d)
        a, b = td.rtensor(rng, dd, td.bshape(rng, s)), td.rtensor(rng, dd if rng.random() < 0.9 else d2, s)
        if op == 'lerp':
            ws = td.bshape(rng, s)
            w = td.rtensor(rng, dd, ws, vals=None if rng.random() < 0.3 else
                           [rng.uniform(-0.5, 1.5) for _ in range(math.prod(ws))])
            T = [a, b, w]
            thunk = lambda: torch.lerp(a, b, w)
        else:
            D = [pick([0.0, 0.25, 0.5, 0.75, 1.0, -0.5, 2.0, 0.3])]; T = [a, b]
            thunk = lambda: torch.lerp(a, b, D[0])
    elif op == 'group_norm':
        N, G = rng.randint(1, 3), rng.randint(1, 3)
        C = G * rng.randint(1, 3) if rng.random() < 0.95 else G + 1
        sp = rs(rng, rng.randint(0, 2), False)
        dd = fdt(rng, d)
        x = td.rtensor(rng, dd, [N, C] + sp, special=rng.random() < 0.2)
        w = td.rtensor(rng, dd, [C]) if rng.random() < 0.6 else None
        b = td.rtensor(rng, dd, [C]) if rng.random() < 0.6 else None
        eps = pick([1e-5, 0.0, 0.1]); T = [x, w, b]; D = [eps]; I = [G]
        thunk = lambda: F.group_norm(x, G, w, b, eps)
    elif op.startswith('batch_norm'):
        N, C = rng.randint(1, 4), rng.randint(1, 3)
        sp = rs(rng, rng.randint(0, 2), False)
        dd = fdt(rng, d)
        x = td.rtensor(rng, dd, [N, C] + sp, special=rng.random() < 0.1)
        training = rng.random() < 0.6
        has_stats = (not training) or rng.random() < 0.7
        rm = td.rtensor(rng, dd, [C], special=False) if has_stats else None
        rv = td.rtensor(rng, dd, [C], vals=[rng.uniform(0.1, 3) for _ in range(C)]) if has_stats else None
        w = td.rtensor(rng, dd, [C]) if rng.random() < 0.6 else None
        b = td.rtensor(rng, dd, [C]) if rng.random() < 0.6 else None
        mom, eps = pick([0.1, 0.5, 1.0, 0.0]), pick([1e-5, 0.1, 1e-3])
        T = [x, rm, rv, w, b]; D = [mom, eps]; I = [int(training)]

        def thunk():
            rm2 = rm.clone() if rm is not None else None
            rv2 = rv.clone() if rv is not None else None
            y = F.batch_norm(x, rm2, rv2, w, b, training, mom, eps)
            if op == 'batch_norm_rm':
                if rm2 is None: raise RuntimeError('no stats')
                return rm2
            if op == 'batch_norm_rv':
                if rv2 is None: raise RuntimeError('no stats')
                return rv2
            return y
    elif op in ('sort_v', 'sort_i', 'argsort', 'topk_v', 'topk_i', 'kth_v', 'kth_i', 'argmin'):
        s = rs(rng); nd = len(s)
        vals = None
        if rng.random() < 0.4 and d:
            n = math.prod(s)
            vals = [pick([0, 1, 2, 2, -1]) if d != 1 else pick([0, 1, 2]) for _ in range(n)]
            if d in FL and rng.random() < 0.4: vals = [pick([0.0, float('nan'), 1.0, -0.0, float('inf')]) for _ in vals]
        a = td.rtensor(rng, d, s, vals=vals); T = [a]
        dim = rng.randint(-max(nd, 1), max(nd, 1) - 1)
        size = s[dim] if nd else 1
        if op in ('sort_v', 'sort_i'):
            desc, stable = rng.randrange(2), 1
            I = [dim, desc, stable]
            k = 0 if op == 'sort_v' else 1
            thunk = lambda: torch.sort(a, dim=dim, descending=bool(desc), stable=True)[k]
        elif op == 'argsort':
            desc = rng.randrange(2); I = [dim, desc]
            thunk = lambda: torch.sort(a, dim=dim, descending=bool(desc), stable=True)[1]
        elif op in ('topk_v', 'topk_i'):
            k = rng.randint(0, size + (1 if rng.random() < 0.05 else 0))
            largest, srt = rng.randrange(2), 1
            I = [k, dim, largest, srt]
            j = 0 if op == 'topk_v' else 1
            thunk = lambda: torch.topk(a, k, dim=dim, largest=bool(largest), sorted=True)[j]
        elif op == 'argmin':
            kd = rng.randrange(2)
            dim = -1000 if rng.random() < 0.3 else dim
            I = [kd, dim]
            thunk = (lambda: torch.argmin(a, keepdim=bool(kd))) if dim == -1000 else (lambda: torch.argmin(a, dim=dim, keepdim=bool(kd)))
        else:
            k = rng.randint(1 if rng.random() < 0.95 else 0, max(size, 1))
            kd = rng.randrange(2); I = [k, dim, kd]
            j = 0 if op == 'kth_v' else 1
            thunk = lambda: torch.kthvalue(a, k, dim=dim, keepdim=bool(kd))[j]
    elif op in ('gather', 'scatter', 'scatter_add', 'take_along_dim'):
        s = rs(rng, rng.randint(1, 3), False); nd = len(s)
        dim = rng.randint(-nd, nd - 1)
        a = td.rtensor(rng, d, s)
        ishape = [rng.randint(0, x) if rng.random() < 0.5 else x for x in s]
        if op == 'take_along_dim':
            ishape = [x if rng.random() < 0.8 else 1 for x in s]
        ix = idx_tensor(rng, ishape, s[dim], dt=5 if rng.random() < 0.95 else 4)
        if op == 'gather':
            T = [a, ix]; I = [dim]
            thunk = lambda: torch.gather(a, dim, ix)
        elif op == 'take_along_dim':
            T = [a, ix]; I = [dim]
            thunk = lambda: torch.take_along_dim(a, ix, dim)
        else:
            src = td.rtensor(rng, d if rng.random() < 0.9 else d2, [max(x, 1) if rng.random() < 0.8 else x for x in ishape])
            T = [a, ix, src]; I = [dim]
            f = torch.scatter if op == 'scatter' else torch.scatter_add
            thunk = lambda: f(a, dim, ix, src)
    elif op in ('index_select', 'index_add'):
        s = rs(rng, rng.randint(1, 3), False); nd = len(s)
        dim = rng.randint(-nd, nd - 1)
        a = td.rtensor(rng, d, s)
        m = rng.randint(0, 5)
        ix = idx_tensor(rng, [m], s[dim], dt=pick([5, 5, 4]), neg=op == 'index_select')
        if op == 'index_select':
            T = [a, ix]; I = [dim]
            thunk = lambda: torch.index_select(a, dim, ix)
        else:
            ss = list(s); ss[dim] = m
            src = td.rtensor(rng, d if rng.random() < 0.9 else d2, ss)
            al = pick([1.0, 2.0, -1.0, 0.5, 3.0])
            T = [a, ix, src]; I = [dim]; D = [al]
            thunk = lambda: torch.index_add(a, dim, ix, src, alpha=td.pyscalar(al))
    elif op in ('masked_fill', 'masked_select'):
        s = rs(rng); a = td.rtensor(rng, d, s)
        mk = td.rtensor(rng, 0 if rng.random() < 0.95 else d2, td.bshape(rng, s))
        T = [a, mk]
        if op == 'masked_fill':
            v = pick([0.0, -1.0, 2.5, float('inf'), float('nan'), 1000.0, -1e10, 7.0])
            D = [v]
            thunk = lambda: a.masked_fill(mk, td.pyscalar(v))
        else:
            thunk = lambda: torch.masked_select(a, mk)
    elif op in ('cat', 'stack'):
        s = rs(rng, rng.randint(0 if op == 'stack' else 1, 3))
        nd = len(s)
        n = rng.randint(1, 4)
        dim = rng.randint(-nd - (op == 'stack'), nd - 1 + (op == 'stack')) if nd or op == 'stack' else 0
        ts = []
        for _ in range(n):
            ss = list(s)
            if op == 'cat' and nd: ss[dim] = rng.randint(0, 3)
            if op == 'cat' and rng.random() < 0.1: ss = [0]
            ts.append(td.rtensor(rng, d if rng.random() < 0.7 else rng.randrange(10), ss))
        T = ts; I = [dim]
        f = torch.cat if op == 'cat' else torch.stack
        thunk = lambda: f(ts, dim)
    elif op in ('flip', 'roll', 'repeat', 'tril', 'triu', 'movedim'):
        s = rs(rng); nd = len(s); a = td.rtensor(rng, d, s); T = [a]
        if op == 'flip':
            dims = rng.sample(range(-nd, nd), rng.randint(0, nd)) if nd else []
            dims = [x for i, x in enumerate(dims) if (x % nd) not in [y % nd for y in dims[:i]]] if nd else []
            I = dims
            thunk = lambda: torch.flip(a, dims)
        elif op == 'roll':
            k = rng.randint(1, max(nd, 1))
            shifts = [rng.randint(-7, 7) for _ in range(k)]
            if nd and rng.random() < 0.7:
                dims = [rng.randint(-nd, nd - 1) for _ in range(k)]
                I = [k] + shifts + dims
                thunk = lambda: torch.roll(a, shifts, dims)
            else:
                shifts = shifts[:1]
                I = [1] + shifts
                thunk = lambda: torch.roll(a, shifts[0])
        elif op == 'repeat':
            reps = [rng.randint(0 if rng.random() < 0.1 else 1, 3) for _ in range(nd + rng.randint(0, 2))]
            I = reps
            thunk = lambda: a.repeat(reps) if reps else a.repeat(())
        elif op == 'movedim':
            k = rng.randint(1, max(nd, 1))
            src = rng.sample(range(nd), min(k, nd)) if nd else [0]
            dst = rng.sample(range(nd), len(src)) if nd else [0]
            I = src + dst
            thunk = lambda: torch.movedim(a, src, dst)
        else:
            diag = rng.randint(-4, 4); I = [diag]
            thunk = lambda: getattr(torch, op)(a, diag)
    elif op in ('max_pool2d', 'avg_pool2d', 'adaptive_avg_pool2d'):
        lead = pick([[1, 2], [2], [1, 1], [3, 1]])
        H, W = rng.randint(1, 7), rng.randint(1, 7)
        dd = fdt(rng, d)
        x = td.rtensor(rng, dd, lead + [H, W], special=rng.random() < 0.2); T = [x]
        if op == 'adaptive_avg_pool2d':
            o = [rng.randint(1, 8), rng.randint(1, 8)]; I = o
            thunk = lambda: F.adaptive_avg_pool2d(x, o)
        else:
            k = [rng.randint(1, 3), rng.randint(1, 3)]
            st = [rng.randint(1, 3), rng.randint(1, 3)]
            pd = [rng.randint(0, k[0] // 2), rng.randint(0, k[1] // 2)] if rng.random() < 0.95 else [k[0], 0]
            if op == 'max_pool2d':
                dl = [rng.randint(1, 2), rng.randint(1, 2)]
                I = k + st + pd + dl
                thunk = lambda: F.max_pool2d(x, k, st, pd, dl)
            else:
                I = k + st + pd
                thunk = lambda: F.avg_pool2d(x, k, st, pd)
    elif op in ('max_pool2d_ex', 'max_pool2d_ex_i', 'avg_pool2d_ex'):
        lead = pick([[1, 2], [2], [1, 1]])
        H, W = rng.randint(1, 7), rng.randint(1, 7)
        x = td.rtensor(rng, fdt(rng, d), lead + [H, W], special=rng.random() < 0.2); T = [x]
        k = [rng.randint(1, 3), rng.randint(1, 3)]
        st = [rng.randint(1, 3), rng.randint(1, 3)]
        pd = [rng.randint(0, k[0] // 2), rng.randint(0, k[1] // 2)]
        ceil = rng.randrange(2)
        if op.startswith('max'):
            dl = [rng.randint(1, 2), rng.randint(1, 2)]
            I = k + st + pd + dl + [ceil]
            j = 1 if op.endswith('_i') else 0
            thunk = lambda: F.max_pool2d(x, k, st, pd, dl, ceil_mode=bool(ceil), return_indices=True)[j]
        else:
            cip = rng.randrange(2)
            I = k + st + pd + [ceil, cip]
            thunk = lambda: F.avg_pool2d(x, k, st, pd, ceil_mode=bool(ceil), count_include_pad=bool(cip))
    elif op == 'interpolate_scale':
        nsp = rng.randint(1, 2)
        x = td.rtensor(rng, fdt(rng, d), [1, rng.randint(1, 2)] + [rng.randint(1, 6) for _ in range(nsp)],
                       special=rng.random() < 0.1); T = [x]
        mode = rng.randrange(3); ac = rng.randrange(2) if mode == 2 else 0
        rec = rng.randrange(2)
        D = [pick([0.5, 1.5, 2.0, 3.0, 0.7, 1.3, 2.5]) for _ in range(nsp)]
        I = [mode, ac, rec]
        tm = ['nearest', 'nearest-exact', 'linear' if nsp == 1 else 'bilinear'][mode]
        thunk = lambda: F.interpolate(x, scale_factor=D, mode=tm, align_corners=bool(ac) if mode == 2 else None,
                                      recompute_scale_factor=bool(rec))
    elif op in ('conv1d', 'conv2d'):
        N, G = rng.randint(1, 2), pick([1, 1, 2])
        Ci, Co = G * rng.randint(1, 2), G * rng.randint(1, 2)
        nsp = 1 if op == 'conv1d' else 2
        sp = [rng.randint(1, 6) for _ in range(nsp)]
        ks = [rng.randint(1, 3) for _ in range(nsp)]
        dd = fdt(rng, d)
        x = td.rtensor(rng, dd, [N, Ci] + sp, special=False)
        w = td.rtensor(rng, dd if rng.random() < 0.95 else d2, [Co, Ci // G] + ks, special=False)
        b = td.rtensor(rng, dd, [Co], special=False) if rng.random() < 0.6 else None
        st = [rng.randint(1, 2) for _ in range(nsp)]
        pd = [rng.randint(0, 2) for _ in range(nsp)]
        dl = [rng.randint(1, 2) for _ in range(nsp)]
        T = [x, w, b]
        if op == 'conv1d':
            I = [st[0], pd[0], dl[0], G]
            thunk = lambda: F.conv1d(x, w, b, st[0], pd[0], dl[0], G)
        else:
            I = st + pd + dl + [G]
            thunk = lambda: F.conv2d(x, w, b, st, pd, dl, G)
    elif op == 'interpolate':
        nsp = rng.randint(1, 2)
        lead = [rng.randint(1, 2), rng.randint(1, 2)]
        sp = [rng.randint(1, 6) for _ in range(nsp)]
        mode = rng.randrange(3)
        ac = rng.randrange(2) if mode == 2 else 0
        dd = fdt(rng, d)
        x = td.rtensor(rng, dd, lead + sp, special=rng.random() < 0.1); T = [x]
        size = [rng.randint(1, 9) for _ in range(nsp)]
        I = [mode, ac] + size
        tm = ['nearest', 'nearest-exact', 'linear' if nsp == 1 else 'bilinear'][mode]
        thunk = lambda: F.interpolate(x, size=size, mode=tm, align_corners=bool(ac) if mode == 2 else None)
    elif op == 'pad':
        nd = rng.randint(1, 4)
        s = [rng.randint(1, 4) for _ in range(nd)]
        mode = pick([0, 0, 1, 2, 3])
        dd = d if mode == 0 else fdt(rng, d)
        x = td.rtensor(rng, dd, s); T = [x]
        npair = rng.randint(1, min(nd, 3))
        pads = [rng.randint(-1 if mode == 0 else 0, 3) for _ in range(2 * npair)]
        v = pick([0.0, 1.5, -2.0]) if mode == 0 else 0.0
        D = [v]; I = [mode] + pads
        tm = ['constant', 'reflect', 'replicate', 'circular'][mode]
        thunk = (lambda: F.pad(x, pads, mode=tm, value=td.pyscalar(v))) if mode == 0 else (lambda: F.pad(x, pads, mode=tm))
    elif op == 'one_hot':
        s = rs(rng); nc = pick([-1, 3, 5, 1, 0])
        ix = idx_tensor(rng, s, max(nc, 4), dt=5 if rng.random() < 0.95 else d2, neg=False)
        T = [ix]; I = [nc]
        thunk = lambda: F.one_hot(ix, nc)
    elif op.startswith('unique_') or op == 'nonzero':
        s = rs(rng); n = math.prod(s)
        vals = [pick([0, 1, 2, 3, -1]) if d != 1 else pick([0, 1, 2]) for _ in range(n)] if d and rng.random() < 0.6 else None
        if vals and d in FL and rng.random() < 0.3:
            vals = [pick([0.0, -0.0, float('nan'), 1.0, float('inf')]) for _ in vals]
        a = td.rtensor(rng, d, s, vals=vals); T = [a]
        if op == 'nonzero':
            thunk = lambda: torch.nonzero(a)
        else:
            j = {'v': 0, 'i': 1, 'c': 2}[op[7]]
            thunk = lambda: torch.unique(a, sorted=True, return_inverse=True, return_counts=True)[j]
    elif op == 'norm':
        s = rs(rng); nd = len(s)
        a = td.rtensor(rng, fdt(rng, d), s, special=rng.random() < 0.3); T = [a]
        p = pick([2.0, 1.0, float('inf'), float('-inf'), 0.0, 3.0, 0.5])
        kd = rng.randrange(2)
        dims = [] if (nd == 0 or rng.random() < 0.3) else rng.sample(range(-nd, nd), rng.randint(1, nd))
        dims = [x for i, x in enumerate(dims) if (x % nd) not in [y % nd for y in dims[:i]]] if nd else []
        D = [p]; I = [kd] + dims
        thunk = lambda: torch.linalg.vector_norm(a, p, dim=dims if dims else None, keepdim=bool(kd))
    elif op in ('addmm', 'baddbmm'):
        m, k, n = rng.randint(0, 4), rng.randint(0, 4), rng.randint(0, 4)
        B = rng.randint(1, 3)
        pre = [B] if op == 'baddbmm' else []
        dd = d if rng.random() < 0.5 else pick(FL)
        inp = td.rtensor(rng, dd, td.bshape(rng, pre + [m, n]), special=rng.random() < 0.2)
        m1 = td.rtensor(rng, dd, pre + [m, k], special=False)
        m2 = td.rtensor(rng, dd if rng.random() < 0.95 else d2, pre + [k, n], special=False)
        be, al = pick([1.0, 0.0, 0.5, -1.0, 2.0]), pick([1.0, 0.5, -2.0, 0.0, 3.0])
        T = [inp, m1, m2]; D = [be, al]
        f = torch.addmm if op == 'addmm' else torch.baddbmm
        thunk = lambda: f(inp, m1, m2, beta=td.pyscalar(be), alpha=td.pyscalar(al))
    elif op in ('bitwise_left_shift', 'bitwise_right_shift'):
        s = rs(rng); s2 = td.bshape(rng, s)
        a = td.rtensor(rng, d, s)
        b = td.rtensor(rng, d2, s2, vals=[rng.randint(-2, 70) for _ in range(math.prod(s2))] if d2 not in (0, 1) and rng.random() < 0.7 else None)
        T = [a, b]
        f = torch.bitwise_left_shift if op.endswith('left_shift') else torch.bitwise_right_shift
        thunk = lambda: f(a, b)
    elif op in ('div_trunc', 'div_floor', 'floor_divide'):
        s = rs(rng); s2 = td.bshape(rng, s)
        if rng.random() < 0.5: s, s2 = s2, s
        a, b = td.rtensor(rng, d, s), td.rtensor(rng, d2, s2)
        if b.dtype in (torch.int32, torch.int64):  # INT_MIN / -1 traps in torch's C division
            b = torch.where(b == -1, torch.full_like(b, -2), b)
        T = [a, b]
        mode = 'floor' if op != 'div_trunc' else 'trunc'
        thunk = lambda: torch.div(a, b, rounding_mode=mode)
    elif op in ('div_trunc_scalar', 'div_floor_scalar'):
        a = td.rtensor(rng, d, rs(rng)); T = [a]
        v = pick([2.0, -3.0, 0.5, 1.5, 0.0, float('inf'), float('nan'), 7.0, -0.25, 1e-40, -2.0])
        D = [v]
        mode = op.split('_')[1]
        thunk = lambda: torch.div(a, td.pyscalar(v), rounding_mode=mode)
    elif op in ('fmod_scalar', 'remainder_scalar'):
        a = td.rtensor(rng, d, rs(rng)); T = [a]
        v = pick([2.0, -3.0, 0.5, 1.5, 0.0, float('inf'), float('nan'), 7.0, -0.25, 1e-40])
        D = [v]
        f = torch.fmod if op.startswith('fmod') else torch.remainder
        thunk = lambda: f(a, td.pyscalar(v))
    elif op in ('dot', 'mv', 'outer', 'cross'):
        n = rng.randint(0, 5)
        if op == 'cross':
            s = rs(rng, rng.randint(1, 3)); dim = rng.randrange(len(s)); s[dim] = 3 if rng.random() < 0.95 else 4
            s2 = td.bshape(rng, s)
            if len(s2) <= len(s) - len(s2) + dim - len(s) + len(s2) or rng.random() < 0.5: s2 = list(s)
            a, b = td.rtensor(rng, d, s), td.rtensor(rng, d2 if rng.random() < 0.1 else d, s2)
            dim = dim - len(s) if rng.random() < 0.5 else dim
            I = [dim]
            thunk = lambda: torch.linalg.cross(a, b, dim=dim)
        else:
            sa = [rng.randint(0, 4), n] if op == 'mv' else [n if op != 'outer' else rng.randint(0, 4)]
            if rng.random() < 0.05: sa = [2, 2, n]
            a = td.rtensor(rng, d, sa)
            b = td.rtensor(rng, d2 if rng.random() < 0.2 else d, [n if rng.random() < 0.95 else n + 1])
            f = {'dot': torch.dot, 'mv': torch.mv, 'outer': torch.outer}[op]
            thunk = lambda: f(a, b)
        T = [a, b]
    elif op in ('trace', 'diagonal', 'diag'):
        nd = 2 if op != 'diagonal' else rng.randint(2, 4)
        if op == 'diag' and rng.random() < 0.4: nd = 1
        if rng.random() < 0.05: nd = rng.choice([1, 3]) if op != 'diagonal' else 1
        s = [rng.randint(0, 5) for _ in range(nd)]
        a = td.rtensor(rng, d, s); T = [a]
        off = rng.randint(-5, 5)
        if op == 'trace':
            thunk = lambda: torch.trace(a)
        elif op == 'diag':
            I = [off]
            if nd == 2 and ((off >= 0 and off > s[1]) or (off < 0 and -off > s[0])): I = [0]; off = 0
            thunk = lambda: torch.diag(a, off)
        else:
            d1 = rng.randint(-nd, nd - 1); d2_ = rng.randint(-nd, nd - 1)
            I = [off, d1, d2_]
            thunk = lambda: torch.diagonal(a, off, d1, d2_)
    elif op == 'tile':
        s = rs(rng); a = td.rtensor(rng, d, s); T = [a]
        reps = [rng.randint(0 if rng.random() < 0.1 else 1, 3) for _ in range(rng.randint(0, len(s) + 1))]
        I = reps
        thunk = lambda: torch.tile(a, reps)
    elif op == 'diff':
        s = rs(rng, rng.randint(1, 3)); nd = len(s)
        a = td.rtensor(rng, d, s)
        dim = rng.randint(-nd, nd - 1); n = rng.randint(0, 3)
        def side():
            if rng.random() < 0.6: return None
            ss = list(s); ss[dim] = rng.randint(0, 2)
            return td.rtensor(rng, d2 if rng.random() < 0.2 else d, ss)
        pre, app = side(), side()
        T = [a, pre, app]; I = [n, dim]
        thunk = lambda: torch.diff(a, n, dim, prepend=pre, append=app)
    elif op in ('nansum', 'nanmean', 'var_mean_0', 'var_mean_1', 'std_mean_0', 'std_mean_1'):
        s = rs(rng); nd = len(s)
        a = td.rtensor(rng, d if op == 'nansum' else fdt(rng, d), s); T = [a]
        kd = rng.randrange(2)
        dims = [] if (nd == 0 or rng.random() < 0.3) else rng.sample(range(-nd, nd), 1)
        I = [kd] + dims
        if op.startswith('nan'):
            f = getattr(torch, op)
            thunk = lambda: f(a, dim=dims if dims else None, keepdim=bool(kd)) if dims else f(a)
            if not dims and kd: thunk = lambda: f(a, dim=list(range(nd)), keepdim=True) if nd else f(a)
        else:
            corr = pick([0.0, 1.0, 2.0]); D = [corr]
            f = torch.var_mean if op.startswith('var') else torch.std_mean
            k = int(op[-1])
            thunk = lambda: f(a, dim=dims if dims else None, correction=int(corr), keepdim=bool(kd))[k]
    elif op == 'einsum':
        # 1 to 3 operands over a few letters, sometimes repeated, an ellipsis, size-1 broadcasting
        letters = 'abcdeiJK'
        sizes = {c: rng.randint(0, 4) if rng.random() < 0.9 else 1 for c in letters}
        nops = pick([1, 2, 2, 2, 3])
        terms, T = [], []
        ell = rng.random() < 0.2
        ell_shape = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        dd = d if d not in (0,) else 8
        for _ in range(nops):
            k = rng.randint(0, 3)
            ls = [pick(letters[:5] + 'J') for _ in range(k)]
            shp = [sizes[c] if rng.random() < 0.9 else 1 for c in ls]
            use_ell = ell and rng.random() < 0.7
            tl = ''.join(ls)
            if use_ell:
                cut = rng.randint(0, len(ls))
                tl = ''.join(ls[:cut]) + '...' + ''.join(ls[cut:])
                es = ell_shape[rng.randint(0, len(ell_shape)):] if ell_shape else []
                shp = shp[:cut] + es + shp[cut:]
            terms.append(tl)
            T.append(td.rtensor(rng, dd, shp, special=rng.random() < 0.2))
        eq = ','.join(terms)
        if rng.random() < 0.7:
            used = sorted(set(c for t in terms for c in t if c.isalpha()))
            outl = [c for c in used if rng.random() < 0.5]
            rng.shuffle(outl)
            o = ''.join(outl)
            if ell and any('...' in t for t in terms) and rng.random() < 0.8: o = '...' + o
            eq += '->' + o
        I = [ord(c) for c in eq]
        ts = list(T)
        thunk = lambda: torch.einsum(eq, *ts)
    elif op in ('median', 'nanmedian', 'median_dim_v', 'median_dim_i', 'nanmedian_dim_v', 'nanmedian_dim_i'):
        s = rs(rng); nd = len(s)
        vals = None
        n = math.prod(s) if s else 1
        if rng.random() < 0.5 and d:  # ties and NaNs
            vals = [pick([0, 1, 2, 2, 3]) for _ in range(n)]
            if d in FL and rng.random() < 0.5: vals = [pick([0.0, 1.0, float('nan'), 2.0, -0.0]) for _ in vals]
        a = td.rtensor(rng, d, s, vals=vals); T = [a]
        f = torch.median if op.startswith('median') else torch.nanmedian
        if '_dim' in op:
            dim = rng.randint(-max(nd, 1), max(nd, 1) - 1); kd = rng.randrange(2); I = [dim, kd]
            k = 0 if op.endswith('_v') else 1
            thunk = lambda: f(a, dim, keepdim=bool(kd))[k]
        else:
            thunk = lambda: f(a)
    elif op in ('cummax_v', 'cummax_i', 'cummin_v', 'cummin_i', 'logcumsumexp'):
        s = rs(rng); nd = len(s); n = math.prod(s) if s else 1
        vals = None
        if rng.random() < 0.5 and d:
            vals = [pick([0, 1, 2, 2, 3]) for _ in range(n)]
            if d in FL and rng.random() < 0.5: vals = [pick([0.0, 1.0, float('nan'), 2.0, -0.0, float('inf'), float('-inf')]) for _ in vals]
        a = td.rtensor(rng, d if op != 'logcumsumexp' else fdt(rng, d), s, vals=vals); T = [a]
        dim = rng.randint(-max(nd, 1), max(nd, 1) - 1); I = [dim]
        if op == 'logcumsumexp':
            thunk = lambda: torch.logcumsumexp(a, dim)
        else:
            f = torch.cummax if op.startswith('cummax') else torch.cummin
            k = 0 if op.endswith('_v') else 1
            thunk = lambda: f(a, dim)[k]
    elif op in ('searchsorted', 'bucketize'):
        N = rng.randint(0, 6)
        nd = 1 if (op == 'bucketize' or rng.random() < 0.5) else rng.randint(2, 3)
        lead = [rng.randint(1, 3) for _ in range(nd - 1)]
        seqv = sorted(td.rvals(rng, d, math.prod(lead + [N]) if lead + [N] else 1, rng.random() < 0.3)) if d else None
        if seqv is not None and rng.random() < 0.2: rng.shuffle(seqv)  # unsorted: torch's search still answers
        seq = td.rtensor(rng, d, lead + [N], vals=seqv)
        vs = (lead + [rng.randint(0, 4)]) if nd > 1 else rs(rng)
        v = td.rtensor(rng, d2 if rng.random() < 0.2 else d, vs)
        oi = rng.randrange(2); rt = rng.randrange(2); I = [oi, rt]
        if op == 'searchsorted':
            T = [seq, v]
            thunk = lambda: torch.searchsorted(seq, v, out_int32=bool(oi), right=bool(rt))
        else:
            T = [v, seq]
            thunk = lambda: torch.bucketize(v, seq, out_int32=bool(oi), right=bool(rt))
    elif op == 'isin':
        a = td.rtensor(rng, d, rs(rng)); b = td.rtensor(rng, d2, rs(rng))
        iv = rng.randrange(2); T = [a, b]; I = [iv]
        thunk = lambda: torch.isin(a, b, invert=bool(iv))
    elif op in ('aminmax_0', 'aminmax_1'):
        s = rs(rng); nd = len(s); a = td.rtensor(rng, d, s); T = [a]
        kd = rng.randrange(2)
        dims = [rng.randint(-nd, nd - 1)] if nd and rng.random() < 0.6 else []
        I = [kd] + dims
        k = int(op[-1])
        thunk = lambda: (torch.aminmax(a, dim=dims[0], keepdim=bool(kd)) if dims else torch.aminmax(a, keepdim=bool(kd)))[k]
    elif op == 'bincount':
        n = rng.randint(0, 8)
        x = td.rtensor(rng, pick([1, 2, 3, 4, 5]) if rng.random() < 0.95 else d, [n], vals=[rng.randint(0 if rng.random() < 0.95 else -1, 6) for _ in range(n)])
        w = td.rtensor(rng, fdt(rng, d), [n]) if rng.random() < 0.4 else None
        ml = rng.choice([0, 0, 3, 9]); I = [ml]
        T = [x, w]
        thunk = lambda: torch.bincount(x, weights=w, minlength=ml)
    elif op in ('cov', 'corrcoef'):
        s = [rng.randint(1, 4), rng.randint(1, 6)] if rng.random() < 0.7 else [rng.randint(1, 6)]
        a = td.rtensor(rng, fdt(rng, d) if rng.random() < 0.8 else d, s, special=rng.random() < 0.2); T = [a]
        if op == 'cov':
            corr = rng.choice([0, 1, 1, 2]); I = [corr]
            thunk = lambda: torch.cov(a, correction=corr)
        else:
            thunk = lambda: torch.corrcoef(a)
    elif op == 'trapezoid':
        s = rs(rng, rng.randint(1, 3)); nd = len(s); a = td.rtensor(rng, d, s); T = [a]
        dx = pick([1.0, 0.5, 2.0, -0.25]); dim = rng.randint(-nd, nd - 1); D = [dx]; I = [dim]
        thunk = lambda: torch.trapezoid(a, dx=dx, dim=dim)
    elif op == 'rot90':
        s = rs(rng, rng.randint(1, 4)); nd = len(s); a = td.rtensor(rng, d, s); T = [a]
        k = rng.randint(-5, 5); d0 = rng.randint(-nd, nd - 1); d1 = rng.randint(-nd, nd - 1)
        I = [k, d0, d1]
        thunk = lambda: torch.rot90(a, k, [d0, d1])
    elif op in ('hstack', 'vstack', 'dstack', 'column_stack'):
        n = rng.randint(1, 3); r = rng.randint(1, 3); c = rng.randint(1, 3)
        def shp(i):
            w = rng.randint(0, 3)
            if op == 'hstack': return [w] if rng.random() < 0.4 and i == -1 else [r, w]
            if op == 'vstack': return [c] if rng.random() < 0.4 else [w, c]
            if op == 'dstack': return pick([[r, c], [r, c, w]]) if r > 1 or c > 1 else pick([[c], [r, c, w]])
            return pick([[r], [r, w]]) if r > 1 else pick([[], [r], [r, w]])
        T = [td.rtensor(rng, d if rng.random() < 0.8 else d2, shp(i)) for i in range(n)]
        ts = T
        thunk = lambda: getattr(torch, op)(ts)
    elif op in ('tensor_split', 'tensor_split_i'):
        s = rs(rng, rng.randint(1, 3)); nd = len(s); a = td.rtensor(rng, d, s); T = [a]
        dim = rng.randint(-nd, nd - 1)
        if op == 'tensor_split':
            sec = rng.randint(1, 5); which = rng.randrange(sec); I = [sec, dim, which]
            thunk = lambda: torch.tensor_split(a, sec, dim)[which]
        else:
            idx = [rng.randint(-4, 6) for _ in range(rng.randint(0, 3))]; which = rng.randrange(len(idx) + 1)
            I = [dim, which] + idx
            thunk = lambda: torch.tensor_split(a, idx, dim)[which]
    elif op == 'tensordot':
        k = rng.randint(1, 3); p_ = rng.randint(1, 3); q = rng.randint(1, 3)
        a = td.rtensor(rng, d, [p_, k, q]); b = td.rtensor(rng, d if rng.random() < 0.9 else d2, [q, rng.randint(1, 3), k])
        T = [a, b]
        case = rng.randrange(3)
        da, db = [[2], [1, 2], [1]][case], [[0], [2, 0], [2]][case]
        I = [len(da)] + da + db
        thunk = lambda: torch.tensordot(a, b, dims=(da, db))
    elif op == 'addmv':
        n_ = rng.randint(0, 4); m_ = rng.randint(0, 4)
        inp = td.rtensor(rng, d, pick([[n_], [1], []])); M = td.rtensor(rng, d, [n_, m_]); v = td.rtensor(rng, d, [m_])
        T = [inp, M, v]; D = [pick([0.0, 1.0, 0.5, -2.0]), pick([1.0, 2.0, 0.0, -0.5])]
        sc = lambda x: x if inp.is_floating_point() or x != int(x) else (bool(x) if inp.dtype == torch.bool else int(x))
        thunk = lambda: torch.addmv(inp, M, v, beta=sc(D[0]), alpha=sc(D[1]))
    elif op == 'addr':
        n_ = rng.randint(0, 20); m_ = rng.randint(0, 20)
        inp = td.rtensor(rng, d, pick([[n_, m_], [m_], [1], []]), special=rng.random() < 0.2)
        T = [inp, td.rtensor(rng, d, [n_]), td.rtensor(rng, d, [m_])]
        D = [pick([0.0, 1.0, 0.5, -2.0, 2.0]), pick([1.0, 2.0, 0.0, -0.5, 3.0])]
        x1, x2, x3 = T
        # C has one scalar type: integral values count as Python ints (bool for bool tensors)
        sc = lambda x: x if x1.is_floating_point() or x != int(x) else (bool(x) if x1.dtype == torch.bool else int(x))
        thunk = lambda: torch.addr(x1, x2, x3, beta=sc(D[0]), alpha=sc(D[1]))
    elif op == 'matrix_power':
        k = rng.randint(1, 4); a = td.rtensor(rng, d, pick([[k, k], [2, k, k]])); T = [a]
        n_ = rng.randint(-3, 7); I = [n_]
        thunk = lambda: torch.linalg.matrix_power(a, n_)
    elif op == 'logdet':
        k = rng.randint(1, 4); a = td.rtensor(rng, fdt(rng, d), pick([[k, k], [2, k, k]])); T = [a]
        thunk = lambda: torch.logdet(a)
    elif op == 'block_diag':
        T = [td.rtensor(rng, d if rng.random() < 0.7 else d2, rs(rng, rng.randint(0, 2))) for _ in range(rng.randint(1, 3))]
        ts = T
        thunk = lambda: torch.block_diag(*ts)
    elif op == 'cartesian_prod':
        T = [td.rtensor(rng, d, [rng.randint(0, 4)]) for _ in range(rng.randint(1, 3))]
        ts = T
        thunk = lambda: torch.cartesian_prod(*ts)
    elif op == 'diag_embed':
        s = rs(rng, rng.randint(1, 3)); nd = len(s) + 1; a = td.rtensor(rng, d, s); T = [a]
        off = rng.randint(-2, 2); d1 = rng.randint(-nd, nd - 1); d2_ = rng.randint(-nd, nd - 1)
        I = [off, d1, d2_]
        thunk = lambda: torch.diag_embed(a, off, d1, d2_)
    elif op == 'vander':
        a = td.rtensor(rng, d, [rng.randint(0, 5)]); T = [a]
        N = pick([-1, 0, 1, 2, 4]); inc = rng.randrange(2); I = [N, inc]
        thunk = lambda: torch.vander(a, None if N < 0 else N, bool(inc))
    elif op == 'logspace':
        dt = td.DT[pick([8, 9, 6, 7, 3, 4, 1])]
        D = [pick([0.0, -2.0, 1.5, 3.0]), pick([2.0, 0.0, -1.0, 4.5]), pick([10.0, 2.0, 0.5, 3.0])]
        st_ = rng.randint(0, 9); I = [st_, td.DT.index(dt)]
        thunk = lambda: torch.logspace(D[0], D[1], st_, base=D[2], dtype=dt)
    elif op in ('margin_ranking_loss', 'hinge_embedding_loss', 'soft_margin_loss',
                'cosine_embedding_loss', 'poisson_nll_loss', 'gaussian_nll_loss',
                'triplet_margin_loss', 'multilabel_soft_margin_loss', 'pairwise_distance'):
        fd = fdt(rng, d); red = rng.randrange(3); RED = ['none', 'mean', 'sum'][red]
        sgn = lambda t: torch.where(t.double() >= 0, 1.0, -1.0).to(t.dtype)
        if op == 'cosine_embedding_loss':
            n_ = rng.randint(1, 4); k = rng.randint(1, 5); one = rng.random() < 0.2
            x1 = td.rtensor(rng, fd, [k] if one else [n_, k]); x2 = td.rtensor(rng, fd, [k] if one else [n_, k])
            tg = sgn(td.rtensor(rng, fd, [] if one else [n_])); T = [x1, x2, tg]
            mg = pick([0.0, 0.3, -0.2]); D = [mg]; I = [red]
            thunk = lambda: F.cosine_embedding_loss(x1, x2, tg, mg, reduction=RED)
        else:
            s = rs(rng, rng.randint(1, 3))
            a = td.rtensor(rng, fd, s, special=rng.random() < 0.1)
            b = td.rtensor(rng, fd, s)
            if op == 'margin_ranking_loss':
                tg = sgn(td.rtensor(rng, fd, s)); T = [a, b, tg]; mg = pick([0.0, 0.5, -1.0]); D = [mg]; I = [red]
                thunk = lambda: F.margin_ranking_loss(a, b, tg, mg, reduction=RED)
            elif op == 'hinge_embedding_loss':
                tg = sgn(b); T = [a, tg]; mg = pick([1.0, 0.5, 2.0]); D = [mg]; I = [red]
                thunk = lambda: F.hinge_embedding_loss(a, tg, mg, reduction=RED)
            elif op == 'soft_margin_loss':
                tg = sgn(b); T = [a, tg]; I = [red]
                thunk = lambda: F.soft_margin_loss(a, tg, reduction=RED)
            elif op == 'poisson_nll_loss':
                tg = (b.double().abs() * 3).to(b.dtype); li = rng.randrange(2); fu = rng.randrange(2)
                x_ = a if li else a.double().abs().to(a.dtype)
                T = [x_, tg]; D = [1e-8]; I = [red, li, fu]
                thunk = lambda: F.poisson_nll_loss(x_, tg, bool(li), bool(fu), eps=1e-8, reduction=RED)
            elif op == 'gaussian_nll_loss':
                form = rng.randrange(3)
                vs = s if form == 0 else (s[:-1] if form == 1 else s[:-1] + [1])
                var = (td.rtensor(rng, fd, vs).double().abs() * pick([1.0, 1e-8])).to(a.dtype); fu = rng.randrange(2)
                T = [a, b, var]; D = [1e-6]; I = [red, fu]
                thunk = lambda: F.gaussian_nll_loss(a, b, var, bool(fu), 1e-6, RED)
            elif op == 'triplet_margin_loss':
                c = td.rtensor(rng, fd, s); T = [a, b, c]; pp = pick([2.0, 1.0, 3.0]); sw = rng.randrange(2)
                D = [1.0, pp, 1e-6]; I = [red, sw]
                thunk = lambda: F.triplet_margin_loss(a, b, c, 1.0, pp, 1e-6, bool(sw), reduction=RED)
            elif op == 'multilabel_soft_margin_loss':
                tg = b.float().sigmoid().to(td.DT[fd]); T = [a, tg]; I = [red]
                thunk = lambda: F.multilabel_soft_margin_loss(a, tg, reduction=RED)
            else:
                pp = pick([2.0, 1.0, 3.0, float('inf')]); kd = rng.randrange(2); T = [a, b]; D = [pp, 1e-6]; I = [kd]
                thunk = lambda: F.pairwise_distance(a, b, pp, 1e-6, bool(kd))
    elif op in ('cumulative_trapezoid', 'cumulative_trapezoid_x'):
        s = rs(rng, rng.randint(1, 3)); nd = len(s); a = td.rtensor(rng, d, s); dim = rng.randint(-nd, nd - 1)
        if op == 'cumulative_trapezoid':
            dx = pick([1.0, 0.5, -2.0, 0.1]); T = [a]; D = [dx]; I = [dim]
            thunk = lambda: torch.cumulative_trapezoid(a, dx=dx, dim=dim)
        else:
            xs = td.rtensor(rng, fdt(rng, d), [s[dim]] if rng.random() < 0.6 else s); T = [a, xs]; I = [dim]
            thunk = lambda: torch.cumulative_trapezoid(a, xs, dim=dim)
    elif op == 'matrix_norm':
        k1 = rng.randint(1, 4); k2 = rng.randint(1, 4)
        a = td.rtensor(rng, fdt(rng, d), pick([[k1, k2], [2, k1, k2]])); T = [a]
        oi = rng.randrange(8); ords = ['fro', 'nuc', float('inf'), float('-inf'), 1, -1, 2, -2]
        kd = rng.randrange(2); nd = a.dim(); d0 = rng.choice([-2, nd - 2]); d1 = -1
        if rng.random() < 0.3: d0, d1 = d1, d0
        I = [oi, d0, d1, kd]
        thunk = lambda: torch.linalg.matrix_norm(a, ords[oi], (d0, d1), bool(kd))
    elif op == 'pinv':
        # finite values only: torch 1.13's SVD can hang on NaN / inf input (ctorch refuses it)
        a = td.rtensor(rng, fdt(rng, d), pick([[3, 3], [2, 4], [4, 2], [2, 3, 3]]), special=False); T = [a]
        mode = rng.randrange(3); D = [[float('nan'), float('nan')], [0.1, float('nan')], [float('nan'), 0.2]][mode]
        kw = [{}, {'atol': 0.1}, {'rtol': 0.2}][mode]
        thunk = lambda: torch.linalg.pinv(a, **kw)
    elif op == 'multi_dot':
        n_ = rng.randint(2, 5); dims_ = [rng.randint(1, 4) for _ in range(n_ + 1)]
        ts = [td.rtensor(rng, fdt(rng, d), [dims_[i], dims_[i + 1]]) for i in range(n_)]
        if rng.random() < 0.3: ts[0] = ts[0][0].contiguous()
        if rng.random() < 0.3: ts[-1] = ts[-1][:, 0].contiguous()
        T = ts
        thunk = lambda: torch.linalg.multi_dot(ts)
    elif op == 'cdist':
        m_ = rng.randint(1, 4); P = pick([2, 5, 30]); R = pick([3, 27])
        b_ = pick([[], [2]])
        x1 = td.rtensor(rng, fdt(rng, d), b_ + [P, m_]); x2 = td.rtensor(rng, fdt(rng, d), b_ + [R, m_])
        pp = pick([2.0, 2.0, 1.0, 0.0, 3.0, float('inf')]); T = [x1, x2]; D = [pp]
        thunk = lambda: torch.cdist(x1, x2, pp)
    elif op in ('pixel_shuffle', 'pixel_unshuffle'):
        r_ = rng.randint(1, 3); c = rng.randint(1, 2); h = rng.randint(1, 2); w = rng.randint(1, 3)
        shp = [c * r_ * r_, h, w] if op == 'pixel_shuffle' else [c, h * r_, w * r_]
        if rng.random() < 0.5: shp = [rng.randint(1, 2)] + shp
        a = td.rtensor(rng, d, shp); T = [a]; I = [r_]
        thunk = lambda: getattr(F, op)(a, r_)
    elif op == 'kron':
        a = td.rtensor(rng, d, rs(rng, rng.randint(0, 3))); b = td.rtensor(rng, d2, rs(rng, rng.randint(0, 3)))
        T = [a, b]
        thunk = lambda: torch.kron(a, b)
    elif op == 'repeat_interleave':
        s = rs(rng); nd = len(s); a = td.rtensor(rng, d, s); T = [a]
        rep = rng.choice([0, 1, 2, 3, -1]) if rng.random() < 0.95 else 5
        has = rng.randrange(2) if nd else 0
        dim = rng.randint(-nd, nd - 1) if nd else 0
        I = [rep, has, dim]
        thunk = lambda: torch.repeat_interleave(a, rep, dim=dim if has else None)
    elif op == 'meshgrid':
        n = rng.randint(1, 3)
        ts = [td.rtensor(rng, d if rng.random() < 0.95 else d2, [rng.randint(0, 4)] if rng.random() < 0.85 else []) for _ in range(n)]
        T = ts
        ix = rng.randrange(2); which = rng.randrange(n); I = [ix, which]
        thunk = lambda: torch.meshgrid(*ts, indexing=['ij', 'xy'][ix])[which]
    tl = [('99 0 0' if t is None else td.tspec(t, getattr(t, 'lay', 0))) for t in T]
    line = ' '.join([op, str(len(T))] + tl + [str(len(D))] + [td.fmt(x) for x in D] + [str(len(I))] + [str(x) for x in I])
    dts = [td.NAME[td.DT.index(t.dtype)] if t is not None else '-' for t in T]
    if any(t is not None and t.numel() == 0 for t in T): dts.append('EMPTY')
    thunk.T = T
    return line, thunk, op, dts


td.TOL.update({'group_norm': 64, 'batch_norm': 64, 'batch_norm_rm': 4, 'batch_norm_rv': 64,
               'softplus': 2, 'elu': 2, 'lerp': 1, 'lerp_scalar': 1, 'norm': 16, 'addmm': 64,
               'baddbmm': 64, 'conv1d': 64, 'conv2d': 64, 'avg_pool2d': 4,
               'adaptive_avg_pool2d': 4, 'interpolate': 4, 'index_add': 0, 'scatter_add': 0,
               'dot': 64, 'mv': 64, 'trace': 64, 'nansum': 64, 'nanmean': 64, 'var_mean_0': 64,
               'var_mean_1': 64, 'std_mean_0': 64, 'std_mean_1': 64, 'einsum': 64,
               'logcumsumexp': 8, 'cov': 64, 'corrcoef': 64, 'trapezoid': 64})

if __name__ == '__main__':
    td.gen = gen2
    td.main()
