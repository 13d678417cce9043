/* ctorch archives: PyTorch checkpoint files (torch.save / torch.load: the ZIP format of torch
 * >= 1.6 and the legacy format before it) and NumPy .npz archives (np.savez / np.savez_compressed /
 * np.load), read into one container of named entries and written from named tensors. A checkpoint
 * is read as torch.load(path, weights_only=True, map_location="cpu") reads it: tensors,
 * Parameters, numbers, strings, None, and lists, tuples, sets and dicts of them; a nested value
 * becomes entries named by its path ("model.fc.weight", "optimizer.param_groups.0.lr"). Pickled
 * Python objects (torch.save(model), numpy scalars, TorchScript) are refused with the global's
 * name: nothing in a file is ever executed. Files are untrusted: any malformed ZIP, pickle or
 * record is CT_ERR_FORMAT with the field and byte offset, never a crash, and reading one allocates
 * at most about 64 bytes per pickle byte. Details: docs/everyday.md, "PyTorch checkpoints and .npz
 * archives". Ownership: a ct_archive keeps the file mapped until ct_archive_free (call it before
 * freeing its context); tensors from ct_archive_get are new tensors with their own memory, which
 * the caller releases. Thread-safety: as the owning ct_ctx. Little-endian hosts. */
#ifndef CTORCH_ARCHIVE_H
#define CTORCH_ARCHIVE_H

#include "ctorch/tensor.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_archive ct_archive;

/* What an entry holds (Python's type in a .pt file; every .npz entry is a tensor). */
typedef enum ct_entry_kind {
    CT_ENTRY_NONE = 0, /* None */
    CT_ENTRY_BOOL,     /* bool (read with ct_archive_get_int: 0 or 1) */
    CT_ENTRY_INT,      /* int (64-bit) */
    CT_ENTRY_FLOAT,    /* float */
    CT_ENTRY_STRING,   /* str (UTF-8) or a torch dtype ("torch.float32") */
    CT_ENTRY_BYTES,    /* bytes */
    CT_ENTRY_TENSOR    /* torch.Tensor / nn.Parameter / an .npz array */
} ct_entry_kind;

/* Read a PyTorch checkpoint: torch.save's ZIP format (torch >= 1.6) or its legacy format (older
 * torch, or _use_new_zipfile_serialization=False). CT_ERR_IO (cannot open or map), CT_ERR_FORMAT
 * (malformed), CT_ERR_UNSUPPORTED (a pickled Python object, quantized or sparse tensors),
 * CT_ERR_DTYPE (a torch dtype ctorch lacks), CT_ERR_OOM. */
CT_API ct_status ct_torch_load(ct_ctx *ctx, const char *path, ct_archive **out);
/* ct_torch_load from bytes in memory (copied; the caller's buffer may be freed afterwards). */
CT_API ct_status ct_torch_load_buffer(ct_ctx *ctx, const void *data, size_t size, ct_archive **out);
/* Open a NumPy .npz archive (stored or deflated members "<name>.npy"); each array is read on
 * ct_archive_get (its .npy header and CRC are checked then). */
CT_API ct_status ct_npz_load(ct_ctx *ctx, const char *path, ct_archive **out);
/* ct_npz_load from bytes in memory (copied). */
CT_API ct_status ct_npz_load_buffer(ct_ctx *ctx, const void *data, size_t size, ct_archive **out);
/* Number of entries (0 for NULL). */
CT_API int ct_archive_count(const ct_archive *a);
/* Name of entry i in file order (NULL when i is out of range). torch.save(tensor) gives one
 * entry named "". */
CT_API const char *ct_archive_name(const ct_archive *a, int i);
/* Index (file order, for ct_archive_name / ct_archive_kind) of the entry named name, or -1 when
 * there is none (or a / name is NULL). A binary search: O(log n). */
CT_API int ct_archive_find(const ct_archive *a, const char *name);
/* Kind of entry i; -1 when a is NULL or i is out of range. */
CT_API int ct_archive_kind(const ct_archive *a, int i);
/* A new CPU tensor with the named tensor's values and its layout in the file, as torch.load gives
 * it (a transposed or broadcast view keeps its strides, over a private copy of the part of the
 * storage it reads; float8 is copied out in C order); an nn.Parameter of a floating dtype comes
 * back requiring grad. CT_ERR_INDEX when no entry has that name, CT_ERR_INVALID_ARG when it is not
 * a tensor. */
CT_API ct_status ct_archive_get(const ct_archive *a, const char *name, ct_tensor **out);
/* The named int or bool entry. CT_ERR_INDEX (no such entry), CT_ERR_INVALID_ARG (another kind). */
CT_API ct_status ct_archive_get_int(const ct_archive *a, const char *name, int64_t *out);
/* The named float entry (an int or bool entry converts). */
CT_API ct_status ct_archive_get_float(const ct_archive *a, const char *name, double *out);
/* The named string or bytes entry: *s is borrowed (lives as long as a, NUL-terminated), *len its
 * length in bytes (len may be NULL). */
CT_API ct_status ct_archive_get_string(const ct_archive *a, const char *name, const char **s,
                                       size_t *len);
/* Unmap and free (NULL is a no-op). */
CT_API void ct_archive_free(ct_archive *a);

/* What ct_archive_load_state_dict did: tensors copied, keys of the model missing from the archive,
 * archive keys (under the prefix) the model does not have, and torch's text naming them
 * ("Missing key(s) in state_dict: \"b\". Unexpected key(s) in state_dict: \"c\". "), cut at
 * 1023 bytes. */
typedef struct ct_load_report {
    int loaded, missing, unexpected;
    char keys[1024];
} ct_load_report;
/* nn.Module.load_state_dict: for each of the n model tensors params[i] named names[i], copy the
 * archive's entry prefix + names[i] into it (Tensor.copy_ under no_grad: dtypes convert, a
 * parameter stays a leaf), with torch 1.13's rules and messages (modules inferred from the names):
 * a size mismatch (CT_ERR_SHAPE) or a non-tensor entry (CT_ERR_INVALID_ARG) fails also without
 * strict; with strict, missing or unexpected keys fail (CT_ERR_INDEX). A failed check copies
 * nothing. report may be NULL. Details: docs/everyday.md. */
CT_API ct_status ct_archive_load_state_dict(const ct_archive *a, const char *prefix, int n,
                                            const char *const *names, ct_tensor *const *params,
                                            bool strict, ct_load_report *report);

/* Write n named tensors as torch.save(state_dict) does (an OrderedDict of contiguous tensors,
 * pickle protocol 2, 64-byte aligned records), readable by torch.load of torch >= 1.6 (float8
 * tensors in torch >= 2.1's form). Names must be distinct, non-empty, well-formed UTF-8. Written to
 * a temporary file beside path, synced and renamed: a failure leaves no partial file. The sub-byte
 * MX element formats and E8M0: CT_ERR_DTYPE. */
CT_API ct_status ct_torch_save(ct_ctx *ctx, const char *path, int n, const char *const *names,
                               const ct_tensor *const *tensors);
/* Write n named tensors as np.savez does (stored members "<name>.npy"; any strides, written in C
 * order). bfloat16 and the low-precision formats have no NumPy dtype: CT_ERR_DTYPE. */
CT_API ct_status ct_npz_save(ct_ctx *ctx, const char *path, int n, const char *const *names,
                             const ct_tensor *const *tensors);

#ifdef __cplusplus
}
#endif
#endif
