"""What the Python test programs share: checks that count failures instead of stopping at
the first, running the cutune command, and reading a database."""
import sqlite3
import subprocess
import sys


class Checks:
    def __init__(self):
        self.failures = 0

    def __call__(self, cond, what):
        """Counts a failure (printing what) unless cond; returns cond."""
        if not cond:
            self.failures += 1
            print("FAIL:", what)
        return cond

    def done(self, name=None):
        """Exits 1 if a check failed, else 0; with name, the summary reads "name: ok"."""
        if name is None:
            print("%d failures" % self.failures)
        else:
            print("%s: %s" % (name, "ok" if self.failures == 0 else
                              "%d failures" % self.failures))
        sys.exit(1 if self.failures else 0)


def run_cutune(exe, *args, env=None):
    """(exit code, stdout, stderr) of `exe args...`."""
    p = subprocess.run([exe] + list(args), capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def rows(path, sql):
    """The rows of sql on the SQLite database at path, opened read-only."""
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    r = con.execute(sql).fetchall()
    con.close()
    return r
