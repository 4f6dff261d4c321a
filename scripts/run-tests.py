#!/usr/bin/env python3
"""Run the test programs of a Meson build without Meson (the GPU machine has none).

    scripts/run-tests.py BUILD_DIR [LOG_FILE] [--suite=NAME] [--test=NAME,NAME...]

Reads BUILD_DIR/meson-info/intro-tests.json, maps the paths recorded at configure time onto
where the tree is now (the build may have been carried from another machine), runs each
test with its environment and timeout, and prints one line per test, then
"N passed, N failed, N skipped". Exit code 77 counts as skipped."""
import json
import os
import shutil
import subprocess
import sys
import time


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    suite, names = None, None
    for a in sys.argv[1:]:
        if a.startswith("--suite="):
            suite = a.split("=", 1)[1]
        elif a.startswith("--test="):
            names = a.split("=", 1)[1].split(",")
        elif a.startswith("--"):
            sys.exit("run-tests.py: unknown option %s" % a)
    build = os.path.abspath(args[0] if args else "build")
    logs = os.path.abspath(args[1]) if len(args) > 1 else None
    info = json.load(open(os.path.join(build, "meson-info", "meson-info.json")))
    old_src, old_build = info["directories"]["source"], info["directories"]["build"]
    new_src = os.path.dirname(build)

    def fix(s):
        return s.replace(old_build, build).replace(old_src, new_src)

    counts = {"pass": 0, "FAIL": 0, "SKIP": 0}
    for t in json.load(open(os.path.join(build, "meson-info", "intro-tests.json"))):
        if suite and not any(s.endswith(":" + suite) for s in t["suite"]):
            continue
        if names and t["name"] not in names:
            continue
        env = dict(os.environ)
        env.update({k: fix(v) for k, v in t["env"].items()})
        cmd = [fix(c) for c in t["cmd"]]
        if not os.path.exists(cmd[0]):  # an interpreter found elsewhere at configure time
            cmd[0] = shutil.which(os.path.basename(cmd[0])) or cmd[0]
        t0 = time.time()
        try:
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               cwd=fix(t["workdir"]) if t["workdir"] else build,
                               timeout=t["timeout"] or None)
            rc, out = p.returncode, p.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            rc, out = -1, (e.stdout or b"").decode(errors="replace") + "\nTIMEOUT"
        except OSError as e:
            rc, out = -2, "cannot run %s: %s" % (cmd[0], e)
        result = "pass" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
        counts[result] += 1
        if logs:  # one file for all: the GPU machine sends back only a few files
            with open(logs, "a") as f:
                f.write("===== %s: %s (exit %d)\n%s\n" % (t["name"], result, rc, out))
        last = out.strip().splitlines()[-1] if out.strip() else ""
        print("test %-16s %-5s %6.1fs  %s" % (t["name"], result, time.time() - t0, last[:150]),
              flush=True)
        if result == "FAIL":
            print("\n".join(out.splitlines()[-25:]), flush=True)
    print("tests: %d passed, %d failed, %d skipped" % (counts["pass"], counts["FAIL"], counts["SKIP"]))
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
