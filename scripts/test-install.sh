#!/usr/bin/env bash
# Install the build tree into a temporary prefix, then compile a tiny consumer with
# `pkg-config --cflags --libs ctorch` and run it. Args: build-dir source-dir cc [extra-flags].
set -euo pipefail
build=$1 src=$2 cc=$3 extra=${4:-}
extra=${extra//;/ }
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/ctorch/ctorch.h lib/libctorch.a lib/libctorch.so lib/pkgconfig/ctorch.pc \
         lib/cmake/ctorch/ctorchConfig.cmake; do
  [ -e "$prefix/$f" ] || { echo "missing installed file $f"; exit 1; }
done
cat > "$prefix/consumer.c" <<'C'
#include <ctorch/ctorch.h>
#include <stdio.h>
int main(void) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, r[3];
    int64_t n[1] = {3};
    ct_tensor *x, *y, *z;
    if (ct_tensor_from_host(ctx, a, CT_FLOAT32, 1, n, &x) || ct_tensor_from_host(ctx, b, CT_FLOAT32, 1, n, &y) ||
        ct_add(ctx, x, y, &z) || ct_tensor_to_host(z, r, sizeof r)) return 1;
    ct_tensor_release(x); ct_tensor_release(y); ct_tensor_release(z); ct_ctx_free(ctx);
    printf("consumer: %g %g %g\n", r[0], r[1], r[2]);
    return (r[0] == 5 && r[1] == 7 && r[2] == 9) ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
"$cc" $extra "$prefix/consumer.c" -o "$prefix/consumer" $(pkg-config --cflags --libs ctorch)
LD_LIBRARY_PATH="$prefix/lib" "$prefix/consumer"
# static link through the same .pc file (Libs.private lists the dependencies)
# shellcheck disable=SC2046
"$cc" $extra "$prefix/consumer.c" -o "$prefix/consumer_static" $(pkg-config --cflags ctorch) \
  "$prefix/lib/libctorch.a" $(pkg-config --libs --static ctorch | sed 's/-lctorch//')
"$prefix/consumer_static"
# the CMake package: no absolute path of the build machine's BLAS, and find_package works
if grep -rqE "/(usr/)?lib[^ ;\"]*/lib(openblas|lapacke)" "$prefix/lib/cmake/ctorch"; then
  echo "installed CMake package hard-codes a BLAS path:"
  grep -rnE "lib(openblas|lapacke)" "$prefix/lib/cmake/ctorch"
  exit 1
fi
mkdir -p "$prefix/cm" && cp "$prefix/consumer.c" "$prefix/cm/"
cat > "$prefix/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(ctorch REQUIRED)
add_executable(consumer_cm consumer.c)
target_link_libraries(consumer_cm PRIVATE ctorch::ctorch)
add_executable(consumer_cm_static consumer.c)
target_link_libraries(consumer_cm_static PRIVATE ctorch::ctorch_static)
CM
cmake -S "$prefix/cm" -B "$prefix/cm/b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$prefix/cm/b" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$prefix/cm/b/consumer_cm"
"$prefix/cm/b/consumer_cm_static"
echo "install + pkg-config and CMake consumers: ok"
