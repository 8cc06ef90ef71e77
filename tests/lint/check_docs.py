#!/usr/bin/env python3
"""The docs as tests: README.md and docs/*.md checked against the tree.

Checks (each one a kind; --only picks some, -v lists what was checked):

  yaml     every ```yaml block of README.md and docs/*.md loads with the real
           loader (`ktb run --list FILE`, which loads and validates without
           booting). What a block is comes from its shape and from the words
           after `yaml` in its fence (Markdown renderers ignore them):
             (no word)        a mapping at column 0 with `steps` is a whole
                              scenario; any other block is a fragment put
                              into the built-in base, `steps: [run: "true"]`
             base=PATH        the fragment goes into that file (a library
                              scenario) instead of the built-in base
             file=PATH        the block is that file: equal line by line
                              (trailing blanks aside), except that the file's
                              leading comment lines may be left out
             mkdir=D1,D2      folders made beside the scenario before it is
                              loaded (an example's relative share folders)
             not-a-scenario   CI configuration, Kubernetes: only parsed as
                              YAML; counted, listed with -v
           A fragment is placed by its shape:
             a mapping at column 0      its top-level keys replace the base's
             a list                     the steps: it replaces the base's
             an indented mapping        one step's body: it replaces the
                                        base's steps; a body of only name,
                                        timeout and expect is given
                                        `run: "true"` (a run step takes
                                        every expect key)
           A block that is none of these (a scalar, a list of scalars, not
           YAML) fails. The loader's messages are reported at the docs'
           file:line:col when they point into the block.
  file     the file= blocks (above) equal their files, and docs/guest.md
           shows images/default.yaml that way
  options  every command `ktb --help` lists has a `## ktb CMD` section in
           docs/cli.md, and every section a command; the options of
           `ktb CMD --help` (the option column of its lines that start with
           `-` and the options of its usage lines) equal the options in the
           first column of the section's option tables (a table whose header
           starts `| option`) or, for a section without one, of the option
           tables of the sections it links to with an anchor (cli.md's bisect
           section could point to bisect.md#options): both ways
  cmdline  the command line shown in docs/scenarios.md (the first fenced
           block after "The kernel command line") has every word
           vm_kernel_cmdline (harness/vm/vm_cmdline.c) writes and no other:
           the words of its string literals and of the string macros it
           uses, and the `KEY=` prefixes (literals ending in `=`) of the
           functions it calls. A word `KEY=` stands for any `KEY=VALUE` on
           the page; `<...>` on the page is a placeholder
  result   docs/results.md against what harness/result/result.c and
           harness/steps/machine_step.c write: the keys each of
           scenario_result_to_json, step_result_to_json, subtests_to_json,
           run_result_to_json and machine_check_compare sets (a key set under
           an `if` is optional, all others always present), in their order.
           The tables marked `<!-- fields: NAME -->` (result.json, step,
           machine-data, run-document) list exactly those keys in that order;
           the JSON blocks marked `json example=result.json` and
           `json example=run-document` have every key that is always present
           and no unknown one, in that order, the result.json example's
           steps begin with the `machine` step and each step, subtest and the
           machine step's data hold their keys the same way. In an example a
           list `[ ...words... ]` is elided content
  numbers  what the docs state about the library equals what the tool says
           today: "N scenarios" and "N of M scenarios" / "N/M scenarios" (M)
           against the scenarios `ktb list` prints; "N options" in a sentence
           that names `ktb kconfig` against the CONFIG_ lines of `ktb kconfig`
           (with --minimal when the sentence says minimal); in a transcript
           (a fenced block starting `$ build/harness/ktb ` or `$ ktb `) of
           `ktb list` or `ktb kconfig`, every line shown but `...` appears in
           the real output, in order, and "N options merged" of a
           `kconfig --apply` transcript is the count of the same command
           without --apply. Other transcripts are not run (they would boot or
           probe the host).
           The rule for stale figures: a figure may stay when it is part of a
           measurement record, that is, it stands in a section whose heading
           says "measured" (any level, up to the next heading of that level
           or above) or in a paragraph or table row that says "measured", and
           that section or paragraph names the date (YYYY-MM-DD) or the
           commit ("commit" and 7 to 40 hex digits) of the measurement.
           Everything else is a claim about today's tree.
  links    every relative link [x](path#anchor) of README.md and docs/*.md
           names a file or folder of the tree and, for a .md file, a heading
           of it by GitHub's rules (lower case, punctuation but `-` and `_`
           dropped, spaces to `-`, a repeated heading gets -1, -2, ...) or an
           <a id/name> of it; a bare #anchor is the page's own
  sources  docs/architecture.md names every C source of the program and the
           guest (each .c under harness/, hw/ and guest/), as `NAME.c` or with
           the end of its path (`vm/vm_cmdline.c`); and every `NAME.c` or `DIR/NAME.c` it names is a file of
           the tree (its path ends so); a name with an upper-case word
           (`report_NAME.c`) is a placeholder

It prints each finding as FILE:LINE: KIND: what, then the counts by kind.
The exit status is 1 when a selected check found something, 2 on bad usage.
It runs `ktb` only for --help, list, kconfig without --apply and run --list:
nothing boots. KTB_SOURCE_DIR is set to --root so ktb's default library is
the tree's.
"""
import argparse
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # reported as a finding where a check needs it
    yaml = None

KINDS = ("yaml", "file", "options", "cmdline", "result", "numbers", "links", "sources")

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)(.*)$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
TOPKEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(\s|$)")
LOADER_MSG = re.compile(r"^ktb(?: [a-z]+)?: (.+?):(\d+):(\d+): (.*)$")
LOADER_MSG_NOPOS = re.compile(r"^ktb(?: [a-z]+)?: (.+?): (.*)$")
STEP_WITHOUT_ACTION = {"name", "timeout", "expect"}  # keys that are no action
INFO_WORDS = ("base=", "file=", "mkdir=", "not-a-scenario")


# ---- Markdown ----

class Block:
    def __init__(self, line, indent, lang, info, lines):
        self.line = line  # the opening fence's line, 1-based
        self.indent = indent  # the fence's indentation, taken off every line
        self.lang = lang
        self.info = info.strip()
        self.lines = lines  # the content, fence indentation removed

    def words(self):
        try:
            return shlex.split(self.info)
        except ValueError:
            return self.info.split()


class Page:
    def __init__(self, root, rel):
        self.rel = rel
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.blocks = []
        self.in_code = set()
        self.headings = []  # (line, level, text)
        i, n = 0, len(self.lines)
        while i < n:
            m = FENCE.match(self.lines[i])
            if m and not m.group(4).count(m.group(2)[0] * 3):
                indent, fence = len(m.group(1)), m.group(2)
                j = i + 1
                close = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) +
                                   r",}\s*$")
                while j < n and not close.match(self.lines[j]):
                    j += 1
                body = [dedent_by(ln, indent) for ln in self.lines[i + 1:j]]
                self.blocks.append(Block(i + 1, indent, m.group(3).lower(), m.group(4), body))
                self.in_code.update(range(i + 1, j + 2))
                i = j + 1
                continue
            h = HEADING.match(self.lines[i])
            if h:
                self.headings.append((i + 1, len(h.group(1)), h.group(2)))
            i += 1

    def section(self, line):
        """(start, end) lines of the innermost section holding line."""
        inner = self.sections_of(line)
        return (inner[-1][0], inner[-1][3]) if inner else (1, len(self.lines))

    def sections_of(self, line):
        """Every section (heading line, level, text, end) that holds line."""
        out = []
        for k, (hl, lvl, text) in enumerate(self.headings):
            if hl > line:
                break
            end = len(self.lines)
            for hl2, lvl2, _ in self.headings[k + 1:]:
                if lvl2 <= lvl:
                    end = hl2 - 1
                    break
            if end >= line:
                out.append((hl, lvl, text, end))
        return out

    def heading_section(self, pattern, level=None):
        """(heading line, end line) of the first heading matching pattern."""
        for k, (hl, lvl, text) in enumerate(self.headings):
            if re.search(pattern, text) and (level is None or lvl == level):
                end = len(self.lines)
                for hl2, lvl2, _ in self.headings[k + 1:]:
                    if lvl2 <= lvl:
                        end = hl2 - 1
                        break
                return hl, end
        return None

    def paragraph(self, line):
        """(start, end) of the paragraph or table row holding line."""
        if self.lines[line - 1].lstrip().startswith("|"):
            return line, line
        s = line
        while s > 1 and self.lines[s - 2].strip() and s - 1 not in self.in_code \
                and not HEADING.match(self.lines[s - 2]):
            s -= 1
        e = line
        while e < len(self.lines) and self.lines[e].strip() and e + 1 not in self.in_code \
                and not HEADING.match(self.lines[e]):
            e += 1
        return s, e

    def tables(self, start, end):
        """Tables between lines start and end: [(header line, [cells], rows)],
        rows [(line, [cells])]."""
        out, i = [], start
        while i <= end:
            ln = self.lines[i - 1]
            if i not in self.in_code and ln.lstrip().startswith("|") and i + 1 <= end \
                    and re.match(r"^\s*\|\s*:?-{3,}", self.lines[i]):
                header, rows, j = split_row(ln), [], i + 2
                while j <= end and self.lines[j - 1].lstrip().startswith("|"):
                    rows.append((j, split_row(self.lines[j - 1])))
                    j += 1
                out.append((i, header, rows))
                i = j
            else:
                i += 1
        return out


def dedent_by(line, n):
    k = 0
    while k < n and k < len(line) and line[k] == " ":
        k += 1
    return line[k:]


def split_row(line):
    cells, cur, i, s = [], "", 0, line.strip()
    if s.startswith("|"):
        s = s[1:]
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            cur += s[i:i + 2]
            i += 2
            continue
        if s[i] == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += s[i]
        i += 1
    if cur.strip():
        cells.append(cur.strip())
    return cells


def code_spans(text):
    return [m.group(1) for m in re.finditer(r"`+([^`]+?)`+", text)]


def option_tokens(text):
    """The options (-x, --long) of a piece of usage text: whitespace-separated
    tokens that start with '-' once brackets and pipes are taken off."""
    out = []
    for tok in re.split(r"[\s|]+", text.replace("\\|", "|")):
        tok = tok.lstrip("[(")
        m = re.match(r"^(--?[A-Za-z0-9][A-Za-z0-9-]*)", tok)
        if m and not re.match(r"^-\d", tok):
            out.append(m.group(1))
    return out


def github_slug(text):
    """GitHub's anchor for a heading's text."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    t = re.sub(r"<[^>]+>", "", t)  # inline HTML
    t = t.replace("`", "").replace("*", "")
    t = t.strip().lower()
    t = "".join(c for c in t if c.isalnum() or c in " -_")
    return t.replace(" ", "-")


# ---- C sources ----

def strip_comments(text):
    """Comments blanked out; string literals kept; line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def function_body(text, name):
    """The body (between the braces) of C function name's definition, or None."""
    code = strip_comments(text)
    for m in re.finditer(r"(?m)^[A-Za-z_][^;{}()]*?\b" + re.escape(name) + r"\s*\(", code):
        i = code.find("{", m.end())
        semi = code.find(";", m.end())
        if i < 0 or (0 <= semi < i):
            continue
        depth, j = 0, i
        while j < len(code):
            if code[j] in "\"'":
                q, j = code[j], j + 1
                while j < len(code) and code[j] != q:
                    j += 2 if code[j] == "\\" else 1
            elif code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    return code[i + 1:j]
            j += 1
    return None


STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def literals(code):
    """The string literals of code, adjacent ones joined."""
    out, prev_end, cur = [], None, None
    for m in STRING.finditer(code):
        if cur is not None and code[prev_end:m.start()].strip() == "":
            cur += m.group(1)
        else:
            if cur is not None:
                out.append(cur)
            cur = m.group(1)
        prev_end = m.end()
    if cur is not None:
        out.append(cur)
    return [bytes(s, "utf-8").decode("unicode_escape") for s in out]


def blank_strings(code):
    return STRING.sub(lambda m: '"' + " " * len(m.group(1)) + '"', code)


def statement_prefix(code, pos):
    """The text of the statement before pos, back to the previous ; { or }."""
    k = pos - 1
    while k >= 0 and code[k] not in ";{}":
        k -= 1
    return code[k + 1:pos]


def optional_at(body, pos):
    """Whether the code at pos runs only under an if/else (a loop's body
    runs for each element: not optional)."""
    plain = blank_strings(body)
    if re.match(r"\s*(if\b|else\b)", statement_prefix(plain, pos)):
        return True
    stack, i = [], 0
    while i < pos:
        c = plain[i]
        if c == "{":
            stack.append(bool(re.search(r"(\bif\s*\(.*\)|\belse)\s*$",
                                        statement_prefix(plain, i), re.S)))
        elif c == "}" and stack:
            stack.pop()
        i += 1
    return any(stack)


def split_args(s):
    """Top-level comma-separated arguments of s (the text inside a call)."""
    args, depth, cur, i = [], 0, "", 0
    while i < len(s):
        c = s[i]
        if c == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur += s[i:j + 1]
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        args.append(cur.strip())
    return args


def call_args(code, start):
    """The argument text of the call whose '(' is at start."""
    depth, i = 0, start
    while i < len(code):
        c = code[i]
        if c == '"':
            i += 1
            while i < len(code) and code[i] != '"':
                i += 2 if code[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return code[start + 1:i]
        i += 1
    return code[start + 1:]


def json_keys(body):
    """[(key, optional)] a C function sets on its JSON objects, in order:
    json_object_set_new(OBJ, "KEY", ...) and the keys of a flat
    json_pack("{s:o, ...}", "KEY", value, ...) that makes the object."""
    out = []
    for m in re.finditer(r"\bjson_object_set_new\s*\(\s*\*?\w+\s*,\s*\"([^\"]+)\"|"
                         r"=\s*json_pack\s*(\()", body):
        opt = optional_at(body, m.start())
        if m.group(1):
            out.append((m.group(1), opt))
            continue
        args = split_args(call_args(body, m.start(2)))
        fmt = args[0].strip('"') if args else ""
        if not re.fullmatch(r"\{\s*(s\s*:\s*[a-zA-Z]\??\s*,?\s*)*\}", fmt):
            raise ValueError(f"json_pack format {fmt!r} is not a flat object")
        n = fmt.count("s:") + fmt.count("s :")
        for k in range(n):
            key = args[1 + 2 * k]
            out.append((key.strip('"'), opt))
    return out


# ---- the lint ----

class Lint:
    def __init__(self, root, ktb, verbose, kinds=KINDS):
        self.root = os.path.abspath(root)
        self.kinds = kinds
        self.ktb = ktb
        self.verbose = verbose
        self.findings = []
        self.stats = collections.defaultdict(collections.Counter)
        self.notes = []
        rels = ["README.md"] if os.path.exists(os.path.join(self.root, "README.md")) else []
        docs = os.path.join(self.root, "docs")
        if os.path.isdir(docs):
            rels += sorted("docs/" + n for n in os.listdir(docs) if n.endswith(".md"))
        self.pages = {rel: Page(self.root, rel) for rel in rels}

    def find(self, kind, where, msg):
        self.findings.append((kind, where, msg))

    def note(self, text):
        self.notes.append(text)

    def run_ktb(self, args, cwd=None, timeout=120):
        """ktb with args: only what boots nothing."""
        safe = (args in (["--help"],) or (len(args) == 2 and args[1] == "--help")
                or args[:1] == ["list"] or (args[:1] == ["kconfig"] and "--apply" not in args)
                or args[:2] == ["run", "--list"])
        if not safe:
            raise RuntimeError(f"check_docs.py would run ktb {args}: it never boots")
        if not self.ktb:
            raise RuntimeError("no ktb given (--ktb)")
        env = dict(os.environ, KTB_SOURCE_DIR=self.root, NO_COLOR="1")
        try:
            r = subprocess.run([self.ktb, *args], cwd=cwd or self.root, env=env,
                               capture_output=True, text=True, timeout=timeout)
        except OSError as e:
            raise RuntimeError(f"cannot run {self.ktb}: {e}")
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"ktb {' '.join(args)} ran past {timeout} s")
        return r.returncode, r.stdout, r.stderr

    def page(self, rel, kind):
        p = self.pages.get(rel)
        if not p:
            self.find(kind, rel, "the page is missing")
        return p

    # ---- yaml ----

    def check_yaml(self):
        st = self.stats["yaml"]
        with tempfile.TemporaryDirectory(prefix="check_docs-") as tmp:
            for rel, page in self.pages.items():
                for b in page.blocks:
                    if b.lang not in ("yaml", "yml"):
                        continue
                    self.one_yaml(page, b, tmp, st)
        if not st["blocks"]:
            self.find("yaml", "docs", "no ```yaml block found: nothing was checked")
        guest = self.pages.get("docs/guest.md")
        if not guest or not any("file=images/default.yaml" in b.words()
                                for b in guest.blocks if b.lang == "yaml"):
            self.find("file", "docs/guest.md", "no ```yaml file=images/default.yaml block: the "
                      "default recipe the page shows is not checked against the code's")

    def one_yaml(self, page, b, tmp, st):
        where = f"{page.rel}:{b.line}"
        st["blocks"] += 1
        opts = {}
        for w in b.words():
            if w == "not-a-scenario":
                opts["not"] = True
            elif "=" in w and w.split("=", 1)[0] + "=" in INFO_WORDS:
                k, v = w.split("=", 1)
                opts[k] = v
            else:
                self.find("yaml", where, f"unknown word {w!r} after ```yaml (known: "
                          f"{', '.join(INFO_WORDS)})")
                return
        text = "\n".join(b.lines) + "\n"
        if "file" in opts:
            st["file="] += 1
            self.stats["file"]["blocks"] += 1
            self.check_file_block(page, b, opts["file"])
            return
        if "yaml" not in self.kinds:
            return
        if yaml is None:
            self.find("yaml", where, "python3-yaml is not installed (./bootstrap test installs it)")
            return
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as e:
            self.find("yaml", where, f"not YAML: {one_line(str(e))}")
            return
        if opts.get("not"):
            st["not-a-scenario"] += 1
            self.note(f"yaml: {where}: not a scenario (only parsed)")
            return
        content = [ln for ln in b.lines if ln.strip() and not ln.lstrip().startswith("#")]
        if not content:
            self.find("yaml", where, "an empty block; mark it or fill it")
            return
        base_rel = opts.get("base")
        base_lines = ['steps:', '  - run: "true"']
        if base_rel:
            bp = os.path.join(self.root, base_rel)
            if not os.path.isfile(bp):
                self.find("yaml", where, f"base={base_rel}: no such file in the tree")
                return
            with open(bp, encoding="utf-8") as f:
                base_lines = f.read().rstrip("\n").split("\n")
        indent = min(len(ln) - len(ln.lstrip(" ")) for ln in content)
        body = [dedent_by(ln, indent) for ln in b.lines]
        while body and not body[-1].strip():
            body.pop()
        frag_keys = [m.group(1) for m in (TOPKEY.match(ln) for ln in body) if m]
        if isinstance(doc, dict) and indent == 0:
            if "steps" in doc and not base_rel:
                kind, gen, offset, shift = "whole scenario", body, 1, 0
            else:
                kept = drop_sections(base_lines, set(frag_keys))
                kind, gen, offset, shift = "top-level keys", kept + body, len(kept) + 1, 0
        elif isinstance(doc, list) and doc and all(isinstance(x, dict) for x in doc):
            kept = drop_sections(base_lines, {"steps"})
            gen = kept + ["steps:"] + [("  " + ln) if ln.strip() else ln for ln in body]
            kind, offset, shift = "steps", len(kept) + 2, 2
        elif isinstance(doc, dict) and indent > 0:
            kept = drop_sections(base_lines, {"steps"})
            head = '  - run: "true"' if set(doc) <= STEP_WITHOUT_ACTION else "  -"
            gen = kept + ["steps:", head] + [("    " + ln) if ln.strip() else ln for ln in body]
            kind, offset, shift = "one step", len(kept) + 3, 4
        else:
            self.find("yaml", where, "cannot tell what this block is (not a scenario, a mapping "
                      "of its keys, a list of steps or a step's body): mark it (```yaml "
                      "not-a-scenario, base=...)")
            return
        st[kind] += 1
        if base_rel:
            st["base="] += 1
        name = re.sub(r"[^a-z0-9]+", "-", f"{page.rel}-{b.line}".lower()).strip("-")
        d = os.path.join(tmp, name)
        os.makedirs(d)
        for sub in filter(None, opts.get("mkdir", "").split(",")):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        if base_rel:  # the base's own folders (a share's host folder), beside it
            bdir = os.path.dirname(os.path.join(self.root, base_rel))
            for e in sorted(os.listdir(bdir)):
                if os.path.isdir(os.path.join(bdir, e)) and not os.path.exists(os.path.join(d, e)):
                    os.symlink(os.path.join(bdir, e), os.path.join(d, e))
        path = os.path.join(d, name + ".yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(gen) + "\n")
        self.note(f"yaml: {where}: {kind}" + (f" on {base_rel}" if base_rel else ""))
        try:
            rc, out, err = self.run_ktb(["run", "--list", path], cwd=d)
        except RuntimeError as e:
            self.find("yaml", where, str(e))
            return
        first = b.line + 1  # body[k] is the page's line first + k

        def place(line, col):
            k = line - offset
            if 0 <= k < len(body):
                return f"{page.rel}:{first + k}:{max(col - shift + indent + b.indent, 1)}"
            base = base_rel or "the built-in base"
            return f"{where} (line {line} of {base} as the block completes it)"

        msgs = [ln for ln in (out + err).split("\n") if ln.strip()]
        try:  # the scenario's name: its name: key, else the file's
            sname = (yaml.safe_load("\n".join(gen)) or {}).get("name") or name
        except (yaml.YAMLError, AttributeError):
            sname = name
        listed = [ln for ln in out.split("\n") if path in ln or ln.split()[:1] == [str(sname)]]
        if rc == 0 and listed:
            st["loaded"] += 1
            return
        if rc == 0:
            self.find("yaml", where, f"ktb run --list exited 0 but did not list the example "
                      f"({sname}): {one_line(out + err)}")
            return
        said = False
        for ln in msgs:
            m = LOADER_MSG.match(ln)
            if m and m.group(1).endswith(name + ".yaml"):
                self.find("yaml", place(int(m.group(2)), int(m.group(3))), m.group(4))
                said = True
                continue
            m = LOADER_MSG_NOPOS.match(ln)
            if m and m.group(1).endswith(name + ".yaml"):
                self.find("yaml", where, m.group(2))
                said = True
        if not said:
            self.find("yaml", where, f"ktb run --list exited {rc}: {one_line(out + err)}")

    def check_file_block(self, page, b, rel):
        where = f"{page.rel}:{b.line}"
        fp = os.path.join(self.root, rel)
        if not os.path.isfile(fp):
            self.find("file", where, f"file={rel}: no such file in the tree")
            return
        with open(fp, encoding="utf-8") as f:
            want = [ln.rstrip() for ln in f.read().rstrip("\n").split("\n")]
        got = [ln.rstrip() for ln in b.lines]
        while got and not got[-1]:
            got.pop()
        k = 0
        if got[:1] != want[:1]:
            while k < len(want) and want[k].startswith("#"):
                k += 1  # the file's leading comments may be left out
        if got == want[k:]:
            self.note(f"file: {where}: equals {rel}")
            return
        for i in range(max(len(got), len(want) - k)):
            g = got[i] if i < len(got) else None
            w = want[k + i] if k + i < len(want) else None
            if g != w:
                self.find("file", f"{page.rel}:{b.line + 1 + i}",
                          f"differs from {rel}:{k + i + 1}: the page has "
                          f"{'(nothing)' if g is None else repr(g)}, the file "
                          f"{'(nothing)' if w is None else repr(w)}")
                return

    # ---- options ----

    def check_options(self):
        st = self.stats["options"]
        page = self.page("docs/cli.md", "options")
        try:
            rc, out, err = self.run_ktb(["--help"])
        except RuntimeError as e:
            self.find("options", "ktb --help", str(e))
            return
        cmds, on = [], False
        for ln in (out + err).split("\n"):
            if re.match(r"^commands:", ln):
                on = True
                continue
            m = re.match(r"^\s+([a-z][a-z-]*)\s{2,}", ln)
            if on and m:
                cmds.append(m.group(1))
            elif on and not ln.strip():
                on = False
        if not cmds:
            self.find("options", "ktb --help", "lists no commands (a 'commands:' block)")
            return
        if not page:
            return
        sections = {}
        for k, (hl, lvl, text) in enumerate(page.headings):
            m = re.match(r"^ktb ([a-z][a-z-]*)\b", text.replace("`", ""))
            if lvl == 2 and m:
                sections[m.group(1)] = (hl, page.section(hl)[1])
        for c in sections:
            if c not in cmds:
                self.find("options", f"docs/cli.md:{sections[c][0]}",
                          f"section ktb {c}: ktb --help lists no such command")
        for c in cmds:
            st["commands"] += 1
            if c not in sections:
                self.find("options", "docs/cli.md", f"ktb {c}: no '## ktb {c}' section")
                continue
            try:
                rc, out, err = self.run_ktb([c, "--help"])
            except RuntimeError as e:
                self.find("options", f"ktb {c} --help", str(e))
                continue
            if rc != 0:
                self.find("options", f"ktb {c} --help", f"exits {rc}")
            helped = help_options(out + err, c)
            hl, end = sections[c]
            documented = self.documented_options(page, hl, end)
            if documented is None:
                self.find("options", f"docs/cli.md:{hl}",
                          f"ktb {c}: the section has no option table (| option | ...) and links "
                          f"to none (page.md#anchor); --help lists {' '.join(sorted(helped))}")
                continue
            st["options in --help"] += len(helped)
            st["options documented"] += len(documented)
            for o in sorted(helped):
                if o not in documented:
                    self.find("options", f"docs/cli.md:{hl}",
                              f"ktb {c}: {o} is in --help, not in the section's option table")
            for o, where in sorted(documented.items()):
                if o not in helped:
                    self.find("options", where,
                              f"ktb {c}: {o} is documented, ktb {c} --help has no such option")

    def documented_options(self, page, hl, end, follow=True):
        """{option: where} of the option tables of page's section, or None."""
        found, any_table = {}, False
        for th, header, rows in page.tables(hl, end):
            if not header or header[0].lower() != "option":
                continue
            any_table = True
            for line, cells in rows:
                for span in code_spans(cells[0] if cells else ""):
                    for o in option_tokens(span):
                        found.setdefault(o, f"{page.rel}:{line}")
        if follow and not any_table:  # a section without a table of its own
            for ln in range(hl, end + 1):
                if ln in page.in_code:
                    continue
                for m in re.finditer(r"\]\(([^)#\s]+\.md)#([^)\s]+)\)", page.lines[ln - 1]):
                    target = os.path.normpath(os.path.join(os.path.dirname(page.rel), m.group(1)))
                    other = self.pages.get(target)
                    if not other:
                        continue
                    for ohl, olvl, otext in other.headings:
                        if github_slug(otext) == m.group(2):
                            sub = self.documented_options(other, ohl, other.section(ohl)[1],
                                                          follow=False)
                            if sub is not None:
                                any_table = True
                                for o, w in sub.items():
                                    found.setdefault(o, w)
        return found if any_table else None

    # ---- cmdline ----

    def check_cmdline(self):
        st = self.stats["cmdline"]
        src = os.path.join(self.root, "harness/vm/vm_cmdline.c")
        try:
            words, leading = cmdline_words(self.root, src)
        except (OSError, ValueError) as e:
            self.find("cmdline", "harness/vm/vm_cmdline.c", str(e))
            return
        page = self.page("docs/scenarios.md", "cmdline")
        if not page:
            return
        sec = page.heading_section(r"^The kernel command line$")
        block = None
        if sec:
            block = next((b for b in page.blocks if sec[0] < b.line <= sec[1]), None)
        if not block or not block.lines:
            self.find("cmdline", "docs/scenarios.md", "no 'The kernel command line' section with "
                      "the line in a fenced block")
            return
        where = f"docs/scenarios.md:{block.line + 1}"
        line = " ".join(ln.strip() for ln in block.lines if ln.strip())
        tokens = re.sub(r"<[^>]*>", " ", line).split()
        st["words in the code"] = len(words)
        st["words on the page"] = len(tokens)

        def matches(word, tok):
            return tok.startswith(word) if word.endswith("=") else tok == word

        for w in words:
            if not any(matches(w, t) for t in tokens):
                self.find("cmdline", where, f"vm_kernel_cmdline writes {w!r}; the page's line "
                          "lacks it")
        for t in tokens:
            if not any(matches(w, t) for w in words):
                self.find("cmdline", where, f"the page's line has {t!r}, which vm_kernel_cmdline "
                          "does not write")
        for rel, other in self.pages.items():
            for i, ln in enumerate(other.lines, 1):
                if rel == "docs/scenarios.md" and i == block.line + 1:
                    continue
                for m in re.finditer(r"console=ttyS0 [a-z][^\"'`]*", ln):
                    st["lines shown elsewhere"] += 1
                    shown = m.group(0).split()
                    n = min(len(shown), len(leading))
                    wraps = m.end() >= len(ln.rstrip())  # goes on on the next line
                    if shown[:n] != leading[:n] or (len(shown) < len(leading) and not wraps):
                        self.find("cmdline", f"{rel}:{i}", f"a command line shown as "
                                  f"{' '.join(shown[:len(leading)])!r}...; every line the testbed "
                                  f"builds begins {' '.join(leading)!r}")

    # ---- result ----

    def check_result(self):
        st = self.stats["result"]
        shapes = {}
        try:
            rc_text = read(self.root, "harness/result/result.c")
            ms_text = read(self.root, "harness/steps/machine_step.c")
            for shape, text, fn in (("result.json", rc_text, "scenario_result_to_json"),
                                    ("step", rc_text, "step_result_to_json"),
                                    ("subtest", rc_text, "subtests_to_json"),
                                    ("run-document", rc_text, "run_result_to_json"),
                                    ("machine-data", ms_text, "machine_check_compare")):
                body = function_body(text, fn)
                if body is None:
                    raise ValueError(f"no function {fn}")
                keys = json_keys(body)
                if not keys:
                    raise ValueError(f"{fn} sets no key")
                shapes[shape] = keys
        except (OSError, ValueError) as e:
            self.find("result", "harness/result", f"cannot read the keys the code writes: {e}")
            return
        page = self.page("docs/results.md", "result")
        if not page:
            return
        for shape in ("result.json", "step", "machine-data", "run-document"):
            marks = [i + 1 for i, ln in enumerate(page.lines)
                     if re.match(r"^<!--\s*fields:\s*" + re.escape(shape) + r"\s*-->", ln)]
            if len(marks) != 1:
                self.find("result", "docs/results.md", f"{len(marks)} tables marked "
                          f"<!-- fields: {shape} --> (one is needed)")
                continue
            tabs = [t for t in page.tables(marks[0] + 1, len(page.lines)) if t[0] <= marks[0] + 2]
            if not tabs:
                self.find("result", f"docs/results.md:{marks[0]}", "no table right after the mark")
                continue
            th, header, rows = tabs[0]
            listed = []
            for line, cells in rows:
                spans = code_spans(cells[0]) if cells else []
                if spans:
                    listed.append((spans[0], line))
            st["table rows"] += len(listed)
            want = [k for k, _ in shapes[shape]]
            for k, line in listed:
                if k not in want:
                    self.find("result", f"docs/results.md:{line}",
                              f"{shape} table: {k} is not a key the code writes")
            have = [k for k, _ in listed]
            for k in want:
                if k not in have:
                    self.find("result", f"docs/results.md:{th}",
                              f"{shape} table: the code writes {k}; the table lacks it")
            common = [k for k in have if k in want]
            if common != [k for k in want if k in have]:
                self.find("result", f"docs/results.md:{th}", f"{shape} table: not in the order "
                          f"the code writes the keys ({', '.join(want)})")
        for example, shape in (("result.json", "result.json"), ("run-document", "run-document")):
            blocks = [b for b in page.blocks if b.lang == "json" and f"example={example}" in
                      b.words()]
            if len(blocks) != 1:
                self.find("result", "docs/results.md", f"{len(blocks)} blocks ```json "
                          f"example={example} (one is needed)")
                continue
            b = blocks[0]
            text = re.sub(r"\[\s*\.\.\.[^\]\"]*\]", "[]", "\n".join(b.lines))
            try:
                doc = json.loads(text)
            except ValueError as e:
                self.find("result", f"docs/results.md:{b.line}", f"the example is not JSON: {e}")
                continue
            st["examples"] += 1
            self.check_object(f"docs/results.md:{b.line}", f"{example} example", doc,
                              shapes[shape])
            if example != "result.json":
                continue
            steps = doc.get("steps") if isinstance(doc, dict) else None
            if not isinstance(steps, list) or not steps:
                self.find("result", f"docs/results.md:{b.line}",
                          "result.json example: no steps (every run has the machine step)")
                continue
            if not isinstance(steps[0], dict) or steps[0].get("name") != "machine":
                self.find("result", f"docs/results.md:{b.line}", "result.json example: the first "
                          "step is not the machine step (name \"machine\"), which every run has")
            for k, s in enumerate(steps):
                self.check_object(f"docs/results.md:{b.line}", f"steps[{k}]", s, shapes["step"])
                if not isinstance(s, dict):
                    continue
                for t, sub in enumerate(s.get("subtests") or []):
                    self.check_object(f"docs/results.md:{b.line}", f"steps[{k}].subtests[{t}]",
                                      sub, shapes["subtest"])
                if s.get("name") == "machine" and s.get("data") is not None:
                    self.check_object(f"docs/results.md:{b.line}", f"steps[{k}].data (the "
                                      "machine step's)", s["data"], shapes["machine-data"])

    def check_object(self, where, what, obj, keys):
        if not isinstance(obj, dict):
            self.find("result", where, f"{what}: not an object")
            return
        self.stats["result"]["objects"] += 1
        names = [k for k, _ in keys]
        for k, opt in keys:
            if not opt and k not in obj:
                self.find("result", where, f"{what}: lacks {k}, which the code always writes")
        for k in obj:
            if k not in names:
                self.find("result", where, f"{what}: has {k}, which the code does not write")
        got = [k for k in obj if k in names]
        if got != [k for k in names if k in obj]:
            self.find("result", where, f"{what}: keys not in the code's order ({', '.join(names)})")

    # ---- numbers ----

    def check_numbers(self):
        st = self.stats["numbers"]
        try:
            rc, out, err = self.run_ktb(["list"])
            if rc != 0:
                raise RuntimeError(f"ktb list exited {rc}: {one_line(err)}")
            library = len([ln for ln in out.split("\n")
                           if re.match(r"^[a-z0-9][a-z0-9._-]*\s", ln)])
            counts = {}
            for minimal in (False, True):
                rc, out, err = self.run_ktb(["kconfig"] + (["--minimal"] if minimal else []))
                if rc != 0:
                    raise RuntimeError(f"ktb kconfig exited {rc}: {one_line(err)}")
                counts[minimal] = len(re.findall(r"(?m)^CONFIG_\w+=", out))
        except RuntimeError as e:
            self.find("numbers", "ktb", str(e))
            return
        self.note(f"numbers: the library has {library} scenarios; ktb kconfig asks "
                  f"{counts[False]} options, {counts[True]} with --minimal")
        for rel, page in self.pages.items():
            for b in page.blocks:
                first = b.lines[0].strip() if b.lines else ""
                m = re.match(r"^\$ (?:build/harness/)?ktb (.*)$", first)
                if m:
                    self.transcript(page, b, shlex.split(m.group(1)))
            for i, ln in enumerate(page.lines, 1):
                if i in page.in_code:
                    continue
                ln = re.sub(r"(`+)[^`]*?\1", lambda m: " " * len(m.group(0)), ln)  # code spans
                for m in re.finditer(r"\b(\d+) (?:of|/) ?(\d+) scenarios\b|"
                                     r"\b(\d+)/(\d+) scenarios\b", ln):
                    self.figure(page, i, int(m.group(2) or m.group(4)), library,
                                "scenarios in the library (ktb list)", m.group(0))
                for m in re.finditer(r"\b(\d+) (?:library )?scenarios\b(?!/)", ln):
                    if re.search(r"\d+ (?:of|/) ?$", ln[:m.start()]):
                        continue
                    self.figure(page, i, int(m.group(1)), library,
                                "scenarios in the library (ktb list)", m.group(0))
                for m in re.finditer(r"\b(\d+) (?:kernel |config )?options\b", ln):
                    s, _ = sentence(page, i, m.start())
                    if "kconfig" not in s:
                        continue
                    minimal = "minimal" in s
                    self.figure(page, i, int(m.group(1)), counts[minimal],
                                f"options ktb kconfig{' --minimal' if minimal else ''} asks for",
                                m.group(0))

    def figure(self, page, line, stated, actual, what, text):
        st = self.stats["numbers"]
        where = f"{page.rel}:{line}"
        if measured(page, line):
            st["measurement records"] += 1
            self.note(f"numbers: {where}: {text!r} stands in a dated measurement record: kept")
            return
        st["figures"] += 1
        if stated != actual:
            self.find("numbers", where, f"{text!r}: the tree has {actual} {what}")

    def transcript(self, page, b, args):
        st = self.stats["numbers"]
        where = f"{page.rel}:{b.line + 1}"
        shown = [ln.rstrip() for ln in b.lines[1:] if ln.strip() and ln.strip() != "..."]
        if args[:1] == ["kconfig"] and "--apply" in args:
            k = args.index("--apply")
            plain = args[:k] + args[k + 2:]
            st["transcripts"] += 1
            try:
                rc, out, err = self.run_ktb(plain)
            except RuntimeError as e:
                self.find("numbers", where, str(e))
                return
            n = len(re.findall(r"(?m)^CONFIG_\w+=", out))
            for ln in shown:
                m = re.search(r"\b(\d+) options merged\b", ln)
                if m and int(m.group(1)) != n:
                    self.find("numbers", where, f"{m.group(0)!r}: ktb {' '.join(plain)} asks for "
                              f"{n} options")
            return
        if args[:1] not in (["list"], ["kconfig"]) and args[:2] != ["run", "--list"]:
            self.note(f"numbers: {where}: transcript of ktb {' '.join(args)} not run")
            return
        st["transcripts"] += 1
        try:
            rc, out, err = self.run_ktb(args)
        except RuntimeError as e:
            self.find("numbers", where, str(e))
            return
        real = [ln.rstrip() for ln in out.split("\n")]
        k = 0
        for j, ln in enumerate(shown):
            while k < len(real) and real[k] != ln:
                k += 1
            if k == len(real):
                near = next((r for r in real if r.split()[:1] == ln.split()[:1]), None)
                self.find("numbers", f"{page.rel}:{b.line + 1 + b.lines[1:].index(ln) + 1}",
                          f"ktb {' '.join(args)} does not print {ln!r} (in this order)" +
                          (f"; it prints {near!r}" if near else ""))
                return
            k += 1

    # ---- links ----

    def check_links(self):
        st = self.stats["links"]
        self.links()
        if not st["links"]:
            self.find("links", "docs", "no relative link found: nothing was checked")

    # ---- sources ----

    def check_sources(self):
        st = self.stats["sources"]
        rel = "docs/architecture.md"
        page = self.page(rel, "sources")
        if not page:
            return
        named = {}
        for i, ln in enumerate(page.lines, 1):
            for m in re.finditer(r"`([\w./-]+\.c)`", ln):
                named.setdefault(m.group(1), i)
        every = set()
        for top, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
            for f in files:
                if f.endswith(".c"):
                    r = os.path.relpath(os.path.join(top, f), self.root)
                    every.update((f, r))
        sources = sorted(os.path.relpath(os.path.join(top, f), self.root)
                         for d in ("harness", "hw", "guest")
                         for top, _, files in os.walk(os.path.join(self.root, d))
                         for f in files if f.endswith(".c"))
        for src in sources:
            st["sources"] += 1
            if not any(src == n or src.endswith("/" + n) for n in named):
                self.find("sources", rel, f"{src} is not named (as `{os.path.basename(src)}`)")
        for name, line in sorted(named.items()):
            if re.search(r"[A-Z]{3,}", name):
                continue  # a placeholder: report_NAME.c, step_FAMILY.c
            st["names"] += 1
            if name not in every and not any(e.endswith("/" + name) for e in every):
                self.find("sources", f"{rel}:{line}", f"`{name}` names no file of the tree")
        if not sources:
            self.find("sources", rel, "no C source under harness/, hw/, guest/: nothing was "
                      "checked")

    def links(self):
        st = self.stats["links"]
        slugs = {}
        for rel, page in self.pages.items():
            seen, out = collections.Counter(), set()
            for _, _, text in page.headings:
                s = github_slug(text)
                out.add(s if not seen[s] else f"{s}-{seen[s]}")
                seen[s] += 1
            for ln in page.lines:
                for m in re.finditer(r"<a\s+(?:id|name)=\"([^\"]+)\"", ln):
                    out.add(m.group(1))
            slugs[rel] = out
        for rel, page in self.pages.items():
            for i, ln in enumerate(page.lines, 1):
                if i in page.in_code:
                    continue
                spans = [(m.start(), m.end()) for m in re.finditer(r"(`+)[^`]*?\1", ln)]
                for m in re.finditer(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]"
                                     r"\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", ln):
                    if any(a <= m.start() < e for a, e in spans):
                        continue
                    target = m.group(1)
                    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                        continue
                    st["links"] += 1
                    path, _, anchor = target.partition("#")
                    where = f"{rel}:{i}"
                    dest = rel if not path else os.path.normpath(
                        os.path.join(os.path.dirname(rel), path))
                    if dest.startswith(".."):
                        self.find("links", where, f"{target}: leaves the tree")
                        continue
                    if not os.path.exists(os.path.join(self.root, dest)):
                        self.find("links", where, f"{target}: {dest} does not exist")
                        continue
                    if anchor:
                        st["anchors"] += 1
                        if not dest.endswith(".md"):
                            continue
                        if dest not in slugs:
                            other = Page(self.root, dest)
                            slugs[dest] = {github_slug(t) for _, _, t in other.headings}
                        if anchor not in slugs[dest]:
                            near = sorted(s for s in slugs[dest] if anchor[:6] in s)[:3]
                            self.find("links", where, f"{target}: {dest} has no heading "
                                      f"#{anchor}" +
                                      (f" (near: {', '.join(near)})" if near else ""))

    # ---- report ----

    def report(self, kinds):
        for kind, where, msg in self.findings:
            print(f"{where}: {kind}: {msg}")
        if self.verbose:
            for n in self.notes:
                print(n)
        by = collections.Counter(k for k, _, _ in self.findings)
        for kind in kinds:
            figures = ", ".join(f"{k} {v}" for k, v in self.stats[kind].items())
            print(f"check_docs: {kind}: {by[kind]} finding{'s' if by[kind] != 1 else ''}"
                  + (f" ({figures})" if figures else ""))
        print(f"check_docs: {len(self.findings)} findings: " +
              ", ".join(f"{k} {by[k]}" for k in kinds))
        return 1 if self.findings else 0


def help_options(text, cmd):
    """The options ktb CMD --help lists."""
    out = set()
    for ln in text.split("\n"):
        s = ln.strip()
        if s.startswith("usage:") or re.match(r"^ktb " + re.escape(cmd) + r"\b", s):
            spec = re.split(r"\s{2,}", s)[0]
            out.update(option_tokens(spec))
        elif re.match(r"^\s+-", ln):
            out.update(option_tokens(re.split(r"\s{2,}", s)[0]))
    return out


def drop_sections(lines, keys):
    """lines of a scenario without the top-level sections of keys."""
    out, skip = [], False
    for ln in lines:
        m = TOPKEY.match(ln)
        if m:
            skip = m.group(1) in keys
        elif ln and not ln[0].isspace() and not ln.startswith("#"):
            skip = False
        if not skip:
            out.append(ln)
    return out


def cmdline_words(root, src):
    """The words vm_kernel_cmdline writes (KEY= for a KEY=VALUE it builds)."""
    text = read(root, os.path.relpath(src, root))
    body = function_body(text, "vm_kernel_cmdline")
    if body is None:
        raise ValueError("no function vm_kernel_cmdline")
    word = re.compile(r"^[a-z][a-z0-9_.]*(=[^\s%,]*)?$")
    words = []
    lits = literals(body)
    leading = [t for t in (lits[0].split() if lits else []) if word.match(t)]

    def add(w):
        if w not in words:
            words.append(w)

    for lit in lits:
        for tok in lit.split():
            if word.match(tok):
                add(tok)
    sources = {}
    for top in ("harness", "hw"):
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    p = os.path.join(d, n)
                    with open(p, encoding="utf-8", errors="replace") as f:
                        sources[os.path.relpath(p, root)] = f.read()
    macros = {}
    for t in sources.values():
        for m in re.finditer(r'(?m)^#\s*define\s+([A-Z_][A-Z0-9_]*)\s+"([^"]*)"\s*$', t):
            macros[m.group(1)] = m.group(2)
    plain = blank_strings(body)
    for m in re.finditer(r"\b([A-Z_][A-Z0-9_]*)\b", plain):
        for tok in macros.get(m.group(1), "").split():
            if word.match(tok):
                add(tok)
    callees = sorted({m.group(1) for m in re.finditer(r"\b([a-z_]\w*)\s*\(", plain)}
                     - {"if", "for", "while", "switch", "return", "sizeof"})
    for fn in callees:
        for t in sources.values():
            fb = function_body(t, fn)
            if fb is None:
                continue
            for lit in literals(fb):
                if re.fullmatch(r"[a-z][a-z0-9_.]*=", lit):
                    add(lit)
            break
    if not words:
        raise ValueError("vm_kernel_cmdline writes no word the lint can read")
    return words, leading


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def one_line(s):
    return " ".join(s.split())[:400]


def sentence(page, line, col):
    """The sentence (within its paragraph) around page line:col."""
    s, e = page.paragraph(line)
    if s == e and page.lines[s - 1].lstrip().startswith("|"):
        return page.lines[s - 1], (s, e)  # a table row is one statement
    text = " ".join(page.lines[s - 1:e])
    pos = sum(len(x) + 1 for x in page.lines[s - 1:line - 1]) + col
    a = max(text.rfind(". ", 0, pos), text.rfind("| ", 0, pos))
    b = min([x for x in (text.find(". ", pos), text.find(" |", pos)) if x >= 0] or [len(text)])
    return text[a + 1:b], (s, e)


def measured(page, line):
    """Whether line stands in a dated measurement record (the docstring's rule)."""
    dated = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\bcommit `?[0-9a-f]{7,40}\b")
    for hl, lvl, text, end in page.sections_of(line):
        if re.search(r"\bmeasured\b", text, re.I) and \
                dated.search("\n".join(page.lines[hl - 1:end])):
            return True
    s, e = page.paragraph(line)
    para = "\n".join(page.lines[s - 1:e])
    return bool(re.search(r"\bmeasured\b", para, re.I) and dated.search(para))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", ".."))
    ap.add_argument("--ktb", help="the built ktb (build/harness/ktb)")
    ap.add_argument("--only", help="comma-separated kinds: " + ",".join(KINDS))
    ap.add_argument("-v", "--verbose", action="store_true", help="list what was checked")
    a = ap.parse_args()
    kinds = KINDS
    if a.only:
        kinds = tuple(k.strip() for k in a.only.split(",") if k.strip())
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            ap.error(f"unknown kind {', '.join(bad)} (kinds: {', '.join(KINDS)})")
    if a.ktb and not os.access(a.ktb, os.X_OK):
        ap.error(f"--ktb {a.ktb}: not an executable file (build first)")
    lint = Lint(a.root, a.ktb and os.path.abspath(a.ktb), a.verbose, kinds)
    if "yaml" in kinds or "file" in kinds:
        lint.check_yaml()
    if "options" in kinds:
        lint.check_options()
    if "cmdline" in kinds:
        lint.check_cmdline()
    if "result" in kinds:
        lint.check_result()
    if "numbers" in kinds:
        lint.check_numbers()
    if "links" in kinds:
        lint.check_links()
    if "sources" in kinds:
        lint.check_sources()
    lint.findings = [f for f in lint.findings if f[0] in kinds]
    return lint.report(kinds)


if __name__ == "__main__":
    sys.exit(main())
