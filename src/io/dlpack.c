/* DLPack export and import over the public tensor API: export keeps a reference to the tensor in
 * the managed tensor's holder (shape and strides copied next to it); import wraps the producer's
 * memory with ct_tensor_from_blob, whose deleter calls the managed tensor's. */
#include "ctorch/dlpack.h"

#include <string.h>

#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"

static bool ct__dl_code(ct_dtype dt, ct_dl_dtype *d) {
    d->lanes = 1;
    d->bits = (uint8_t)(ct_dtype_size(dt) * 8);
    switch (dt) {
    case CT_BOOL: d->code = 6; return true;
    case CT_UINT8: d->code = 1; return true;
    case CT_INT8:
    case CT_INT16:
    case CT_INT32:
    case CT_INT64: d->code = 0; return true;
    case CT_FLOAT16:
    case CT_FLOAT32:
    case CT_FLOAT64: d->code = 2; return true;
    case CT_BFLOAT16: d->code = 4; return true;
    case CT_COMPLEX64:
    case CT_COMPLEX128: d->code = 5; return true; /* kDLComplex */
    default: return false;
    }
}

static bool ct__dl_dtype(ct_dl_dtype d, ct_dtype *dt) {
    if (d.lanes != 1) return false;
    switch (d.code) {
    case 0:
        *dt = d.bits == 8    ? CT_INT8
              : d.bits == 16 ? CT_INT16
              : d.bits == 32 ? CT_INT32
              : d.bits == 64 ? CT_INT64
                             : CT_DTYPE_COUNT;
        break;
    case 1: *dt = d.bits == 8 ? CT_UINT8 : CT_DTYPE_COUNT; break;
    case 2:
        *dt = d.bits == 16   ? CT_FLOAT16
              : d.bits == 32 ? CT_FLOAT32
              : d.bits == 64 ? CT_FLOAT64
                             : CT_DTYPE_COUNT;
        break;
    case 4: *dt = d.bits == 16 ? CT_BFLOAT16 : CT_DTYPE_COUNT; break;
    case 5:
        *dt = d.bits == 64 ? CT_COMPLEX64 : d.bits == 128 ? CT_COMPLEX128 : CT_DTYPE_COUNT;
        break;
    case 6: *dt = d.bits == 8 ? CT_BOOL : CT_DTYPE_COUNT; break;
    default: *dt = CT_DTYPE_COUNT;
    }
    return *dt != CT_DTYPE_COUNT;
}

/* One holder per export: the managed tensor (either kind), the tensor it keeps alive, and room
 * for shape and strides. */
typedef struct {
    union {
        ct_dl_managed_tensor legacy;
        ct_dl_managed_tensor_versioned versioned;
    } m;
    ct_ctx *ctx;
    ct_tensor *t;
    int64_t dims[2 * CT_MAX_DIMS];
} ct__dl_holder;

static void ct__dl_release(ct__dl_holder *h) {
    ct_ctx *ctx = h->ctx;
    ct_tensor_release(h->t);
    ct__free(ctx, h);
}
static void ct__dl_delete_legacy(ct_dl_managed_tensor *self) {
    if (self) ct__dl_release(self->manager_ctx);
}
static void ct__dl_delete_versioned(ct_dl_managed_tensor_versioned *self) {
    if (self) ct__dl_release(self->manager_ctx);
}

static ct_status ct__dl_export(ct_ctx *ctx, const ct_tensor *t, ct__dl_holder **out,
                               ct_dl_tensor *dl) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "to_dlpack", "tensor", t);
    if (st != CT_OK) return st;
    if (ct_tensor_device(t).type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_DEVICE, "to_dlpack: only CPU tensors so far");
    ct_dl_dtype code;
    if (!ct__dl_code(ct_tensor_dtype(t), &code))
        return ct__set_error(ctx, CT_ERR_DTYPE, "to_dlpack: dtype %s has no DLPack code",
                             ct_dtype_name(ct_tensor_dtype(t)));
    ct__dl_holder *h = ct__alloc(ctx, sizeof *h, 16);
    if (!h) return ct__set_error(ctx, CT_ERR_OOM, "to_dlpack: out of memory");
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
    h->t = ct_tensor_retain((ct_tensor *)t);
    int nd = ct_tensor_ndim(t);
    for (int i = 0; i < nd; i++) {
        h->dims[i] = ct_tensor_shape(t)[i];
        h->dims[CT_MAX_DIMS + i] = ct_tensor_stride(t)[i];
    }
    dl->data = ct_tensor_data_ptr(t);
    dl->device = (ct_dl_device){1, 0};
    dl->ndim = nd;
    dl->dtype = code;
    dl->shape = h->dims;
    dl->strides = h->dims + CT_MAX_DIMS;
    dl->byte_offset = 0;
    *out = h;
    return CT_OK;
}

ct_status ct_tensor_to_dlpack(ct_ctx *ctx, const ct_tensor *t, ct_dl_managed_tensor **out) {
    if (ctx && !out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "to_dlpack: out is NULL");
    ct__dl_holder *h = NULL;
    ct_dl_tensor dl;
    ct_status st = ct__dl_export(ctx, t, &h, &dl);
    if (st != CT_OK) return st;
    h->m.legacy.dl_tensor = dl;
    h->m.legacy.manager_ctx = h;
    h->m.legacy.deleter = ct__dl_delete_legacy;
    *out = &h->m.legacy;
    return CT_OK;
}

ct_status ct_tensor_to_dlpack_versioned(ct_ctx *ctx, const ct_tensor *t,
                                        ct_dl_managed_tensor_versioned **out) {
    if (ctx && !out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "to_dlpack: out is NULL");
    ct__dl_holder *h = NULL;
    ct_dl_tensor dl;
    ct_status st = ct__dl_export(ctx, t, &h, &dl);
    if (st != CT_OK) return st;
    h->m.versioned.version_major = 1;
    h->m.versioned.version_minor = 0;
    h->m.versioned.dl_tensor = dl;
    h->m.versioned.manager_ctx = h;
    h->m.versioned.deleter = ct__dl_delete_versioned;
    h->m.versioned.flags = 0;
    *out = &h->m.versioned;
    return CT_OK;
}

static void ct__dl_blob_legacy(void *data, void *user) {
    (void)data;
    ct_dl_managed_tensor *m = user;
    if (m->deleter) m->deleter(m);
}
static void ct__dl_blob_versioned(void *data, void *user) {
    (void)data;
    ct_dl_managed_tensor_versioned *m = user;
    if (m->deleter) m->deleter(m);
}

static ct_status ct__dl_import(ct_ctx *ctx, const ct_dl_tensor *dl, void (*del)(void *, void *),
                               void *user, ct_tensor **out) {
    if (dl->device.device_type != 1)
        return ct__set_error(ctx, CT_ERR_DEVICE,
                             "from_dlpack: device type %d is not the CPU (1); only CPU tensors so "
                             "far",
                             (int)dl->device.device_type);
    ct_dtype dt;
    if (!ct__dl_dtype(dl->dtype, &dt))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "from_dlpack: DLPack dtype (code %u, bits %u, lanes %u) has no ctorch "
                             "dtype",
                             (unsigned)dl->dtype.code, (unsigned)dl->dtype.bits,
                             (unsigned)dl->dtype.lanes);
    if (dl->ndim < 0 || dl->ndim > CT_MAX_DIMS || (dl->ndim > 0 && !dl->shape))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_dlpack: bad ndim %d (0..%d)",
                             (int)dl->ndim, CT_MAX_DIMS);
    if (!dl->data && dl->ndim > 0) {
        int64_t n = 1;
        for (int i = 0; i < dl->ndim; i++)
            n *= dl->shape[i];
        if (n != 0) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_dlpack: data is NULL");
    }
    char *data = (char *)dl->data + dl->byte_offset;
    return ct_tensor_from_blob(ctx, data, dt, dl->ndim, dl->shape, dl->strides, del, user, out);
}

ct_status ct_tensor_from_dlpack(ct_ctx *ctx, ct_dl_managed_tensor *m, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!m || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_dlpack: NULL managed tensor or out");
    return ct__dl_import(ctx, &m->dl_tensor, ct__dl_blob_legacy, m, out);
}

ct_status ct_tensor_from_dlpack_versioned(ct_ctx *ctx, ct_dl_managed_tensor_versioned *m,
                                          ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!m || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_dlpack: NULL managed tensor or out");
    if (m->version_major != 1)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "from_dlpack: DLPack major version %u is not supported (1)",
                             (unsigned)m->version_major);
    if (m->flags & CT_DLPACK_FLAG_READ_ONLY)
        return ct__set_error(
            ctx, CT_ERR_UNSUPPORTED,
            "from_dlpack: the tensor is read-only and ctorch tensors are writable; "
            "copy it first");
    return ct__dl_import(ctx, &m->dl_tensor, ct__dl_blob_versioned, m, out);
}
