/* Private interface of the backend registry: adding a backend slot (built-in backends and
 * ct_backend_register). */
#ifndef CTORCH_BACKEND_REGISTRY_H
#define CTORCH_BACKEND_REGISTRY_H

#include "dispatch/dispatch.h"

/* Add a backend slot for `type` with its default stream (no validation: built-in backends and
 * ct_backend_register after its checks). */
ct_status ct__register_builtin(ct_ctx *ctx, const ct_backend_vtable *vt, int type);

#endif
