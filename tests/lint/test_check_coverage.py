#!/usr/bin/env python3
"""check_coverage.py on a small tree whose every clause and fact is covered
or marked, and on copies with one defect planted each: the lint must fail
and name it, and the clean tree must pass."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

SCENARIO = """name: one
machine:
  cpus: 1
steps:
  - name: probe
    run: ktb-probe x
    expect:
      json:
        a: 1
        cycles.0.irq: 9
        d: 4  # presence: shows the probe reports d at all
  - wait: 5s
    for: "marker"
"""

# an inserted step (the third row) shifts the numbers: its step 3 is the
# library's step 2
ROWS = """. "$(dirname "$0")/lib.sh"
T=$'\\t'
mutations <<EOF_TABLE
one${T}s/a: 1/a: 9/${T}step 1 .*json a: expected 9, got 1
one${T}s/irq: 9/irq: 1/${T}step 1 .*irq: expected 1, got 9
one${T}/^steps:/a\\  - run: "true"${T}step 3 .*the console did not show /marker/
EOF_TABLE
ktb_run run "$KTB_SRC/scenarios/one.yaml"
expect_out 'step machine .*CPUs online: declared 2, the guest sees 1'
ktb_run run "$KTB_SRC/scenarios/one.yaml"
expect_out '^PASS +one '
"""

EXPECTED_C = """static int f(struct facts_ctx *c)
{
\treturn fact_uint(c, "cpus.online", "CPUs online", 1);
}
"""

CLEAN = {
    "scenarios/one.yaml": SCENARIO,
    "tests/vm/t_one_checks_fail.sh": ROWS,
    "hw/expected.c": EXPECTED_C,
}

# name -> ([(file, text after which to insert, inserted)], what the list must name)
PLANTS = {
    "not_covered": ([("scenarios/one.yaml", "        a: 1\n", "        b: 2\n")],
                    "scenarios/one.yaml:10: step 1 json b"),
    "key_but_no_step": ([("scenarios/one.yaml", "        a: 1\n", "        c: 3\n"),
                         ("tests/vm/t_one_checks_fail.sh", "got 1\n",
                          "one${T}s/c: 3/c: 9/${T}json c: expected 9, got 3\n")],
                        "scenarios/one.yaml:10: step 1 json c"),
    "wrong_step": ([("scenarios/one.yaml", "        a: 1\n", "        c: 3\n"),
                    ("tests/vm/t_one_checks_fail.sh", "got 1\n",
                     "one${T}s/c: 3/c: 9/${T}step 2 .*json c: expected 9, got 3\n")],
                   "scenarios/one.yaml:10: step 1 json c"),
    "mark_without_reason": ([("scenarios/one.yaml", "        a: 1\n",
                              "        e: 5  # presence:\n")],
                            "scenarios/one.yaml:10: a presence mark needs its reason"),
    "fact_not_covered": ([("hw/expected.c", "}\n", 'static int g(struct facts_ctx *c)\n{\n'
                           '\treturn fact_bool(c, "sleep.s3", "S3 (deep)", 1);\n}\n')],
                         "hw/expected.c:7: step machine sleep.s3 (S3 (deep))"),
}


def make(root, plant=None, rows=""):
    files = dict(CLEAN)
    sh = "tests/vm/t_one_checks_fail.sh"
    files[sh] = files[sh].replace("\nEOF_TABLE\n", "\n" + rows + "EOF_TABLE\n", 1)
    for path, after, text in PLANTS[plant][0] if plant else []:
        assert after in files[path], (plant, after)
        files[path] = files[path].replace(after, after + text, 1)
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)


def check(root, *args, strict=None):
    env = dict(os.environ)
    env.pop("KTB_COVERAGE_STRICT", None)
    if strict:
        env["KTB_COVERAGE_STRICT"] = strict
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_coverage.py"), "--root", root,
                        *args], capture_output=True, text=True, env=env)
    return r.returncode, r.stdout + r.stderr


class CheckCoverage(unittest.TestCase):
    def test_clean_tree_passes(self):
        with tempfile.TemporaryDirectory() as root:
            make(root)
            rc, out = check(root, "--list")
            self.assertEqual(rc, 0, out)
            # a, cycles.0.irq (named by its tail), for (through the
            # inserted step), d marked
            self.assertIn("clauses: 3/4 covered by a mutation row (75.0%), 1 marked presence, "
                          "0 uncovered", out)
            self.assertIn("machine facts: 1/1 covered", out)
            self.assertNotIn("credits nothing", out)
            # the PASS line is about no check: counted, not listed
            self.assertIn("(1 rows and cases are about no check", out)

    def test_each_planted_defect_fails(self):
        for name, (_, named) in PLANTS.items():
            with self.subTest(plant=name), tempfile.TemporaryDirectory() as root:
                make(root, name)
                rc, out = check(root, "--list")
                self.assertEqual(rc, 1, out)
                self.assertIn(named, out)
                # not strict: the same report, and a pass
                rc, out = check(root, "--list", "--report-only")
                self.assertEqual(rc, 0, out)
                self.assertIn(named, out)
                rc, out = check(root, "--report-only", strict="1")
                self.assertEqual(rc, 1, out)

    def test_rows_that_credit_nothing_are_listed(self):
        with tempfile.TemporaryDirectory() as root:
            make(root, "key_but_no_step")
            rc, out = check(root, "--list")
            self.assertIn("tests/vm/t_one_checks_fail.sh:5: credits nothing: one: json c: expected",
                          out)
            make(root, "wrong_step")
            rc, out = check(root, "--list")
            self.assertIn("credits nothing: one: step 2 .*json c", out)
            # a step kind's own message, without its step, is about a check
            make(root, rows="one${T}s/5s/6s/${T}the console did not show /marker/\n")
            rc, out = check(root, "--list")
            self.assertIn("credits nothing: one: the console did not show", out)
            self.assertIn("(1 rows and cases are about no check", out)

    def test_awake_screen_is_a_clause_of_its_own(self):
        with tempfile.TemporaryDirectory() as root:
            make(root)
            with open(os.path.join(root, "scenarios", "two.yaml"), "w") as f:
                f.write("name: two\nsteps:\n  - screen: before\n  - suspend: s3\n"
                        "    awake_screen: {same_as: before, within: 5s}\n")
            with open(os.path.join(root, "tests", "vm", "t_two_checks_fail.sh"), "w") as f:
                f.write(". \"$(dirname \"$0\")/lib.sh\"\nT=$'\\t'\nmutations <<EOF_TABLE\n"
                        "two${T}s/5s/6s/${T}step 2 .*awake_screen: the screen differs from\n"
                        "EOF_TABLE\n")
            rc, out = check(root, "--list")
            self.assertIn("scenarios/two.yaml:4: step 2 suspend", out)
            self.assertNotIn("step 2 awake_screen", out)
            self.assertNotIn("credits nothing", out)


if __name__ == "__main__":
    unittest.main()
