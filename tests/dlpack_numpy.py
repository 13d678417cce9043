"""Exchange tensors between ctorch (build/libctorch.so through ctypes) and NumPy over DLPack, both
ways and without copies: numpy.from_dlpack on a ctorch export, ct_tensor_from_dlpack on NumPy's
__dlpack__ capsule. Run by ctest; exits 77 (skipped) when NumPy or from_dlpack is missing."""
import ctypes
import sys

try:
    import numpy as np
    if not hasattr(np, "from_dlpack"):
        raise ImportError
except ImportError:
    print("skipped: NumPy with from_dlpack is not available")
    sys.exit(77)

lib = ctypes.CDLL(sys.argv[1])
api = ctypes.pythonapi
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
vp = ctypes.c_void_p
for name, args, res in [
    ("ct_ctx_create", [vp, ctypes.POINTER(vp)], ctypes.c_int),
    ("ct_ctx_free", [vp], None),
    ("ct_tensor_from_host", [vp, vp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                             ctypes.POINTER(vp)], ctypes.c_int),
    ("ct_tensor_to_dlpack", [vp, vp, ctypes.POINTER(vp)], ctypes.c_int),
    ("ct_tensor_from_dlpack", [vp, vp, ctypes.POINTER(vp)], ctypes.c_int),
    ("ct_tensor_data_ptr", [vp], vp),
    ("ct_tensor_to_host", [vp, vp, ctypes.c_size_t], ctypes.c_int),
    ("ct_tensor_release", [vp], None),
    ("ct_sum", [vp, vp, ctypes.c_int, vp, ctypes.c_bool, ctypes.POINTER(vp)], ctypes.c_int),
]:
    f = getattr(lib, name)
    f.argtypes, f.restype = args, res

failed = passed = 0


def check(cond, what):
    global failed, passed
    if not cond:
        failed += 1
        print("FAIL", what)
    else:
        passed += 1
        print("ok  ", what)


ctx = vp()
assert lib.ct_ctx_create(None, ctypes.byref(ctx)) == 0
CT_FLOAT32 = 8  # ct_dtype enum value, checked against the header by test_dlpack's build

# ctorch -> NumPy
vals = (ctypes.c_float * 6)(*[1.5, -2, 3, 4, 5.25, 6])
shape = (ctypes.c_int64 * 2)(2, 3)
t = vp()
st = lib.ct_tensor_from_host(ctx, vals, CT_FLOAT32, 2, shape, ctypes.byref(t))
check(st == 0, "from_host")
m = vp()
check(lib.ct_tensor_to_dlpack(ctx, t, ctypes.byref(m)) == 0, "ct_tensor_to_dlpack")


class Export:
    def __init__(self, ptr):
        self.ptr = ptr

    def __dlpack__(self, stream=None):
        return api.PyCapsule_New(self.ptr, b"dltensor", None)

    def __dlpack_device__(self):
        return (1, 0)


a = np.from_dlpack(Export(m))
check(a.shape == (2, 3) and a.dtype == np.float32, "numpy sees shape and dtype")
check(a.ctypes.data == lib.ct_tensor_data_ptr(t), "numpy shares ctorch's memory (no copy)")
check(a.tolist() == [[1.5, -2.0, 3.0], [4.0, 5.25, 6.0]], "values")
del a  # numpy calls the deleter: the export's reference goes

# NumPy -> ctorch (a transposed view: strides travel)
b = np.arange(12, dtype=np.float32).reshape(3, 4).T
cap = b.__dlpack__()
ptr = api.PyCapsule_GetPointer(cap, b"dltensor")
u = vp()
check(lib.ct_tensor_from_dlpack(ctx, ptr, ctypes.byref(u)) == 0, "ct_tensor_from_dlpack")
api.PyCapsule_SetName(cap, b"used_dltensor")  # consumed: ctorch calls the deleter now
check(lib.ct_tensor_data_ptr(u) == b.ctypes.data, "ctorch shares numpy's memory (no copy)")
s = vp()
check(lib.ct_sum(ctx, u, 0, None, False, ctypes.byref(s)) == 0, "ct_sum on the numpy memory")
out = ctypes.c_float()
lib.ct_tensor_to_host(s, ctypes.byref(out), 4)
check(out.value == 66.0, "sum over the shared memory is 66")
b[0, 0] = 100  # a write through numpy is seen by ctorch
lib.ct_tensor_release(s)
s = vp()
lib.ct_sum(ctx, u, 0, None, False, ctypes.byref(s))
lib.ct_tensor_to_host(s, ctypes.byref(out), 4)
check(out.value == 166.0, "a numpy write is visible in ctorch")
lib.ct_tensor_release(s)

# complex128 both ways (kDLComplex): NumPy's values, and a ctorch sum of them
CT_COMPLEX128 = 17
c = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(np.complex128).reshape(2, 3)
cap = c.__dlpack__()
ptr = api.PyCapsule_GetPointer(cap, b"dltensor")
cu = vp()
check(lib.ct_tensor_from_dlpack(ctx, ptr, ctypes.byref(cu)) == 0, "complex128 from numpy")
api.PyCapsule_SetName(cap, b"used_dltensor")
s = vp()
check(lib.ct_sum(ctx, cu, 0, None, False, ctypes.byref(s)) == 0, "ct_sum of a complex tensor")
cs = (ctypes.c_double * 2)()
lib.ct_tensor_to_host(s, cs, 16)
check(complex(cs[0], cs[1]) == complex(c.sum()), "complex sum as numpy's")
lib.ct_tensor_release(s)
cm = vp()
check(lib.ct_tensor_to_dlpack(ctx, cu, ctypes.byref(cm)) == 0, "complex128 to dlpack")
back = np.from_dlpack(Export(cm))
check(back.dtype == np.complex128 and np.array_equal(back, c), "numpy sees ctorch's complex values")
del back
lib.ct_tensor_release(cu)
lib.ct_tensor_release(u)
lib.ct_tensor_release(t)
lib.ct_ctx_free(ctx)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
