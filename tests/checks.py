"""What the Python test programs share: checks that count failures instead of stopping at
the first, and running the cutune command."""
import subprocess
import sys


class Checks:
    def __init__(self):
        self.failures = 0

    def __call__(self, cond, what):
        if not cond:
            self.failures += 1
            print("FAIL:", what)

    def done(self):
        print("%d failures" % self.failures)
        sys.exit(1 if self.failures else 0)


def run_cutune(exe, *args, env=None):
    """(exit code, stdout, stderr) of `exe args...`."""
    p = subprocess.run([exe] + list(args), capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr
