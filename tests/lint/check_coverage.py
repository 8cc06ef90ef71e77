#!/usr/bin/env python3
"""Every check a library scenario makes has a mutation test that has seen it
fail: a check nobody has seen fail is a defect.

Clauses. Each step of each scenarios/*.yaml, numbered as the harness numbers
it in messages (the first step of `steps:` is step 1; the machine step is
`step machine`), makes these checks, one clause each:
  exit, stdout       expect.exit, expect.stdout (a run step's exit status is
                     a clause only when expect names it: write `exit: 0`)
  finding            expect.finding (the kernel report the step must print)
  json PATH          each key of expect.json
  for                a wait step's console expression
  ktap               a ktap step's verdict ("N of M tests failed")
  suspend            a suspend step's own checks (slept, woke, came back)
  awake_screen       a suspend step's awake_screen (the display back as the
                     capture it names, within its bound)
  refused            a suspend step's `refused:` (the kernel must refuse)
  balloon            a balloon step reaching its size
  fail_path, restore_path   the guest showing the path gone, back
  same_as            a screen step's comparison with an earlier capture
  settle             a measure step's settle
  metrics PATH       each field a run step's `metrics:` takes
A clause's line is the line of its key (of the action key for a step
kind's own checks).

Machine facts. hw/expected.c's facts, read from its source (each
`fact_*(c, PATH, WHAT, ...)` with its path and "what" formats), one fact
kind per path with indices, disk ids and share tags normalised
(numa.nodes.N.cpus, disks.id=X.size_bytes) and told apart by their
"what" where one path holds several (latency and bandwidth).

Rows. Every mutation row (a heredoc line SCENARIO<TAB>SED<TAB>PATTERN in
tests/vm/*.sh, variables and `for` loops expanded as bash would) and every
hand-written case (`ktb_run ... SCENARIO; expect_out PATTERN`, `must_fail
FILE PATTERN`, a must_fail_env row VAR=VALUE<TAB>FILE<TAB>PATTERN, through
the script's own functions) whose scenario is a
library one. A mutated scenario is made with `sed --sandbox` as
tests/vm/lib.sh's mutate does, and its steps are matched to the library
file's (an inserted step shifts the numbers after it), so that the step
the pattern names maps to the library's step.

Crediting. A row credits a clause only when its pattern names the step
(`step N ` literally; `step machine` for facts) and, after that, the
clause's key as the failure message writes it: `PATH:` / `exit:` (not after
a letter, digit, `_` or `.`, so `mismatches:` is not `swap.mismatches:`),
`stdout`, `metrics: PATH`, or for a step kind's own check one of its
messages (SIGNATURES below); a fact when the pattern names its "what"
followed by `:`. A json path may be named by a dotted tail (`wakeup_sources:`
for cycles.0.wakeup_sources) that no other clause of the step ends with.
Regex escapes (`\\.`, `\\(`) are read as the character.

Presence. A clause that is only there to show a value is present marks
itself with a comment on its line: `# presence: REASON` (the reason
non-empty). It then needs no row. In a flow mapping the mark covers every
clause on the line. A fact kind is marked the same way on its line in
hw/expected.c (`/* presence: REASON */`).

It prints the figures; --list adds every uncovered clause
(`scenario:line: step N key`), uncovered fact and the rows that credit
nothing although their pattern is about a check (it names a step, or a
clause of its scenario or a fact as above): a row about something else (a
load refusal, a SKIP line) is not listed.
Exit status: 1 when a clause or fact is uncovered or a mark has no reason,
0 otherwise or with --report-only (unless KTB_COVERAGE_STRICT=1); 2 when a
file cannot be read.
"""
import argparse
import difflib
import glob
import json
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("check_coverage: python3-yaml is missing (./bootstrap installs it)", file=sys.stderr)
    sys.exit(2)

ACTIONS = ("run", "wait", "qmp", "suspend", "fail_path", "restore_path", "balloon", "measure",
           "power_loss", "hybrid_stats", "ktap", "screen")

# What a step kind's own check says when it fails (harness/steps/): a row
# names the check when its pattern holds one of these.
SIGNATURES = {
    "for": r"the console did not show",
    "ktap": r"tests failed|no test ran|malformed KTAP",
    "suspend": r"refused to suspend|does not offer|did not reach S[34]|says it suspended|"
               r"never woke up|did not come back|suspend entr|hibernat|booted afresh|"
               r"refusing to freeze|freezing failed|cycle [0-9]+ (of|failed)",
    "refused": r"the kernel did not refuse",
    "awake_screen": r"(?<![\w.])awake_screen: ",
    "balloon": r"balloon did not reach|the balloon reached",
    "fail_path": r"fail_path of path|never showed path .*gone|no dm-multipath path|has no path",
    "restore_path": r"restore_path of path|never showed path .*back and active",
    "same_as": r"the screen differs from|the screen is [0-9]|is blank",
    "settle": r"did not settle",
}

PRESENCE = re.compile(r"(?:^|\s)(?:#|/\*)\s*presence:([^\n]*?)(?:\*/)?\s*$")
STEP_MENTION = re.compile(r"(?<![\w-])step (\d+|machine)\b")


class Clause:
    def __init__(self, scenario, file, line, step, key, test):
        self.scenario, self.file, self.line, self.step, self.key = scenario, file, line, step, key
        self.test = test  # normalised pattern text after the step -> names this clause?
        self.credits = []
        self.mark = None  # None, or the reason ("" for a mark without one)
        self.path = None  # a json clause's path


def key_named(key):
    rx = re.compile(r"(?<![\w.])" + re.escape(key) + r"(:|\$?$)")
    return lambda seg: bool(rx.search(seg))


def unescape(pattern):
    """A pattern's text as it reads: \\. is ., \\( is (."""
    return re.sub(r"\\([^\w\s])", r"\1", pattern)


def presence_mark(lines, line):
    if 1 <= line <= len(lines):
        m = PRESENCE.search(lines[line - 1])
        if m:
            return m.group(1).strip()
    return None


# --- the scenarios' clauses ---------------------------------------------------

def mapping(node):
    return {k.value: (k, v) for k, v in node.value} if isinstance(node, yaml.MappingNode) else {}


def step_clauses(name, rel, num, node):
    out = []
    keys = mapping(node)
    kind = next((a for a in ACTIONS if a in keys), None)

    def add(key, knode, test):
        out.append(Clause(name, rel, knode.start_mark.line + 1, num, key, test))

    exp = mapping(keys["expect"][1]) if "expect" in keys else {}
    if "exit" in exp:
        add("exit", exp["exit"][0], key_named("exit"))
    if kind == "run" and "expect" not in keys:
        add("exit", keys["run"][0], key_named("exit"))  # the step's one check
    if "stdout" in exp:
        add("stdout", exp["stdout"][0], lambda s: bool(re.search(r"(?<![\w.])stdout\b", s)))
    if "finding" in exp:
        add("finding", exp["finding"][0], key_named("finding"))
    if "json" in exp:
        for path, (knode, _) in mapping(exp["json"][1]).items():
            add("json " + path, knode, key_named(path))
            out[-1].path = path
    own = []
    if kind == "wait" and "for" in keys:
        own.append("for")
    if kind in ("ktap", "suspend", "balloon", "fail_path", "restore_path"):
        own.append(kind)
    if kind == "suspend" and "refused" in keys:
        own.append("refused")
    if kind == "suspend" and "awake_screen" in keys:
        own.append("awake_screen")
    if kind == "screen" and "same_as" in keys:
        own.append("same_as")
    if kind == "measure" and "settle" in keys:
        own.append("settle")
    for k in own:
        rx = re.compile(SIGNATURES[k])
        add(k, keys[k][0] if k in keys else keys[kind][0], lambda s, rx=rx: bool(rx.search(s)))
    if kind == "run" and "metrics" in keys and isinstance(keys["metrics"][1], yaml.SequenceNode):
        for item in keys["metrics"][1].value:
            rx = re.compile(r"metrics: " + re.escape(str(item.value)) + r"\b")
            out.append(Clause(name, rel, item.start_mark.line + 1, num, "metrics " + item.value,
                              lambda s, rx=rx: bool(rx.search(s))))
    return out


def load_scenario(root, path):
    rel = os.path.relpath(path, root)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = yaml.compose(text, Loader=yaml.SafeLoader)
    top = mapping(doc)
    name = os.path.basename(path)[:-5]  # as tests/vm/lib.sh's mutate names it
    steps = top["steps"][1].value if "steps" in top else []
    clauses = []
    for i, st in enumerate(steps):
        clauses += step_clauses(name, rel, i + 1, st)
    lines = text.split("\n")
    for c in clauses:
        c.mark = presence_mark(lines, c.line)
    return name, clauses


# --- the machine facts (hw/expected.c) ----------------------------------------

class Fact:
    def __init__(self, path, what, line, mark):
        self.path, self.line, self.mark, self.credits = path, line, mark, []
        self.what = what
        rx = ""
        parts = re.split(r"(%[us])", what)
        for i, p in enumerate(parts):
            if p == "%u":
                rx += r"[0-9]+"
            elif p == "%s":
                rx += r".*" if i == len(parts) - 2 and not parts[-1] else r"\S+"
            else:
                rx += re.escape(p)
        self.rx = re.compile(r"(?<![\w.])" + rx + r":")


def c_string(s):
    return s.encode().decode("unicode_escape")


def machine_facts(root):
    path = os.path.join(root, "hw", "expected.c")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")

    def lineno(pos):
        return text.count("\n", 0, pos) + 1

    base = dict((m.start(), c_string(m.group(1))) for m in re.finditer(
        r'snprintf\(base,\s*sizeof\(base\),\s*"([^"]*)"', text))
    events = []
    for m in re.finditer(r'snprintf\((path|what),\s*sizeof\(\1\),\s*"([^"]*)"', text):
        events.append((m.start(), m.group(1), c_string(m.group(2)), lineno(m.start())))
    for m in re.finditer(r'fact_\w+\(\s*c,\s*("([^"]*)"|path),\s*("([^"]*)"|what)', text):
        events.append((m.start(), "fact", (m.group(2), m.group(4)), lineno(m.start(3))))
    events.sort()
    facts, cur_path, cur_what = {}, None, None
    for pos, kind, val, line in events:
        if kind == "path":
            cur_path = val
            if cur_path.startswith("%s.") and base:
                near = min(base, key=lambda b: abs(b - pos))
                cur_path = base[near] + cur_path[2:]
        elif kind == "what":
            cur_what = (c_string(val), line)
        else:
            p = c_string(val[0]) if val[0] is not None else cur_path
            if val[1] is not None:
                w, wline = c_string(val[1]), line
            elif cur_what:
                w, wline = cur_what
            else:
                continue
            if p is None:
                continue
            key = re.sub(r"%u", "N", re.sub(r"(id|tag)=%s", r"\1=X", p)).replace("%s", "X")
            if (key, w) not in facts:
                facts[(key, w)] = Fact(key, w, wline, presence_mark(lines, wline))
    # fact_new(c, path, "disk %s (%s, %s)", ...): its "what" is the format
    for m in re.finditer(r'fact_new\(\s*c,\s*path,\s*"([^"]*)"', text):
        prev = [e for e in events if e[0] < m.start() and e[1] == "path"]
        if not prev:
            continue
        p = prev[-1][2]
        if p.startswith("%s.") and base:
            p = base[min(base, key=lambda b: abs(b - m.start()))] + p[2:]
        key = re.sub(r"%u", "N", re.sub(r"(id|tag)=%s", r"\1=X", p)).replace("%s", "X")
        w, line = c_string(m.group(1)), lineno(m.start(1))
        if (key, w) not in facts:
            facts[(key, w)] = Fact(key, w, line, presence_mark(lines, line))
    return list(facts.values())


# --- the rows and cases of tests/vm/*.sh --------------------------------------

class Mutant:
    def __init__(self, name, expr):
        self.name, self.expr = name, expr


UNKNOWN = None
ANSI = {"t": "\t", "n": "\n", "\\": "\\", "'": "'", '"': '"', "e": "\033", "a": "\a"}


def dquote_end(s, i):
    """The index of the '"' that closes the one at i (escapes and $(...) skipped)."""
    j, n = i + 1, len(s)
    while j < n and s[j] != '"':
        if s[j] == "\\":
            j += 1
        elif s.startswith("$(", j):
            j = match_close(s, j + 2)
        j += 1
    return j


def match_close(s, i):
    """s[i] just after '$(': the index of its ')'."""
    depth, n = 1, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = s.index("'", i + 1) + 1 if "'" in s[i + 1:] else n
            continue
        if c == '"':
            i = dquote_end(s, i) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if not depth:
                return i
        i += 1
    return n


def split_words(s):
    """Shell words of one command line (raw text each), commands split at
    ; && || |, comments dropped. Returns a list of commands (lists)."""
    cmds, words, cur, i, n = [], [], None, 0, len(s)
    while i < n:
        c = s[i]
        if c in " \t":
            if cur is not None:
                words.append(cur)
                cur = None
            i += 1
            continue
        if cur is None and c == "#":
            break
        if c in ";|&" and not (c == "&" and (s[i - 1:i] == ">" or s[i + 1:i + 2] == ">")):
            if cur is not None:
                words.append(cur)
                cur = None
            if words:
                cmds.append(words)
            words = []
            i += 2 if s[i:i + 2] in ("&&", "||", ";;") else 1
            continue
        cur = cur or ""
        if c == "\\":
            cur += s[i:i + 2]
            i += 2
        elif c == "'":
            j = s.find("'", i + 1)
            j = n - 1 if j < 0 else j
            cur += s[i:j + 1]
            i = j + 1
        elif s.startswith("$'", i):
            j = i + 2
            while j < n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            cur += s[i:j + 1]
            i = j + 1
        elif c == '"':
            j = dquote_end(s, i)
            cur += s[i:j + 1]
            i = j + 1
        elif s.startswith("$(", i):
            j = match_close(s, i + 2)
            cur += s[i:j + 1]
            i = j + 1
        else:
            cur += c
            i += 1
    if cur is not None:
        words.append(cur)
    if words:
        cmds.append(words)
    return cmds


def expand(word, env, dq=False):
    """A word's value: a string, a Mutant ("$(mutate NAME EXPR)" alone), or
    UNKNOWN."""
    parts, i, n = [], 0, len(word)
    while i < n:
        c = word[i]
        if c == "\\" and i + 1 < n:
            if dq and word[i + 1] not in '$`"\\\n':
                parts.append(word[i:i + 2])
            else:
                parts.append(word[i + 1])
            i += 2
        elif c == "'" and not dq:
            j = word.find("'", i + 1)
            j = n if j < 0 else j
            parts.append(word[i + 1:j])
            i = j + 1
        elif word.startswith("$'", i) and not dq:
            j, lit = i + 2, ""
            while j < n and word[j] != "'":
                if word[j] == "\\" and j + 1 < n:
                    lit += ANSI.get(word[j + 1], "\\" + word[j + 1])
                    j += 2
                else:
                    lit += word[j]
                    j += 1
            parts.append(lit)
            i = j + 1
        elif c == '"' and not dq:
            j = i + 1
            while j < n and word[j] != '"':
                if word[j] == "\\":
                    j += 1
                elif word.startswith("$(", j):
                    j = match_close(word, j + 2)
                j += 1
            parts.append(expand(word[i + 1:j], env, True))
            i = j + 1
        elif word.startswith("$(", i):
            j = match_close(word, i + 2)
            parts.append(command_value(word[i + 2:j], env))
            i = j + 1
        elif c == "$":
            m = re.match(r"\$(?:\{(\w+)\}|(\w+))", word[i:])
            if not m:
                parts.append(c)
                i += 1
                continue
            parts.append(env.get(m.group(1) or m.group(2), UNKNOWN))
            i += m.end()
        else:
            parts.append(c)
            i += 1
    if len(parts) == 1 and isinstance(parts[0], Mutant):
        return parts[0]
    if any(p is UNKNOWN or isinstance(p, Mutant) for p in parts):
        return UNKNOWN
    return "".join(parts)


def command_value(text, env):
    """$(...): a mutant for mutate, a harmless placeholder otherwise."""
    cmds = split_words(text)
    if len(cmds) == 1 and cmds[0][0] == "mutate" and len(cmds[0]) == 3:
        name, expr = expand(cmds[0][1], env), expand(cmds[0][2], env)
        if isinstance(name, str) and isinstance(expr, str):
            return Mutant(name, expr)
    return UNKNOWN


def heredoc_text(body, env):
    """An unquoted heredoc's body as bash expands it; UNKNOWN per line
    where it uses what cannot be known."""
    out = []
    for line in body:
        s, i, n, ok = "", 0, len(line), True
        while i < n:
            c = line[i]
            if c == "\\" and i + 1 < n and line[i + 1] in "$`\\":
                s += line[i + 1]
                i += 2
            elif c == "$" and line.startswith("$(", i) or c == "`":
                ok = False
                break
            elif c == "$":
                m = re.match(r"\$(?:\{(\w+)\}|(\w+))", line[i:])
                if not m:
                    s += c
                    i += 1
                    continue
                v = env.get(m.group(1) or m.group(2), UNKNOWN)
                if not isinstance(v, str):
                    ok = False
                    break
                s += v
                i += m.end()
            else:
                s += c
                i += 1
        out.append(s if ok else UNKNOWN)
    return out


HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)(\w+)\2")


def logical_lines(text):
    """(line number, text, heredoc body or None, quoted) with continuations
    joined and heredoc bodies taken out."""
    raw = text.split("\n")
    out, i = [], 0
    while i < len(raw):
        start, line = i + 1, raw[i]
        while line.endswith("\\") and i + 1 < len(raw):
            i += 1
            line = line[:-1] + raw[i]
        i += 1
        m = HEREDOC.search(line)
        body, quoted = None, False
        if m and "<<<" not in line:
            body, quoted = [], bool(m.group(2))
            while i < len(raw) and (raw[i].lstrip("\t") if m.group(1) else raw[i]) != m.group(3):
                body.append(raw[i])
                i += 1
            i += 1
        out.append((start, line, body, quoted))
    return out


OPEN = re.compile(r"^\s*(for|while|until)\b")
DONE = re.compile(r"^\s*done\b")
FUNC = re.compile(r"^\s*(\w+)\s*\(\)\s*\{?\s*$")


class ScriptReader:
    def __init__(self, rel, library, cases):
        self.rel, self.library, self.cases = rel, library, cases
        self.funcs, self.target = {}, None

    def run(self, items, env):
        i = 0
        while i < len(items):
            line, text, body, quoted = items[i]
            m = FUNC.match(text)
            if m:
                j = i + 1
                while j < len(items) and not re.match(r"^\}\s*$", items[j][1]):
                    j += 1
                self.funcs[m.group(1)] = items[i + 1:j]
                i = j + 1
                continue
            if OPEN.match(text):
                depth, j = 1, i + 1
                while j < len(items) and depth:
                    if OPEN.match(items[j][1]):
                        depth += 1
                    if DONE.match(items[j][1]):
                        depth -= 1
                    j += 1
                inner, done = items[i + 1:j - 1], items[j - 1] if j - 1 > i else None
                m = re.match(r"^\s*for\s+(\w+)\s+in\s+(.*?)\s*(;\s*do)?\s*$", text)
                values = [UNKNOWN]
                if m:
                    vals = [expand(w, env) for c in split_words(m.group(2)) for w in c]
                    values = vals if all(isinstance(v, str) for v in vals) else [UNKNOWN]
                for v in values:
                    e = dict(env)
                    if m:
                        e[m.group(1)] = v
                    if done and done[2] is not None:
                        self.rows(done, e)
                    self.run([it for it in inner if not re.match(r"^\s*do\s*$", it[1])], e)
                i = j
                continue
            if body is not None:
                self.rows(items[i], env)
            for words in split_words(text):
                self.command(line, words, env)
            i += 1

    def rows(self, item, env):
        line, _, body, quoted = item
        texts = body if quoted else heredoc_text(body, env)
        for k, row in enumerate(texts):
            if not isinstance(row, str):
                continue
            f = row.split("\t")
            if len(f) == 3 and f[0] in self.library:
                self.cases.append((self.rel, line + 1 + k, f[0], f[1], f[2]))
            elif len(f) == 3 and re.match(r"^\w+=", f[0]):
                # must_fail_env's VAR=VALUE<TAB>FILE<TAB>PATTERN: FILE unchanged
                t = self.target_of([f[1]])
                if t:
                    self.cases.append((self.rel, line + 1 + k, t[0], t[1], f[2]))

    def target_of(self, args):
        found = []
        for a in args:
            if isinstance(a, Mutant) and a.name in self.library:
                found.append((a.name, a.expr))
            elif isinstance(a, str):
                m = re.match(r"^@SRC/scenarios/([\w.-]+)\.yaml$", a)
                if m and m.group(1) in self.library:
                    found.append((m.group(1), None))
        return found[0] if len(found) == 1 else None

    def command(self, line, words, env):
        k = 0
        while k < len(words) and re.match(r"^\w+=", words[k]):
            k += 1
        if k == len(words):
            for w in words:
                name, val = w.split("=", 1)
                env[name] = expand(val, env)
            return
        if words[0] in ("local", "export", "readonly"):
            for w in words[1:]:
                if "=" in w:
                    name, val = w.split("=", 1)
                    env[name] = expand(val, env)
            return
        cmd, args = words[k], [expand(w, env) for w in words[k + 1:]]
        if cmd == "ktb_run":
            self.target = self.target_of(args)
        elif cmd == "expect_out" and args and isinstance(args[0], str) and self.target:
            self.cases.append((self.rel, line, self.target[0], self.target[1], args[0]))
        elif cmd == "must_fail" and len(args) == 2 and isinstance(args[1], str):
            t = self.target_of(args[:1])
            if t:
                self.cases.append((self.rel, line, t[0], t[1], args[1]))
        elif cmd in self.funcs:
            e = dict(env)
            for n, a in enumerate(args):
                e[str(n + 1)] = a
            body = self.funcs.pop(cmd)  # no recursion
            try:
                self.run(body, e)
            finally:
                self.funcs[cmd] = body


def mutation_cases(root, library):
    """(script, line, scenario, sed expression or None, pattern) for every
    row and hand-written case on a library scenario."""
    cases = []
    base = {"KTB_SRC": "@SRC"}
    # the scripts source lib.sh: its assignments (sed expressions shared by
    # several tables) are known in each; its functions are not run here
    lib = os.path.join(root, "tests", "vm", "lib.sh")
    if os.path.exists(lib):
        with open(lib, encoding="utf-8") as f:
            ScriptReader("tests/vm/lib.sh", library, []).run(logical_lines(f.read()), base)
    for path in sorted(glob.glob(os.path.join(root, "tests", "vm", "*.sh"))):
        if os.path.basename(path) == "lib.sh":
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        reader = ScriptReader(os.path.relpath(path, root), library, cases)
        reader.run(logical_lines(text), dict(base))
    return cases


# --- crediting -----------------------------------------------------------------

def step_fingerprints(doc):
    steps = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(steps, list):
        return None
    return [json.dumps(s, sort_keys=True, default=str) for s in steps]


def step_map(lib, mut):
    """Mutant step number -> library step number (or None: inserted)."""
    out = {}
    sm = difflib.SequenceMatcher(None, lib, mut, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            for d in range(j2 - j1):
                out[j1 + d + 1] = i1 + d + 1
        elif op == "replace":
            for j in range(j1, j2):
                best = max(range(i1, i2), key=lambda i: difflib.SequenceMatcher(
                    None, lib[i], mut[j]).ratio())
                if difflib.SequenceMatcher(None, lib[best], mut[j]).ratio() > 0.6:
                    out[j + 1] = best + 1
    return out


class Mapper:
    def __init__(self, root):
        self.root, self.cache, self.lib = root, {}, {}

    def lib_steps(self, name):
        if name not in self.lib:
            with open(os.path.join(self.root, "scenarios", name + ".yaml"), encoding="utf-8") as f:
                self.lib[name] = step_fingerprints(yaml.safe_load(f))
        return self.lib[name]

    def steps(self, name, expr):
        """Mutant step number -> library step number; None when the mutant
        cannot be made or loaded."""
        key = (name, expr)
        if key in self.cache:
            return self.cache[key]
        lib = self.lib_steps(name)
        result = None
        if expr is None:
            result = {i + 1: i + 1 for i in range(len(lib or []))}
        else:
            src = os.path.join(self.root, "scenarios", name + ".yaml")
            r = subprocess.run(["sed", "--sandbox", "-e", expr, src], capture_output=True,
                               text=True)
            if r.returncode == 0:
                try:
                    mut = step_fingerprints(yaml.safe_load(r.stdout))
                except yaml.YAMLError:
                    mut = None
                if mut is not None and lib is not None:
                    result = step_map(lib, mut)
        self.cache[key] = result
        return result


def tail_named(clause, step, seg):
    """A json path named by its dotted tail (wakeup_sources: for
    cycles.0.wakeup_sources), where no other clause of the step has that
    tail: grep finds that clause's message and no other's."""
    if not clause.path:
        return False
    parts = clause.path.split(".")
    for i in range(1, len(parts)):
        tail = ".".join(parts[i:])
        if not key_named(tail)(seg):
            continue
        others = [c for c in step if c is not clause and c.path and
                  (c.path == tail or c.path.endswith("." + tail))]
        if not others:
            return True
    return False


def credit(root, clauses, facts, cases):
    by_step, clauses_of = {}, {}
    for c in clauses:
        by_step.setdefault((c.scenario, c.step), []).append(c)
        clauses_of.setdefault(c.scenario, []).append(c)
    mapper, idle, elsewhere = Mapper(root), [], []
    for case in cases:
        script, line, name, expr, pattern = case
        m = STEP_MENTION.search(pattern)
        got = False
        if m:
            seg = unescape(pattern[m.end():])
            if m.group(1) == "machine":
                for f in facts:
                    if f.rx.search(seg):
                        f.credits.append(case)
                        got = True
            else:
                smap = mapper.steps(name, expr) or {}
                lib_step = smap.get(int(m.group(1)))
                step = by_step.get((name, lib_step), [])
                for c in step:
                    if c.test(seg) or tail_named(c, step, seg):
                        c.credits.append(case)
                        got = True
        if not got:
            (idle if aimed(pattern, clauses_of.get(name, []), facts) else elsewhere).append(case)
    return idle, elsewhere


def aimed(pattern, clauses, facts):
    """Whether a row's pattern is about a check: it names a step, or
    anywhere a clause of its scenario or a fact, as a crediting pattern
    would. A row about something else (a load refusal, a SKIP line, a
    libvirt pool's message) credits nothing and is not listed."""
    if STEP_MENTION.search(pattern):
        return True
    seg = unescape(pattern)
    return any(c.test(seg) or tail_named(c, clauses, seg) for c in clauses) or \
        any(f.rx.search(seg) for f in facts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--list", action="store_true", help="list what is not covered")
    ap.add_argument("--report-only", action="store_true",
                    help="exit 0 whatever is uncovered (KTB_COVERAGE_STRICT=1 overrides)")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    try:
        clauses, library = [], set()
        for path in sorted(glob.glob(os.path.join(root, "scenarios", "*.yaml"))):
            name, cl = load_scenario(root, path)
            library.add(name)
            clauses += cl
        facts = machine_facts(root)
        cases = mutation_cases(root, library)
    except (OSError, yaml.YAMLError) as e:
        print(f"check_coverage: {e}", file=sys.stderr)
        return 2
    if not facts:
        print("check_coverage: no machine facts found in hw/expected.c", file=sys.stderr)
        return 2
    idle, elsewhere = credit(root, clauses, facts, cases)

    covered = [c for c in clauses if c.credits]
    marked = [c for c in clauses if not c.credits and c.mark]
    bad_marks = [c for c in clauses if c.mark == ""] + [f for f in facts if f.mark == ""]
    open_ = [c for c in clauses if not c.credits and not c.mark]
    f_cov = [f for f in facts if f.credits]
    f_open = [f for f in facts if not f.credits and not f.mark]
    pct = 100.0 * len(covered) / len(clauses) if clauses else 100.0
    print(f"clauses: {len(covered)}/{len(clauses)} covered by a mutation row ({pct:.1f}%), "
          f"{len(marked)} marked presence, {len(open_)} uncovered "
          f"({len(library)} scenarios, {len(cases)} rows and cases)")
    print(f"machine facts: {len(f_cov)}/{len(facts)} covered, "
          f"{len(facts) - len(f_cov) - len(f_open)} marked presence, {len(f_open)} uncovered")
    for c in bad_marks:
        where = f"{c.file}:{c.line}" if isinstance(c, Clause) else f"hw/expected.c:{c.line}"
        print(f"{where}: a presence mark needs its reason: # presence: REASON")
    if a.list:
        for c in open_:
            print(f"{c.file}:{c.line}: step {c.step} {c.key}")
        for f in f_open:
            print(f"hw/expected.c:{f.line}: step machine {f.path} ({f.what})")
        for script, line, name, expr, pattern in idle:
            print(f"{script}:{line}: credits nothing: {name}: {pattern}")
        if elsewhere:
            print(f"({len(elsewhere)} rows and cases are about no check: their patterns name no "
                  f"step, clause or fact; not listed)")
    strict = not a.report_only or os.environ.get("KTB_COVERAGE_STRICT") == "1"
    return 1 if strict and (open_ or f_open or bad_marks) else 0


if __name__ == "__main__":
    sys.exit(main())
