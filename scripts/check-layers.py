#!/usr/bin/env python3
"""Fail on an upward dependency between the layers of src/ (docs/architecture.md, "Layers").

1. A file in src/<dir>/ may include private headers ("<dir>/x.h") only from its own layer or a
   lower one; the public headers (include/ctorch/*.h) are the API and may be included anywhere.
2. An internal function (ct__name) declared in a private header of layer L must be defined in
   layer L or below: a lower header must not declare a function a higher layer implements (that
   is a call up hidden behind a downward include). Calls up go through function pointers a higher
   layer registers (backend vtables, the capture hook).
Prints each offence and exits 1; exits 0 when there is none.
Usage: scripts/check-layers.py [repository root]   (standard library only)
"""
import os
import re
import sys

# Bottom to top; one entry per layer, the src/ folders that form it (DESIGN.md section 1).
LAYERS = [
    ["core"],
    ["dtype"],
    ["dispatch"],
    ["tensor"],
    ["backend", "backends"],
    ["ops"],
    ["graph"],
    ["autograd"],
    ["linalg", "mx", "attention", "sparse"],
    ["export", "io", "optim"],
    ["dist"],
    ["runtime"],
]
RANK = {d: i for i, layer in enumerate(LAYERS) for d in layer}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


DECL = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(ct__\w+)\s*\(")


def check_declarations(src):
    """Names declared (prototypes, not inline bodies) in private headers vs where .c files define
    them."""
    declared, defined, out = {}, {}, []
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            top = rel.split("/")[0]
            if top not in RANK or not name.endswith((".c", ".h")):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            for i, line in enumerate(lines):
                m = DECL.match(line)
                if not m or line.startswith(("static", "typedef", "#", "extern")):
                    continue
                # join the signature up to its end to see whether a body follows
                j, sig = i, line
                while not re.search(r"[;{]\s*(/\*.*)?$", sig) and j + 1 < len(lines) and j < i + 8:
                    j += 1
                    sig += lines[j]
                is_def = "{" in sig.split(")")[-1] or sig.rstrip().endswith("{")
                if name.endswith(".h") and not is_def:
                    declared.setdefault(m.group(1), (rel, i + 1, top))
                elif name.endswith(".c") and is_def:
                    defined.setdefault(m.group(1), (rel, i + 1, top))
    for fn, (hrel, hln, htop) in sorted(declared.items()):
        if fn in defined:
            crel, cln, ctop = defined[fn]
            if RANK[ctop] > RANK[htop]:
                out.append(f"src/{hrel}:{hln}: {fn} is declared in {htop}/ (layer {RANK[htop]}) "
                           f"but defined in src/{crel}:{cln}, {ctop}/ (layer {RANK[ctop]})")
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    src = os.path.join(root, "src")
    bad = []
    unknown = set()
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".inc")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            top = rel.split("/")[0]
            if top not in RANK:
                unknown.add(top)
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for ln, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    first = inc.split("/")[0]
                    if first == "ctorch" or "/" not in inc:
                        continue  # public API header, or a file next to this one
                    if first not in RANK:
                        continue
                    if RANK[first] > RANK[top]:
                        bad.append(f"src/{rel}:{ln}: {top}/ (layer {RANK[top]}) includes "
                                   f"\"{inc}\" from {first}/ (layer {RANK[first]})")
    bad += check_declarations(src)
    for d in sorted(unknown):
        bad.append(f"src/{d}/: folder is in no layer; add it to LAYERS in scripts/check-layers.py "
                   "and to the table in docs/architecture.md")
    for b in bad:
        print(b)
    if bad:
        print(f"check-layers: {len(bad)} upward include(s)")
        return 1
    print("check-layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
