/* DLPack interchange (zero copy both ways) with NumPy, PyTorch, JAX, CuPy and every other
 * DLPack-speaking library. The structs below have exactly the layout of DLPack 1.0's DLTensor,
 * DLManagedTensor (the legacy "dltensor" capsule) and DLManagedTensorVersioned, under ctorch
 * names so that this header does not clash with <dlpack/dlpack.h>: pass pointers across with a
 * cast. CPU tensors only (device type 1, kDLCPU).
 * Ownership: ct_tensor_to_dlpack* give a managed tensor holding a reference to t (the consumer
 * calls its deleter once, which releases it; the context must outlive it). ct_tensor_from_dlpack*
 * take ownership of the managed tensor on success only (its deleter runs when the last ctorch
 * reference to the memory goes); on failure the caller still owns it.
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_DLPACK_H
#define CTORCH_DLPACK_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLDevice, DLDataType (code: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool), DLTensor. */
typedef struct ct_dl_device {
    int32_t device_type; /* 1: CPU */
    int32_t device_id;
} ct_dl_device;
typedef struct ct_dl_dtype {
    uint8_t code, bits;
    uint16_t lanes;
} ct_dl_dtype;
typedef struct ct_dl_tensor {
    void *data;
    ct_dl_device device;
    int32_t ndim;
    ct_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: C-contiguous */
    uint64_t byte_offset;
} ct_dl_tensor;
/* DLManagedTensor (legacy, DLPack < 1.0 and the "dltensor" capsule). */
typedef struct ct_dl_managed_tensor {
    ct_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct ct_dl_managed_tensor *self);
} ct_dl_managed_tensor;
/* DLManagedTensorVersioned (DLPack >= 1.0, the "dltensor_versioned" capsule). */
typedef struct ct_dl_managed_tensor_versioned {
    uint32_t version_major, version_minor;
    void *manager_ctx;
    void (*deleter)(struct ct_dl_managed_tensor_versioned *self);
    uint64_t flags; /* bit 0: read only, bit 1: is a copy */
    ct_dl_tensor dl_tensor;
} ct_dl_managed_tensor_versioned;
#define CT_DLPACK_FLAG_READ_ONLY 1u
#define CT_DLPACK_FLAG_IS_COPIED 2u

/* Export t (any strides, no copy) as a legacy DLManagedTensor. Dtypes: bool, uint8, int8-64,
 * float16/32/64, bfloat16; the low-precision storage formats: CT_ERR_DTYPE. */
CT_API ct_status ct_tensor_to_dlpack(ct_ctx *ctx, const ct_tensor *t, ct_dl_managed_tensor **out);
/* The same as a DLPack 1.0 DLManagedTensorVersioned (version 1.0, flags 0). */
CT_API ct_status ct_tensor_to_dlpack_versioned(ct_ctx *ctx, const ct_tensor *t,
                                               ct_dl_managed_tensor_versioned **out);
/* Wrap a producer's tensor without a copy. CT_ERR_DEVICE for a non-CPU device, CT_ERR_DTYPE for
 * a dtype ctorch lacks or lanes != 1, CT_ERR_INVALID_ARG for NULL, a bad rank or negative sizes. */
CT_API ct_status ct_tensor_from_dlpack(ct_ctx *ctx, ct_dl_managed_tensor *m, ct_tensor **out);
/* The same for a versioned tensor: major version 1 only (CT_ERR_UNSUPPORTED otherwise, as the
 * spec asks); a read-only one is refused (CT_ERR_UNSUPPORTED: ctorch tensors are writable). */
CT_API ct_status ct_tensor_from_dlpack_versioned(ct_ctx *ctx, ct_dl_managed_tensor_versioned *m,
                                                 ct_tensor **out);

#ifdef __cplusplus
}
#endif
#endif
