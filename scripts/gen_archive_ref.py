#!/usr/bin/env python3
"""torch 1.13's and NumPy's files for tests/test_archive.c: checkpoints written by torch.save
(pickle protocols 2 and 4, a bare tensor, a big-endian copy, the legacy format, a pickled module),
.npz archives (stored and deflated), what torch.load / np.load read from them (every entry's name,
kind and value), the data.pkl torch.save writes for state dicts the test rebuilds in C, and
hostile variants with the status and a word of the message expected. Writes
tests/data/archive_ref.h. Run with /usr/bin/python3 (torch, numpy)."""
import collections
import io
import math
import struct
import sys
import warnings
import zipfile
import zlib

import numpy as np
import torch

warnings.filterwarnings("ignore")
torch.manual_seed(3)
np.random.seed(3)
out = []


def cbytes(name, b):
    body = ",".join(str(x) for x in b) or "0"
    out.append(f"static const unsigned char {name}[] = {{{body}}};")
    out.append(f"static const size_t {name}_len = {len(b)};")


def cstr(s):
    return '"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\?' else "\\%03o" % ord(c) for c in s) + '"'


def save_bytes(obj, **kw):
    f = io.BytesIO()
    torch.save(obj, f, **kw)
    return f.getvalue()


DT = {torch.float32: "CT_FLOAT32", torch.float64: "CT_FLOAT64", torch.float16: "CT_FLOAT16",
      torch.bfloat16: "CT_BFLOAT16", torch.int64: "CT_INT64", torch.int32: "CT_INT32",
      torch.int16: "CT_INT16", torch.int8: "CT_INT8", torch.uint8: "CT_UINT8", torch.bool: "CT_BOOL",
      torch.complex64: "CT_COMPLEX64", torch.complex128: "CT_COMPLEX128"}


def num(x):
    if isinstance(x, float) and math.isnan(x):
        return "NAN"
    if isinstance(x, float) and math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(float(x))


# ---- a training checkpoint ----
m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
opt = torch.optim.Adam(m.parameters(), lr=1e-3)
m(torch.randn(4, 3)).sum().backward()
opt.step()
ck = {"epoch": 7, "model": m.state_dict(), "optimizer": opt.state_dict(), "name": "run-\u03b1",
      "none": None, "flag": True, "neg": -123456789012, "big": 2 ** 40, "blob": b"\x00\x01\xff",
      "p": torch.nn.Parameter(torch.tensor([[1.0, -2.0], [0.5, 3.0]])),
      "bf": torch.tensor([1.5, -2.25], dtype=torch.bfloat16),
      "h": torch.tensor([0.1, -65504.0], dtype=torch.half), "b": torch.tensor([True, False]),
      "c": torch.tensor([1 + 2j, -3j]), "cd": torch.tensor([0.5 - 1j], dtype=torch.complex128),
      "e": torch.zeros(0, 3), "five": torch.arange(32.0).reshape(1, 2, 2, 2, 4),
      "exp": torch.tensor([[1.0], [2.0], [3.0]]).expand(3, 4), "sl": torch.arange(10)[2:9:3],
      "tr": torch.arange(6.0, dtype=torch.float64).reshape(2, 3).t(),
      "i8": torch.tensor([-1, 5], dtype=torch.int8), "u8": torch.tensor([0, 255], dtype=torch.uint8),
      "i16": torch.tensor([-30000], dtype=torch.int16), "i32": torch.tensor([7, -8], dtype=torch.int32),
      "s0": torch.tensor(2.5), "nan": torch.tensor([math.nan, -math.inf, -0.0]),
      "dt": torch.float16, "tup": (1, 2.5, "x"), "lst": [torch.tensor([9])], 3: "int key",
      "": {"a": torch.tensor([1.0]), "": 5}, "a": torch.tensor([2.0]), "eb": b"", "set": {7},
      "fs": frozenset([8]), "ch": torch.arange(24.0).reshape(1, 2, 3, 4).to(memory_format=torch.channels_last)}
CK = save_bytes(ck)
cbytes("ck_pt", CK)
cbytes("ck4_pt", save_bytes(ck, pickle_protocol=4))
cbytes("ck_legacy_pt", save_bytes(ck, _use_new_zipfile_serialization=False))
cbytes("ck_legacy4_pt", save_bytes(ck, _use_new_zipfile_serialization=False, pickle_protocol=4))

# what torch.load reads, flattened as ctorch names entries
entries = []


def walk(p, v, top=True):
    """ctorch's names: the root's keys alone, deeper ones joined with '.' (also to an empty key)."""
    if isinstance(v, dict):
        for k, x in v.items():
            walk(f"{p}.{k}" if top is False else str(k), x, False)
    elif isinstance(v, (list, tuple, set, frozenset)):
        for k, x in enumerate(v):
            walk(f"{p}.{k}" if top is False else str(k), x, False)
    else:
        entries.append((p, v))


walk("", torch.load(io.BytesIO(CK)))
rows = []
for name, v in entries:
    if isinstance(v, torch.Tensor):
        t = v.detach()
        vals = torch.view_as_real(t).reshape(-1) if t.is_complex() else t.reshape(-1)
        vals = [float(x) for x in vals.double().tolist()]
        vn = f"ckv_{len(rows)}"
        out.append(f"static const double {vn}[] = {{{', '.join(num(x) for x in vals) or '0'}}};")
        shp = ", ".join(str(s) for s in t.shape) or "0"
        std = ", ".join(str(s) for s in t.stride()) or "0"
        rows.append(f"{{{cstr(name)}, 6, {DT[t.dtype]}, {t.dim()}, {{{shp}}}, {{{std}}}, {vn}, {int(v.requires_grad)}, 0, 0, NULL, 0}}")
    elif v is None:
        rows.append(f"{{{cstr(name)}, 0, 0, 0, {{0}}, {{0}}, NULL, 0, 0, 0, NULL, 0}}")
    elif isinstance(v, bool):
        rows.append(f"{{{cstr(name)}, 1, 0, 0, {{0}}, {{0}}, NULL, 0, {int(v)}, 0, NULL, 0}}")
    elif isinstance(v, int):
        rows.append(f"{{{cstr(name)}, 2, 0, 0, {{0}}, {{0}}, NULL, 0, {v}LL, 0, NULL, 0}}")
    elif isinstance(v, float):
        rows.append(f"{{{cstr(name)}, 3, 0, 0, {{0}}, {{0}}, NULL, 0, 0, {num(v)}, NULL, 0}}")
    elif isinstance(v, torch.dtype):
        rows.append(f"{{{cstr(name)}, 4, 0, 0, {{0}}, {{0}}, NULL, 0, 0, 0, {cstr(str(v))}, {len(str(v))}}}")
    elif isinstance(v, str):
        b = v.encode()
        rows.append(f"{{{cstr(name)}, 4, 0, 0, {{0}}, {{0}}, NULL, 0, 0, 0, {cstr(b.decode('latin1'))}, {len(b)}}}")
    elif isinstance(v, bytes):
        rows.append(f"{{{cstr(name)}, 5, 0, 0, {{0}}, {{0}}, NULL, 0, 0, 0, {cstr(v.decode('latin1'))}, {len(v)}}}")
    else:
        sys.exit(f"unexpected {type(v)}")
out.append("struct ck_entry { const char *name; int kind; ct_dtype dtype; int ndim; int64_t shape[8]; "
           "int64_t stride[8]; const double *v; int rg; long long i; double f; const char *s; size_t slen; };")
out.append("static const struct ck_entry ck_entries[] = {" + ",\n  ".join(rows) + "};")
out.append(f"enum {{ ck_n = {len(rows)} }};")

# a bare tensor; a module (a pickled object); the legacy format
cbytes("bare_pt", save_bytes(torch.tensor([1.0, 2.0, 4.0])))
cbytes("module_pt", save_bytes(torch.nn.Linear(2, 1)))
LEG = save_bytes({"w": torch.ones(2)}, _use_new_zipfile_serialization=False)
cbytes("legacy_pt", LEG)


def rezip(src, edit):
    """Rewrite the archive src, passing each member (name, bytes) through edit."""
    zin = zipfile.ZipFile(io.BytesIO(src))
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            r = edit(info.filename, zin.read(info.filename))
            if r is not None:
                zout.writestr(r[0], r[1])
        extra = edit("<extra>", None)
        if extra:
            zout.writestr(extra[0], extra[1])
    return f.getvalue()


# big-endian: the same pickle, every record byte-swapped, byteorder "big"
SD = collections.OrderedDict(w=torch.tensor([[1.0, -2.5]]), i=torch.tensor([1, -300], dtype=torch.int64),
                             c=torch.tensor([1 - 2j]), h=torch.tensor([0.5], dtype=torch.half),
                             b=torch.tensor([True]))
sd_bytes = save_bytes(SD)
keys = {str(i): v for i, v in enumerate(SD.values())}


def to_big(name, data):
    if name == "<extra>":
        return ("archive/byteorder", b"big")
    if "/data/" in name:
        t = keys[name.rsplit("/", 1)[1]]
        a = t.numpy() if not t.is_complex() else torch.view_as_real(t).numpy()
        return (name, a.astype(a.dtype.newbyteorder(">")).tobytes())
    return (name, data)


cbytes("big_pt", rezip(sd_bytes, to_big))
cbytes("little_pt", sd_bytes)

# ---- load_state_dict: torch's messages for a model that differs from the file ----
class M(torch.nn.Module):
    def __init__(self, wshape):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.fc.weight = torch.nn.Parameter(torch.zeros(wshape))
        self.other = torch.nn.Parameter(torch.zeros(4))


LSD = collections.OrderedDict([("fc.weight", torch.arange(6.0).reshape(2, 3)), ("fc.bias", torch.tensor([0.5, -1.5])),
                              ("extra", torch.ones(1))])
cbytes("lsd_pt", save_bytes(LSD))
for tag, wshape in (("keys", (2, 3)), ("size", (3, 3))):
    try:
        M(wshape).load_state_dict(LSD, strict=True)
        sys.exit("expected an error")
    except RuntimeError as e:
        msg = str(e).split(":\n\t", 1)[1]  # torch joins its messages with newline-tab
        out.append(f"static const char lsd_msg_{tag}[] = {cstr(msg)};")
r = M((2, 3)).load_state_dict(LSD, strict=False)
out.append(f"enum {{ lsd_missing = {len(r.missing_keys)}, lsd_unexpected = {len(r.unexpected_keys)} }};")

# torch's rules beyond the keys: a non-tensor value, a 0-dim parameter from a 1-dim entry (0.3's
# format), keys under a parameter or equal to a module (not unexpected), unexpected keys listed
# module by module (root first)
class M2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.s = torch.nn.Parameter(torch.tensor(0.0))
        self.fc = torch.nn.Linear(3, 2)


LSD2 = collections.OrderedDict([("fc.weight", torch.arange(6.0).reshape(2, 3)), ("fc.bias", 5),
                               ("s", torch.tensor([3.0, 4.0])), ("fc.extra", torch.ones(1)),
                               ("fc.weight.x", torch.ones(1)), ("fc", torch.ones(1)), ("bogus", torch.ones(1))])
cbytes("lsd2_pt", save_bytes(LSD2))
try:
    M2().load_state_dict(LSD2, strict=True)
    sys.exit("expected an error")
except RuntimeError as e:
    out.append(f"static const char lsd2_msg[] = {cstr(str(e).split(':' + chr(10) + chr(9), 1)[1])};")
LSD3 = collections.OrderedDict((k, v) for k, v in LSD2.items() if k != "fc.bias")
LSD3["fc.bias"] = torch.tensor([7.0, 8.0])
cbytes("lsd3_pt", save_bytes(LSD3))
m2 = M2()
r = m2.load_state_dict(LSD3, strict=False)
out.append(f"enum {{ lsd3_unexpected = {len(r.unexpected_keys)}, lsd3_missing = {len(r.missing_keys)} }};")
out.append(f"static const double lsd3_s = {float(m2.s)};")

# ---- .npz ----
f = io.BytesIO()
np.savez(f, x=np.arange(6.0).reshape(2, 3), y=np.array([1, -2], dtype=np.int32), z=np.array(True))
cbytes("npz_stored", f.getvalue())
f = io.BytesIO()
zc = np.random.rand(300)
np.savez_compressed(f, x=np.arange(600.0).reshape(20, 30) % 7, z=zc, w=np.array([1 + 1j], np.complex64))
cbytes("npz_deflated", f.getvalue())
f = io.BytesIO()
with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, compresslevel=0) as z:  # deflate's stored blocks
    g = io.BytesIO()
    np.save(g, np.arange(5, dtype=np.int16))
    z.writestr("s.npy", g.getvalue())
cbytes("npz_level0", f.getvalue())
out.append(f"static const double npz_z[] = {{{', '.join(num(x) for x in zc)}}};")

# ---- data.pkl of torch.save for state dicts rebuilt in C (value k of tensor j: see the test) ----
CTD = [(torch.float32, "CT_FLOAT32"), (torch.int64, "CT_INT64"), (torch.float64, "CT_FLOAT64"),
       (torch.bool, "CT_BOOL"), (torch.complex64, "CT_COMPLEX64"), (torch.bfloat16, "CT_BFLOAT16"),
       (torch.float16, "CT_FLOAT16"), (torch.int8, "CT_INT8"), (torch.uint8, "CT_UINT8"),
       (torch.int16, "CT_INT16"), (torch.int32, "CT_INT32"), (torch.complex128, "CT_COMPLEX128")]
SHAPES = [(2, 3), (4,), (), (2,), (1, 2), (3, 1, 2), (2, 2, 1, 1, 2), (0, 3), (5,), (1,), (2, 2), (1,)]


def sd_case(n):
    sd = collections.OrderedDict()
    for j in range(n):
        dt, _ = CTD[j % len(CTD)]
        shp = SHAPES[j % len(SHAPES)]
        k = torch.arange(int(np.prod(shp)) if shp else 1, dtype=torch.float64).reshape(shp)
        v = (k + j) % 5 - 2  # small integers: exact in every dtype
        if dt == torch.bool:
            t = v > 0
        elif dt.is_complex:
            t = torch.complex(v, -v).to(dt)
        else:
            t = v.to(dt)
        sd[f"layer{j}.w" if j % 2 else f"b{j}"] = t
    return sd


for n in (0, 1, 12):
    pk = zipfile.ZipFile(io.BytesIO(save_bytes(sd_case(n)))).read("archive/data.pkl")
    cbytes(f"pkl_{n}", pk)
pk = zipfile.ZipFile(io.BytesIO(save_bytes(sd_case(1001)))).read("archive/data.pkl")
out.append(f"static const size_t pkl_1001_len = {len(pk)};")
out.append(f"static const unsigned pkl_1001_crc = {zlib.crc32(pk)}u;")
out.append("static const ct_dtype sd_dtypes[] = {" + ", ".join(c for _, c in CTD) + "};")
out.append("static const int sd_ndim[] = {" + ", ".join(str(len(s)) for s in SHAPES) + "};")
out.append("static const int64_t sd_shapes[][5] = {" + ", ".join("{" + (", ".join(str(x) for x in s) or "0") + "}" for s in SHAPES) + "};")

# ---- hostile files: (bytes, status, a word of the message) ----
HOST = []


def pickle_zip(pkl, extra=None):
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/version", b"3\n")
        for k, v in (extra or {}).items():
            z.writestr(k, v)
    return f.getvalue()


def P(*ops):
    return b"\x80\x02" + b"".join(ops) + b"."


glob = lambda m, n: b"c" + m.encode() + b"\n" + n.encode() + b"\n"
storage = lambda key, numel, cls="FloatStorage": (b"((X\x07\x00\x00\x00storage" + glob("torch", cls) +
                                                   b"X" + struct.pack("<I", len(key)) + key.encode() +
                                                   b"X\x03\x00\x00\x00cpu" + b"K" + bytes([numel]) + b"tQ")
rebuild = lambda key, numel, off, size, stride: (glob("torch._utils", "_rebuild_tensor_v2") + storage(key, numel) +
                                                  b"K" + bytes([off]) + b"K" + bytes([size]) + b"\x85" +
                                                  b"K" + bytes([stride]) + b"\x85" + b"\x89" + b"}" + b"tR")
four = b"\x00" * 16
HOST.append(("tensor past its storage", pickle_zip(P(b"}X\x01\x00\x00\x00w", rebuild("0", 4, 2, 3, 1), b"s"), {"archive/data/0": four}), "CT_ERR_FORMAT", "past its storage"))
HOST.append(("storage larger than its record", pickle_zip(P(rebuild("0", 8, 0, 2, 1)), {"archive/data/0": four}), "CT_ERR_FORMAT", "its record has"))
HOST.append(("storage without a record", pickle_zip(P(rebuild("7", 4, 0, 2, 1)), {"archive/data/0": four}), "CT_ERR_FORMAT", "no record"))
HOST.append(("pickled object", pickle_zip(P(glob("os", "system"), b"X\x02\x00\x00\x00ls\x85R")), "CT_ERR_UNSUPPORTED", "os.system"))
HOST.append(("memo get never put", pickle_zip(P(b"h\x05")), "CT_ERR_FORMAT", "memo"))
HOST.append(("memo index past the end", pickle_zip(P(b"N", b"r\xff\xff\xff\x7f")), "CT_ERR_FORMAT", "memo"))
HOST.append(("no STOP", pickle_zip(b"\x80\x02N"), "CT_ERR_FORMAT", "STOP"))
HOST.append(("unknown opcode", pickle_zip(P(b"\xff")), "CT_ERR_FORMAT", "opcode"))
HOST.append(("stack underflow", pickle_zip(P(b"R")), "CT_ERR_FORMAT", "REDUCE"))
HOST.append(("append to a dict", pickle_zip(P(b"}N", b"a")), "CT_ERR_FORMAT", "not a list"))
HOST.append(("deep nesting", pickle_zip(P(b"]" * 100 + b"a" * 99)), "CT_ERR_FORMAT", "deeper"))
# [x, x] doubled 60 times: 2^60 leaves from a few hundred bytes
HOST.append(("exponential sharing", pickle_zip(P(b"Nq\x000" + b"h\x00h\x00\x86q\x000" * 60 + b"h\x00")), "CT_ERR_FORMAT", "expands"))
HOST.append(("integer wider than 64 bits", pickle_zip(P(b"\x8a\x09" + b"\x01" * 9)), "CT_ERR_UNSUPPORTED", "64 bits"))
HOST.append(("string past the end", pickle_zip(b"\x80\x02X\xff\x00\x00\x00ab"), "CT_ERR_FORMAT", "past the end"))
HOST.append(("dict key of a float", pickle_zip(P(b"}G" + struct.pack(">d", 1.5) + b"Ns")), "CT_ERR_UNSUPPORTED", "dict key"))
HOST.append(("quantized tensor", pickle_zip(P(glob("torch._utils", "_rebuild_qtensor"))), "CT_ERR_UNSUPPORTED", "quantized"))
f = io.BytesIO()
with zipfile.ZipFile(f, "w") as z:
    z.writestr("a/other", b"x")
HOST.append(("no data.pkl", f.getvalue(), "CT_ERR_FORMAT", "data.pkl"))
HOST.append(("a dtype ctorch lacks", pickle_zip(P(glob("torch", "uint16"))), "CT_ERR_DTYPE", "torch.uint16"))
HOST.append(("a storage class ctorch lacks", pickle_zip(P(glob("torch", "UInt16Storage"))), "CT_ERR_DTYPE", "UInt16Storage"))
HOST.append(("NEWOBJ of OrderedDict", pickle_zip(P(glob("collections", "OrderedDict"), b")\x81")), "CT_ERR_UNSUPPORTED", "NEWOBJ"))
HOST.append(("BUILD of a tensor with state", pickle_zip(P(rebuild("0", 4, 0, 4, 1), b"(K\x01K\x02tb"), {"archive/data/0": four}), "CT_ERR_UNSUPPORTED", "set_"))
HOST.append(("storage key with a NUL", pickle_zip(P(glob("torch._utils", "_rebuild_tensor_v2") + storage("0\x00x", 4) + b"K\x00K\x04\x85K\x01\x85\x89}tR"), {"archive/data/0": four}), "CT_ERR_FORMAT", "NUL"))
# m items copied k times (OrderedDict(list) through the memo): quadratic without a budget
quad = b"NN\x86q\x00]q\x01(h\x00" + b"2" * 20000 + b"e\x85q\x020ccollections\nOrderedDict\nq\x030" + b"h\x03h\x02R0" * 400 + b"N"
HOST.append(("quadratic copies", pickle_zip(P(quad)), "CT_ERR_FORMAT", "64 per pickle byte"))
# one 4000-byte key repeated through DUP: names outgrow the file
names = b"}q\x00X\xa0\x0f\x00\x00" + b"A" * 4000 + b"Ns0]q\x01(h\x00" + b"2" * 30000 + b"e"
HOST.append(("repeated long names", pickle_zip(P(names)), "CT_ERR_FORMAT", "64 per pickle byte"))
# two directory entries pointing at one member
f = io.BytesIO()
with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", P(b"N"))
    z.writestr("archive/data/0", four)
ov = bytearray(f.getvalue())
cd = ov.index(b"PK\x01\x02", ov.index(b"PK\x01\x02") + 4)  # the second entry: point it at the first
ov[cd + 42:cd + 46] = b"\x00\x00\x00\x00"
HOST.append(("overlapping members", bytes(ov), "CT_ERR_FORMAT", "overlap"))
# hand-built pickles torch reads one way: duplicate keys (last value at the first place), a
# storage key reused with another type (the first type wins), STOP with values below the top
cbytes("dupkey_pt", pickle_zip(P(b"}(X\x01\x00\x00\x00wX\x05\x00\x00\x00firstX\x01\x00\x00\x00bK\x02X\x01\x00\x00\x00wX\x06\x00\x00\x00secondK\x01K\x03\x88K\x04u")))
reuse = (b"}(X\x01\x00\x00\x00a" + rebuild("0", 1, 0, 1, 1) + b"X\x01\x00\x00\x00b" +
         glob("torch._utils", "_rebuild_tensor_v2") + storage("0", 1, "IntStorage") + b"K\x00K\x01\x85K\x01\x85\x89}tR" + b"u")
cbytes("reuse_pt", pickle_zip(P(reuse), {"archive/data/0": struct.pack("<f", 1.5)}))
cbytes("stop_pt", pickle_zip(b"\x80\x02K\x05K\x07."))
# a broadcast view of 2^27 elements over a 4-byte storage: a view, not 512 MiB
big = glob("torch._utils", "_rebuild_tensor_v2") + storage("0", 1) + b"K\x00J\x00\x00\x00\x08\x85K\x00\x85\x89}tR"
cbytes("expand_pt", pickle_zip(P(big), {"archive/data/0": struct.pack("<f", 2.5)}))
f = io.BytesIO()
np.savez(f)
cbytes("npz_empty", f.getvalue())
for kname, obj in (("dupkey", None), ("reuse", None), ("stop", None)):
    pass
good = pickle_zip(P(b"}X\x01\x00\x00\x00w", rebuild("0", 4, 0, 4, 1), b"s"), {"archive/data/0": struct.pack("<4f", 1, 2, 3, 4)})
cbytes("good_small", good)
bad_crc = bytearray(good)
bad_crc[good.index(struct.pack("<4f", 1, 2, 3, 4))] ^= 0x40
HOST.append(("corrupt record (CRC)", bytes(bad_crc), "CT_ERR_FORMAT", "CRC"))
HOST.append(("not a zip", b"hello world, not a zip file at all", "CT_ERR_FORMAT", "ZIP"))
HOST.append(("legacy: data cut short", LEG[:-3], "CT_ERR_FORMAT", "runs past the end"))
HOST.append(("legacy: element count changed", LEG[:-16] + b"\x03" + LEG[-15:], "CT_ERR_FORMAT", "elements"))
HOST.append(("legacy: pickled module", save_bytes(torch.nn.ReLU(), _use_new_zipfile_serialization=False), "CT_ERR_UNSUPPORTED", "ReLU"))
HOST.append(("legacy: no magic", b"\x80\x02\x8a\x0a" + b"\x00" * 10 + b"." + LEG[15:], "CT_ERR_FORMAT", "magic"))
HOST.append(("module", save_bytes(torch.nn.ReLU()), "CT_ERR_UNSUPPORTED", "torch.nn.modules.activation.ReLU"))
# a truncated central directory, and an EOCD pointing outside the file
eocd = good.rindex(b"PK\x05\x06")
HOST.append(("directory outside the file", good[:eocd + 16] + struct.pack("<I", 10 ** 9) + good[eocd + 20:], "CT_ERR_FORMAT", "outside"))
HOST.append(("no end record", good[:eocd], "CT_ERR_FORMAT", "end of central directory"))
# a deflated member with garbage data
f = io.BytesIO()
with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("x.npy", b"\x93NUMPY" + b"\x00" * 200)
bad = bytearray(f.getvalue())
bad[30 + 5] ^= 0xff
bad[30 + 6] ^= 0xff
cbytes("npz_bad_deflate", bytes(bad))
for i, (what, data, st, word) in enumerate(HOST):
    cbytes(f"host_{i}", data)
out.append("struct host_case { const char *what; const unsigned char *data; size_t len; ct_status st; const char *word; };")
out.append("static const struct host_case host_cases[] = {" + ",\n  ".join(
    f"{{{cstr(w)}, host_{i}, sizeof host_{i}, {s}, {cstr(word)}}}" for i, (w, d, s, word) in enumerate(HOST)) + "};")
out.append(f"enum {{ host_n = {len(HOST)} }};")

with open("tests/data/archive_ref.h", "w") as fh:
    fh.write("/* Generated by scripts/gen_archive_ref.py (torch %s, numpy %s): torch.save / np.savez files "
             "and what torch.load / np.load read from them. Do not edit. */\n" % (torch.__version__, np.__version__))
    fh.write("#include <stddef.h>\n#include <stdint.h>\n")
    fh.write("\n".join(out) + "\n")
print("wrote tests/data/archive_ref.h:", len(rows), "checkpoint entries,", len(HOST), "hostile files")
