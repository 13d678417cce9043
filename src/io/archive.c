/* PyTorch checkpoints (.pt) and NumPy .npz archives: a restricted unpickler (the opcodes and
 * globals torch.load(weights_only=True) accepts, plus the later protocols' string and float
 * opcodes), the reader of torch's ZIP layout (<dir>/data.pkl, <dir>/data/<key>, <dir>/byteorder),
 * torch.save's writer (the bytes of data.pkl are the ones CPython's pickler writes for an
 * OrderedDict of contiguous tensors) and np.savez's. Every input is hostile: each length, count,
 * index and size is checked against the bytes present before use; object graphs are walked with a
 * depth and an entry budget (a pickle can describe exponentially large sharing). */
#include "ctorch/archive.h"
#include "ctorch/autograd.h"
#include "ctorch/io.h"
#include "dispatch/dispatch.h"
#include "io/npy_impl.h"
#include "io/zip.h"
#include "tensor/tensor_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- pickle values ---- */
typedef enum {
    PV_NONE,
    PV_BOOL,
    PV_INT,
    PV_FLOAT,
    PV_STR,
    PV_BYTES,
    PV_TUPLE,
    PV_LIST,
    PV_DICT, /* items: key, value, key, value, ... */
    PV_GLOBAL,
    PV_STORAGE,
    PV_TENSOR
} pv_kind;

typedef enum {
    G_ODICT,
    G_REBUILD,       /* torch._utils._rebuild_tensor(storage, offset, size, stride) */
    G_REBUILD_V2,    /* (storage, offset, size, stride, requires_grad, hooks[, metadata]) */
    G_REBUILD_V3,    /* (..., hooks, dtype[, metadata]) */
    G_PARAM_REBUILD, /* _rebuild_parameter(data, requires_grad, hooks[, state]) */
    G_PARAMETER,     /* torch.nn.parameter.Parameter(data[, requires_grad]) */
    G_FROM_TYPE,     /* torch._tensor._rebuild_from_type_v2(func, type, args, state) */
    G_TENSOR_CLS,    /* torch.Tensor */
    G_SIZE,          /* torch.Size(tuple) */
    G_STORAGE_CLS,   /* torch.<X>Storage (dtype) */
    G_DTYPE,         /* torch.<dtype> */
    G_CODECS_ENCODE, /* _codecs.encode(str, "latin1"): protocol 2's bytes */
    G_BYTES,         /* builtins.bytes(): protocol 2's b"" */
    G_SET            /* builtins.set / frozenset(list): protocol 2's sets, read as lists */
} pv_global;

typedef struct pv pv;
typedef struct { /* a tensor's view of its storage */
    pv *storage;
    int64_t off;
    int ndim;
    int64_t shape[CT_MAX_DIMS], stride[CT_MAX_DIMS];
} pv_view;
struct pv {
    uint8_t k;     /* pv_kind */
    uint8_t g;     /* pv_global of a global */
    uint8_t dtype; /* ct_dtype: global storage class / dtype; storage; tensor */
    bool rg;       /* tensor: requires_grad */
    int64_t i;     /* int / bool; storage: element count */
    double f;
    char *s; /* str / bytes (NUL-terminated); global: its dotted name; storage: its key */
    size_t len;
    pv **it; /* tuple / list / dict items */
    size_t n, cap;
    pv_view *t;          /* tensor */
    const uint8_t *data; /* storage bytes */
    uint64_t nbytes;
    int member; /* storage: its ZIP member */
};

typedef struct {
    char *name;
    pv *v;      /* .pt */
    int member; /* .npz: zip member */
} ct__arch_entry;

/* Values, strings, item arrays and names live in chunks freed with the archive. Everything a
 * pickle builds is charged against a budget proportional to its length, so a small file cannot
 * make the reader allocate without bound (shared containers copied, names repeated, ...). */
typedef struct ct__chunk {
    struct ct__chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} ct__chunk;

struct ct_archive {
    ct_ctx *ctx;
    void *map;
    size_t map_len;
    bool mapped, npz, big_endian;
    ct__zip zip;
    ct__chunk *chunks;
    size_t charged, limit; /* bytes of values built, and the most allowed */
    bool over;             /* the budget ran out (a format error, not out of memory) */
    const size_t *read;    /* legacy: the reading position, the budget following it from read0 */
    size_t read0;
    pv *none, *yes, *no; /* shared constants */
    uint8_t **owned;     /* inflated records */
    size_t nowned, capowned;
    pv **by_member; /* storage value of each ZIP member read (the first reference's type) */
    bool legacy;    /* the pre-1.6 format: storages by key, their data after the pickles */
    pv **htab;      /* legacy: storages by key (open addressing) */
    size_t hcap, hcount;
    ct__arch_entry *e;
    int n;
    size_t cap;
    const ct__arch_entry **sorted; /* entries by name, for the getters */
};

static const char *TL = "torch_load";

static void *ar_alloc(ct_archive *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (a->read) /* legacy: the pickles end before the storages: count the bytes read so far */
        a->limit = 64 * (*a->read - a->read0) + ((size_t)4 << 20);
    if (n > a->limit - a->charged) {
        a->over = true;
        return NULL;
    }
    a->charged += n;
    ct__chunk *c = a->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        c = ct__alloc(a->ctx, sizeof *c + cap, 16);
        if (!c) return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = a->chunks;
        a->chunks = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

static pv *pv_new(ct_archive *a, pv_kind k) {
    pv *v = ar_alloc(a, sizeof *v);
    if (!v) return NULL;
    memset(v, 0, sizeof *v);
    v->k = (uint8_t)k;
    return v;
}

static bool pv_push(ct_archive *a, pv *c, pv *x) {
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 4;
        if (nc > SIZE_MAX / sizeof(pv *)) return false;
        pv **it = ar_alloc(a, nc * sizeof(pv *));
        if (!it) return false;
        if (c->n) memcpy(it, c->it, c->n * sizeof(pv *));
        c->it = it;
        c->cap = nc;
    }
    c->it[c->n++] = x;
    return true;
}

static const char *pv_kind_name(const pv *v) {
    static const char *names[] = {"None",   "a bool",   "an int",    "a float",
                                  "a str",  "bytes",    "a tuple",   "a list",
                                  "a dict", "a global", "a storage", "a tensor"};
    return names[v->k];
}

/* ---- the unpickler ---- */
typedef struct {
    ct_archive *a;
    const uint8_t *p;
    size_t n, pos, op;  /* op: offset of the current opcode */
    const char *prefix; /* "<dir>/" of the records */
    const char *where;  /* what byte offsets count in: "data.pkl" or "the file" (legacy) */
    pv **stack;
    size_t ns, capst;
    size_t *marks;
    size_t nm, capm;
    pv **memo; /* grown on demand; indices below n (the pickle's length) */
    size_t capmemo;
    size_t memolen; /* slots set (MEMOIZE's next index, as CPython's len(memo)) */
    size_t start;   /* where this pickle began: a memo index is below the bytes read since */
} ct__unpickler;

static ct_status up_err(ct__unpickler *u, ct_status st, const char *fmt, const char *arg) {
    char what[400];
    snprintf(what, sizeof what, fmt, arg ? arg : "");
    return ct__set_error(u->a->ctx, st, "%s: %s byte %zu: %s", TL, u->where, u->op, what);
}
static ct_status arch_oom(ct_archive *a, const char *who) {
    if (a->over)
        return ct__set_error(a->ctx, CT_ERR_FORMAT,
                             "%s: the file builds more than %zu bytes of values (64 per pickle "
                             "byte); refusing it",
                             who, a->limit);
    return ct__set_error(a->ctx, CT_ERR_OOM, "%s: out of memory reading the pickle", who);
}
static ct_status up_oom(ct__unpickler *u) { return arch_oom(u->a, TL); }

static bool up_take(ct__unpickler *u, size_t k, const uint8_t **q) {
    if (u->n - u->pos < k) return false;
    *q = u->p + u->pos;
    u->pos += k;
    return true;
}

static ct_status up_push(ct__unpickler *u, pv *v) {
    if (!v || !ct__grow_array(u->a->ctx, (void **)&u->stack, &u->capst, u->ns + 1, sizeof(pv *)))
        return up_oom(u);
    u->stack[u->ns++] = v;
    return CT_OK;
}

static size_t up_base(const ct__unpickler *u) { return u->nm ? u->marks[u->nm - 1] : 0; }

/* Pop k values above the current mark (k = 0..) into *out (borrowed from the stack). */
static ct_status up_pop(ct__unpickler *u, size_t k, pv ***out, const char *opname) {
    if (u->ns - up_base(u) < k) return up_err(u, CT_ERR_FORMAT, "%s on a too short stack", opname);
    u->ns -= k;
    *out = u->stack + u->ns;
    return CT_OK;
}

/* Well-formed UTF-8 as Python decodes it: no overlong forms, at most U+10FFFF, and no surrogates
 * unless surrogates (pickle's "surrogatepass"). */
static bool utf8_valid(const char *str, size_t n, bool surrogates) {
    const uint8_t *p = (const uint8_t *)str, *e = p + n;
    while (p < e) {
        uint32_t c = *p++;
        int k = c < 0x80                 ? 0
                : c >= 0xC2 && c <= 0xDF ? 1
                : c >= 0xE0 && c <= 0xEF ? 2
                : c >= 0xF0 && c <= 0xF4 ? 3
                                         : -1;
        if (k < 0 || e - p < k) return false;
        c &= k == 0 ? 0x7F : k == 1 ? 0x1F : k == 2 ? 0x0F : 0x07;
        for (int i = 0; i < k; i++, p++) {
            if ((*p & 0xC0) != 0x80) return false;
            c = c << 6 | (*p & 0x3F);
        }
        if ((k == 2 && (c < 0x800 || (!surrogates && c >= 0xD800 && c <= 0xDFFF))) ||
            (k == 3 && (c < 0x10000 || c > 0x10FFFF)))
            return false;
    }
    return true;
}

static ct_status up_str(ct__unpickler *u, pv_kind k, size_t len) {
    const uint8_t *q;
    if (!up_take(u, len, &q)) return up_err(u, CT_ERR_FORMAT, "a string runs past the end%s", "");
    if (k == PV_STR && !utf8_valid((const char *)q, len, true))
        return up_err(u, CT_ERR_FORMAT, "a str that is not UTF-8%s", "");
    pv *v = pv_new(u->a, k);
    if (!v || !(v->s = ar_alloc(u->a, len + 1))) return up_oom(u);
    memcpy(v->s, q, len);
    v->s[len] = 0;
    v->len = len;
    return up_push(u, v);
}

static pv *pv_int(ct_archive *a, pv_kind k, int64_t i) {
    pv *v = pv_new(a, k);
    if (v) v->i = i;
    return v;
}

/* A tuple, list or dict of the values stack[from, ns) (then popped). */
static ct_status up_collect(ct__unpickler *u, size_t from, pv_kind kind) {
    pv *t = pv_new(u->a, kind);
    if (!t) return up_oom(u);
    for (size_t i = from; i < u->ns; i++)
        if (!pv_push(u->a, t, u->stack[i])) return up_oom(u);
    u->ns = from;
    return up_push(u, t);
}

typedef struct {
    const char *name;
    ct_dtype dt;
} ct__dtname;
/* torch's storage classes and dtypes */
static const ct__dtname storage_names[] = {
    {"FloatStorage", CT_FLOAT32},
    {"DoubleStorage", CT_FLOAT64},
    {"HalfStorage", CT_FLOAT16},
    {"BFloat16Storage", CT_BFLOAT16},
    {"LongStorage", CT_INT64},
    {"IntStorage", CT_INT32},
    {"ShortStorage", CT_INT16},
    {"CharStorage", CT_INT8},
    {"ByteStorage", CT_UINT8},
    {"BoolStorage", CT_BOOL},
    {"ComplexFloatStorage", CT_COMPLEX64},
    {"ComplexDoubleStorage", CT_COMPLEX128},
    {"UntypedStorage", CT_UINT8}, /* torch >= 2.1 for the newer dtypes: bytes, read by v3 */
};
static const ct__dtname dtype_names[] = {
    {"float32", CT_FLOAT32},
    {"float", CT_FLOAT32},
    {"float64", CT_FLOAT64},
    {"double", CT_FLOAT64},
    {"float16", CT_FLOAT16},
    {"half", CT_FLOAT16},
    {"bfloat16", CT_BFLOAT16},
    {"int64", CT_INT64},
    {"long", CT_INT64},
    {"int32", CT_INT32},
    {"int", CT_INT32},
    {"int16", CT_INT16},
    {"short", CT_INT16},
    {"int8", CT_INT8},
    {"uint8", CT_UINT8},
    {"bool", CT_BOOL},
    {"complex64", CT_COMPLEX64},
    {"cfloat", CT_COMPLEX64},
    {"complex128", CT_COMPLEX128},
    {"cdouble", CT_COMPLEX128},
    {"float8_e4m3fn", CT_FLOAT8_E4M3FN},
    {"float8_e5m2", CT_FLOAT8_E5M2},
};

static ct_status up_global(ct__unpickler *u, const char *mod, const char *name) {
    pv *v = pv_new(u->a, PV_GLOBAL);
    if (!v) return up_oom(u);
    size_t lm = strlen(mod), ln = strlen(name);
    if (!(v->s = ar_alloc(u->a, lm + ln + 2))) return up_oom(u);
    memcpy(v->s, mod, lm);
    v->s[lm] = '.';
    memcpy(v->s + lm + 1, name, ln + 1);
    v->len = lm + ln + 1;
    const char *full = v->s;
    static const struct {
        const char *name;
        pv_global g;
    } fixed[] = {
        {"collections.OrderedDict", G_ODICT},
        {"torch._utils._rebuild_tensor", G_REBUILD},
        {"torch._utils._rebuild_tensor_v2", G_REBUILD_V2},
        {"torch._utils._rebuild_tensor_v3", G_REBUILD_V3},
        {"torch._utils._rebuild_parameter", G_PARAM_REBUILD},
        {"torch._utils._rebuild_parameter_with_state", G_PARAM_REBUILD},
        {"torch.nn.parameter.Parameter", G_PARAMETER},
        {"torch._tensor._rebuild_from_type_v2", G_FROM_TYPE},
        {"torch.Tensor", G_TENSOR_CLS},
        {"torch._tensor.Tensor", G_TENSOR_CLS},
        {"torch.Size", G_SIZE},
        {"_codecs.encode", G_CODECS_ENCODE},
        {"__builtin__.bytes", G_BYTES},
        {"builtins.bytes", G_BYTES},
        {"__builtin__.set", G_SET},
        {"builtins.set", G_SET},
        {"__builtin__.frozenset", G_SET},
        {"builtins.frozenset", G_SET},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(full, fixed[i].name) == 0) {
            v->g = fixed[i].g;
            return up_push(u, v);
        }
    if (strcmp(mod, "torch") == 0 || strcmp(mod, "torch.storage") == 0) {
        for (size_t i = 0; i < sizeof storage_names / sizeof storage_names[0]; i++)
            if (strcmp(name, storage_names[i].name) == 0) {
                v->g = G_STORAGE_CLS;
                v->dtype = storage_names[i].dt;
                return up_push(u, v);
            }
        for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
            if (strcmp(name, dtype_names[i].name) == 0) {
                v->g = G_DTYPE;
                v->dtype = dtype_names[i].dt;
                return up_push(u, v);
            }
    }
    /* torch's other dtypes and storage classes: a dtype ctorch lacks */
    static const char *torch_dtypes[] = {
        "uint16",         "uint32",          "uint64",          "complex32",        "chalf",
        "float8_e8m0fnu", "float8_e4m3fnuz", "float8_e5m2fnuz", "float4_e2m1fn_x2", "bits8",
        "bits16",         "bits1x8",         "bits2x4",         "bits4x2",          "qint8",
        "quint8",         "qint32",          "quint4x2",        "quint2x4"};
    char msg[320];
    if (strcmp(mod, "torch") == 0) {
        for (size_t i = 0; i < sizeof torch_dtypes / sizeof torch_dtypes[0]; i++)
            if (strcmp(name, torch_dtypes[i]) == 0) {
                snprintf(msg, sizeof msg, "torch.%s has no ctorch dtype", name);
                return up_err(u, CT_ERR_DTYPE, "%s", msg);
            }
        if (strstr(name, "Storage")) {
            snprintf(msg, sizeof msg, "torch.%.100s: a storage type ctorch has no dtype for", name);
            return up_err(u, CT_ERR_DTYPE, "%s", msg);
        }
    }
    const char *why;
    if (strstr(full, "qtensor") || strstr(full, "per_channel") || strstr(full, "per_tensor"))
        why = "quantized tensors are not supported (dequantize before saving)";
    else if (strstr(full, "sparse") || strcmp(full, "torch.serialization._get_layout") == 0)
        why = "sparse tensors are not supported (save to_dense())";
    else if (strstr(full, "meta_tensor"))
        why = "a meta tensor has no data";
    else if (strstr(full, "nested") || strstr(full, "wrapper_subclass"))
        why = "nested tensors and tensor subclasses are not supported";
    else if (strncmp(full, "__torch__.", 10) == 0)
        why = "a TorchScript archive (torch.jit.save); save the module's state_dict() instead";
    else if (strncmp(full, "numpy.", 6) == 0)
        why = "a NumPy object (torch.load(weights_only=True) refuses it too); save a tensor or a "
              "Python number";
    else
        why = "a pickled Python object (torch.load(weights_only=True) refuses it too); save "
              "model.state_dict(), not the model";
    snprintf(msg, sizeof msg, "global '%.120s': %s", full, why);
    return up_err(u, CT_ERR_UNSUPPORTED, "%s", msg);
}

static bool pv_is_int(const pv *v) { return v->k == PV_INT || v->k == PV_BOOL; }

/* A size or stride tuple / list (torch.Size included) of n <= CT_MAX_DIMS ints >= 0. */
static ct_status up_dims(ct__unpickler *u, const pv *t, const char *what, int *nd, int64_t *d) {
    if (t->k != PV_TUPLE && t->k != PV_LIST)
        return up_err(u, CT_ERR_FORMAT, "a tensor's %s is not a tuple", what);
    if (t->n > CT_MAX_DIMS)
        return up_err(u, CT_ERR_UNSUPPORTED, "a tensor with more than 8 dims (%s)", what);
    for (size_t i = 0; i < t->n; i++) {
        if (!pv_is_int(t->it[i]) || t->it[i]->i < 0)
            return up_err(u, CT_ERR_FORMAT, "a tensor's %s holds something other than an int >= 0",
                          what);
        d[i] = t->it[i]->i;
    }
    *nd = (int)t->n;
    return CT_OK;
}

/* storage, offset, size, stride as _rebuild_tensor reads them; dtype: the tensor's (v3) or -1 */
static ct_status up_rebuild(ct__unpickler *u, pv **args, size_t nargs, int dtype, bool rg) {
    if (nargs < 4) return up_err(u, CT_ERR_FORMAT, "_rebuild_tensor with too few arguments%s", "");
    pv *s = args[0];
    if (s->k != PV_STORAGE)
        return up_err(u, CT_ERR_FORMAT, "_rebuild_tensor's first argument is %s, not a storage",
                      pv_kind_name(s));
    if (!pv_is_int(args[1]) || args[1]->i < 0)
        return up_err(u, CT_ERR_FORMAT, "_rebuild_tensor's storage offset is not an int >= 0%s",
                      "");
    pv *t = pv_new(u->a, PV_TENSOR);
    pv_view *w = t ? ar_alloc(u->a, sizeof *w) : NULL;
    if (!w) return up_oom(u);
    t->t = w;
    w->storage = s;
    w->off = args[1]->i;
    t->dtype = (uint8_t)(dtype >= 0 ? (ct_dtype)dtype : (ct_dtype)s->dtype);
    t->rg = rg;
    int nd2;
    ct_status st = up_dims(u, args[2], "size", &w->ndim, w->shape);
    if (st == CT_OK) st = up_dims(u, args[3], "stride", &nd2, w->stride);
    if (st != CT_OK) return st;
    if (nd2 != w->ndim)
        return up_err(u, CT_ERR_FORMAT, "a tensor's size and stride differ in length%s", "");
    /* every element inside the storage: (off + sum (size-1)*stride + 1) * itemsize <= bytes */
    int64_t last = w->off, numel = 1, bytes;
    bool ok = true;
    for (int i = 0; i < w->ndim && ok; i++) {
        int64_t span;
        ok = ct__checked_mul(numel, w->shape[i], &numel);
        if (w->shape[i] > 0)
            ok = ok && ct__checked_mul(w->shape[i] - 1, w->stride[i], &span) &&
                 ct__checked_add(last, span, &last);
    }
    if (ok && numel > 0)
        ok = ct__checked_add(last, 1, &last) &&
             ct__checked_mul(last, (int64_t)ct__itemsize((ct_dtype)t->dtype), &bytes) &&
             (uint64_t)bytes <= s->nbytes;
    if (!ok) {
        char m[200];
        snprintf(m, sizeof m, "a tensor reaches past its storage '%.60s' (%llu bytes)", s->s,
                 (unsigned long long)s->nbytes);
        return up_err(u, CT_ERR_FORMAT, "%s", m);
    }
    return up_push(u, t);
}

/* A tensor value with requires_grad set (nn.Parameter): a new value sharing the view. */
static ct_status up_param(ct__unpickler *u, pv *data, bool rg) {
    if (data->k != PV_TENSOR)
        return up_err(u, CT_ERR_FORMAT, "a Parameter of %s, not a tensor", pv_kind_name(data));
    pv *t = pv_new(u->a, PV_TENSOR);
    if (!t) return up_oom(u);
    t->t = data->t;
    t->dtype = data->dtype;
    t->rg = rg;
    return up_push(u, t);
}

/* Call the global func with the argument tuple args (REDUCE / NEWOBJ). */
static ct_status up_call(ct__unpickler *u, pv *func, pv *args, int depth) {
    if (func->k != PV_GLOBAL)
        return up_err(u, CT_ERR_FORMAT, "a call of %s, not of a global", pv_kind_name(func));
    if (args->k != PV_TUPLE)
        return up_err(u, CT_ERR_FORMAT, "a call whose arguments are %s, not a tuple",
                      pv_kind_name(args));
    pv **a = args->it;
    size_t n = args->n;
    switch (func->g) {
    case G_ODICT: {
        pv *d = pv_new(u->a, PV_DICT);
        if (!d) return up_oom(u);
        if (n > 1) return up_err(u, CT_ERR_FORMAT, "OrderedDict with %s arguments", "several");
        if (n == 1) { /* OrderedDict([(k, v), ...]) */
            if (a[0]->k != PV_LIST && a[0]->k != PV_TUPLE)
                return up_err(u, CT_ERR_FORMAT, "OrderedDict of %s", pv_kind_name(a[0]));
            for (size_t i = 0; i < a[0]->n; i++) {
                pv *kv = a[0]->it[i];
                if ((kv->k != PV_TUPLE && kv->k != PV_LIST) || kv->n != 2)
                    return up_err(u, CT_ERR_FORMAT, "OrderedDict item that is not a pair%s", "");
                if (!pv_push(u->a, d, kv->it[0]) || !pv_push(u->a, d, kv->it[1])) return up_oom(u);
            }
        }
        return up_push(u, d);
    }
    case G_REBUILD:
    case G_REBUILD_V2:
        if (func->g == G_REBUILD_V2 && (n < 6 || n > 7))
            return up_err(u, CT_ERR_FORMAT, "_rebuild_tensor_v2 takes 6 or 7 arguments%s", "");
        if (func->g == G_REBUILD && n != 4)
            return up_err(u, CT_ERR_FORMAT, "_rebuild_tensor takes 4 arguments%s", "");
        return up_rebuild(u, a, n, -1, n > 4 && pv_is_int(a[4]) && a[4]->i);
    case G_REBUILD_V3:
        if (n < 7 || n > 8 || a[6]->k != PV_GLOBAL || a[6]->g != G_DTYPE)
            return up_err(u, CT_ERR_FORMAT,
                          "_rebuild_tensor_v3 takes 7 or 8 arguments, the 7th a "
                          "dtype%s",
                          "");
        return up_rebuild(u, a, n, (int)a[6]->dtype, pv_is_int(a[4]) && a[4]->i);
    case G_PARAM_REBUILD:
        if (n < 3 || n > 4)
            return up_err(u, CT_ERR_FORMAT, "_rebuild_parameter takes 3 or 4 arguments%s", "");
        return up_param(u, a[0], pv_is_int(a[1]) && a[1]->i);
    case G_PARAMETER:
        if (n < 1 || n > 2)
            return up_err(u, CT_ERR_FORMAT, "Parameter takes 1 or 2 arguments%s", "");
        return up_param(u, a[0], n == 1 || (pv_is_int(a[1]) && a[1]->i));
    case G_FROM_TYPE: /* (func, type, args, state): a plain Tensor / Parameter type only */
        if (n != 4 || a[1]->k != PV_GLOBAL || (a[1]->g != G_TENSOR_CLS && a[1]->g != G_PARAMETER))
            return up_err(u, CT_ERR_UNSUPPORTED,
                          "_rebuild_from_type_v2 of a tensor subclass (save a plain tensor)%s", "");
        if (depth > 4)
            return up_err(u, CT_ERR_FORMAT, "_rebuild_from_type_v2 nested too deep%s", "");
        return up_call(u, a[0], a[2], depth + 1);
    case G_SIZE: {
        if (n != 1 || (a[0]->k != PV_TUPLE && a[0]->k != PV_LIST))
            return up_err(u, CT_ERR_FORMAT, "torch.Size of something other than a tuple%s", "");
        pv *t = pv_new(u->a, PV_TUPLE);
        if (!t) return up_oom(u);
        for (size_t i = 0; i < a[0]->n; i++)
            if (!pv_push(u->a, t, a[0]->it[i])) return up_oom(u);
        return up_push(u, t);
    }
    case G_BYTES: { /* bytes() */
        pv *b = pv_new(u->a, PV_BYTES);
        if (n != 0) return up_err(u, CT_ERR_UNSUPPORTED, "bytes() with arguments%s", "");
        if (!b || !(b->s = ar_alloc(u->a, 1))) return up_oom(u);
        b->s[0] = 0;
        return up_push(u, b);
    }
    case G_SET: { /* set() / set([items]): the items, as a list */
        if (n > 1 || (n == 1 && a[0]->k != PV_LIST && a[0]->k != PV_TUPLE))
            return up_err(u, CT_ERR_FORMAT, "set() of something other than a list%s", "");
        pv *l = pv_new(u->a, PV_LIST);
        if (!l) return up_oom(u);
        for (size_t i = 0; n == 1 && i < a[0]->n; i++)
            if (!pv_push(u->a, l, a[0]->it[i])) return up_oom(u);
        return up_push(u, l);
    }
    case G_CODECS_ENCODE: { /* bytes pickled by protocol 2: the latin-1 text of each byte */
        if (n != 2 || a[0]->k != PV_STR || a[1]->k != PV_STR ||
            (strcmp(a[1]->s, "latin1") != 0 && strcmp(a[1]->s, "latin-1") != 0))
            return up_err(u, CT_ERR_UNSUPPORTED, "_codecs.encode other than (str, 'latin1')%s", "");
        pv *b = pv_new(u->a, PV_BYTES);
        if (!b || !(b->s = ar_alloc(u->a, a[0]->len + 1))) return up_oom(u);
        const uint8_t *q = (const uint8_t *)a[0]->s, *e = q + a[0]->len;
        while (q < e) {
            unsigned c = *q++;
            if (c >= 0x80) { /* UTF-8 of U+0080..U+00FF: two bytes C2/C3 xx */
                if ((c != 0xC2 && c != 0xC3) || q >= e || (*q & 0xC0) != 0x80)
                    return up_err(u, CT_ERR_FORMAT, "_codecs.encode of a character above U+00FF%s",
                                  "");
                c = (c & 0x1F) << 6 | (*q++ & 0x3F);
            }
            b->s[b->len++] = (char)c;
        }
        b->s[b->len] = 0;
        return up_push(u, b);
    }
    default: return up_err(u, CT_ERR_FORMAT, "a call of '%s', which is not callable", func->s);
    }
}

/* BINPERSID: ('storage', storage type, key, location, numel). A key read again gives the storage
 * of its first reference (its type and size), as torch's loaded_storages. */
static ct_status up_persistent_legacy(ct__unpickler *u, pv *pid);
static ct_status up_persistent(ct__unpickler *u, pv *pid) {
    if (u->a->legacy) return up_persistent_legacy(u, pid);
    if (pid->k != PV_TUPLE || pid->n != 5 ||
        (pid->it[0]->k != PV_STR && pid->it[0]->k != PV_BYTES) || strcmp(pid->it[0]->s, "storage"))
        return up_err(u, CT_ERR_FORMAT,
                      "a persistent id other than ('storage', type, key, location, numel)%s", "");
    pv *ty = pid->it[1], *key = pid->it[2], *cnt = pid->it[4];
    if (ty->k != PV_GLOBAL || ty->g != G_STORAGE_CLS)
        return up_err(u, CT_ERR_FORMAT, "a storage whose type is %s, not a storage class",
                      pv_kind_name(ty));
    if (key->k != PV_STR || !pv_is_int(cnt) || cnt->i < 0)
        return up_err(u, CT_ERR_FORMAT, "a storage whose key is not a str or numel not an int%s",
                      "");
    if (strlen(key->s) != key->len || key->len > 200)
        return up_err(u, CT_ERR_FORMAT, "a storage key with a NUL byte or over 200 bytes%s", "");
    ct_archive *a = u->a;
    char name[512];
    snprintf(name, sizeof name, "%sdata/%s", u->prefix, key->s);
    int m = ct__zip_find(&a->zip, name);
    if (m < 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "storage '%.60s' has no record %.60sdata/%.60s", key->s,
                 u->prefix, key->s);
        return up_err(u, CT_ERR_FORMAT, "%s", msg);
    }
    if (a->by_member[m]) return up_push(u, a->by_member[m]);
    int64_t need;
    if (!ct__checked_mul(cnt->i, (int64_t)ct__itemsize((ct_dtype)ty->dtype), &need))
        return up_err(u, CT_ERR_FORMAT, "a storage size that overflows%s", "");
    if ((uint64_t)need > a->zip.m[m].usize) {
        char msg[300];
        snprintf(msg, sizeof msg, "storage '%.60s' declares %lld bytes, its record has %llu",
                 key->s, (long long)need, (unsigned long long)a->zip.m[m].usize);
        return up_err(u, CT_ERR_FORMAT, "%s", msg);
    }
    pv *s = pv_new(a, PV_STORAGE);
    if (!s) return up_oom(u);
    s->dtype = ty->dtype;
    s->i = cnt->i;
    s->s = key->s;
    s->member = m;
    s->nbytes = (uint64_t)need;
    const uint8_t *d;
    uint8_t *own = NULL;
    ct_status st = ct__zip_read(a->ctx, TL, &a->zip, m, &d, &own);
    if (st != CT_OK) return st;
    if (own) {
        if (!ct__grow_array(a->ctx, (void **)&a->owned, &a->capowned, a->nowned + 1,
                            sizeof(uint8_t *))) {
            ct__free(a->ctx, own);
            return up_oom(u);
        }
        a->owned[a->nowned++] = own;
    }
    s->data = d;
    a->by_member[m] = s;
    return up_push(u, s);
}

/* ---- the legacy format (torch < 1.6, or _use_new_zipfile_serialization=False): five pickles
 * (magic number, protocol 1001, sys_info, the object, the storage keys), then each storage's
 * element count (int64) and bytes in the keys' order ---- */
static uint64_t key_hash(const char *k, size_t n) { /* FNV-1a */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)k[i]) * 1099511628211ull;
    return h;
}
static pv **legacy_slot(ct_archive *a, const pv *key) {
    size_t m = a->hcap - 1, i = (size_t)key_hash(key->s, key->len) & m;
    while (a->htab[i] && (a->htab[i]->len != key->len || memcmp(a->htab[i]->s, key->s, key->len)))
        i = (i + 1) & m;
    return &a->htab[i];
}
static bool legacy_grow(ct_archive *a) {
    if (2 * (a->hcount + 1) <= a->hcap) return true;
    size_t old = a->hcap, nc = old ? 2 * old : 64;
    pv **ot = a->htab;
    if (!(a->htab = ar_alloc(a, nc * sizeof(pv *)))) return false;
    memset(a->htab, 0, nc * sizeof(pv *));
    a->hcap = nc;
    for (size_t i = 0; i < old; i++)
        if (ot[i]) *legacy_slot(a, ot[i]) = ot[i];
    return true;
}

/* ('storage', storage type, root key, location, numel, view metadata): a key read again gives its
 * first storage, as torch's deserialized_objects; the data comes after the pickles. */
static ct_status up_persistent_legacy(ct__unpickler *u, pv *pid) {
    if (pid->k == PV_TUPLE && pid->n > 0 &&
        (pid->it[0]->k == PV_STR || pid->it[0]->k == PV_BYTES) && !strcmp(pid->it[0]->s, "module"))
        return up_err(u, CT_ERR_UNSUPPORTED,
                      "a pickled module (torch.save(model)); save model.state_dict() instead%s",
                      "");
    if (pid->k != PV_TUPLE || pid->n != 6 ||
        (pid->it[0]->k != PV_STR && pid->it[0]->k != PV_BYTES) || strcmp(pid->it[0]->s, "storage"))
        return up_err(u, CT_ERR_FORMAT,
                      "a persistent id other than ('storage', type, key, location, numel, view)%s",
                      "");
    pv *ty = pid->it[1], *key = pid->it[2], *cnt = pid->it[4];
    if (ty->k != PV_GLOBAL || ty->g != G_STORAGE_CLS)
        return up_err(u, CT_ERR_FORMAT, "a storage whose type is %s, not a storage class",
                      pv_kind_name(ty));
    if (key->k != PV_STR || !pv_is_int(cnt) || cnt->i < 0 || strlen(key->s) != key->len)
        return up_err(u, CT_ERR_FORMAT, "a storage whose key or numel is malformed%s", "");
    if (pid->it[5]->k != PV_NONE)
        return up_err(u, CT_ERR_UNSUPPORTED,
                      "storage views (files of torch < 1.0) are not supported%s", "");
    ct_archive *a = u->a;
    if (!legacy_grow(a)) return up_oom(u);
    pv **slot = legacy_slot(a, key);
    if (*slot) return up_push(u, *slot);
    int64_t nbytes;
    if (!ct__checked_mul(cnt->i, (int64_t)ct__itemsize((ct_dtype)ty->dtype), &nbytes))
        return up_err(u, CT_ERR_FORMAT, "a storage size that overflows%s", "");
    pv *s = pv_new(a, PV_STORAGE);
    if (!s) return up_oom(u);
    s->dtype = ty->dtype;
    s->i = cnt->i;
    s->s = key->s;
    s->len = key->len;
    s->nbytes = (uint64_t)nbytes;
    s->member = -1;
    *slot = s;
    a->hcount++;
    return up_push(u, s);
}

/* APPEND / SETITEM (the top 1 or 2 values) and APPENDS / ADDITEMS / SETITEMS (the values above
 * the mark) go into the list or dict just below them, as CPython. */
static ct_status up_extend(ct__unpickler *u, bool marked, size_t single, pv_kind kind,
                           const char *op) {
    char m[160];
    size_t from;
    if (!marked) {
        if (u->ns - up_base(u) < single + 1) {
            snprintf(m, sizeof m, "%s on a short stack", op);
            return up_err(u, CT_ERR_FORMAT, "%s", m);
        }
        from = u->ns - single;
    } else {
        if (!u->nm || u->marks[u->nm - 1] <= (u->nm > 1 ? u->marks[u->nm - 2] : 0)) {
            snprintf(m, sizeof m, "%s without a MARK above a container", op);
            return up_err(u, CT_ERR_FORMAT, "%s", m);
        }
        from = u->marks[--u->nm];
    }
    if (kind == PV_DICT && (u->ns - from) % 2) {
        snprintf(m, sizeof m, "%s with an odd number of items", op);
        return up_err(u, CT_ERR_FORMAT, "%s", m);
    }
    pv *c = u->stack[from - 1];
    if (c->k != kind) {
        snprintf(m, sizeof m, "%s into %s, not %s", op, pv_kind_name(c),
                 kind == PV_DICT ? "a dict" : "a list");
        return up_err(u, CT_ERR_FORMAT, "%s", m);
    }
    for (size_t i = from; i < u->ns; i++)
        if (!pv_push(u->a, c, u->stack[i])) return up_oom(u);
    u->ns = from;
    return CT_OK;
}

static int64_t up_le(const uint8_t *q, size_t k) { /* two's complement, k in 0..8 */
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++)
        v |= (uint64_t)q[i] << (8 * i);
    if (k && k < 8 && (q[k - 1] & 0x80)) v |= ~(uint64_t)0 << (8 * k);
    return (int64_t)v;
}

static ct_status up_run(ct__unpickler *u, pv **result) {
    ct_ctx *ctx = u->a->ctx;
    ct_status st = CT_OK;
    const uint8_t *q;
    pv **x = NULL;
    while (st == CT_OK) {
        u->op = u->pos;
        if (u->pos >= u->n) return up_err(u, CT_ERR_FORMAT, "the pickle ends without STOP%s", "");
        uint8_t op = u->p[u->pos++];
        switch (op) {
        case 0x80: /* PROTO */
            if (!up_take(u, 1, &q)) return up_err(u, CT_ERR_FORMAT, "truncated PROTO%s", "");
            if (q[0] > 5) return up_err(u, CT_ERR_FORMAT, "pickle protocol above 5%s", "");
            break;
        case 0x95: /* FRAME: a length we do not need */
            if (!up_take(u, 8, &q)) return up_err(u, CT_ERR_FORMAT, "truncated FRAME%s", "");
            break;
        case '.': /* STOP: the top of the stack, as CPython */
            if (u->ns == up_base(u))
                return up_err(u, CT_ERR_FORMAT, "STOP with an empty stack%s", "");
            *result = u->stack[u->ns - 1];
            return CT_OK;
        case '(': /* MARK */
            if (!ct__grow_array(ctx, (void **)&u->marks, &u->capm, u->nm + 1, sizeof(size_t)))
                return up_oom(u);
            u->marks[u->nm++] = u->ns;
            break;
        case '0': /* POP */ st = up_pop(u, 1, &x, "POP"); break;
        case '1': /* POP_MARK */
            if (!u->nm) return up_err(u, CT_ERR_FORMAT, "POP_MARK without a MARK%s", "");
            u->ns = u->marks[--u->nm];
            break;
        case '2': /* DUP */
            if (u->ns == up_base(u)) return up_err(u, CT_ERR_FORMAT, "DUP of nothing%s", "");
            st = up_push(u, u->stack[u->ns - 1]);
            break;
        case 'N': st = up_push(u, u->a->none); break;
        case 0x88: st = up_push(u, u->a->yes); break;
        case 0x89: st = up_push(u, u->a->no); break;
        case 'J': /* BININT */
            if (!up_take(u, 4, &q)) return up_err(u, CT_ERR_FORMAT, "truncated BININT%s", "");
            st = up_push(u, pv_int(u->a, PV_INT, (int32_t)(uint32_t)up_le(q, 4)));
            break;
        case 'K': /* BININT1 */
            if (!up_take(u, 1, &q)) return up_err(u, CT_ERR_FORMAT, "truncated BININT1%s", "");
            st = up_push(u, pv_int(u->a, PV_INT, q[0]));
            break;
        case 'M': /* BININT2 */
            if (!up_take(u, 2, &q)) return up_err(u, CT_ERR_FORMAT, "truncated BININT2%s", "");
            st = up_push(u, pv_int(u->a, PV_INT, q[0] | q[1] << 8));
            break;
        case 0x8a:   /* LONG1 */
        case 0x8b: { /* LONG4 */
            size_t k;
            if (!up_take(u, op == 0x8a ? 1 : 4, &q))
                return up_err(u, CT_ERR_FORMAT, "truncated LONG%s", "");
            k = op == 0x8a ? q[0] : (size_t)(uint32_t)up_le(q, 4);
            if (!up_take(u, k, &q)) return up_err(u, CT_ERR_FORMAT, "truncated LONG%s", "");
            /* wider than 8 bytes: only a sign extension of an int64 is accepted */
            for (size_t i = 8; i < k; i++)
                if (q[i] != ((q[7] & 0x80) ? 0xff : 0))
                    return up_err(u, CT_ERR_UNSUPPORTED, "an integer wider than 64 bits%s", "");
            st = up_push(u, pv_int(u->a, PV_INT, up_le(q, k < 8 ? k : 8)));
            break;
        }
        case 'G': { /* BINFLOAT: big-endian double */
            if (!up_take(u, 8, &q)) return up_err(u, CT_ERR_FORMAT, "truncated BINFLOAT%s", "");
            uint64_t b = 0;
            for (int i = 0; i < 8; i++)
                b = b << 8 | q[i];
            pv *v = pv_new(u->a, PV_FLOAT);
            if (v) memcpy(&v->f, &b, 8);
            st = up_push(u, v);
            break;
        }
        case 'X':
        case 'T':
        case 'B': /* BINUNICODE, BINSTRING, BINBYTES: 4-byte length */
            if (!up_take(u, 4, &q))
                return up_err(u, CT_ERR_FORMAT, "truncated string length%s", "");
            st = up_str(u,
                        op == 'X'   ? PV_STR
                        : op == 'B' ? PV_BYTES
                                    : PV_STR,
                        (size_t)(uint32_t)up_le(q, 4));
            break;
        case 0x8c:
        case 'U':
        case 'C': /* SHORT_BINUNICODE, SHORT_BINSTRING, SHORT_BINBYTES */
            if (!up_take(u, 1, &q))
                return up_err(u, CT_ERR_FORMAT, "truncated string length%s", "");
            st = up_str(u, op == 'C' ? PV_BYTES : PV_STR, q[0]);
            break;
        case 0x8d:
        case 0x8e: { /* BINUNICODE8, BINBYTES8 */
            if (!up_take(u, 8, &q))
                return up_err(u, CT_ERR_FORMAT, "truncated string length%s", "");
            uint64_t k = (uint64_t)up_le(q, 8);
            if (k > u->n) return up_err(u, CT_ERR_FORMAT, "a string runs past the end%s", "");
            st = up_str(u, op == 0x8d ? PV_STR : PV_BYTES, (size_t)k);
            break;
        }
        case ')': st = up_push(u, pv_new(u->a, PV_TUPLE)); break;
        case ']': st = up_push(u, pv_new(u->a, PV_LIST)); break;
        case '}': st = up_push(u, pv_new(u->a, PV_DICT)); break;
        case 0x8f: st = up_push(u, pv_new(u->a, PV_LIST)); break; /* EMPTY_SET: as a list */
        case 0x91: /* FROZENSET: the items since the mark, as a list */
        case 't':
        case 'l':
        case 'd': { /* TUPLE, LIST, DICT from the mark */
            if (!u->nm) return up_err(u, CT_ERR_FORMAT, "a collection without a MARK%s", "");
            size_t from = u->marks[--u->nm];
            if (op == 'd' && (u->ns - from) % 2)
                return up_err(u, CT_ERR_FORMAT, "DICT with an odd number of items%s", "");
            st = up_collect(u, from, op == 't' ? PV_TUPLE : op == 'd' ? PV_DICT : PV_LIST);
            break;
        }
        case 0x85:
        case 0x86:
        case 0x87: { /* TUPLE1..3 */
            size_t k = (size_t)(op - 0x84);
            if (u->ns - up_base(u) < k)
                return up_err(u, CT_ERR_FORMAT, "TUPLE%s on a short stack",
                              op == 0x85   ? "1"
                              : op == 0x86 ? "2"
                                           : "3");
            st = up_collect(u, u->ns - k, PV_TUPLE);
            break;
        }
        case 'a': st = up_extend(u, false, 1, PV_LIST, "APPEND"); break;
        case 'e': st = up_extend(u, true, 0, PV_LIST, "APPENDS"); break;
        case 0x90: st = up_extend(u, true, 0, PV_LIST, "ADDITEMS"); break;
        case 's': st = up_extend(u, false, 2, PV_DICT, "SETITEM"); break;
        case 'u': st = up_extend(u, true, 0, PV_DICT, "SETITEMS"); break;
        case 'c': { /* GLOBAL "module\nname\n" */
            char part[2][256];
            for (int k = 0; k < 2; k++) {
                size_t e = u->pos;
                while (e < u->n && e - u->pos < 255 && u->p[e] != '\n')
                    e++;
                if (e >= u->n || u->p[e] != '\n')
                    return up_err(u, CT_ERR_FORMAT,
                                  "a GLOBAL name that is unterminated or too long%s", "");
                memcpy(part[k], u->p + u->pos, e - u->pos);
                part[k][e - u->pos] = 0;
                if (strlen(part[k]) != e - u->pos)
                    return up_err(u, CT_ERR_FORMAT, "a GLOBAL name containing a NUL byte%s", "");
                u->pos = e + 1;
            }
            st = up_global(u, part[0], part[1]);
            break;
        }
        case 0x93: { /* STACK_GLOBAL */
            if ((st = up_pop(u, 2, &x, "STACK_GLOBAL")) != CT_OK) break;
            if (x[0]->k != PV_STR || x[1]->k != PV_STR || x[0]->len > 255 || x[1]->len > 255 ||
                strlen(x[0]->s) != x[0]->len || strlen(x[1]->s) != x[1]->len)
                return up_err(u, CT_ERR_FORMAT, "STACK_GLOBAL of something other than two names%s",
                              "");
            st = up_global(u, x[0]->s, x[1]->s);
            break;
        }
        case 'R':
        case 0x81: /* REDUCE, NEWOBJ */
            if ((st = up_pop(u, 2, &x, op == 'R' ? "REDUCE" : "NEWOBJ")) != CT_OK) break;
            if (op == 0x81 && (x[0]->k != PV_GLOBAL || x[0]->g != G_PARAMETER))
                return up_err(u, CT_ERR_UNSUPPORTED, "NEWOBJ of '%s' (only Parameter, as torch)",
                              x[0]->k == PV_GLOBAL ? x[0]->s : pv_kind_name(x[0]));
            st = up_call(u, x[0], x[1], 0);
            break;
        case 'b': /* BUILD: state of a tensor (Parameter) or a dict (e.g. state_dict's _metadata) */
            if ((st = up_pop(u, 1, &x, "BUILD")) != CT_OK) break;
            if (u->ns == up_base(u))
                return up_err(u, CT_ERR_FORMAT, "BUILD on a short stack%s", "");
            if (u->stack[u->ns - 1]->k != PV_TENSOR && u->stack[u->ns - 1]->k != PV_DICT)
                return up_err(u, CT_ERR_FORMAT, "BUILD of %s (only tensors and dicts)",
                              pv_kind_name(u->stack[u->ns - 1]));
            /* a dict's state is its attributes (a state dict's _metadata); a tensor's would be
             * Tensor.set_ / Parameter.__setstate__: only an empty one is accepted */
            if (u->stack[u->ns - 1]->k == PV_TENSOR && x[0]->k != PV_NONE &&
                !((x[0]->k == PV_DICT || x[0]->k == PV_TUPLE) && x[0]->n == 0))
                return up_err(u, CT_ERR_UNSUPPORTED,
                              "BUILD of a tensor with state (Tensor.set_) is not supported%s", "");
            break;
        case 'Q': /* BINPERSID */
            if ((st = up_pop(u, 1, &x, "BINPERSID")) != CT_OK) break;
            st = up_persistent(u, x[0]);
            break;
        case 'h':
        case 'j': { /* BINGET, LONG_BINGET */
            if (!up_take(u, op == 'h' ? 1 : 4, &q))
                return up_err(u, CT_ERR_FORMAT, "truncated GET%s", "");
            size_t idx = op == 'h' ? q[0] : (size_t)(uint32_t)up_le(q, 4);
            if (idx >= u->capmemo || !u->memo[idx])
                return up_err(u, CT_ERR_FORMAT, "GET of a memo slot never PUT%s", "");
            st = up_push(u, u->memo[idx]);
            break;
        }
        case 'q':
        case 'r':
        case 0x94: { /* BINPUT, LONG_BINPUT, MEMOIZE */
            size_t idx;
            if (op == 0x94) {
                idx = u->memolen;
            } else {
                if (!up_take(u, op == 'q' ? 1 : 4, &q))
                    return up_err(u, CT_ERR_FORMAT, "truncated PUT%s", "");
                idx = op == 'q' ? q[0] : (size_t)(uint32_t)up_le(q, 4);
            }
            if (u->ns == up_base(u)) return up_err(u, CT_ERR_FORMAT, "PUT of nothing%s", "");
            if (idx >= u->pos - u->start)
                return up_err(u, CT_ERR_FORMAT, "a memo index past the bytes read%s", "");
            if (idx >= u->capmemo) {
                size_t old = u->capmemo;
                if (!ct__grow_array(ctx, (void **)&u->memo, &u->capmemo, idx + 1, sizeof(pv *)))
                    return up_oom(u);
                memset(u->memo + old, 0, (u->capmemo - old) * sizeof(pv *));
            }
            if (!u->memo[idx]) u->memolen++;
            u->memo[idx] = u->stack[u->ns - 1];
            break;
        }
        default: {
            char m[40];
            snprintf(m, sizeof m, "0x%02x", op);
            return up_err(u, CT_ERR_FORMAT, "unsupported pickle opcode %s", m);
        }
        }
    }
    return st;
}

/* ---- flattening the result into named entries ---- */
#define ARCH_MAX_DEPTH 64
#define ARCH_MAX_NAME 4096

static ct_status arch_add(ct_archive *a, const char *name, pv *v, int member) {
    const char *who = a->npz ? "npz_load" : TL;
    if (a->n == INT32_MAX ||
        !ct__grow_array(a->ctx, (void **)&a->e, &a->cap, (size_t)a->n + 1, sizeof *a->e))
        return ct__set_error(a->ctx, CT_ERR_OOM, "%s: out of memory", who);
    size_t l = strlen(name);
    char *c = ar_alloc(a, l + 1); /* charged: names cannot outgrow the file */
    if (!c) return arch_oom(a, who);
    memcpy(c, name, l + 1);
    a->e[a->n].name = c;
    a->e[a->n].v = v;
    a->e[a->n].member = member;
    a->n++;
    return CT_OK;
}

/* Dict keys as Python compares them: str by value, int and bool as numbers (True == 1). */
typedef struct {
    const pv *k;
    size_t idx;
} ct__key;
static int key_class(const pv *k) {
    return k->k == PV_STR ? 0 : (k->k == PV_INT || k->k == PV_BOOL) ? 1 : 2;
}
static int key_cmp(const void *x, const void *y) {
    const ct__key *a = x, *b = y;
    int ca = key_class(a->k), cb = key_class(b->k);
    if (ca != cb || ca == 2) return ca != cb ? (ca < cb ? -1 : 1) : (a->idx < b->idx ? -1 : 1);
    int c = 0;
    if (ca == 0) {
        size_t l = a->k->len < b->k->len ? a->k->len : b->k->len;
        c = memcmp(a->k->s, b->k->s, l);
        if (!c && a->k->len != b->k->len) c = a->k->len < b->k->len ? -1 : 1;
    } else if (a->k->i != b->k->i) {
        c = a->k->i < b->k->i ? -1 : 1;
    }
    return c ? c : (a->idx < b->idx ? -1 : a->idx > b->idx);
}

static bool key_eq(const pv *a, const pv *b) {
    int c = key_class(a);
    if (c == 2 || c != key_class(b)) return false;
    return c == 0 ? a->len == b->len && memcmp(a->s, b->s, a->len) == 0 : a->i == b->i;
}

/* For a dict built with repeated keys: take[i] is the item whose value key i shows (the last one
 * set, at the first one's place, as a Python dict), or SIZE_MAX for a key set again later. */
static ct_status dict_dedup(ct_archive *a, const pv *d, size_t **take) {
    size_t m = d->n / 2;
    *take = NULL;
    if (m < 2) return CT_OK;
    ct__key *ks = ct__alloc(a->ctx, m * sizeof *ks, 16);
    size_t *t = ct__alloc(a->ctx, m * sizeof *t, 16);
    if (!ks || !t) {
        ct__free(a->ctx, ks);
        ct__free(a->ctx, t);
        return ct__set_error(a->ctx, CT_ERR_OOM, "%s: out of memory", TL);
    }
    for (size_t i = 0; i < m; i++) {
        ks[i].k = d->it[2 * i];
        ks[i].idx = i;
        t[i] = i;
    }
    qsort(ks, m, sizeof *ks, key_cmp);
    for (size_t g = 0; g < m;) { /* a run of equal keys: ordered by position */
        size_t e = g + 1;
        while (e < m && key_eq(ks[g].k, ks[e].k))
            e++;
        if (e - g > 1) {
            t[ks[g].idx] = ks[e - 1].idx;
            for (size_t r = g + 1; r < e; r++)
                t[ks[r].idx] = SIZE_MAX;
        }
        g = e;
    }
    ct__free(a->ctx, ks);
    *take = t;
    return CT_OK;
}

/* name[0, nl) is the path so far; below the root a key is joined with '.' (even to an empty path:
 * {"": {"a": x}} gives ".a", as "" + "." + "a"). */
static ct_status flatten(ct_archive *a, pv *v, char *name, size_t nl, int depth, size_t *budget) {
    if (depth > ARCH_MAX_DEPTH)
        return ct__set_error(a->ctx, CT_ERR_FORMAT,
                             "%s: the saved object nests deeper than %d levels (at '%.80s')", TL,
                             ARCH_MAX_DEPTH, name);
    if ((*budget)-- == 0)
        return ct__set_error(a->ctx, CT_ERR_FORMAT,
                             "%s: the saved object expands to more values than the file could hold "
                             "(shared containers); refusing",
                             TL);
    switch (v->k) {
    case PV_TUPLE:
    case PV_LIST:
    case PV_DICT: {
        bool d = v->k == PV_DICT;
        size_t *take = NULL;
        ct_status st = d ? dict_dedup(a, v, &take) : CT_OK;
        for (size_t i = 0; st == CT_OK && i < v->n; i += d ? 2 : 1) {
            char key[64];
            const char *ks = key;
            pv *item = d ? v->it[i + 1] : v->it[i];
            if (d && take) {
                size_t from = take[i / 2];
                if (from == SIZE_MAX) continue; /* set again later: shown at its first place */
                item = v->it[2 * from + 1];
            }
            if (d) {
                pv *k = v->it[i];
                if (k->k == PV_STR) {
                    ks = k->s;
                    if (strlen(k->s) != k->len)
                        st = ct__set_error(a->ctx, CT_ERR_FORMAT,
                                           "%s: a dict key in '%.80s' contains a NUL byte", TL,
                                           name);
                } else if (k->k == PV_INT) {
                    snprintf(key, sizeof key, "%lld", (long long)k->i);
                } else if (k->k == PV_BOOL) {
                    snprintf(key, sizeof key, "%s", k->i ? "True" : "False");
                } else {
                    st = ct__set_error(a->ctx, CT_ERR_UNSUPPORTED,
                                       "%s: a dict key that is %s in '%.80s' (str and int keys "
                                       "only)",
                                       TL, pv_kind_name(k), name);
                }
                if (st != CT_OK) break;
            } else {
                snprintf(key, sizeof key, "%zu", i);
            }
            size_t kl = strlen(ks), at = depth ? nl + 1 : 0;
            if (at + kl >= ARCH_MAX_NAME) {
                st = ct__set_error(a->ctx, CT_ERR_UNSUPPORTED,
                                   "%s: an entry name longer than %d bytes under '%.80s'", TL,
                                   ARCH_MAX_NAME - 1, name);
                break;
            }
            if (depth) name[nl] = '.';
            memcpy(name + at, ks, kl + 1);
            st = flatten(a, item, name, at + kl, depth + 1, budget);
            name[nl] = 0;
        }
        ct__free(a->ctx, take);
        return st;
    }
    case PV_GLOBAL:
        if (v->g == G_DTYPE) return arch_add(a, name, v, -1);
        return ct__set_error(a->ctx, CT_ERR_UNSUPPORTED,
                             "%s: entry '%.80s' is the class or function '%.80s', not a value", TL,
                             name, v->s);
    case PV_STORAGE:
        return ct__set_error(a->ctx, CT_ERR_UNSUPPORTED,
                             "%s: entry '%.80s' is a bare storage (save tensors)", TL, name);
    default: return arch_add(a, name, v, -1);
    }
}

/* ---- loading ---- */
void ct_archive_free(ct_archive *a) {
    if (!a) return;
    ct_ctx *ctx = a->ctx;
    for (ct__chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        ct__free(ctx, c);
    }
    for (size_t i = 0; i < a->nowned; i++)
        ct__free(ctx, a->owned[i]);
    ct__free(ctx, a->owned);
    ct__free(ctx, a->by_member);
    ct__free(ctx, a->e);
    ct__free(ctx, a->sorted);
    ct__zip_close(ctx, &a->zip);
    if (a->mapped)
        ct__file_unmap(a->map, a->map_len);
    else
        ct__free(ctx, a->map);
    ct__free(ctx, a);
}

static ct_status arch_new(ct_ctx *ctx, const char *who, ct_archive **out) {
    ct_archive *a = ct__alloc(ctx, sizeof *a, 16);
    if (!a) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", who);
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
    *out = a;
    return CT_OK;
}

static ct_status flatten_root(ct_archive *a, pv *root, size_t pickle_len) {
    char *name = ct__alloc(a->ctx, ARCH_MAX_NAME, 16);
    if (!name) return ct__set_error(a->ctx, CT_ERR_OOM, "%s: out of memory", TL);
    name[0] = 0;
    /* a tree's walk visits at most one value per pickle byte; shared containers (GET) expand */
    size_t budget = 2 * pickle_len + 1024;
    ct_status st = flatten(a, root, name, 0, 0, &budget);
    ct__free(a->ctx, name);
    return st;
}

static bool set_limit_and_constants(ct_archive *a, size_t pickle_len) {
    /* values: at most 64 bytes per pickle byte (a checkpoint needs about 15) */
    a->limit = pickle_len > (SIZE_MAX - ((size_t)4 << 20)) / 64
                   ? SIZE_MAX
                   : 64 * pickle_len + ((size_t)4 << 20);
    a->none = pv_new(a, PV_NONE);
    a->yes = pv_int(a, PV_BOOL, 1);
    a->no = pv_int(a, PV_BOOL, 0);
    return a->none && a->yes && a->no;
}

/* One pickle from u->pos (a fresh stack and memo, as a new Unpickler). */
static ct_status run_one(ct__unpickler *u, pv **out) {
    u->start = u->pos;
    u->ns = 0;
    u->nm = 0;
    u->memolen = 0;
    if (u->memo) memset(u->memo, 0, u->capmemo * sizeof(pv *));
    return up_run(u, out);
}

static ct_status legacy_parse(ct_archive *a) {
    ct_ctx *ctx = a->ctx;
    const uint8_t *b = a->map;
    static const uint8_t magic[12] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                      0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    size_t m = b[2] == 0x95 ? 11 : 2; /* after PROTO (and a FRAME from protocol 4 on) */
    if (a->map_len < m + 13 || memcmp(b + m, magic, 12) != 0 || b[m + 12] != '.')
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "%s: a pickle that is not torch.save's (no magic number at byte %zu)",
                             TL, m);
    a->legacy = true;
    ct__unpickler u;
    memset(&u, 0, sizeof u);
    u.a = a;
    u.p = b;
    u.n = a->map_len;
    u.prefix = "";
    u.where = "the file";
    u.pos = m + 13;
    pv *proto = NULL, *info = NULL, *root = NULL, *keys = NULL;
    a->read = &u.pos;
    a->read0 = 0;
    ct_status st = set_limit_and_constants(a, 0) ? CT_OK : arch_oom(a, TL);
    if (st == CT_OK) st = run_one(&u, &proto);
    if (st == CT_OK && (proto->k != PV_INT || proto->i != 1001))
        st = ct__set_error(ctx, CT_ERR_FORMAT, "%s: legacy protocol version is not 1001", TL);
    if (st == CT_OK) st = run_one(&u, &info);
    for (size_t i = 0; st == CT_OK && info->k == PV_DICT && i + 1 < info->n; i += 2)
        if (info->it[i]->k == PV_STR && !strcmp(info->it[i]->s, "little_endian") &&
            info->it[i + 1]->k == PV_BOOL && !info->it[i + 1]->i)
            st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                               "%s: a legacy file written on a big-endian machine", TL);
    if (st == CT_OK) st = run_one(&u, &root);
    if (st == CT_OK) st = run_one(&u, &keys);
    a->read = NULL;
    a->limit = 64 * u.pos + ((size_t)4 << 20); /* the names: as for the ZIP format */
    ct__free(ctx, u.stack);
    ct__free(ctx, u.marks);
    ct__free(ctx, u.memo);
    if (st != CT_OK) return st;
    if (keys->k != PV_LIST)
        return ct__set_error(ctx, CT_ERR_FORMAT, "%s: the legacy storage keys are not a list", TL);
    /* the storages' data, in the keys' order: int64 element count, then the bytes */
    size_t pos = u.pos;
    for (size_t i = 0; i < keys->n; i++) {
        pv *k = keys->it[i];
        pv **slot = k->k == PV_STR && a->hcap ? legacy_slot(a, k) : NULL;
        if (!slot || !*slot)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "%s: the legacy data lists storage %zu ('%.60s'), which no tensor "
                                 "uses",
                                 TL, i, k->k == PV_STR ? k->s : "?");
        pv *s = *slot;
        if (s->data || s->member == -2)
            return ct__set_error(ctx, CT_ERR_FORMAT, "%s: storage '%.60s' is listed twice", TL,
                                 s->s);
        if (a->map_len - pos < 8)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "%s: the file ends before storage '%.60s' (byte %zu)", TL, s->s,
                                 pos);
        uint64_t count = 0;
        for (int j = 7; j >= 0; j--)
            count = count << 8 | b[pos + (size_t)j];
        if (count != (uint64_t)s->i)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "%s: storage '%.60s' has %llu elements at byte %zu, the pickle "
                                 "says %lld",
                                 TL, s->s, (unsigned long long)count, pos, (long long)s->i);
        pos += 8;
        if (s->nbytes > a->map_len - pos)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "%s: storage '%.60s' runs past the end of the file (byte %zu)", TL,
                                 s->s, pos);
        s->data = b + pos;
        s->member = -2; /* read */
        pos += (size_t)s->nbytes;
    }
    for (size_t i = 0; i < a->hcap; i++)
        if (a->htab[i] && a->htab[i]->member != -2)
            return ct__set_error(ctx, CT_ERR_FORMAT, "%s: storage '%.60s' has no data in the file",
                                 TL, a->htab[i]->s);
    return flatten_root(a, root, u.pos);
}

/* Parse the archive a->map[0, map_len) as a torch checkpoint. */
static ct_status torch_parse(ct_archive *a) {
    ct_ctx *ctx = a->ctx;
    const uint8_t *b = a->map;
    /* a pickle (PROTO, then the magic number or, from protocol 4, a FRAME first): legacy */
    if (a->map_len >= 3 && b[0] == 0x80 && (b[2] == 0x8a || b[2] == 0x95)) return legacy_parse(a);
    if (a->map_len >= 2 && (b[0] == ']' || b[0] == '(' || b[0] == '}' || b[0] == 'c'))
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "%s: a pickle of protocol 0 or 1, not a torch.save file (torch.save "
                             "writes protocol 2 or above)",
                             TL);
    ct_status st = ct__zip_open(ctx, TL, b, a->map_len, &a->zip);
    if (st != CT_OK) return st;
    /* the archive's directory is the first member's (as torch's reader): <dir>/data.pkl */
    const char *first = a->zip.n ? a->zip.m[0].name : "", *sl = strchr(first, '/');
    char prefix[300];
    size_t pl = sl ? (size_t)(sl - first) + 1 : 0;
    if (!sl || pl >= sizeof prefix - 16)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "%s: not a torch.save file: its first ZIP member '%.80s' is in no "
                             "directory (%d members)",
                             TL, first, a->zip.n);
    memcpy(prefix, first, pl);
    prefix[pl] = 0;
    char pn[320];
    snprintf(pn, sizeof pn, "%sdata.pkl", prefix);
    int pk = ct__zip_find(&a->zip, pn);
    if (pk < 0)
        return ct__set_error(
            ctx, CT_ERR_FORMAT,
            "%s: the ZIP archive has no <dir>/data.pkl (%s; not a torch.save file; "
            "%d members)",
            TL, pn, a->zip.n);
    a->by_member = ct__alloc(ctx, (size_t)a->zip.n * sizeof(pv *), 16);
    if (!a->by_member) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", TL);
    memset(a->by_member, 0, (size_t)a->zip.n * sizeof(pv *));
    /* byteorder (torch >= 2.1 writes it; older files are little-endian) */
    char bo[320];
    snprintf(bo, sizeof bo, "%sbyteorder", prefix);
    int bi = ct__zip_find(&a->zip, bo);
    if (bi >= 0) {
        const uint8_t *d;
        uint8_t *own;
        if ((st = ct__zip_read(ctx, TL, &a->zip, bi, &d, &own)) != CT_OK) return st;
        size_t l = (size_t)a->zip.m[bi].usize;
        bool little = l == 6 && memcmp(d, "little", 6) == 0,
             big = l == 3 && memcmp(d, "big", 3) == 0;
        ct__free(ctx, own);
        if (!little && !big)
            return ct__set_error(ctx, CT_ERR_FORMAT, "%s: %s is neither 'little' nor 'big'", TL,
                                 bo);
        a->big_endian = big;
    }
    const uint8_t *pkl;
    uint8_t *own = NULL;
    if ((st = ct__zip_read(ctx, TL, &a->zip, pk, &pkl, &own)) != CT_OK) return st;
    ct__unpickler u;
    memset(&u, 0, sizeof u);
    u.a = a;
    u.p = pkl;
    u.n = (size_t)a->zip.m[pk].usize;
    u.prefix = prefix;
    u.where = "data.pkl";
    pv *root = NULL;
    st = set_limit_and_constants(a, u.n) ? up_run(&u, &root) : arch_oom(a, TL);
    ct__free(ctx, u.stack);
    ct__free(ctx, u.marks);
    ct__free(ctx, u.memo);
    ct__free(ctx, own);
    if (st != CT_OK) return st;
    return flatten_root(a, root, u.n);
}

static ct_status arch_load(ct_ctx *ctx, const char *who, const char *path, const void *data,
                           size_t size, bool npz, ct_archive **out);

/* Entries sorted by (name, position), so a lookup finds the first of equal names in O(log n);
 * entries lie in one array, so their addresses give their positions. */
static int entry_cmp(const void *x, const void *y) {
    const ct__arch_entry *a = *(const ct__arch_entry *const *)x,
                         *b = *(const ct__arch_entry *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a > b) - (a < b);
}
static ct_status arch_index(ct_archive *a) {
    a->sorted = ct__alloc(a->ctx, (size_t)(a->n ? a->n : 1) * sizeof *a->sorted, 16);
    if (!a->sorted) return ct__set_error(a->ctx, CT_ERR_OOM, "archive: out of memory");
    for (int i = 0; i < a->n; i++)
        a->sorted[i] = &a->e[i];
    qsort(a->sorted, (size_t)a->n, sizeof *a->sorted, entry_cmp);
    return CT_OK;
}

ct_status ct_torch_load(ct_ctx *ctx, const char *path, ct_archive **out) {
    return arch_load(ctx, TL, path, NULL, 0, false, out);
}
ct_status ct_torch_load_buffer(ct_ctx *ctx, const void *data, size_t size, ct_archive **out) {
    return arch_load(ctx, "torch_load_buffer", NULL, data, size, false, out);
}
ct_status ct_npz_load(ct_ctx *ctx, const char *path, ct_archive **out) {
    return arch_load(ctx, "npz_load", path, NULL, 0, true, out);
}
ct_status ct_npz_load_buffer(ct_ctx *ctx, const void *data, size_t size, ct_archive **out) {
    return arch_load(ctx, "npz_load_buffer", NULL, data, size, true, out);
}

static ct_status npz_parse(ct_archive *a) {
    ct_status st = ct__zip_open(a->ctx, "npz_load", a->map, a->map_len, &a->zip);
    a->limit = a->map_len + ((size_t)1 << 20); /* names: at most the directory's */
    for (int i = 0; i < a->zip.n && st == CT_OK; i++) {
        const char *nm = a->zip.m[i].name;
        size_t l = strlen(nm);
        if (l < 4 || strcmp(nm + l - 4, ".npy") != 0) continue; /* np.load skips those too */
        char *c = ct__alloc(a->ctx, l - 3, 16);
        if (!c) return ct__set_error(a->ctx, CT_ERR_OOM, "npz_load: out of memory");
        memcpy(c, nm, l - 4);
        c[l - 4] = 0;
        st = arch_add(a, c, NULL, i);
        ct__free(a->ctx, c);
    }
    return st;
}

static ct_status arch_load(ct_ctx *ctx, const char *who, const char *path, const void *data,
                           size_t size, bool npz, ct_archive **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", who);
    *out = NULL;
    if (!path && !data && (size || !strstr(who, "buffer")))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s is NULL", who,
                             strstr(who, "buffer") ? "data" : "path");
    ct_archive *a = NULL;
    ct_status st = arch_new(ctx, who, &a);
    if (st != CT_OK) return st;
    a->npz = npz;
    if (path) {
        st = ct__file_map(ctx, who, path, &a->map, &a->map_len);
        a->mapped = st == CT_OK;
    } else {
        a->map = ct__alloc(ctx, size ? size : 1, 64);
        if (!a->map)
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory copying %zu bytes", who, size);
        else if (size)
            memcpy(a->map, data, size);
        a->map_len = size;
    }
    if (st == CT_OK) st = npz ? npz_parse(a) : torch_parse(a);
    if (st == CT_OK) st = arch_index(a);
    if (st != CT_OK) {
        ct_archive_free(a);
        return st;
    }
    *out = a;
    return CT_OK;
}

/* ---- accessors ---- */
int ct_archive_count(const ct_archive *a) { return a ? a->n : 0; }

const char *ct_archive_name(const ct_archive *a, int i) {
    return a && i >= 0 && i < a->n ? a->e[i].name : NULL;
}

static int entry_kind(const ct__arch_entry *e) {
    if (!e->v) return CT_ENTRY_TENSOR;
    switch (e->v->k) {
    case PV_NONE: return CT_ENTRY_NONE;
    case PV_BOOL: return CT_ENTRY_BOOL;
    case PV_INT: return CT_ENTRY_INT;
    case PV_FLOAT: return CT_ENTRY_FLOAT;
    case PV_BYTES: return CT_ENTRY_BYTES;
    case PV_TENSOR: return CT_ENTRY_TENSOR;
    default: return CT_ENTRY_STRING; /* str, dtype */
    }
}

int ct_archive_kind(const ct_archive *a, int i) {
    return a && i >= 0 && i < a->n ? entry_kind(&a->e[i]) : -1;
}

static const char *kind_name(int k) {
    static const char *n[] = {"None",     "a bool", "an int",  "a float",
                              "a string", "bytes",  "a tensor"};
    return n[k];
}

/* Position of the first sorted entry whose name is >= name. */
static int arch_lower_bound(const ct_archive *a, const char *name) {
    int lo = 0, hi = a->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(a->sorted[mid]->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first entry named name, or NULL. */
static const ct__arch_entry *arch_lookup(const ct_archive *a, const char *name) {
    int lo = arch_lower_bound(a, name);
    return lo < a->n && strcmp(a->sorted[lo]->name, name) == 0 ? a->sorted[lo] : NULL;
}

int ct_archive_find(const ct_archive *a, const char *name) {
    if (!a || !name) return -1;
    const ct__arch_entry *e = arch_lookup(a, name);
    return e ? (int)(e - a->e) : -1;
}

static ct_status arch_find(const ct_archive *a, const char *who, const char *name, const void *out,
                           const ct__arch_entry **e) {
    ct__clear_error(a->ctx);
    if (!name || !out)
        return ct__set_error(a->ctx, CT_ERR_INVALID_ARG, "%s: %s is NULL", who,
                             !name ? "name" : "out");
    if ((*e = arch_lookup(a, name)) != NULL) return CT_OK;
    return ct__set_error(a->ctx, CT_ERR_INDEX, "%s: no entry named \"%.200s\" (%d in the archive)",
                         who, name, a->n);
}

static ct_status wrong_kind(const ct_archive *a, const char *who, const char *name,
                            const ct__arch_entry *e, const char *want) {
    return ct__set_error(a->ctx, CT_ERR_INVALID_ARG, "%s: entry \"%.200s\" is %s, not %s", who,
                         name, kind_name(entry_kind(e)), want);
}

ct_status ct_archive_get_int(const ct_archive *a, const char *name, int64_t *out) {
    if (out) *out = 0;
    if (!a) return CT_ERR_INVALID_ARG;
    const ct__arch_entry *e;
    ct_status st = arch_find(a, "archive_get_int", name, out, &e);
    if (st != CT_OK) return st;
    if (!e->v || !pv_is_int(e->v)) return wrong_kind(a, "archive_get_int", name, e, "an int");
    *out = e->v->i;
    return CT_OK;
}

ct_status ct_archive_get_float(const ct_archive *a, const char *name, double *out) {
    if (out) *out = 0;
    if (!a) return CT_ERR_INVALID_ARG;
    const ct__arch_entry *e;
    ct_status st = arch_find(a, "archive_get_float", name, out, &e);
    if (st != CT_OK) return st;
    if (!e->v || (!pv_is_int(e->v) && e->v->k != PV_FLOAT))
        return wrong_kind(a, "archive_get_float", name, e, "a number");
    *out = e->v->k == PV_FLOAT ? e->v->f : (double)e->v->i;
    return CT_OK;
}

ct_status ct_archive_get_string(const ct_archive *a, const char *name, const char **s,
                                size_t *len) {
    if (!a) return CT_ERR_INVALID_ARG;
    const ct__arch_entry *e;
    ct_status st = arch_find(a, "archive_get_string", name, s, &e);
    if (st != CT_OK) return st;
    int k = entry_kind(e);
    if (k != CT_ENTRY_STRING && k != CT_ENTRY_BYTES)
        return wrong_kind(a, "archive_get_string", name, e, "a string");
    *s = e->v->s; /* str, bytes, or a dtype's name */
    if (len) *len = e->v->len;
    return CT_OK;
}

static void swap_bytes(uint8_t *p, int64_t n, size_t isz) {
    for (int64_t i = 0; i < n; i++, p += isz)
        for (size_t k = 0; k < isz / 2; k++) {
            uint8_t t = p[k];
            p[k] = p[isz - 1 - k];
            p[isz - 1 - k] = t;
        }
}

static void free_span(void *data, void *user) { ct__free(user, data); }

ct_status ct_archive_get(const ct_archive *a, const char *name, ct_tensor **out) {
    if (out) *out = NULL;
    if (!a) return CT_ERR_INVALID_ARG;
    const ct__arch_entry *e;
    ct_status st = arch_find(a, "archive_get", name, out, &e);
    if (st != CT_OK) return st;
    ct_ctx *ctx = a->ctx;
    if ((st = ct__refuse_capture(ctx, "archive_get")) != CT_OK) return st;
    if (!e->v) { /* .npz member */
        const uint8_t *d;
        uint8_t *own;
        if ((st = ct__zip_read(ctx, "npz_load", &a->zip, e->member, &d, &own)) != CT_OK) return st;
        st = ct_npy_load_buffer(ctx, d, (size_t)a->zip.m[e->member].usize, out);
        ct__free(ctx, own);
        if (st != CT_OK) return ct__error_within(ctx, "npz_load", st);
        return CT_OK;
    }
    if (e->v->k != PV_TENSOR) return wrong_kind(a, "archive_get", name, e, "a tensor");
    const pv_view *v = e->v->t;
    const ct_dtype dt = (ct_dtype)e->v->dtype;
    const size_t isz = ct__itemsize(dt);
    /* the tensor keeps its strides (as torch.load's views) over a private copy of the part of
     * the storage it reads: elements off .. off + sum((size - 1) * stride), all checked at load */
    int64_t numel = 1, span = 1;
    for (int i = 0; i < v->ndim; i++) {
        numel *= v->shape[i];
        if (v->shape[i] > 0) span += (v->shape[i] - 1) * v->stride[i];
    }
    ct_tensor *t = NULL;
    const bool view = ct__is_compute_dtype(dt) || ct_dtype_is_complex(dt);
    if (numel == 0) span = 0;
    if (numel == 0 && !view) {
        st = ct_tensor_empty(ctx, dt, v->ndim, v->shape, &t);
    } else if (!view) {
        /* a storage format (float8) cannot be wrapped with strides: copied out in C order, as
         * long as that does not blow a small storage up (a broadcast) */
        if (numel / 64 > span + ((int64_t)1 << 20))
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "archive_get: '%.80s' is a %s view of %lld elements over %lld; "
                                 "refusing to materialize it",
                                 name, ct_dtype_name(dt), (long long)numel, (long long)span);
        if ((st = ct_tensor_empty(ctx, dt, v->ndim, v->shape, &t)) != CT_OK) return st;
        uint8_t *dst = (uint8_t *)ct__tensor_ptr(t);
        int64_t idx[CT_MAX_DIMS] = {0};
        for (int64_t k = 0; k < numel; k++) {
            int64_t o = v->off;
            for (int i = 0; i < v->ndim; i++)
                o += idx[i] * v->stride[i];
            memcpy(dst + (size_t)k * isz, v->storage->data + (size_t)o * isz, isz);
            for (int i = v->ndim - 1; i >= 0; i--) {
                if (++idx[i] < v->shape[i]) break;
                idx[i] = 0;
            }
        }
    } else { /* an empty tensor keeps its strides too, over a token allocation */
        uint8_t *buf = ct__alloc(ctx, span ? (size_t)span * isz : 64, 64);
        if (!buf)
            return ct__set_error(ctx, CT_ERR_OOM,
                                 "archive_get: out of memory (%lld bytes for '%.80s')",
                                 (long long)span * (long long)isz, name);
        if (span) memcpy(buf, v->storage->data + (size_t)v->off * isz, (size_t)span * isz);
        if (a->big_endian && isz > 1)
            swap_bytes(buf, ct_dtype_is_complex(dt) ? 2 * span : span,
                       ct_dtype_is_complex(dt) ? isz / 2 : isz);
        if (dt == CT_BOOL)
            for (int64_t k = 0; k < span; k++)
                buf[k] = buf[k] != 0;
        st = ct_tensor_from_blob(ctx, buf, dt, v->ndim, v->shape, v->stride, free_span, ctx, &t);
        if (st != CT_OK) ct__free(ctx, buf);
    }
    if (st == CT_OK && e->v->rg && (ct_dtype_is_floating(dt) || ct_dtype_is_complex(dt)))
        st = ct_tensor_set_requires_grad(t, true);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

/* ---- load_state_dict ---- */
static void shape_text(char *buf, size_t cap, int nd, const int64_t *shape) {
    int k = snprintf(buf, cap, "torch.Size([");
    for (int d = 0; d < nd && k > 0 && (size_t)k < cap; d++)
        k += snprintf(buf + k, cap - (size_t)k, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (k > 0 && (size_t)k < cap) snprintf(buf + k, cap - (size_t)k, "])");
}

static void keys_add(char *buf, size_t cap, bool *first, const char *key) {
    size_t l = strlen(buf);
    if (l + 1 < cap) snprintf(buf + l, cap - l, "%s\"%s\"", *first ? "" : ", ", key);
    *first = false;
}

/* The model's names and the modules they imply ("layers.0.w": modules "layers", "layers.0"), both
 * sorted for lookups; modules also in order of first appearance (torch's order of modules when the
 * names come in state_dict order). */
typedef struct {
    const char **sorted_names, **sorted_mods, **mods; /* mods: strdup'ed, first-appearance order */
    int n, nmods;
} ct__model;
static int str_cmp(const void *x, const void *y) {
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}
static bool str_in(const char **arr, int n, const char *s) {
    return n > 0 && bsearch(&s, arr, (size_t)n, sizeof *arr, str_cmp) != NULL;
}
static void model_free(ct_ctx *ctx, ct__model *m) {
    for (int i = 0; i < m->nmods; i++)
        ct__free(ctx, (void *)m->mods[i]);
    ct__free(ctx, m->mods);
    ct__free(ctx, m->sorted_mods);
    ct__free(ctx, m->sorted_names);
}
static bool model_build(ct_ctx *ctx, int n, const char *const *names, ct__model *m) {
    memset(m, 0, sizeof *m);
    size_t mcap = 0;
    m->n = n;
    m->sorted_names = ct__alloc(ctx, (size_t)(n ? n : 1) * sizeof(char *), 16);
    if (!m->sorted_names) return false;
    memcpy(m->sorted_names, names, (size_t)n * sizeof(char *));
    qsort(m->sorted_names, (size_t)n, sizeof(char *), str_cmp);
    for (int i = 0; i < n; i++)
        for (const char *d = strchr(names[i], '.'); d; d = strchr(d + 1, '.')) {
            size_t l = (size_t)(d - names[i]);
            bool seen = false;
            for (int k = 0; k < m->nmods && !seen; k++) /* few modules: a linear scan */
                seen = strlen(m->mods[k]) == l && !memcmp(m->mods[k], names[i], l);
            if (seen) continue;
            char *c = ct__alloc(ctx, l + 1, 16);
            if (!c || !ct__grow_array(ctx, (void **)&m->mods, &mcap, (size_t)m->nmods + 1,
                                      sizeof(char *))) {
                ct__free(ctx, c);
                return false;
            }
            memcpy(c, names[i], l);
            c[l] = 0;
            m->mods[m->nmods++] = c;
        }
    m->sorted_mods = ct__alloc(ctx, (size_t)(m->nmods ? m->nmods : 1) * sizeof(char *), 16);
    if (!m->sorted_mods) return false;
    if (m->nmods) memcpy(m->sorted_mods, m->mods, (size_t)m->nmods * sizeof(char *));
    qsort(m->sorted_mods, (size_t)m->nmods, sizeof(char *), str_cmp);
    return true;
}
/* torch's rule: key r is unexpected when, going down the modules it names, it reaches something
 * that is neither a parameter nor a module ("fc.extra"); *module receives the module it belongs
 * to (its index in first-appearance order, -1 for the root). buf holds at least strlen(r) + 1. */
static bool model_unexpected(const ct__model *m, const char *r, char *buf, int *module) {
    const char *d = strchr(r, '.');
    size_t l = d ? (size_t)(d - r) : strlen(r), mod_len = 0;
    for (;;) {
        memcpy(buf, r, l);
        buf[l] = 0;
        if (r[l] == '.' && str_in(m->sorted_mods, m->nmods, buf)) { /* a module: go down */
            mod_len = l;
            d = strchr(r + l + 1, '.');
            l = d ? (size_t)(d - r) : strlen(r);
            continue;
        }
        break;
    }
    *module = -1;
    for (int k = 0; mod_len && k < m->nmods; k++)
        if (strlen(m->mods[k]) == mod_len && !memcmp(m->mods[k], r, mod_len)) *module = k;
    return !str_in(m->sorted_names, m->n, buf) && !str_in(m->sorted_mods, m->nmods, buf);
}

static const char *py_class(const ct__arch_entry *e) {
    switch (entry_kind(e)) {
    case CT_ENTRY_NONE: return "<class 'NoneType'>";
    case CT_ENTRY_BOOL: return "<class 'bool'>";
    case CT_ENTRY_INT: return "<class 'int'>";
    case CT_ENTRY_FLOAT: return "<class 'float'>";
    case CT_ENTRY_BYTES: return "<class 'bytes'>";
    default: return e->v && e->v->k == PV_GLOBAL ? "<class 'torch.dtype'>" : "<class 'str'>";
    }
}

static void msg_add(char *buf, size_t cap, const char *text) {
    size_t l = strlen(buf);
    if (l + 1 < cap) snprintf(buf + l, cap - l, "%s%s", l ? "\n\t" : "", text);
}

ct_status ct_archive_load_state_dict(const ct_archive *a, const char *prefix, int n,
                                     const char *const *names, ct_tensor *const *params,
                                     bool strict, ct_load_report *report) {
    static const char *who = "load_state_dict";
    if (report) memset(report, 0, sizeof *report);
    if (!a) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = a->ctx;
    ct__clear_error(ctx);
    if (n < 0 || (n > 0 && (!names || !params)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s", who,
                             n < 0 ? "n is negative" : "names or params is NULL");
    if (!prefix) prefix = "";
    const size_t pl = strlen(prefix);
    ct_status st = CT_OK;
    for (int i = 0; i < n && st == CT_OK; i++) {
        char what[32];
        snprintf(what, sizeof what, "param %d", i);
        if (!names[i]) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: name %d is NULL", who, i);
        if ((st = ct__check_tensor(ctx, who, what, params[i])) != CT_OK) return st;
        if (params[i]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: param %d belongs to another context",
                                 who, i);
    }
    if ((st = ct__refuse_capture(ctx, who)) != CT_OK) return st;
    /* match first, copy after: a failed check copies nothing */
    const ct__arch_entry **src = ct__alloc(ctx, (size_t)(n ? n : 1) * sizeof *src, 16);
    bool *scalar = ct__alloc(ctx, (size_t)(n ? n : 1), 16);
    int *umod = ct__alloc(ctx, (size_t)(a->n ? a->n : 1) * sizeof(int), 16);
    char *key = ct__alloc(ctx, ARCH_MAX_NAME + 1024, 16);
    char *buf = ct__alloc(ctx, ARCH_MAX_NAME + 1024, 16);
    ct__model model;
    bool built = model_build(ctx, n, names, &model);
    ct_load_report rep;
    memset(&rep, 0, sizeof rep);
    if (!src || !scalar || !umod || !key || !buf || !built) {
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", who);
        goto done;
    }
    char errs[1024] = "", missing[1024] = "", unexpected[1024] = "";
    bool fm = true, fu = true, size_err = false;
    for (int i = 0; i < n; i++) {
        snprintf(key, ARCH_MAX_NAME + 1024, "%s%s", prefix, names[i]);
        const ct__arch_entry *e = arch_lookup(a, key);
        src[i] = NULL;
        scalar[i] = false;
        if (!e) { /* entries key.*: the file holds a container there, not a tensor */
            size_t kl = strlen(key);
            int lo = arch_lower_bound(a, key);
            bool container = false;
            for (int k = lo; k < a->n && !strncmp(a->sorted[k]->name, key, kl) && !container; k++)
                container = a->sorted[k]->name[kl] == '.';
            if (!container) {
                rep.missing++;
                keys_add(missing, sizeof missing, &fm, names[i]);
                continue;
            }
        }
        if (!e || entry_kind(e) != CT_ENTRY_TENSOR) {
            char m[600];
            snprintf(m, sizeof m,
                     "While copying the parameter named \"%.200s\", expected torch.Tensor or "
                     "Tensor-like object from checkpoint but received %s",
                     key, e ? py_class(e) : "a container (dict, list or tuple)");
            msg_add(errs, sizeof errs, m);
            continue;
        }
        const int64_t *shp;
        int nd;
        int64_t npy_shape[CT_MAX_DIMS];
        if (e->v) {
            nd = e->v->t->ndim;
            shp = e->v->t->shape;
        } else { /* .npz: the member's shape means reading it */
            ct_tensor *t = NULL;
            if ((st = ct_archive_get(a, key, &t)) != CT_OK) goto done;
            nd = ct_tensor_ndim(t);
            memcpy(npy_shape, ct_tensor_shape(t), (size_t)nd * sizeof(int64_t));
            shp = npy_shape;
            ct_tensor_release(t);
        }
        /* torch's backward compatibility with 0.3: a 0-dim parameter takes a 1-dim entry's [0] */
        if (params[i]->ndim == 0 && nd == 1 && shp[0] >= 1) {
            scalar[i] = true;
            src[i] = e;
            continue;
        }
        bool same = nd == params[i]->ndim;
        for (int d = 0; same && d < nd; d++)
            same = shp[d] == params[i]->shape[d];
        if (!same) { /* every mismatch, as torch lists them */
            char s1[200], s2[200], m[700];
            shape_text(s1, sizeof s1, nd, shp);
            shape_text(s2, sizeof s2, params[i]->ndim, params[i]->shape);
            snprintf(m, sizeof m,
                     "size mismatch for %.200s: copying a param with shape %s from checkpoint, the "
                     "shape in current model is %s.",
                     names[i], s1, s2);
            msg_add(errs, sizeof errs, m);
            size_err = true;
        }
        src[i] = e;
    }
    /* unexpected: entries under the prefix that torch's modules do not take, module by module */
    int nun = 0;
    for (int j = 0; j < a->n; j++) {
        umod[j] = -2;
        const char *nm = a->e[j].name;
        if (strncmp(nm, prefix, pl) != 0 || strlen(nm) - pl >= ARCH_MAX_NAME + 1024) continue;
        if (model_unexpected(&model, nm + pl, buf, &umod[j]))
            nun++;
        else
            umod[j] = -2;
    }
    for (int k = -1; nun && k < model.nmods; k++)
        for (int j = 0; j < a->n; j++)
            if (umod[j] == k) {
                rep.unexpected++;
                keys_add(unexpected, sizeof unexpected, &fu, a->e[j].name + pl);
            }
    if (rep.missing)
        snprintf(rep.keys, sizeof rep.keys, "Missing key(s) in state_dict: %s. ", missing);
    if (rep.unexpected) {
        size_t l = strlen(rep.keys);
        snprintf(rep.keys + l, sizeof rep.keys - l, "%sUnexpected key(s) in state_dict: %s. ",
                 l ? "\n\t" : "", unexpected);
    }
    /* torch's text: its messages joined by newline-tab, the key lists (strict) before the
     * per-parameter errors */
    bool keys = strict && (rep.missing || rep.unexpected);
    if (errs[0] || keys) {
        st = ct__set_error(ctx,
                           size_err  ? CT_ERR_SHAPE
                           : errs[0] ? CT_ERR_INVALID_ARG
                                     : CT_ERR_INDEX,
                           "%s: Error(s) in loading state_dict:\n\t%s%s%s", who,
                           keys ? rep.keys : "", keys && errs[0] ? "\n\t" : "", errs);
        goto done;
    }
    bool grad = ct_set_grad_enabled(ctx, false);
    for (int i = 0; i < n && st == CT_OK; i++) {
        if (!src[i]) continue;
        ct_tensor *t = NULL, *t0 = NULL;
        st = ct_archive_get(a, src[i]->name, &t);
        if (st == CT_OK && scalar[i]) st = ct_select(ctx, t, 0, 0, &t0);
        if (st == CT_OK) st = ct_tensor_copy_(ctx, params[i], t0 ? t0 : t);
        ct_tensor_release(t0);
        ct_tensor_release(t);
        if (st == CT_OK) rep.loaded++;
    }
    ct_set_grad_enabled(ctx, grad);
    if (st != CT_OK) st = ct__error_within(ctx, who, st);
done:
    if (report) *report = rep;
    model_free(ctx, &model); /* NULL or built pointers either way */
    ct__free(ctx, src);
    ct__free(ctx, scalar);
    ct__free(ctx, umod);
    ct__free(ctx, key);
    ct__free(ctx, buf);
    return st;
}

/* ---- writers ---- */
typedef struct {
    ct_ctx *ctx;
    uint8_t *p;
    size_t n, cap;
    bool oom;
    uint32_t memo;
} ct__pw;

static void pw_put(ct__pw *w, const void *s, size_t k) {
    if (w->oom) return;
    if (!ct__grow_array(w->ctx, (void **)&w->p, &w->cap, w->n + k, 1)) {
        w->oom = true;
        return;
    }
    memcpy(w->p + w->n, s, k);
    w->n += k;
}
static void pw_byte(ct__pw *w, uint8_t b) { pw_put(w, &b, 1); }
static void pw_u32(ct__pw *w, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    pw_put(w, b, 4);
}
/* BINPUT / LONG_BINPUT of the next memo slot (CPython memoizes as it goes); returns the slot */
static uint32_t pw_memoize(ct__pw *w) {
    uint32_t m = w->memo++;
    if (m < 256) {
        pw_byte(w, 'q');
        pw_byte(w, (uint8_t)m);
    } else {
        pw_byte(w, 'r');
        pw_u32(w, m);
    }
    return m;
}
static void pw_get(ct__pw *w, uint32_t m) {
    if (m < 256) {
        pw_byte(w, 'h');
        pw_byte(w, (uint8_t)m);
    } else {
        pw_byte(w, 'j');
        pw_u32(w, m);
    }
}
static void pw_int(ct__pw *w, int64_t v) { /* CPython's save_long for protocol 2 */
    if (v >= 0 && v <= 0xff) {
        pw_byte(w, 'K');
        pw_byte(w, (uint8_t)v);
    } else if (v >= 0 && v <= 0xffff) {
        pw_byte(w, 'M');
        pw_byte(w, (uint8_t)v);
        pw_byte(w, (uint8_t)(v >> 8));
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        pw_byte(w, 'J');
        pw_u32(w, (uint32_t)(int32_t)v);
    } else { /* LONG1: minimal two's complement (only v >= 2^31 here: sizes are >= 0) */
        uint8_t b[9];
        int k = 0;
        uint64_t u = (uint64_t)v;
        do {
            b[k++] = (uint8_t)u;
            u >>= 8;
        } while (u);
        if (b[k - 1] & 0x80) b[k++] = 0;
        pw_byte(w, 0x8a);
        pw_byte(w, (uint8_t)k);
        pw_put(w, b, (size_t)k);
    }
}
static uint32_t pw_str(ct__pw *w, const char *s) {
    size_t l = strlen(s);
    pw_byte(w, 'X');
    pw_u32(w, (uint32_t)l);
    pw_put(w, s, l);
    return pw_memoize(w);
}
static void pw_tuple(ct__pw *w, int n, const int64_t *v) { /* CPython's save_tuple */
    if (n == 0) {
        pw_byte(w, ')');
        return;
    }
    if (n > 3) pw_byte(w, '(');
    for (int i = 0; i < n; i++)
        pw_int(w, v[i]);
    pw_byte(w, n > 3 ? 't' : (uint8_t)(0x84 + n));
    pw_memoize(w);
}

static const char *storage_class(ct_dtype dt) {
    for (size_t i = 0; i < sizeof storage_names / sizeof storage_names[0] - 1; i++)
        if (storage_names[i].dt == dt) return storage_names[i].name;
    return NULL;
}

/* The common checks of the two writers. */
static ct_status save_check(ct_ctx *ctx, const char *who, const char *path, int n,
                            const char *const *names, const ct_tensor *const *tensors, bool numpy) {
    if (!path || n < 0 || (n > 0 && (!names || !tensors)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s", who,
                             !path   ? "path is NULL"
                             : n < 0 ? "n is negative"
                                     : "names or tensors is NULL");
    for (int i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "tensor %d", i);
        if (!names[i]) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: name %d is NULL", who, i);
        ct_status st = ct__check_tensor(ctx, who, what, tensors[i]);
        if (st != CT_OK) return st;
        if (tensors[i]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: tensor %d belongs to another context", who, i);
        if (!names[i][0] || !utf8_valid(names[i], strlen(names[i]), false))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: name %d is %s", who, i,
                                 names[i][0] ? "not valid UTF-8" : "empty");
        if (numpy && (strchr(names[i], '/') || strlen(names[i]) > 1000))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: name %d ('%.80s') contains '/' or is longer than 1000 bytes",
                                 who, i, names[i]);
        for (int j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "%s: names %d and %d are both '%.80s'", who, j, i, names[i]);
        ct_dtype dt = tensors[i]->dtype;
        if (!numpy && !storage_class(dt) && dt != CT_FLOAT8_E4M3FN && dt != CT_FLOAT8_E5M2)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "%s: tensor %d ('%.80s') is %s, which torch has no storage for "
                                 "(cast to a wider dtype first)",
                                 who, i, names[i], ct_dtype_name(dt));
    }
    return ct__refuse_capture(ctx, who);
}

/* The torch archive's directory: the file's base name without its last extension, as torch's
 * writer names it ("archive" where that leaves nothing; torch refuses such names). */
static void archive_dir(const char *path, char *dir, size_t cap) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    size_t k = dot ? (size_t)(dot - b) : strlen(b);
    if (k == 0 || k >= cap) {
        snprintf(dir, cap, "archive");
        return;
    }
    memcpy(dir, b, k);
    dir[k] = 0;
}

static ct_status host_bytes(ct_ctx *ctx, const char *who, const ct_tensor *t, uint8_t **buf,
                            size_t *nb) {
    *nb = (size_t)ct_tensor_numel(t) * ct__itemsize(t->dtype);
    *buf = ct__alloc(ctx, *nb ? *nb : 1, 64);
    if (!*buf) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory (%zu bytes)", who, *nb);
    ct_status st = ct_tensor_to_host(t, *buf, *nb);
    if (st != CT_OK) {
        ct__free(ctx, *buf);
        *buf = NULL;
    }
    return st;
}

static int cmp_key(const void *x, const void *y) { /* torch writes records in str(key) order */
    char a[16], b[16];
    snprintf(a, sizeof a, "%d", *(const int *)x);
    snprintf(b, sizeof b, "%d", *(const int *)y);
    return strcmp(a, b);
}

ct_status ct_torch_save(ct_ctx *ctx, const char *path, int n, const char *const *names,
                        const ct_tensor *const *tensors) {
    static const char *who = "torch_save";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    ct_status st = save_check(ctx, who, path, n, names, tensors, false);
    if (st != CT_OK) return st;
    /* data.pkl: OrderedDict((name, _rebuild_tensor_v2(storage, 0, size, stride, False,
     * OrderedDict())) ...), memoized as CPython's pickler does */
    ct__pw w = {.ctx = ctx};
    /* torch >= 2.1 writes its newer dtypes (float8) as _rebuild_tensor_v3 over an untyped (byte)
     * storage with the dtype as a last argument */
    uint32_t m_rebuild = 0, m_rebuild3 = 0, m_storage = 0, m_cpu = 0, m_cls[CT_DTYPE_COUNT],
             m_dt[CT_DTYPE_COUNT], m_untyped = 0;
    bool have_cls[CT_DTYPE_COUNT] = {false}, have_dt[CT_DTYPE_COUNT] = {false};
    bool have_rebuild = false, have_rebuild3 = false, have_untyped = false;
    pw_put(&w, "\x80\x02", 2);
    pw_put(&w, "ccollections\nOrderedDict\n", 25);
    uint32_t m_odict = pw_memoize(&w);
    pw_put(&w, ")R", 2);
    pw_memoize(&w);
    for (int b0 = 0; b0 < n; b0 += 1000) {
        int bn = n - b0 < 1000 ? n - b0 : 1000;
        if (bn > 1) pw_byte(&w, '(');
        for (int i = b0; i < b0 + bn; i++) {
            const ct_tensor *t = tensors[i];
            const bool v3 = !storage_class(t->dtype);
            pw_str(&w, names[i]);
            if (v3 ? !have_rebuild3 : !have_rebuild) {
                pw_put(&w,
                       v3 ? "ctorch._utils\n_rebuild_tensor_v3\n"
                          : "ctorch._utils\n_rebuild_tensor_v2\n",
                       33);
                *(v3 ? &m_rebuild3 : &m_rebuild) = pw_memoize(&w);
                *(v3 ? &have_rebuild3 : &have_rebuild) = true;
            } else {
                pw_get(&w, v3 ? m_rebuild3 : m_rebuild);
            }
            pw_put(&w, "((", 2);
            if (i == 0)
                m_storage = pw_str(&w, "storage");
            else
                pw_get(&w, m_storage);
            if (v3 && !have_untyped) {
                pw_put(&w, "ctorch.storage\nUntypedStorage\n", 30);
                m_untyped = pw_memoize(&w);
                have_untyped = true;
            } else if (v3) {
                pw_get(&w, m_untyped);
            } else if (!have_cls[t->dtype]) {
                const char *c = storage_class(t->dtype);
                pw_put(&w, "ctorch\n", 7);
                pw_put(&w, c, strlen(c));
                pw_byte(&w, '\n');
                m_cls[t->dtype] = pw_memoize(&w);
                have_cls[t->dtype] = true;
            } else {
                pw_get(&w, m_cls[t->dtype]);
            }
            char key[16];
            snprintf(key, sizeof key, "%d", i);
            pw_str(&w, key);
            if (i == 0)
                m_cpu = pw_str(&w, "cpu");
            else
                pw_get(&w, m_cpu);
            pw_int(&w, ct_tensor_numel(t)); /* elements; bytes of an untyped storage (1 each) */
            pw_byte(&w, 't');
            pw_memoize(&w);
            pw_byte(&w, 'Q');
            pw_int(&w, 0);
            int64_t stride[CT_MAX_DIMS]; /* torch's contiguous strides */
            int64_t s64 = 1;
            for (int d = t->ndim - 1; d >= 0; d--) {
                stride[d] = s64;
                s64 *= t->shape[d] > 1 ? t->shape[d] : 1;
            }
            pw_tuple(&w, t->ndim, t->shape);
            pw_tuple(&w, t->ndim, stride);
            pw_byte(&w, 0x89);
            pw_get(&w, m_odict);
            pw_put(&w, ")R", 2);
            pw_memoize(&w);
            if (v3 && !have_dt[t->dtype]) {
                const char *dn = ct_dtype_name(t->dtype); /* torch's name: "float8_e4m3fn" */
                pw_put(&w, "ctorch\n", 7);
                pw_put(&w, dn, strlen(dn));
                pw_byte(&w, '\n');
                m_dt[t->dtype] = pw_memoize(&w);
                have_dt[t->dtype] = true;
            } else if (v3) {
                pw_get(&w, m_dt[t->dtype]);
            }
            pw_byte(&w, 't');
            pw_memoize(&w);
            pw_byte(&w, 'R');
            pw_memoize(&w);
        }
        pw_byte(&w, bn > 1 ? 'u' : 's');
    }
    pw_byte(&w, '.');
    if (w.oom) {
        ct__free(ctx, w.p);
        return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", who);
    }
    char dir[256], rec[300];
    archive_dir(path, dir, sizeof dir);
    char *tmp = NULL;
    FILE *fp = NULL;
    st = ct__file_create_tmp(ctx, who, path, &tmp, &fp);
    ct__zipw z;
    ct__zipw_init(&z, fp, who, tmp);
    int *order = NULL;
    if (st == CT_OK) {
        snprintf(rec, sizeof rec, "%s/data.pkl", dir);
        st = ct__zipw_add(ctx, &z, rec, w.p, w.n, 64);
        order = ct__alloc(ctx, (size_t)(n ? n : 1) * sizeof(int), 16);
        if (!order && st == CT_OK) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", who);
    }
    if (st == CT_OK) {
        for (int i = 0; i < n; i++)
            order[i] = i;
        qsort(order, (size_t)n, sizeof(int), cmp_key);
    }
    for (int k = 0; k < n && st == CT_OK; k++) {
        uint8_t *buf;
        size_t nb;
        if ((st = host_bytes(ctx, who, tensors[order[k]], &buf, &nb)) != CT_OK) break;
        snprintf(rec, sizeof rec, "%s/data/%d", dir, order[k]);
        st = ct__zipw_add(ctx, &z, rec, buf, nb, 64);
        ct__free(ctx, buf);
    }
    if (st == CT_OK) {
        snprintf(rec, sizeof rec, "%s/version", dir);
        st = ct__zipw_add(ctx, &z, rec, "3\n", 2, 64);
    }
    if (st == CT_OK) {
        snprintf(rec, sizeof rec, "%s/byteorder", dir);
        st = ct__zipw_add(ctx, &z, rec, "little", 6, 64);
    }
    if (st == CT_OK) st = ct__zipw_finish(ctx, &z);
    ct__zipw_free(ctx, &z);
    ct__free(ctx, order);
    ct__free(ctx, w.p);
    return tmp ? ct__file_commit(ctx, who, path, tmp, fp, st) : st;
}

ct_status ct_npz_save(ct_ctx *ctx, const char *path, int n, const char *const *names,
                      const ct_tensor *const *tensors) {
    static const char *who = "npz_save";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    ct_status st = save_check(ctx, who, path, n, names, tensors, true);
    for (int i = 0; i < n && st == CT_OK; i++)
        if (!ct__npy_descr(tensors[i]->dtype))
            st = ct__set_error(ctx, CT_ERR_DTYPE,
                               "%s: tensor %d ('%.80s'): NumPy has no dtype for %s", who, i,
                               names[i], ct_dtype_name(tensors[i]->dtype));
    if (st != CT_OK) return st;
    char *tmp = NULL;
    FILE *fp = NULL;
    st = ct__file_create_tmp(ctx, who, path, &tmp, &fp);
    ct__zipw z;
    ct__zipw_init(&z, fp, who, tmp);
    for (int i = 0; i < n && st == CT_OK; i++) {
        uint8_t *buf = NULL;
        size_t nb = 0;
        if ((st = ct__npy_encode(ctx, who, tensors[i], &buf, &nb)) != CT_OK) break;
        size_t l = strlen(names[i]);
        char *rec = ct__alloc(ctx, l + 5, 16);
        if (!rec) {
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", who);
        } else {
            memcpy(rec, names[i], l);
            memcpy(rec + l, ".npy", 5);
            st = ct__zipw_add(ctx, &z, rec, buf, nb, 1);
        }
        ct__free(ctx, rec);
        ct__free(ctx, buf);
    }
    if (st == CT_OK) st = ct__zipw_finish(ctx, &z);
    ct__zipw_free(ctx, &z);
    return tmp ? ct__file_commit(ctx, who, path, tmp, fp, st) : st;
}
