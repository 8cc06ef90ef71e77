#!/usr/bin/env python3
"""check_docs.py on a small tree whose docs tell the truth, and on copies
with one stale statement planted each (an option, a YAML example, a
command-line word, a number, an anchor, a recipe line, a result key, a
transcript line, a source file): the check it breaks must fail and name it, and the clean
tree must pass every check.

The tree's ktb is a stand-in that prints a small --help, `list` and
`kconfig`, and hands `run --list` to the real ktb (KTB_BIN, the build's), so
the YAML examples go through the real loader."""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KTB_BIN = os.environ.get("KTB_BIN", "")

FAKE_KTB = r'''#!PYTHON
import os, sys
a = sys.argv[1:]
src = os.environ["KTB_SOURCE_DIR"]
if a == ["--help"]:
    print("usage: ktb COMMAND [options]\n\ncommands:\n  run      run scenarios\n"
          "  list     list scenarios\n  kconfig  the kernel config fragment\n")
elif a == ["run", "--help"]:
    print("usage: ktb run [options] SCENARIO.yaml|DIR...\n"
          "  -j N              scenarios at once\n"
          "  --list            print the scenarios that would run, and stop\n"
          "  -v, --verbose     show every step")
elif a == ["list", "--help"]:
    print("usage: ktb list [--shard K/N] [SCENARIO.yaml|DIR...]")
elif a == ["kconfig", "--help"]:
    print("usage: ktb kconfig [--minimal] [SCENARIO.yaml|DIR...]")
elif a[:2] == ["run", "--list"]:
    os.execv(os.environ["KTB_REAL"], [os.environ["KTB_REAL"]] + a)
elif a[:1] == ["list"]:
    for n in sorted(os.listdir(os.path.join(src, "scenarios"))):
        if n.endswith(".yaml"):
            print(f"{n[:-5]:<24} [t]  The scenario {n[:-5]}.")
elif a[:1] == ["kconfig"]:
    print("# base\nCONFIG_A=y\nCONFIG_B=y")
    if "--minimal" in a:
        print("# the minimal kernel\nCONFIG_C=y")
else:
    sys.exit(f"fake ktb: {a}: not expected from check_docs.py")
'''

SCENARIO_A = """name: a
machine:
  disks:
    - {id: data, bus: virtio, size: 64M}
steps:
  - run: ktb-probe disk data
"""

A = f"{'a':<24} [t]  The scenario a."
B = f"{'b':<24} [t]  The scenario b."

CLI = f"""# The command line

## ktb run

| option | meaning |
| --- | --- |
| `-j N` | at once |
| `--list` | list ([scenarios.md](scenarios.md#the-kernel-command-line)) |
| `-v`, `--verbose` | every step |

## ktb list

Its options are [those of a list](scenarios.md#list-options).

```
$ build/harness/ktb list
{A}
{B}
```

## ktb kconfig

Not [the run's options](cli.md#ktb-run): a section with a table of its own
takes no other.

| option | meaning |
| --- | --- |
| `--minimal` | the minimal base |

```
$ build/harness/ktb kconfig --minimal --apply linux scenarios/
ktb kconfig: 3 options merged into linux/.config
```
"""

SCENARIOS = """# Scenarios

The library's 2 scenarios show the format.

### The kernel command line

```
console=ttyS0 loglevel=5 panic=-1 libata.force=nodbdelay ktb.extra=ID,... <kernel.cmdline>
```

A whole scenario:

```yaml
name: whole
steps:
  - run: "true"
```

A fragment on a library scenario:

```yaml base=scenarios/a.yaml
  - run: ktb-io rw --disk data --size 1M
  - wait: 1s
    for: done
```

A step's body:

```yaml
    expect:
      exit: 1
```

A share beside the scenario:

```yaml mkdir=out
machine:
  shares:
    - {host: out, guest: /mnt/out}
```

```yaml not-a-scenario
job:
  script: [make]
```

## Measured on 2026-01-02

Then the library held 7 scenarios.

## List options

| option | meaning |
| --- | --- |
| `--shard K/N` | one share |
"""

GUEST = """# The guest

```yaml file=images/default.yaml
name: default
modules:
  - virtio_blk   # disks
```

`kernel`: `{"cmdline":"console=ttyS0 loglevel=5 panic=-1 ktb.extra=data"}`
"""

RECIPE = "# the standard guest\nname: default\nmodules:\n  - virtio_blk   # disks\n"

RESULTS = """# Results

## --json: the run document

```json example=run-document
{"run_id": "r", "scenarios": [ ...one per scenario... ], "schema_version": 2}
```

<!-- fields: run-document -->
| field | meaning |
| --- | --- |
| `run_id` | id |
| `scenarios` | the documents |
| `pass_rates` | with --repeat only |
| `schema_version` | 2 |

## result.json, one per scenario

<!-- fields: result.json -->
| field | type | meaning |
| --- | --- | --- |
| `name` | string | name |
| `steps` | list | steps |
| `attempt` | integer or null | with --repeat |

<!-- fields: step -->
| field | type | meaning |
| --- | --- | --- |
| `name` | string | label |
| `data` | any | data |
| `subtests` | list | subtests |

<!-- fields: machine-data -->
| field | meaning |
| --- | --- |
| `mismatches` | count |
| `facts` | facts |
| `share_transport` | with shares |

```json example=result.json
{
  "name": "x",
  "steps": [
    {"name": "machine", "data": {"mismatches": 0, "facts": []}, "subtests": []},
    {"name": "run: true", "data": null, "subtests": [{"name": "t"}]}
  ],
  "attempt": null
}
```
"""

README = """# t

See [the command line](docs/cli.md#ktb-run) and [results](docs/results.md#--json-the-run-document).
"""

RESULT_C = """#include "result.h"

static json_t *subtests_to_json(const struct step_result *s)
{
\tjson_t *a = json_array();

\tfor (size_t i = 0; i < s->n; i++) {
\t\tjson_t *o = json_object();

\t\tjson_object_set_new(o, "name", json_string(s->t[i]));
\t\tjson_array_append_new(a, o);
\t}
\treturn a;
}

static json_t *step_result_to_json(const struct step_result *s)
{
\tjson_t *j = json_object();

\tjson_object_set_new(j, "name", json_string(s->name));
\tjson_object_set_new(j, "data", s->data ? json_deep_copy(s->data) : json_null());
\tjson_object_set_new(j, "subtests", subtests_to_json(s));
\treturn j;
}

json_t *scenario_result_to_json(const struct scenario_result *r)
{
\tjson_t *j = json_object(), *steps = json_array();

\tjson_object_set_new(j, "name", json_string(r->name)); /* "not_a_key" */
\tjson_object_set_new(j, "steps", steps);
\tjson_object_set_new(j, "attempt", r->attempt ? json_integer(r->attempt) : json_null());
\treturn j;
}

json_t *run_result_to_json(const struct run_result *r)
{
\tjson_t *j = json_object(), *rates = NULL;

\tjson_object_set_new(j, "run_id", json_string(r->id));
\tjson_object_set_new(j, "scenarios", json_array());
\tif (rates)
\t\tjson_object_set_new(j, "pass_rates", rates);
\tjson_object_set_new(j, "schema_version", json_integer(2));
\treturn j;
}
"""

MACHINE_C = """int machine_check_compare(const struct machine *m, json_t **data)
{
\t*data = json_pack("{s:i, s:o}", "mismatches", 0, "facts", json_array());
\tif (m->shares_count) {
\t\tjson_object_set_new(*data, "share_transport", json_string("9p"));
\t}
\treturn 0;
}
"""

CMDLINE_H = '#define VM_CMDLINE_NODBDELAY "libata.force=nodbdelay"\n'

CMDLINE_C = """#include "vm_cmdline.h"

static const char *extra_arg(const struct machine *m)
{
\treturn m->n ? "ktb.extra=" : NULL;
}

char *vm_kernel_cmdline(const struct machine *m, const char *scenario_args, const char *extra)
{
\tchar *s = xstrdup("console=ttyS0 loglevel=5 panic=-1");

\tif (!m->sata)
\t\tappend_word(&s, VM_CMDLINE_NODBDELAY);
\tappend_word(&s, extra_arg(m));
\tappend_word(&s, scenario_args);
\treturn s;
}
"""

ARCH = """# Architecture

The results: `result.c`, the machine step's data: `harness/steps/machine_step.c`,
the command line: `vm/vm_cmdline.c`; a new report is `report_NAME.c`.
"""

CLEAN = {
    "README.md": README,
    "docs/architecture.md": ARCH,
    "docs/cli.md": CLI,
    "docs/scenarios.md": SCENARIOS,
    "docs/guest.md": GUEST,
    "docs/results.md": RESULTS,
    "images/default.yaml": RECIPE,
    "scenarios/a.yaml": SCENARIO_A,
    "scenarios/b.yaml": 'steps:\n  - run: "true"\n',
    "harness/result/result.c": RESULT_C,
    "harness/steps/machine_step.c": MACHINE_C,
    "harness/vm/vm_cmdline.c": CMDLINE_C,
    "harness/vm/vm_cmdline.h": CMDLINE_H,
}

# name -> (kind, file, old text, new text, what the report must name)
PLANTS = {
    "stale_option": ("options", "docs/cli.md", "| `--list` |", "| `--gone` |",
                     "docs/cli.md:8: options: ktb run: --gone is documented"),
    "undocumented_option": ("options", "docs/cli.md", "| `-j N` | at once |\n", "",
                            "ktb run: -j is in --help, not in the section's option table"),
    "stale_example": ("yaml", "docs/scenarios.md", "  - wait: 1s\n", "  - wait: 1s\n    fro: x\n",
                      'docs/scenarios.md:24:5: yaml: steps[1]: unknown key "fro"'),
    "stale_base": ("yaml", "docs/scenarios.md", "--disk data --size", "--disk data --size 1M\n"
                   "  - fail_path: {disk: nope, path: 0}\n  - run: x",
                   'docs/scenarios.md:23:23: yaml: steps[1].fail_path.disk: "nope" is not one'),
    "unclassified_block": ("yaml", "docs/scenarios.md",
                           "```yaml not-a-scenario\njob:\n  script: [make]",
                           "```yaml\njust a sentence", "docs/scenarios.md:42: yaml: cannot tell"),
    "stale_cmdline_word": ("cmdline", "docs/scenarios.md", "panic=-1 libata",
                           "panic=-1 quiet libata",
                           "the page's line has 'quiet'"),
    "missing_cmdline_word": ("cmdline", "docs/scenarios.md", "libata.force=nodbdelay ktb.extra",
                             "ktb.extra", "vm_kernel_cmdline writes 'libata.force=nodbdelay'"),
    "stale_cmdline_elsewhere": ("cmdline", "docs/guest.md", "loglevel=5 panic=-1 ktb",
                                "panic=-1 ktb",
                                "docs/guest.md:9: cmdline: a command line shown as"),
    "stale_number": ("numbers", "docs/scenarios.md", "The library's 2 scenarios",
                     "The library's 3 scenarios", "docs/scenarios.md:3: numbers: '3 scenarios': "
                     "the tree has 2 scenarios"),
    "undated_measurement": ("numbers", "docs/scenarios.md", "## Measured on 2026-01-02",
                            "## Measured once", "'7 scenarios': the tree has 2"),
    "stale_transcript": ("numbers", "docs/cli.md", "[t]  The scenario b.", "[t]  The old b.",
                         "ktb list does not print " + repr(B.replace("scenario", "old"))),
    "stale_delegated_option": ("options", "docs/scenarios.md", "| `--shard K/N` |",
                               "| `--shards` |",
                               "docs/scenarios.md:55: options: ktb list: --shards is documented"),
    "stale_merged_count": ("numbers", "docs/cli.md", "3 options merged", "4 options merged",
                           "'4 options merged': ktb kconfig --minimal scenarios/ asks for 3"),
    "broken_anchor": ("links", "README.md", "cli.md#ktb-run", "cli.md#ktb-runs",
                      "README.md:3: links: docs/cli.md#ktb-runs: docs/cli.md has no heading "
                      "#ktb-runs"),
    "missing_page": ("links", "README.md", "docs/results.md#", "docs/result.md#",
                     "docs/result.md does not exist"),
    "stale_recipe": ("file", "docs/guest.md", "  - virtio_blk   # disks\n```",
                     "  - virtio_blk   # disks\n  - nvme\n```",
                     "docs/guest.md:7: file: differs from images/default.yaml:5"),
    "recipe_unchecked": ("file", "docs/guest.md", "```yaml file=images/default.yaml", "```yaml",
                         "docs/guest.md: file: no ```yaml file=images/default.yaml block"),
    "example_lacks_key": ("result", "docs/results.md", ',\n  "attempt": null\n', "\n",
                          "result.json example: lacks attempt, which the code always writes"),
    "step_lacks_key": ("result", "docs/results.md", '"data": null, "subtests"', '"subtests"',
                       "steps[1]: lacks data"),
    "no_machine_step": ("result", "docs/results.md", '{"name": "machine", "data"',
                        '{"name": "boot", "data"', "the first step is not the machine step"),
    "table_lacks_key": ("result", "docs/results.md", "| `facts` | facts |\n", "",
                        "machine-data table: the code writes facts; the table lacks it"),
    "table_extra_key": ("result", "docs/results.md", "| `run_id` | id |\n",
                        "| `run_id` | id |\n| `ended` | when |\n",
                        "run-document table: ended is not a key the code writes"),
    "unnamed_source": ("sources", "docs/architecture.md", "the command line: `vm/vm_cmdline.c`",
                       "the command line: vm_cmdline",
                       "docs/architecture.md: sources: harness/vm/vm_cmdline.c is not named"),
    "stale_source": ("sources", "docs/architecture.md", "The results: `result.c`",
                     "The results: `result.c`, `results_old.c`",
                     "docs/architecture.md:3: sources: `results_old.c` names no file"),
}


def make(root, plant=None):
    files = dict(CLEAN)
    if plant:
        _, path, old, new, _ = PLANTS[plant]
        assert files[path].count(old) == 1, (plant, old)
        files[path] = files[path].replace(old, new)
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)
    ktb = os.path.join(root, "fake-ktb")
    with open(ktb, "w") as f:
        f.write(FAKE_KTB.replace("PYTHON", sys.executable))
    os.chmod(ktb, os.stat(ktb).st_mode | stat.S_IXUSR)
    return ktb


def check(root, ktb, *args):
    env = dict(os.environ, KTB_REAL=KTB_BIN)
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_docs.py"), "--root", root,
                        "--ktb", ktb, *args], capture_output=True, text=True, env=env)
    return r.returncode, r.stdout + r.stderr


class CheckDocs(unittest.TestCase):
    def test_clean_tree_passes(self):
        with tempfile.TemporaryDirectory() as root:
            ktb = make(root)
            rc, out = check(root, ktb, "-v")
            self.assertEqual(rc, 0, out)
            for kind in ("yaml", "file", "options", "cmdline", "result", "numbers", "links",
                         "sources"):
                self.assertIn(f"check_docs: {kind}: 0 findings", out)
            self.assertIn("check_docs: 0 findings", out)
            self.assertIn("loaded 4", out)  # whole, base=, step body, mkdir=
            self.assertIn("not-a-scenario 1", out)
            self.assertIn("figures 1", out)
            self.assertIn("measurement records 1", out)
            self.assertIn("transcripts 2", out)
            self.assertIn("yaml: docs/scenarios.md:21: steps on scenarios/a.yaml", out)
            self.assertIn("yaml: docs/scenarios.md:29: one step", out)

    def test_each_planted_staleness_fails_its_check(self):
        for name, (kind, _, _, _, named) in PLANTS.items():
            with self.subTest(plant=name), tempfile.TemporaryDirectory() as root:
                ktb = make(root, name)
                rc, out = check(root, ktb, "--only", kind)
                self.assertEqual(rc, 1, out)
                self.assertIn(named, out)
                self.assertIn(f"check_docs: {kind}: ", out)
                others = ",".join(k for k in ("options", "cmdline", "result", "links")
                                  if k != kind)
                rc, out = check(root, ktb, "--only", others)
                self.assertEqual(rc, 0, out)


def main():
    if not (KTB_BIN and os.access(KTB_BIN, os.X_OK)):
        print("test_check_docs.py: set KTB_BIN to the built ktb (build/harness/ktb): the YAML "
              "examples go through its loader", file=sys.stderr)
        return 1
    return 0 if unittest.main(exit=False).result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
