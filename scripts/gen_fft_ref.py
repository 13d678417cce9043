#!/usr/bin/env python3
"""Reference values for tests/test_complex_fft.c from torch 1.13 (torch.fft and the complex ops).

    /usr/bin/python3 scripts/gen_fft_ref.py > tests/data/fft_ref.h
"""
import torch

torch.manual_seed(7)
OPS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn",
       "fft2", "ifft2", "rfft2", "irfft2", "fftshift", "ifftshift", "mul", "div", "add", "sub",
       "abs", "angle", "exp", "log", "sqrt", "conj", "complex", "polar", "sgn", "reciprocal",
       "eq", "stft", "istft", "sum", "mean", "matmul", "eig_values", "eig_vectors", "eigvals",
       "cat2", "stack2", "flip", "roll", "roll_flat", "repeat", "index_select", "pad", "movedim",
       "pow", "isclose", "norm", "flatten", "where", "masked_fill", "tril", "triu", "cumsum",
       "hfftn", "ihfftn", "hfft2", "ihfft2"]
NORMS = [None, "ortho", "forward"]
DT = {torch.float32: 8, torch.float64: 9, torch.complex64: 16, torch.complex128: 17,
      torch.int64: 5, torch.bool: 0}
ins, outs, cases = [], [], []


def flat(t):
    t = t.resolve_conj().resolve_neg().contiguous()
    single = t.dtype in (torch.float32, torch.complex64)
    v = torch.view_as_real(t) if t.is_complex() else t
    return [(x, single) for x in v.reshape(-1).double().tolist()]


def add(op, xs, out, n=-1, dim=0, s=None, dims=None, norm=None, alpha=1.0):
    assert len(xs) <= 3
    rec = {"op": OPS.index(op), "n": n, "dim": dim, "s": s or [], "dims": dims or [],
           "norm": NORMS.index(norm), "x": [], "alpha": alpha}
    for x in xs:
        rec["x"].append((DT[x.dtype], list(x.shape), len(ins)))
        ins.extend(flat(x))
    rec["out"] = (DT[out.dtype], list(out.shape), len(outs))
    outs.extend(flat(out))
    cases.append(rec)


def rnd(shape, dt):
    if dt.is_complex:
        return torch.randn(shape, dtype=dt)
    return torch.randn(shape, dtype=dt)


F = torch.fft
for dt, cdt in ((torch.float64, torch.complex128), (torch.float32, torch.complex64)):
    for L in (1, 2, 3, 5, 7, 8, 12, 16, 30, 64, 97, 128, 134, 105):
        norm = NORMS[L % 3]
        x = rnd((2, L), cdt)
        add("fft", [x], F.fft(x, norm=norm), dim=1, norm=norm)
        add("ifft", [x], F.ifft(x, norm=norm), dim=-1, norm=norm)
        r = rnd((L, 2), dt)
        add("rfft", [r], F.rfft(r, dim=0, norm=norm), dim=0, norm=norm)
        add("ihfft", [r], F.ihfft(r, dim=0, norm=norm), dim=0, norm=norm)
        h = rnd((2, L // 2 + 1), cdt)
        add("irfft", [h], F.irfft(h, n=L, norm=norm), n=L, dim=1, norm=norm)
        add("hfft", [h], F.hfft(h, n=L, norm=norm), n=L, dim=1, norm=norm)
    x = rnd((4, 6), cdt)
    add("fft", [x], F.fft(x, n=9), n=9, dim=1)     # zero padding
    add("fft", [x], F.fft(x, n=3, dim=0), n=3, dim=0)  # trimming
    r = rnd((5, 6), dt)
    add("fft", [r], F.fft(r), dim=-1)               # real input promoted
    add("irfft", [x], F.irfft(x), dim=-1)           # default n = 2 (m - 1)
    add("hfft", [x], F.hfft(x, dim=0), dim=0)
    xi = torch.randint(-5, 5, (7,))
    add("fft", [xi], F.fft(xi), dim=0)              # integers -> complex64
    x3 = rnd((3, 4, 5), cdt)
    r3 = rnd((3, 4, 6), dt)
    add("fftn", [x3], F.fftn(x3))
    add("ifftn", [x3], F.ifftn(x3, s=(5, 3), dim=(0, 2), norm="ortho"), s=[5, 3], dims=[0, 2], norm="ortho")
    add("fftn", [x3], F.fftn(x3, s=(6, 4)), s=[6, 4])
    add("rfftn", [r3], F.rfftn(r3))
    add("rfftn", [r3], F.rfftn(r3, s=(3, 7), dim=(0, 2), norm="forward"), s=[3, 7], dims=[0, 2], norm="forward")
    add("irfftn", [x3], F.irfftn(x3))
    add("irfftn", [x3], F.irfftn(x3, s=(4, 8), dim=(0, 2)), s=[4, 8], dims=[0, 2])
    add("fft2", [x3], F.fft2(x3))
    add("ifft2", [x3], F.ifft2(x3, s=(3, 3), dim=(0, 1)), s=[3, 3], dims=[0, 1])
    add("rfft2", [r3], F.rfft2(r3, norm="ortho"), norm="ortho")
    add("irfft2", [x3], F.irfft2(x3, s=(4, 7)), s=[4, 7])
    add("fftshift", [x3], F.fftshift(x3))
    add("ifftshift", [r3], F.ifftshift(r3, dim=(0, 2)), dims=[0, 2])
    # complex elementwise, torch's values
    a = rnd((3, 4), cdt)
    b = rnd((4,), cdt)
    b[1] = 0
    a[0, 0] = complex(float("inf"), 1.0)
    a[0, 1] = complex(0.0, float("nan"))
    a[1, 0] = 0
    add("mul", [a, b], a * b)
    add("div", [a, b], a / b)
    add("add", [a, r[:3, :4]], torch.add(a, r[:3, :4], alpha=2.0), alpha=2.0)
    add("sub", [r[:3, :4], b], r[:3, :4] - b)
    add("abs", [a], a.abs())
    add("angle", [a], a.angle())
    add("exp", [a], a.exp())
    add("log", [a], a.log())
    add("sqrt", [a], a.sqrt())
    add("conj", [a], a.conj().resolve_conj())
    add("sgn", [a], a.sgn())
    # 1 / z of an infinite z is 0 in ctorch (C99 Annex G; NumPy's division): torch 1.13 gives NaN
    rec = a.reciprocal()
    inf_in = (a.real.isinf() | a.imag.isinf()) & ~(a.real.isnan() | a.imag.isnan())
    rec[inf_in] = torch.from_numpy(1 / a[inf_in].numpy())
    add("reciprocal", [a], rec)
    add("eq", [a, a.conj().resolve_conj()], a == a.conj())
    re, im = rnd((2, 3), dt), rnd((3,), dt)
    add("complex", [re, im], torch.complex(re, im))
    add("polar", [re.abs(), im], torch.polar(re.abs(), im))
    # stft / istft: s = [hop, win_length, flags]: 1 no center, 2 normalized, 4 two-sided,
    # 8 hann window (periodic, of win_length), 16 constant padding; dim = istft's length
    def stft_case(x, n_fft, hop, win, flags, length=0):
        w = torch.hann_window(win or n_fft, dtype=dt) if flags & 8 else None
        kw = dict(n_fft=n_fft, hop_length=hop or None, win_length=win or None, window=w,
                  center=not flags & 1, normalized=bool(flags & 2),
                  onesided=False if flags & 4 else None, return_complex=True,
                  pad_mode="constant" if flags & 16 else "reflect")
        S = torch.stft(x, **kw)
        add("stft", [x], S, n=n_fft, s=[hop, win, flags])
        if not x.is_complex() and not flags & 4:
            kw.pop("pad_mode"), kw.pop("return_complex")
            try:
                y = torch.istft(S, length=length or None, **kw)
            except RuntimeError:  # the NOLA check (tested apart)
                return
            add("istft", [S], y, n=n_fft, s=[hop, win, flags], dim=length)

    sig = rnd((300,), dt)
    stft_case(sig, 64, 0, 0, 8)
    stft_case(sig, 50, 10, 40, 8 | 2)
    stft_case(rnd((2, 120), dt), 32, 8, 0, 8 | 1)
    stft_case(sig, 16, 4, 0, 8 | 16, length=290)
    stft_case(sig, 20, 5, 0, 8 | 4)
    stft_case(rnd((100,), cdt), 16, 4, 0, 8)
    stft_case(sig, 40, 10, 0, 8, length=310)
    # istft of a two-sided (non-Hermitian) spectrum: torch keeps the first n_fft / 2 + 1 rows
    S2 = rnd((8, 9), cdt)
    add("istft", [S2], torch.istft(S2, 8, hop_length=2, window=torch.hann_window(8, dtype=dt),
                                   onesided=False), n=8, s=[2, 0, 8 | 4])
    # sum / mean / matmul of complex tensors
    m = rnd((3, 4, 5), cdt)
    add("sum", [m], m.sum(dim=1), dims=[1])
    add("sum", [m], m.sum())
    add("mean", [m], m.mean(dim=(0, 2), keepdim=True), dims=[0, 2], s=[1])
    mb = rnd((5, 2), cdt)
    add("matmul", [m, mb], torch.matmul(m, mb))
    # linalg.eig of real matrices (complex pairs, a repeated eigenvalue, a batch)
    for A in (rnd((4, 4), dt), rnd((2, 3, 5, 5), dt),
              torch.tensor([[0., -1, 0], [1, 0, 0], [0, 0, 2]], dtype=dt)):
        w, v = torch.linalg.eig(A)
        add("eig_values", [A], w)
        add("eig_vectors", [A], v)
        add("eigvals", [A], torch.linalg.eigvals(A))
    # data movement, pow, isclose, norm of complex tensors
    c3 = rnd((2, 3, 4), cdt)
    c3b = rnd((2, 1, 4), cdt)
    add("cat2", [c3, c3b], torch.cat([c3, c3b], 1), dim=1)
    r34 = rnd((2, 3, 4), dt)
    add("cat2", [c3, r34], torch.cat([c3, r34], -1), dim=-1)  # promoted
    add("stack2", [c3, c3], torch.stack([c3, c3], -1), dim=-1)
    add("flip", [c3], c3.flip((0, -1)), dims=[0, -1])
    add("roll", [c3], c3.roll(2, -1), s=[2], dims=[-1])
    add("roll_flat", [c3], c3.roll(5), s=[5])
    add("repeat", [c3], c3.repeat(2, 1, 1, 2), s=[2, 1, 1, 2])
    ix = torch.tensor([2, 0, 2])
    add("index_select", [c3, ix], c3.index_select(1, ix), dim=1)
    add("pad", [c3], torch.nn.functional.pad(c3, (1, 2, 0, 1)), s=[1, 2, 0, 1])
    add("movedim", [c3], c3.movedim(0, 2), dims=[0, 2])
    add("flatten", [c3], c3.flatten(1), dim=1)
    for e in (2.0, 3.0, 0.5, -1.0, -2.0, 1.7):
        add("pow", [c3], c3 ** e, alpha=e)
    c3c = c3.clone()
    c3c[0, 0, :2] += 1e-9
    c3c[1, 2, 3] = complex(float("nan"), 0)
    add("isclose", [c3, c3c], torch.isclose(c3, c3c))
    add("norm", [c3], torch.linalg.vector_norm(c3, 2, dim=(1,)), dims=[1], alpha=2.0)
    add("norm", [c3], torch.linalg.vector_norm(c3, 1), alpha=1.0)
    cond = torch.rand(3, 4) > 0.5
    add("where", [cond, c3, r34[0]], torch.where(cond, c3, r34[0]))
    add("masked_fill", [c3, cond], c3.masked_fill(cond, 2.5), alpha=2.5)
    add("tril", [c3], c3.tril(1), dim=1)
    add("triu", [c3], c3.triu(-1), dim=-1)
    add("cumsum", [c3], c3.cumsum(-1), dim=-1)
# mixed precision: complex64 tensor with float64 tensor -> complex128
a = rnd((3,), torch.complex64)
d = rnd((3,), torch.float64)
add("mul", [a, d], a * d)
# hfftn / ihfftn / hfft2 / ihfft2 (torch's definitions: c2c then c2r; r2c then c2c)
for dt, cdt in ((torch.float64, torch.complex128), (torch.float32, torch.complex64)):
    x3 = rnd((3, 4, 5), cdt)
    r3 = rnd((3, 4, 6), dt)
    add("hfftn", [x3], F.hfftn(x3))
    add("hfftn", [x3], F.hfftn(x3, s=(5, 7), dim=(2, 0), norm="ortho"), s=[5, 7], dims=[2, 0], norm="ortho")
    add("hfftn", [x3], F.hfftn(x3, s=(3, 6), norm="forward"), s=[3, 6], norm="forward")
    add("hfftn", [x3], F.hfftn(x3, dim=(1,)), dims=[1])
    add("ihfftn", [r3], F.ihfftn(r3))
    add("ihfftn", [r3], F.ihfftn(r3, s=(5, 3), dim=(0, 2), norm="forward"), s=[5, 3], dims=[0, 2], norm="forward")
    add("ihfftn", [r3], F.ihfftn(r3, dim=(1,), norm="ortho"), dims=[1], norm="ortho")
    add("hfft2", [x3], F.hfft2(x3))
    add("hfft2", [x3], F.hfft2(x3, s=(2, 9), dim=(0, 1)), s=[2, 9], dims=[0, 1])
    add("ihfft2", [r3], F.ihfft2(r3, norm="ortho"), norm="ortho")
    add("ihfft2", [r3], F.ihfft2(r3, s=(4, 4), dim=(2, 0)), s=[4, 4], dims=[2, 0])

# printing: (dtype, shape, values) and torch's str()
prints = []
for t in (torch.zeros(0, dtype=torch.complex64), torch.zeros(0, 2, dtype=torch.complex128),
          torch.tensor(1.5 - 2j), torch.tensor([1e-5 + 1e5j, 2 - 0j, complex(-0.0, float("inf"))]),
          torch.arange(30, dtype=torch.float64).reshape(3, 10) * (1 + 0.5j),
          torch.randn(2, 3, dtype=torch.complex64),
          torch.complex((torch.randn(40, 40) * 100).round(), (torch.randn(40, 40) * 100).round()) / 8):
    prints.append((DT[t.dtype], list(t.shape), len(ins), str(t)))
    ins.extend(flat(t))

print("/* Generated by scripts/gen_fft_ref.py from torch %s: do not edit. */" % torch.__version__)
print("static const char *const fft_ops[] = {%s};" % ", ".join('"%s"' % o for o in OPS))
print("typedef struct {\n    int op, n_x;\n    int x_dt[3], x_nd[3];\n    int64_t x_shape[3][4];\n"
      "    int64_t x_off[3];\n    int64_t n;\n    int dim, n_s;\n    int64_t s[4];\n    int n_dims;\n"
      "    int dims[3];\n    int norm;\n    double alpha;\n    int out_dt, out_nd;\n"
      "    int64_t out_shape[4], out_off;\n} fft_case;")
print("static const fft_case fft_cases[] = {")
for c in cases:
    k = 3 - len(c["x"])
    xd = [x[0] for x in c["x"]] + [0] * k
    xn = [len(x[1]) for x in c["x"]] + [0] * k
    xs = [(x[1] + [0] * 4)[:4] for x in c["x"]] + [[0] * 4] * k
    xo = [x[2] for x in c["x"]] + [0] * k
    o = c["out"]
    print("    {%d, %d, {%s}, {%s}, {%s}, {%s}, %d, %d, %d, {%s}, %d, {%s}, %d, %r, %d, %d, {%s}, %d}," % (
        c["op"], len(c["x"]), ", ".join(map(str, xd)), ", ".join(map(str, xn)),
        ", ".join("{%s}" % ", ".join(map(str, v)) for v in xs), ", ".join(map(str, xo)),
        c["n"], c["dim"], len(c["s"]),
        ", ".join(map(str, (c["s"] + [0] * 4)[:4])), len(c["dims"]),
        ", ".join(map(str, (c["dims"] + [0] * 3)[:3])), c["norm"], c["alpha"], o[0], len(o[1]),
        ", ".join(map(str, (o[1] + [0] * 4)[:4])), o[2]))
print("};")


def num(x, single):
    t = ("%.9g" if single else "%.17g") % x
    return t if any(c in t for c in ".en") else t + ".0"  # "-0" would be the integer 0


def arr(name, v):
    print("static const double %s[] = {" % name)
    for i in range(0, len(v), 4):
        print("    " + ", ".join(num(x, sg) if x == x and abs(x) != float("inf")
                                 else ("NAN" if x != x else ("INFINITY" if x > 0 else "-INFINITY"))
                                 for x, sg in v[i:i + 4]) + ",")
    print("};")


print("typedef struct {\n    int dt, nd;\n    int64_t shape[2], off;\n    const char *str;\n} fft_print;")
print("static const fft_print fft_prints[] = {")
for dt, shape, off, txt in prints:
    sh = (shape + [0, 0])[:2]
    print("    {%d, %d, {%d, %d}, %d, %s}," % (dt, len(shape), sh[0], sh[1], off,
                                           '"' + txt.replace("\n", "\\n") + '"'))
print("};")
arr("fft_in", ins)
arr("fft_out", outs)
