/* ctorch: umbrella header including every public module. */
#ifndef CTORCH_CTORCH_H
#define CTORCH_CTORCH_H
#include "ctorch/core.h"
#include "ctorch/dtype.h"
#include "ctorch/tensor.h"
#include "ctorch/backend.h"
#include "ctorch/ops.h"
#include "ctorch/linalg.h"
#include "ctorch/mx.h"
#include "ctorch/sparse.h"
#include "ctorch/attention.h"
#include "ctorch/memory.h"
#include "ctorch/graph.h"
#include "ctorch/optim.h"
#include "ctorch/safetensors.h"
#include "ctorch/autograd.h"
#include "ctorch/io.h"
#include "ctorch/archive.h"
#include "ctorch/dlpack.h"
#include "ctorch/fft.h"
#include "ctorch/inplace.h"
#include "ctorch/methods.h"
#endif
