#!/usr/bin/python3
"""Generate the reference data of tests/test_io.c with PyTorch 1.13 and NumPy:

* tests/data/print_torch_ref.h: tensors (dtype, shape, values) and the exact string torch prints
  for each (str(t)), so tests/test_io.c builds the same tensor and compares ct_tensor_to_string;
* tests/data/npy/*.npy: small arrays written by NumPy (every dtype, Fortran order, big-endian,
  0-d, empty, header versions 1.0/2.0/3.0), whose values follow a formula test_io.c recomputes.

Usage: /usr/bin/python3 tests/gen_io_reference.py   (from the repository root; Debian's
python3-torch and python3-numpy)
"""
import math
import os

import numpy as np
import torch

torch.manual_seed(0)
HERE = os.path.dirname(os.path.abspath(__file__))

CT = {
    torch.bool: "CT_BOOL", torch.uint8: "CT_UINT8", torch.int8: "CT_INT8",
    torch.int16: "CT_INT16", torch.int32: "CT_INT32", torch.int64: "CT_INT64",
    torch.float16: "CT_FLOAT16", torch.bfloat16: "CT_BFLOAT16", torch.float32: "CT_FLOAT32",
    torch.float64: "CT_FLOAT64",
}


def cases():
    f = torch.float32
    yield "fixed", torch.tensor([1.5, 2.25, -3.0]), False
    yield "int_mode", torch.tensor([1.0, 2.0, -30.0]), False
    yield "sci_range", torch.tensor([1e-5, 1.0, 1e5]), False
    yield "sci_small", torch.tensor([1e-5, 2e-5]), False
    yield "sci_big_int", torch.tensor([123456789.0, 1.0]), False
    yield "int_ratio", torch.tensor([1.0, 5000.0]), False
    yield "zeros", torch.zeros(2), False
    yield "neg_zero", torch.tensor([-0.0, 0.0, 1.0]), False
    yield "nonfinite", torch.tensor([math.nan, math.inf, -math.inf, 1.5]), False
    yield "nonfinite_int", torch.tensor([math.nan, 1.0, 2.0, -math.inf]), False
    yield "only_nan", torch.tensor([math.nan]), False
    yield "scalar_f32", torch.tensor(3.14159), False
    yield "scalar_int", torch.tensor(7), False
    yield "scalar_bool", torch.tensor(True), False
    yield "scalar_f64", torch.tensor(-2.5, dtype=torch.float64), False
    yield "scalar_int_mode", torch.tensor(2.0), False
    yield "int64", torch.tensor([1, -20, 300]), False
    yield "int64_big", torch.tensor([2**62, -(2**63), 5]), False
    yield "int32", torch.tensor([1, -20, 300], dtype=torch.int32), False
    yield "uint8", torch.tensor([0, 255, 7], dtype=torch.uint8), False
    yield "int8", torch.tensor([-128, 127, 0], dtype=torch.int8), False
    yield "int16", torch.tensor([[-1000, 2], [3, 4]], dtype=torch.int16), False
    yield "bool", torch.tensor([True, False, True]), False
    yield "bool_2d", torch.tensor([[True, True], [True, True]]), False
    yield "f64_2d", torch.randn(2, 3, dtype=torch.float64), False
    yield "f16", torch.tensor([0.1, -2.5, 1000.0], dtype=torch.float16), False
    yield "bf16", torch.tensor([0.1, -2.5, 1000.0], dtype=torch.bfloat16), False
    yield "f16_sci", torch.tensor([1e-4, 60000.0], dtype=torch.float16), False
    yield "mat", torch.randn(3, 4), False
    yield "mat_t", torch.randn(4, 3), True
    yield "cube", torch.randn(2, 3, 4), False
    yield "four_d", torch.randn(2, 1, 2, 3), False
    yield "wrap", torch.randn(30), False
    yield "wrap_2d_f64", torch.randn(3, 12, dtype=torch.float64) * 100, False
    yield "wrap_int", torch.arange(40, dtype=torch.int32) * 1000, False
    yield "sum_1d", torch.arange(2000, dtype=f), False
    yield "sum_1d_int", torch.arange(1001), False
    yield "sum_2d", torch.randn(40, 50), False
    yield "sum_3d", torch.randn(10, 10, 11), False
    yield "sum_narrow", torch.randn(2, 600), False
    yield "sum_bool", torch.arange(1200).reshape(30, 40) % 3 == 0, False
    yield "sum_f16", torch.randn(1001).half(), False
    yield "empty", torch.zeros(0), False
    yield "empty_int", torch.zeros(0, dtype=torch.int64), False
    yield "empty_2d", torch.zeros(2, 0), False
    yield "empty_f16_3d", torch.zeros(0, 3, 1, dtype=torch.float16), False
    yield "tiny", torch.tensor([1e-10, 3e-12]), False
    yield "mixed_sign_sci", torch.tensor([-1e10, 2.5]), False
    yield "long_suffix", torch.arange(21, dtype=torch.int16) * 1001, False
    # tensors that require grad: "requires_grad=True" on a leaf, torch's grad_fn name on a result
    # (the op named last is applied to the leaf; see GRAD_OPS and test_io.c's grad_result)
    g = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
    yield "grad_leaf", g, False, "leaf"
    yield "grad_leaf_f64_empty", torch.zeros(0, dtype=torch.float64), False, "leaf"
    yield "grad_mul", g, False, "mul_s"
    yield "grad_sum", g, False, "sum"
    yield "grad_sum_dim", g, False, "sum0"
    yield "grad_unsqueeze", g, False, "unsqueeze"
    yield "grad_squeeze_dim", g[:1], False, "squeeze0"
    yield "grad_squeeze_all", g[:1], False, "squeeze"
    yield "grad_view", g, False, "view"
    yield "grad_reshape", g, False, "reshape"
    yield "grad_reshape_copy", g, False, "reshape_t"
    yield "grad_mm", g[:, :2], False, "mm"
    yield "grad_mv", g[:, :2], False, "mv"
    yield "grad_dot", g[0], False, "dot"
    yield "grad_bmm", g.reshape(1, 2, 3), False, "bmm"
    yield "grad_triu", g, False, "triu"
    yield "grad_clamp", g, False, "clamp"
    yield "grad_cast_f16", g.half(), False, "cast64"
    yield "grad_wrap", torch.arange(19, dtype=torch.float64) * 1000.5, False, "mul_s"


# What torch prints for each op test_io.c's grad_result applies to the leaf x.
GRAD_OPS = {
    "leaf": lambda x: x, "mul_s": lambda x: x * 2.0, "sum": lambda x: x.sum(),
    "sum0": lambda x: x.sum(0), "unsqueeze": lambda x: x.unsqueeze(0),
    "squeeze0": lambda x: x.squeeze(0), "squeeze": lambda x: x.squeeze(),
    "view": lambda x: x.view(-1), "reshape": lambda x: x.reshape(-1),
    "reshape_t": lambda x: x.t().reshape(-1), "mm": lambda x: x @ x.t(),
    "mv": lambda x: x @ x[0], "dot": lambda x: x @ x, "bmm": lambda x: torch.bmm(x, x.transpose(1, 2)),
    "triu": lambda x: x.triu(), "clamp": lambda x: x.clamp(-1.0, 1.0),
    "cast64": lambda x: x.to(torch.float64, copy=True),
}


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    if v == 0 and math.copysign(1, v) < 0:
        return "-0.0"
    return repr(float(v))


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", '\\n"\n    "') + '"'


def gen_print():
    out = ["/* Generated by tests/gen_io_reference.py with torch %s: do not edit. */" %
           torch.__version__, "/* clang-format off */"]
    entries = []
    for name, t, transposed, *grad in cases():
        grad = grad[0] if grad else None
        expect = str(t.t() if transposed else t)
        if grad:
            expect = str(GRAD_OPS[grad](t.clone().requires_grad_()))
        flat = t.reshape(-1)
        if t.dtype in (torch.float16, torch.bfloat16):
            flat = flat.float()
        vals = flat.tolist()
        if t.dtype == torch.int64:
            out.append("static const long long pv_%s[] = {%s};" %
                       (name, ", ".join("%dLL" % v if v != -(2**63) else "(-9223372036854775807LL - 1)"
                                        for v in vals) or "0"))
            vd, vi = "NULL", "pv_" + name
        else:
            out.append("static const double pv_%s[] = {%s};" %
                       (name, ", ".join(c_double(float(v)) for v in vals) or "0"))
            vd, vi = "pv_" + name, "NULL"
        shape = ", ".join(str(s) for s in t.shape) or "0"
        entries.append('    {"%s", %s, %d, {%s}, %d, %s, %s, %s,\n     %s},' %
                       (name, CT[t.dtype], t.dim(), shape, int(transposed), vd, vi,
                        '"%s"' % grad if grad else "NULL", c_string(expect)))
    out.append("static const struct print_case {\n    const char *name;\n    ct_dtype dtype;\n"
               "    int ndim;\n    int64_t shape[8];\n    int transposed; /* print t's transpose */\n"
               "    const double *vd;   /* values (C order), or NULL */\n"
               "    const long long *vi; /* int64 values, or NULL */\n"
               "    const char *grad; /* NULL, \"leaf\" (requires grad) or the op printed */\n"
               "    const char *expect;\n"
               "} print_cases[] = {")
    out.extend(entries)
    out.append("};")
    with open(os.path.join(HERE, "data", "print_torch_ref.h"), "w") as f:
        f.write("\n".join(out) + "\n")


def npy_values(dtype, shape):
    """Values test_io.c recomputes: element k (C order) is (k * 7) % 11 - 3 (bool: k % 3 == 0),
    scaled by 0.25 for floats."""
    n = int(np.prod(shape))
    k = np.arange(n)
    if dtype == np.bool_:
        v = k % 3 == 0
    else:
        v = (k * 7) % 11 - 3
        if np.dtype(dtype).kind == "u":
            v = v + 3
        if np.dtype(dtype).kind == "f":
            v = v * 0.25
    return v.astype(dtype).reshape(shape)


def write_version(path, arr, version):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, arr, version=version)


def gen_npy():
    d = os.path.join(HERE, "data", "npy")
    os.makedirs(d, exist_ok=True)
    for name, dt in [("bool", np.bool_), ("uint8", np.uint8), ("int8", np.int8),
                     ("int16", np.int16), ("int32", np.int32), ("int64", np.int64),
                     ("float16", np.float16), ("float32", np.float32), ("float64", np.float64)]:
        np.save(os.path.join(d, "%s_2x3.npy" % name), npy_values(dt, (2, 3)))
    np.save(os.path.join(d, "float32_fortran_3x4x2.npy"),
            np.asfortranarray(npy_values(np.float32, (3, 4, 2))))
    np.save(os.path.join(d, "int32_big_3x4.npy"), npy_values(np.int32, (3, 4)).astype(">i4"))
    np.save(os.path.join(d, "float64_big_fortran_2x5.npy"),
            np.asfortranarray(npy_values(np.float64, (2, 5)).astype(">f8")))
    np.save(os.path.join(d, "float16_big_7.npy"), npy_values(np.float16, (7,)).astype(">f2"))
    np.save(os.path.join(d, "float64_0d.npy"), npy_values(np.float64, ()))
    np.save(os.path.join(d, "int64_empty_0x3.npy"), npy_values(np.int64, (0, 3)))
    write_version(os.path.join(d, "int16_v2_4.npy"), npy_values(np.int16, (4,)), (2, 0))
    write_version(os.path.join(d, "float32_v3_2x2.npy"), npy_values(np.float32, (2, 2)), (3, 0))


if __name__ == "__main__":
    gen_print()
    gen_npy()
