#!/usr/bin/env python3
"""cutune report: a run made with the fake worker (three reduce_sum variants at two sizes,
with wrong results and crashes, and the searches the run records), plus what a run records
on a GPU only (a vendor yardstick), written as HTML and checked
  - as text: every table and figure there with what the database holds (the best config
    per size, the ratio to the yardstick, one curve per variant, one dot per ok config,
    each parameter's medians, the failures by status), untrusted text escaped, no script,
    nothing fetched;
  - in a real browser: headless Chromium loads it, its DOM holds the tables and figures,
    and its screenshot shows them (skipped where Chromium is missing);
and the report's bad input (no such run, an output that is the database).

    test_report.py CUTUNE_EXE FAKE_WORKER"""
import html.parser
import os
import shutil
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks, run_cutune  # noqa: E402
import zlib

exe, fake = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
tmp = tempfile.mkdtemp(prefix="cutune-report-")
db = os.path.join(tmp, "run.db")
out = os.path.join(tmp, "report.html")
check = Checks()


def run(*args, env=None):
    return run_cutune(exe, *args, env=env)


# the fake worker times no yardstick here: the test records the one size's itself
env = dict(os.environ, CUTUNE_WORKER=fake, CUTUNE_FAKE_YARDSTICK="none",
           CUTUNE_FAKE_RULES="wrong=BLOCK=64,LESS_DIV=0;segv=BLOCK=128,LESS_DIV=1;"
                             "lost=BLOCK=512,LESS_DIV=0")
rc, so, se = run("run", "reduce_sum", "--size", "1048576", "--size", "65536", "--strategy", "random",
                 "--budget", "12", "--seed", "3", "--db", db, env=env)
check(rc == 0, "the fake run: %s" % se[-400:])

con = sqlite3.connect(db)
trials = con.execute("SELECT v.name, p.size, t.config, t.status, t.median_ms, t.id, p.id, t.device_id"
                     " FROM trials t JOIN variants v ON v.id = t.variant_id JOIN problems p ON"
                     " p.id = t.problem_id WHERE t.run_id = 1 ORDER BY t.id").fetchall()
ok = [t for t in trials if t[3] == "ok"]
sizes = sorted({t[1] for t in trials})
groups = sorted({(t[0], t[1]) for t in trials})
best = {s: min((t for t in ok if t[1] == s), key=lambda t: t[4]) for s in sizes}
# what a run on a GPU records beside the trials: a vendor yardstick (here for one size)
ysize = "1048576"
y_ms = best[ysize][4] * 1.25
con.execute("INSERT INTO yardsticks (run_id, device_id, problem_id, name, median_ms) VALUES"
            " (1, ?, ?, 'cub::DeviceReduce::Sum', ?)", (best[ysize][7], best[ysize][6], y_ms))
searches = {}
for name, size, strategy, nvalid, evaluated, seconds, status in con.execute(
        "SELECT variant, size, strategy, nvalid, evaluated, seconds, status FROM search_details"
        " WHERE run_id = 1 ORDER BY id"):
    g = searches.setdefault((name, size), {"strategy": [], "nvalid": 0, "evaluated": 0,
                                           "seconds": 0.0, "status": ""})
    if strategy not in g["strategy"]:
        g["strategy"].append(strategy)
    g["nvalid"] = max(g["nvalid"], nvalid)
    g["evaluated"] += evaluated
    g["seconds"] += seconds
    g["status"] = status
check(set(searches) == set(groups), "the run recorded a search of every variant and size: %s" % searches)
hostile = "<script>alert(1)</script> \x1b[2J & \"quoted\""
crashed = [t for t in trials if t[3] == "crashed"]
con.execute("UPDATE trials SET message = ? WHERE id = ?", (hostile, crashed[0][5]))
con.commit()
con.close()
statuses = {}
for t in trials:
    if t[3] != "ok":
        statuses[t[3]] = statuses.get(t[3], 0) + 1
check(statuses.get("wrong_result") and statuses.get("crashed"), "the run has failures: %s" % statuses)

rc, so, se = run("report", "--db", db, "--html", out)
check(rc == 0 and "wrote" in so, "report --html: %s %s" % (so, se))
text = open(out, encoding="utf-8").read() if rc == 0 else ""


class Page(html.parser.HTMLParser):
    """Tables (by id: rows of cells) and SVG figures (by id: counts of marks)."""

    def __init__(self):
        super().__init__()
        self.tables, self.svgs, self.tags = {}, {}, set()
        self.table = self.svg = None
        self.row = self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id", "table%d" % len(self.tables)), [])
        elif tag == "tr" and self.table is not None:
            self.row = []
            self.table.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
        elif tag == "svg" and a.get("class") == "plot":
            self.svg = self.svgs.setdefault(a.get("id"), {})
        elif self.svg is not None and tag in ("polyline", "circle", "line"):
            key = "%s.%s" % (tag, a.get("class", ""))
            self.svg[key] = self.svg.get(key, 0) + 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "table":
            self.table = self.row = None
        elif tag == "svg" and self.svg is not None:
            self.svg = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def check_page(p, where):
    bt = p.tables.get("best-table", [])
    check(len(bt) == 1 + len(sizes), "%s: best table has a row per size: %s" % (where, bt))
    for row in bt[1:]:
        b = best.get(row[0])
        check(b and row[1] == b[0] and row[2] == b[2] and abs(float(row[3]) - b[4]) < 1e-5 * b[4],
              "%s: best of %s is %s %s: %s" % (where, row[0], b and b[0], b and b[2], row))
        if row[0] == ysize:
            check(row[4] == "cub::DeviceReduce::Sum" and row[6] == "125.0%",
                  "%s: yardstick ratio 125.0%%: %s" % (where, row))
        else:
            check("not measured" in row, "%s: no yardstick for %s: %s" % (where, row[0], row))
    st = p.tables.get("search-table", [])
    check(len(st) == 1 + len(groups), "%s: a search row per variant and size" % where)
    for row in st[1:]:
        g = searches.get((row[0], row[1]))
        n = sum(1 for t in trials if (t[0], t[1]) == (row[0], row[1]) and t[3] == "ok")
        check(g and row[2] == " + ".join(g["strategy"]) and row[3] == str(g["nvalid"]) and
              row[4] == str(g["evaluated"]) and row[5] == "%.1f" % g["seconds"] and
              row[6] == g["status"] and row[7] == str(n),
              "%s: search row %s is %s" % (where, row, g))
    for i, s in enumerate(sizes_in_report(p)):
        variants = {g[0] for g in groups if g[1] == s}
        for kind in ("evals", "time"):
            svg = p.svgs.get("convergence-%s-%d" % (kind, i), {})
            check(svg.get("polyline.series") == len(variants),
                  "%s: %s convergence of %s has %d curves: %s" % (where, kind, s, len(variants), svg))
        dots = p.svgs.get("spread-%d" % i, {})
        check(dots.get("circle.dot") == sum(1 for t in ok if t[1] == s),
              "%s: one dot per ok config of %s: %s" % (where, s, dots))
        check(dots.get("line.median") == len(variants), "%s: a median per variant" % where)
    for g, (name, size) in enumerate(groups_in_report(p)):
        rows = p.tables.get("params-%d" % g, [])
        times = [t[4] for t in ok if (t[0], t[1]) == (name, size)]
        first = [t for t in ok if (t[0], t[1]) == (name, size)][0][2]
        pname = first.split("=")[0]
        vals = sorted({int(dict(kv.split("=") for kv in t[2].split(","))[pname])
                       for t in ok if (t[0], t[1]) == (name, size)})
        check(len(rows) - 1 >= len(vals) and len(times) > 0, "%s: params table of %s %s" % (where, name, size))
        v0 = vals[0]
        want = statistics.median([t[4] for t in ok if (t[0], t[1]) == (name, size) and
                                  dict(kv.split("=") for kv in t[2].split(","))[pname] == str(v0)])
        r1 = rows[1] if len(rows) > 1 else []
        check(r1[:2] == [pname, str(v0)] and abs(float(r1[3]) - want) < 1e-5 * want,
              "%s: median of %s=%s in %s %s is %s: %s" % (where, pname, v0, name, size, want, r1))
    for status, n in statuses.items():
        rows = p.tables.get("failed-" + status, [])
        check(len(rows) - 1 == n, "%s: %d %s rows: %d" % (where, n, status, len(rows) - 1))


def sizes_in_report(p):
    return [row[0] for row in p.tables.get("best-table", [])[1:]]


def groups_in_report(p):
    return [(row[0], row[1]) for row in p.tables.get("search-table", [])[1:]]


page = Page()
page.feed(text)
check_page(page, "html")
check("<script" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text,
      "a hostile message is escaped and no script is written")
check("\x1b" not in text and "&amp; &quot;quoted&quot;" in text, "control characters and quotes escaped")
check("http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text,
      "nothing is fetched from a network")

# ---- in a real browser -----------------------------------------------------------------------
browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(b)), None)


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, not interlaced."""
    data = open(path, "rb").read()
    pos, idat, w, h, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            bpp = {2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    stride = w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


if not browser:
    print("no Chromium here: the browser half is skipped (apt-get install chromium)")
else:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", "--disable-extensions", "--user-data-dir=" + os.path.join(tmp, "profile")]
    url = "file://" + out
    dom = subprocess.run([browser] + flags + ["--dump-dom", url], capture_output=True, text=True,
                         timeout=120)
    page2 = Page()
    page2.feed(dom.stdout)
    check(dom.returncode == 0 and "best-table" in dom.stdout, "Chromium loads the page: %s" % dom.stderr[-300:])
    check_page(page2, "chromium DOM")
    shot = os.path.join(tmp, "shot.png")
    p = subprocess.run([browser] + flags + ["--window-size=1000,1400", "--screenshot=" + shot, url],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(shot), "Chromium takes a screenshot: %s" % p.stderr[-300:])
    if os.path.exists(shot):
        w, h, rows = png_pixels(shot)
        blue = sum(1 for r in rows for px in r if abs(px[0] - 31) < 30 and abs(px[1] - 119) < 30
                   and abs(px[2] - 180) < 30)
        red = sum(1 for r in rows for px in r if px[0] > 180 and px[1] < 80 and px[2] < 80)
        ink = sum(1 for r in rows for px in r if sum(px) < 600)
        check(w == 1000 and h == 1400, "the screenshot is 1000x1400: %dx%d" % (w, h))
        check(ink > 0.01 * w * h, "the page shows text and lines: %d dark pixels" % ink)
        check(blue > 200 and red > 100, "the figures' curves are drawn: %d blue, %d red pixels" % (blue, red))
        keep = os.environ.get("CUTUNE_REPORT_SCREENSHOT")
        if keep:
            shutil.copy(shot, keep)

# ---- bad input --------------------------------------------------------------------------------
rc, so, se = run("report", "7", "--db", db)
check(rc == 4 and "has no run 7" in se, "an unknown run: exit 4 (%d) %s" % (rc, se))
rc, so, se = run("report", "x1", "--db", db)
check(rc == 2, "RUN must be a number: %d %s" % (rc, se))
before = open(db, "rb").read()
rc, so, se = run("report", "--db", db, "--html", db)
check(rc == 2 and open(db, "rb").read() == before, "the database is never the output: %s" % se)
rc, so, se = run("report", "--db", db)
check(rc == 0 and best[sizes[0]][2] in so, "the summary names the best configs: %s" % so)

shutil.rmtree(tmp)
check.done()
