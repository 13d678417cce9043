/* Internal: the safetensors writer on an open stream, for files that embed a safetensors blob
 * (the weights section of a .ctp program). */
#ifndef CTORCH_IO_SAFETENSORS_IMPL_H
#define CTORCH_IO_SAFETENSORS_IMPL_H

#include "ctorch/safetensors.h"

#include <stdio.h>

/* ct_safetensors_save's checks and bytes, written at fp's position (fname names it in messages).
 * The blob is 8 + header + data bytes; its data starts 64-byte aligned relative to its start.
 * offsets NULL: as ct_safetensors_save (ordered by element size, then name). offsets given: the
 * tensors stay in the given order, each starts 64-byte aligned (U8 tensors "__pad.<i>" fill the
 * gaps, so the file stays valid for every reader) and offsets[i] receives tensor i's first data
 * byte relative to the blob's start. */
ct_status ct__safetensors_write(ct_ctx *ctx, FILE *fp, const char *fname, int n,
                                const char *const *names, const ct_tensor *const *tensors,
                                const char *const *metadata, uint64_t *offsets);

#endif
