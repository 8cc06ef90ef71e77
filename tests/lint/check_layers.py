#!/usr/bin/env python3
"""The house rules of harness/, hw/ and guest/, checked from the sources.

The layer order is read from harness/CMakeLists.txt: each
`ktb_layer(NAME LINKS...)` line makes harness/NAME/ a layer that may use the
layers it links (ktb_X), transitively; ktb_hw means hw/, ktb_guest_protocol
means guest/protocol.h. A tree without ktb_layer lines (the flat harness/ of
before) is one layer, "harness", that links hw.

Checks (each one a letter, --only picks some):
  a  includes name a file, never a path: no "../x.h", no "dir/x.h"
  b  a quoted include in harness/LAYER/ resolves to LAYER itself, a layer it
     links, hw/ (when linked) or guest/protocol.h; harness/main.c's to cli's;
     hw/'s to hw/, hw/hybrid/'s to itself and hw/, guest/'s to guest/; a
     file in any other folder is a finding (a new folder needs a rule)
  c  no cycle in the file include graph (x.c and x.h are one node)
  d  a header declares only functions its own .c defines (static inline
     functions in the header are its own)
  e  one file in harness/ and hw/ starts processes (fork, exec*, popen,
     system, posix_spawn, clone); guest/ is exempt
  f  nothing in harness/, hw/ or guest/ branches on a disk bus (==, != or
     case with a DISK_BUS_ value): what differs between buses is a field of
     its row (hw/disk_bus.c, hw/disk.c's QEMU devices), which code asks
  g  nothing in harness/, hw/ or guest/ branches on a step kind (==, != or
     case with a STEP_ value): what differs between kinds is a field or a
     hook of its row (harness/scenario/kind_FILE.c, step_kind.h), which the
     loader and the kernel options ask

It always prints the numbers (files and lines per folder, cycles, the
longest include chain, spawn sites, header mismatches); --stats prints only
those and exits 0. Otherwise the exit status is 1 when a selected check fails.
"""
import argparse
import os
import re
import sys

FOLDERS = ("harness", "hw", "guest")
SPAWN = re.compile(r"(?<![\w.>])(fork|vfork|clone|clone3|execl|execlp|execle|execv|execvp|"
                   r"execvpe|execve|fexecve|popen|system|posix_spawnp?)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "defined", "_Alignof",
            "__attribute__", "_Static_assert", "offsetof"}


def strip_c(text):
    """Comments and string/char literals blanked out, line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def no_preprocessor(text):
    """Preprocessor lines (with their continuations) blanked out."""
    lines, cont = text.split("\n"), False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def top_level_chunks(code):
    """(text, ends_with) for each depth-0 statement: ';' or a '{...}' body."""
    chunks, depth, start = [], 0, 0
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                chunks.append((code[start:i], "{"))
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            chunks.append((code[start:i], ";"))
            start = i + 1
    return chunks


def func_name(chunk):
    """The function a declaration or definition head names, or None."""
    chunk = chunk.strip()
    if not chunk.endswith(")") and not re.search(r"\)\s*(__attribute__\s*\(\(.*\)\))?\s*$", chunk):
        return None
    if re.match(r"(typedef|struct|union|enum)\b", chunk) and "(" not in chunk.split("{")[0]:
        return None
    if chunk.startswith("typedef"):
        return None
    for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", chunk):
        if m.group(1) in KEYWORDS:
            continue
        before = chunk[:m.start()]
        if before.rstrip().endswith("(") or "=" in before:
            return None  # a function pointer, or an initialised variable
        return m.group(1)
    return None


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = {}  # relpath -> raw text
        for top in FOLDERS:
            for d, dirs, names in os.walk(os.path.join(root, top)):
                dirs[:] = sorted(x for x in dirs if not x.startswith("."))
                for name in sorted(names):
                    if name.endswith((".c", ".h")):
                        p = os.path.join(d, name)
                        rel = os.path.relpath(p, root)
                        with open(p, encoding="utf-8", errors="replace") as f:
                            self.files[rel] = f.read()
        self.layers, self.links = self.read_layers()
        self.code = {p: strip_c(t) for p, t in self.files.items()}
        self.defined = {}

    def read_layers(self):
        """{layer: folder}, {layer: set of layers it links directly}"""
        with open(os.path.join(self.root, "harness", "CMakeLists.txt")) as f:
            text = f.read()
        layers, links = {}, {}
        for m in re.finditer(r"^\s*ktb_layer\((\w+)([^)]*)\)", text, re.M):
            name = m.group(1)
            layers[name] = "harness/" + name
            links[name] = {w[4:] for w in m.group(2).split() if w.startswith("ktb_")}
        if not layers:  # the flat harness/ of before the layers
            layers["harness"] = "harness"
            links["harness"] = {"hw", "guest_protocol"}
        for m in re.finditer(r"target_link_libraries\((ktb_\w+)\s+\w+\s+([^)]*)\)", text):
            name = m.group(1)[4:]
            if name in links:
                links[name] |= {w[4:] for w in m.group(2).split() if w.startswith("ktb_")}
        return layers, links

    def reach(self, layer):
        """Every layer LAYER links, transitively."""
        seen, todo = set(), [layer]
        while todo:
            for n in self.links.get(todo.pop(), ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    def layer_of(self, path):
        d = os.path.dirname(path)
        for name, folder in self.layers.items():
            if d == folder:
                return name
        return None

    def resolve(self, path, inc):
        """The file a quoted include in PATH names, or None."""
        base = os.path.basename(inc)
        here = os.path.normpath(os.path.join(os.path.dirname(path), inc))
        if here in self.files:
            return here
        cands = [p for p in self.files if os.path.basename(p) == base]
        layer = self.layer_of(path)
        if layer:
            folders = [self.layers[n] for n in self.reach(layer) if n in self.layers]
            folders += ["hw"] if "hw" in self.reach(layer) else []
            for c in cands:
                if os.path.dirname(c) in folders:
                    return c
        return cands[0] if len(cands) == 1 else None

    def includes(self, path):
        return INCLUDE.findall(self.files[path])


def node(path):
    return os.path.splitext(path)[0]


def check_paths(t):
    bad = []
    for p in t.files:
        for inc in t.includes(p):
            if "/" in inc:
                bad.append(f'{p}: #include "{inc}" (a path: name the file, let the build say where)')
    return bad


# The folders outside the harness's layers and what each may include: the
# machine model only itself; the hybrid drive's daemon itself and the model
# (hw/hybrid/CMakeLists.txt links ktb_hw); the guest only itself.
OTHER = {"hw": ("hw",), "hw/hybrid": ("hw/hybrid", "hw"), "guest": ("guest",)}


def check_order(t):
    bad = []
    for p in t.files:
        layer, d = t.layer_of(p), os.path.dirname(p)
        if not layer and p == "harness/main.c" and "cli" in t.layers:
            layer = "cli"  # ktb's main links ktb_cli
        if layer:
            reach = t.reach(layer)
            allowed = {t.layers[layer]} | {t.layers[n] for n in reach if n in t.layers}
            if "hw" in reach:
                allowed.add("hw")
            if p == "harness/main.c":
                allowed.add("harness")
            what = f"below layer {layer}"
        elif d in OTHER:
            reach, allowed, what = set(), set(OTHER[d]), f"what {d}/ may use"
        else:
            bad.append(f"{p}: in {d}/, which no rule covers: make it a layer "
                       f"(ktb_layer in harness/CMakeLists.txt) or a folder of check_layers.py's OTHER")
            continue
        for inc in t.includes(p):
            target = t.resolve(p, inc)
            ok = target and (os.path.dirname(target) in allowed or
                             (target == "guest/protocol.h" and "guest_protocol" in reach))
            if not ok:
                where = os.path.dirname(target) if target else "nowhere"
                bad.append(f'{p}: #include "{inc}" is in {where}, not {what}')
    return bad


def graph(t):
    g = {}
    for p in t.files:
        g.setdefault(node(p), set())
        for inc in t.includes(p):
            target = t.resolve(p, inc)
            if target and node(target) != node(p):
                g[node(p)].add(node(target))
    return g


def sccs(g):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def cycles(t):
    return [c for c in sccs(graph(t)) if len(c) > 1]


def longest_chain(t):
    """The longest include chain, over the graph with each cycle one node."""
    g = graph(t)
    comp_of = {}
    for k, c in enumerate(sccs(g)):
        for v in c:
            comp_of[v] = k
    best = {}

    def walk(v, active):
        if v in best:
            return best[v]
        active.add(comp_of[v])
        chain = [v]
        for w in sorted(g.get(v, ())):
            if comp_of[w] in active:
                continue
            sub = walk(w, active)
            if len(sub) + 1 > len(chain):
                chain = [v] + sub
        active.discard(comp_of[v])
        best[v] = chain
        return chain

    sys.setrecursionlimit(10000)
    return max((walk(v, set()) for v in sorted(g)), key=len, default=[])


def defined_in(t, path):
    """The functions PATH defines (a body, static or not)."""
    if path not in t.defined:
        code = no_preprocessor(t.code.get(path, ""))
        t.defined[path] = {n for chunk, end in top_level_chunks(code)
                           if end == "{" for n in [func_name(chunk)] if n}
    return t.defined[path]


def check_headers(t):
    bad = []
    for h in sorted(p for p in t.files if p.endswith(".h")):
        own = defined_in(t, h[:-2] + ".c") | defined_in(t, h)
        for chunk, end in top_level_chunks(no_preprocessor(t.code[h])):
            name = func_name(chunk) if end == ";" else None
            if name and name not in own:
                elsewhere = [p for p in t.files if p.endswith(".c") and name in defined_in(t, p)]
                where = ", ".join(elsewhere) if elsewhere else "no .c"
                bad.append(f"{h}: declares {name}, defined in {where}")
    return bad


def spawn_sites(t):
    sites = {}
    for p in sorted(t.files):
        if p.startswith("guest/"):
            continue
        code = no_preprocessor(t.code[p])
        calls = sorted({m.group(1) for m in SPAWN.finditer(code)})
        if calls and p.endswith(".c"):
            sites[p] = calls
    return sites


def check_spawn(t):
    sites = spawn_sites(t)
    if len(sites) <= 1:
        return []
    return [f"{p}: calls {', '.join(c)}" for p, c in sites.items()] + \
        [f"{len(sites)} files start processes; one may"]


BUS_BRANCH = re.compile(r"(?:==|!=)\s*DISK_BUS_(?!COUNT\b|KOPTS_MAX\b)[A-Z0-9_]+\b|"
                        r"\bDISK_BUS_(?!COUNT\b|KOPTS_MAX\b)[A-Z0-9_]+\s*(?:==|!=)|"
                        r"\bcase\s+DISK_BUS_[A-Z0-9_]+")


def branches(t, pattern, what, row):
    """Each branch on a value of a table's enum outside the table (pattern)"""
    bad = []
    for p, text in sorted(t.files.items()):
        code = strip_c(text)
        for m in pattern.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            bad.append(f"{p}:{line}: branches on {what} ({m.group(0).strip()}); "
                       f"ask the {row} instead")
    return bad


def check_bus_branches(t):
    return branches(t, BUS_BRANCH, "a bus", "bus's row (hw/disk_bus.h)")


STEP_BRANCH = re.compile(r"(?:==|!=)\s*STEP_(?!KIND_COUNT\b|TIMEOUT_MS\b)[A-Z0-9_]+\b|"
                         r"\bSTEP_(?!KIND_COUNT\b|TIMEOUT_MS\b)[A-Z0-9_]+\s*(?:==|!=)|"
                         r"\bcase\s+STEP_[A-Z0-9_]+")


def check_step_branches(t):
    return branches(t, STEP_BRANCH, "a step kind", "kind's row (harness/scenario/step_kind.h)")


CHECKS = {"a": ("includes name files, not paths", check_paths),
          "b": ("includes follow the layer order", check_order),
          "c": ("no include cycles", lambda t: [" <-> ".join(c) for c in cycles(t)]),
          "d": ("headers declare only their own .c's functions", check_headers),
          "e": ("one file starts processes", check_spawn),
          "f": ("nothing branches on a disk bus", check_bus_branches),
          "g": ("nothing branches on a step kind", check_step_branches)}


def stats(t):
    per = {}
    for p, text in t.files.items():
        d = os.path.dirname(p)
        f, n = per.get(d, (0, 0))
        per[d] = (f + 1, n + text.count("\n"))
    print("folder                files  lines")
    for d in sorted(per):
        print(f"  {d:20} {per[d][0]:5} {per[d][1]:6}")
    tf = sum(v[0] for v in per.values())
    tl = sum(v[1] for v in per.values())
    print(f"  {'total':20} {tf:5} {tl:6}")
    print("layers: " + ", ".join(f"{n} -> {' '.join(sorted(t.links[n])) or '-'}"
                                 for n in t.layers))
    cyc = cycles(t)
    print(f"include cycles: {len(cyc)}" + (f" (largest {max(map(len, cyc))} nodes)" if cyc else ""))
    for c in cyc:
        print("  " + " <-> ".join(c))
    chain = longest_chain(t)
    print(f"include depth: {max(len(chain) - 1, 0)}: {' -> '.join(chain)}")
    sites = spawn_sites(t)
    print(f"spawn-site files: {len(sites)}")
    for p, c in sites.items():
        print(f"  {p}: {', '.join(c)}")
    print(f"header/definition mismatches: {len(check_headers(t))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--only", default="abcdefg", help="the checks to run, e.g. ab")
    ap.add_argument("--stats", action="store_true", help="print the numbers only; exit 0")
    a = ap.parse_args()
    t = Tree(os.path.abspath(a.root))
    stats(t)
    if a.stats:
        return 0
    failed = False
    for k in a.only:
        title, fn = CHECKS[k]
        bad = fn(t)
        print(f"check {k} ({title}): {'FAIL' if bad else 'ok'}")
        for b in bad:
            print("  " + b)
        failed |= bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
