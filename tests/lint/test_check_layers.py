#!/usr/bin/env python3
"""check_layers.py on a small tree that keeps every rule, and on copies with
one violation planted each: the check it breaks must fail and name it, and a
clean tree must pass every check."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

CLEAN = {
    "harness/CMakeLists.txt": "ktb_layer(base PkgConfig::JANSSON)\n"
                              "ktb_layer(top ktb_base ktb_hw ktb_guest_protocol)\n",
    "harness/base/util.h": "/* contract */\nint util_f(void);\n"
                           "static inline int util_g(void)\n{\n\treturn 1;\n}\n",
    "harness/base/util.c": '#include "util.h"\n\nint util_f(void)\n{\n\treturn 0;\n}\n'
                           "static const int kinds[] = { [STEP_RUN] = 1 };\n"
                           "int k(int s)\n{\n\treturn s < STEP_KIND_COUNT && kinds[s];\n}\n",
    "harness/base/proc.h": "int proc_run(const char *cmd);\n",
    "harness/base/proc.c": '#include "proc.h"\n#include <unistd.h>\n\n'
                           "int proc_run(const char *cmd)\n{\n"
                           '\t/* fork( in a comment is no call */\n\treturn fork() + !cmd;\n}\n',
    "harness/top/top.h": "int top_f(void);\n",
    "harness/top/top.c": '#include "top.h"\n#include "util.h"\n#include "machine.h"\n'
                         '#include "protocol.h"\n\nint top_f(void)\n{\n'
                         '\treturn util_f() + m() + (int)sizeof("system(");\n}\n',
    "hw/machine.h": "int m(void);\n",
    "hw/machine.c": '#include "machine.h"\n\nint m(void)\n{\n\treturn 0;\n}\n'
                    "static const int rows[] = { [DISK_BUS_NVME] = 1 };\n"
                    "int n(int b)\n{\n\treturn b < DISK_BUS_COUNT && rows[b];\n}\n",
    "guest/protocol.h": "#define KTB_PORT 1\n",
    "guest/init.c": "int main(void)\n{\n\treturn fork();\n}\n",
}

# check letter -> (file, text appended to it, what the report must name)
PLANTS = {
    "a": ("harness/top/top.c", '#include "../base/util.h"\n', '"../base/util.h"'),
    "b": ("harness/base/util.c", '#include "top.h"\n', 'harness/base/util.c: #include "top.h"'),
    "c": ("harness/base/proc.h", '#include "util.h"\n', "harness/base/proc <-> harness/base/util"),
    "d": ("harness/base/util.h", "int stray(int x);\n", "declares stray"),
    "e": ("harness/top/top.c", 'void t(void)\n{\n\tpopen("x", "r");\n}\n',
          "harness/top/top.c: calls popen"),
    "f": ("hw/machine.c", "int b(int x)\n{\n\treturn x == DISK_BUS_NVME;\n}\n",
          "hw/machine.c:14: branches on a bus (== DISK_BUS_NVME)"),
    "g": ("harness/top/top.c", "int s(int k)\n{\n\treturn k != STEP_SUSPEND;\n}\n",
          "harness/top/top.c:12: branches on a step kind (!= STEP_SUSPEND)"),
}
PLANTS_EXTRA = {"c": ("harness/base/util.h", '#include "proc.h"\n')}
# more violations of check b, outside the layers: the model and the guest
# reaching up, and a folder no rule covers
PLANTS_B = {
    "hw_up": ("hw/machine.c", '#include "util.h"\n',
              'hw/machine.c: #include "util.h" is in harness/base, not what hw/ may use'),
    "guest_up": ("guest/init.c", '#include "machine.h"\n',
                 'guest/init.c: #include "machine.h" is in hw, not what guest/ may use'),
    "no_rule": ("harness/extra/x.c", "int x;\n",
                "harness/extra/x.c: in harness/extra/, which no rule covers"),
}


def make(root, plant=None):
    files = dict(CLEAN)
    if plant:
        path, text, _ = PLANTS[plant] if plant in PLANTS else PLANTS_B[plant]
        files[path] = files.get(path, "") + text
        if plant in PLANTS_EXTRA:
            p, t = PLANTS_EXTRA[plant]
            files[p] += t
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)


def check(root, *args):
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_layers.py"), "--root", root,
                        *args], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


class CheckLayers(unittest.TestCase):
    def test_clean_tree_passes(self):
        with tempfile.TemporaryDirectory() as root:
            make(root)
            rc, out = check(root)
            self.assertEqual(rc, 0, out)
            self.assertIn("spawn-site files: 1", out)
            self.assertIn("include cycles: 0", out)

    def test_each_planted_violation_fails_its_check(self):
        for letter, (_, _, named) in PLANTS.items():
            with self.subTest(check=letter), tempfile.TemporaryDirectory() as root:
                make(root, letter)
                rc, out = check(root, "--only", letter)
                self.assertEqual(rc, 1, out)
                self.assertIn(f"check {letter} ", out)
                self.assertIn(named, out)
                rc, out = check(root, "--stats")
                self.assertEqual(rc, 0, out)

    def test_each_violation_outside_the_layers_fails_check_b(self):
        for name, (_, _, named) in PLANTS_B.items():
            with self.subTest(plant=name), tempfile.TemporaryDirectory() as root:
                make(root, name)
                rc, out = check(root, "--only", "b")
                self.assertEqual(rc, 1, out)
                self.assertIn(named, out)


if __name__ == "__main__":
    unittest.main()
