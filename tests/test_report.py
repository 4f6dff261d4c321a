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
import math
import re
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
# 40 evaluations of each variant: some parameters then have 5 ok configs at two values, the
# least the report shows an effect for
rc, so, se = run("run", "reduce_sum", "--size", "1048576", "--size", "65536", "--strategy", "random",
                 "--budget", "40", "--seed", "3", "--db", db, env=env)
check(rc == 0, "the fake run: %s" % se[-400:])

con = sqlite3.connect(db)
trials = con.execute("SELECT v.name, p.size, t.config, t.status, t.median_ms, t.id, p.id, t.device_id,"
                     " t.gbps, t.min_ms, t.samples FROM trials t JOIN variants v ON v.id = t.variant_id JOIN problems p ON"
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
# and a slower timing after it in the same run (a run times it again at the size's end): the
# report takes the run's fastest, as the run's own summary does
con.execute("INSERT INTO yardsticks (run_id, device_id, problem_id, name, median_ms) VALUES"
            " (1, ?, ?, 'cub::DeviceReduce::Sum', ?)", (best[ysize][7], best[ysize][6], y_ms * 1.5))
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
# the trials over some seconds, the second size's 100 s later in the run: its wall-time axis
# starts there, not at the run's start
con.execute("UPDATE trials SET created_at = datetime(created_at, '+' || (id / 8) || ' seconds')"
            " WHERE run_id = 1")
con.execute("UPDATE trials SET created_at = datetime(created_at, '+100 seconds')"
            " WHERE run_id = 1 AND problem_id = (SELECT id FROM problems WHERE size = '65536')")
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
        self.table = self.svg = self.svg_id = None
        self.row = self.cell = None
        # every mark of every plot: (svg id, tag, attributes, its <title>'s text)
        self.marks, self.mark, self.title = [], None, None
        self.ids, self.hrefs, self.swatches = set(), [], {}
        self.key = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.hrefs.append(a["href"][1:])
        if tag == "span" and a.get("class") == "swatch":
            self.key = re.search(r"background:(#[0-9a-f]{6})", a.get("style", "")).group(1)
        if self.svg is not None and self.svg_id and tag in ("polyline", "circle", "line", "rect"):
            self.mark = [self.svg_id, tag, a, ""]
            self.marks.append(self.mark)
        if tag == "title" and self.mark is not None:
            self.title = []
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id", "table%d" % len(self.tables)), [])
        elif tag == "tr" and self.table is not None:
            self.row = []
            self.table.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
        elif tag == "svg" and a.get("class") == "plot":
            self.svg = self.svgs.setdefault(a.get("id"), {})
            self.svg_id = a.get("id")
        elif self.svg is not None and tag in ("polyline", "circle", "line"):
            key = "%s.%s" % (tag, a.get("class", ""))
            self.svg[key] = self.svg.get(key, 0) + 1

    def handle_endtag(self, tag):
        if tag == "title" and self.title is not None:
            self.mark[3] = "".join(self.title)
            self.title = None
        elif tag in ("polyline", "circle", "line", "rect"):
            self.mark = None
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "table":
            self.table = self.row = None
        elif tag == "svg" and self.svg is not None:
            self.svg = self.svg_id = None

    def handle_data(self, data):
        if self.title is not None:
            self.title.append(data)
        if self.key is not None and data.strip():
            self.swatches[data.strip()] = self.key
            self.key = None
        if self.cell is not None:
            self.cell.append(data)


def check_page(p, where):
    bt = p.tables.get("best-table", [])
    check(len(bt) == 1 + len(sizes), "%s: best table has a row per size: %s" % (where, bt))
    for row in bt[1:]:
        b = best.get(row[0])
        check(b and row[1] == b[0] and row[2] == b[2] and abs(float(row[3]) - b[4]) < 1e-5 * b[4],
              "%s: best of %s is %s %s: %s" % (where, row[0], b and b[0], b and b[2], row))
        # a memory-bound op's rate in GB/s, the share of peak n/a (no peak recorded), and the
        # winner's spread: its fastest sample and its sample count
        check(b and row[4] == "%.4g GB/s" % b[8] and row[5] == "n/a",
              "%s: the best of %s runs at %.4g GB/s: %s" % (where, row[0], b and b[8], row))
        check(b and row[6].startswith("fastest %.4g ms" % b[9]) and row[6].endswith("%d samples" % b[10]),
              "%s: the winner's spread: %s" % (where, row))
        if row[0] == ysize:
            check(row[7] == "cub::DeviceReduce::Sum" and row[9] == "125.0%" and
                  abs(float(row[8]) - b[4] * 1.25) < 1e-5 * b[4],
                  "%s: yardstick ratio 125.0%% and its rate: %s" % (where, row))
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
    # a parameter's effect only at values of 5 ok configs or more, and a parameter only
    # where two of its values have them; its share of the variance of the log times
    shown = 0
    importance = {}
    for row in p.tables.get("importance-table", [])[1:]:
        if len(row) == 6:
            key = (row[0], row[1])
            row = row[2:]
        importance[key + (row[0],)] = float(row[1].rstrip("%"))
    for g, (name, size) in enumerate(groups_in_report(p)):
        rows = p.tables.get("params-%d" % g, [])
        mine = [dict(kv.split("=") for kv in t[2].split(",")) for t in ok if (t[0], t[1]) == (name, size)]
        times = [t[4] for t in ok if (t[0], t[1]) == (name, size)]
        want = {}
        for pname in (mine[0] if mine else {}):
            levels = {}
            for c, ms in zip(mine, times):
                levels.setdefault(c[pname], []).append(ms)
            kept = {v: ts for v, ts in levels.items() if len(ts) >= 5}
            if len(kept) >= 2:
                want[pname] = kept
        got, param = {}, None
        for row in rows[1:]:
            if len(row) == 5:
                param = row[0]
                row = row[1:]
            if len(row) == 4 and row[0]:
                got.setdefault(param, {})[row[0]] = (int(row[1]), float(row[2]))
        check(set(got) == set(want), "%s: %s %s shows the parameters %s, not %s" %
              (where, name, size, sorted(got), sorted(want)))
        for pname, kept in want.items():
            for v, ts in kept.items():
                g_n, g_med = got.get(pname, {}).get(v, (0, 0))
                m = statistics.median(ts)
                check(g_n == len(ts) and abs(g_med - m) < 1e-5 * m,
                      "%s: %s=%s in %s %s: %d configs, median %g: %s" %
                      (where, pname, v, name, size, len(ts), m, (g_n, g_med)))
            # the share of the variance of log times explained by the values' medians
            ys = [math.log(t) for ts in kept.values() for t in ts]
            mean = sum(ys) / len(ys)
            ss = sum((y - mean) ** 2 for y in ys)
            between = sum(len(ts) * (math.log(statistics.median(ts)) - mean) ** 2 for ts in kept.values())
            share = 100 * min(between / ss, 1) if ss > 0 else 0
            gotshare = importance.get((name, size, pname))
            check(gotshare is not None and abs(gotshare - share) <= 0.51,
                  "%s: importance of %s in %s %s is %.1f%%: %s" % (where, pname, name, size, share, gotshare))
        shown += bool(want)
    check(shown >= 1, "%s: some variant has a parameter with enough configs to show" % where)
    for status, n in statuses.items():
        rows = p.tables.get("failed-" + status, [])
        check(len(rows) - 1 == n, "%s: %d %s rows: %d" % (where, n, status, len(rows) - 1))
    check_figures(p, where)


def check_figures(p, where):
    """One colour per variant across the page, no empty plot, a title on each dot naming its
    config, two ticks or more on each log axis, the vendor's line, a table of contents."""
    colours = {}
    for svg, tag, a, title in p.marks:
        if a.get("data-variant"):
            colours.setdefault(a["data-variant"], set()).add(a.get("stroke") or a.get("fill"))
    variants = {t[0] for t in trials if t[3] == "ok"}
    check(set(colours) == variants and all(len(c) == 1 for c in colours.values()),
          "%s: one colour per variant across the page: %s" % (where, colours))
    check(len({min(c) for c in colours.values()}) == len(colours),
          "%s: distinct variants, distinct colours: %s" % (where, colours))
    check(all(p.swatches.get(v) in c for v, c in colours.items()),
          "%s: the legend's colours are the figures': %s %s" % (where, p.swatches, colours))
    for svg in p.svgs:
        marks = [m for m in p.marks if m[0] == svg]
        drawn = [m for m in marks if (m[1] == "polyline" and m[2].get("points", "").strip()) or
                 m[1] == "circle" or (m[1] == "rect" and m[2].get("class") in ("best", "vendor"))]
        check(drawn, "%s: plot %s is not empty" % (where, svg))
        ticks = [m for m in marks if m[2].get("class") in ("ytick" if "convergence" in svg else "xtick",)]
        check(len(ticks) >= 2, "%s: plot %s has %d ticks on its axis" % (where, svg, len(ticks)))
    dots = [m for m in p.marks if m[1] == "circle" and m[2].get("class") == "dot"]
    configs = sorted(t[0] + " " + t[2] for t in ok)
    check(sorted(m[3].rsplit(":", 1)[0] for m in dots) == configs,
          "%s: each dot's title names its variant and config" % where)
    for i, s in enumerate(sizes_in_report(p)):
        vendor = [m for m in p.marks if m[0] == "convergence-evals-%d" % i and m[2].get("class") == "vendor"]
        check(len(vendor) == (s == ysize), "%s: the vendor's line on %s's convergence: %d" % (where, s, len(vendor)))
        # the wall-time axis starts at the size's first trial, not at the run's start: the
        # curves begin before the axis's second tick (a round number at or below the first)
        xs = [float(pt.split(",")[0]) for m in p.marks if m[0] == "convergence-time-%d" % i and
              m[1] == "polyline" for pt in m[2].get("points", "").split()]
        ticks = sorted(float(m[2]["x1"]) for m in p.marks if m[0] == "convergence-time-%d" % i and
                       m[2].get("class") == "xtick")
        check(xs and len(ticks) >= 3 and ticks[0] <= min(xs) < ticks[1],
              "%s: the wall-time curves of %s start at the left: %s, ticks %s" % (where, s, xs[:3], ticks))
    bars = [m for m in p.marks if m[0] == "vs-vendor-chart"]
    bars = [m for m in bars if m[1] == "rect" and m[2].get("class")]
    check([m[2]["class"] for m in bars] == ["best", "vendor"],
          "%s: the chart of best against vendor has the one yardstick's size: %s" % (where, bars))
    b = best[ysize]
    check([m[3].rsplit(": ", 1)[-1] for m in bars] == ["%.4g" % b[8], "%.4g" % (b[8] / 1.25)],
          "%s: the chart's bars are the best's GB/s and the vendor's: %s" % (where, [m[3] for m in bars]))
    check("toc" in p.ids and len(p.hrefs) >= 8 and all(h in p.ids for h in p.hrefs),
          "%s: a table of contents whose links all lead somewhere: %s" % (where, [h for h in p.hrefs if h not in p.ids]))


def sizes_in_report(p):
    return [row[0] for row in p.tables.get("best-table", [])[1:]]


def groups_in_report(p):
    return [(row[0], row[1]) for row in p.tables.get("search-table", [])[1:]]


page = Page()
page.feed(text)
check_page(page, "html")
# each figure's caption is its title, above it: a figure opens with its caption, and no
# caption follows a plot (where it would read as the next one's title)
nplots = text.count('class="plot"')
check(nplots > 0 and len(re.findall(r'<figure>\s*<figcaption class="title">[^<]+</figcaption>\s*<svg ', text)) == nplots
      and not re.search(r"</svg>\s*<figcaption", text), "every plot has its title above it")
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
    # the whole page as test output, for a person to look at (meson's build/tests/report-output)
    kept = os.environ.get("CUTUNE_REPORT_OUTPUT")
    if kept:
        os.makedirs(kept, exist_ok=True)
        shutil.copy(out, os.path.join(kept, "report.html"))
        full = os.path.join(kept, "report-full.png")
        p = subprocess.run([browser] + flags + ["--window-size=1100,9000", "--screenshot=" + full, url],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0 and os.path.exists(full), "the whole page's screenshot is kept: %s" % full)
        if os.path.exists(shot):
            shutil.copy(shot, os.path.join(kept, "report-top.png"))
        print("screenshots and the page kept in %s" % kept)

# ---- bad input --------------------------------------------------------------------------------
rc, so, se = run("report", "7", "--db", db)
check(rc == 4 and "has no run 7" in se, "an unknown run: exit 4 (%d) %s" % (rc, se))
rc, so, se = run("report", "x1", "--db", db)
check(rc == 2, "RUN must be a number: %d %s" % (rc, se))
before = open(db, "rb").read()
rc, so, se = run("report", "--db", db, "--html", db)
check(rc == 2 and open(db, "rb").read() == before, "the database is never the output: %s" % se)
rc, so, se = run("report", "--db", db)
check(rc == 0 and best[sizes[0]][2] in so and "%.4g GB/s" % best[sizes[0]][8] in so,
      "the summary names the best configs and their rates: %s" % so)

check("run 1:" in so and "re-timed" not in so, "a run that searched is the latest: %s" % so)

# a rate in TFLOP/s for an op of many flops a byte (as matmul's): the same run, its trials' work
# made 100 flops a byte
tf_db = os.path.join(tmp, "tflops.db")
shutil.copy(db, tf_db)
con = sqlite3.connect(tf_db)
con.execute("UPDATE trials SET gflops = 100 * gbps")
con.commit()
con.close()
tf_out = os.path.join(tmp, "tflops.html")
rc, so, se = run("report", "--db", tf_db, "--html", tf_out)
tp = Page()
tp.feed(open(tf_out, encoding="utf-8").read() if rc == 0 else "")
rates = [row[4] for row in tp.tables.get("best-table", [])[1:]]
check(rc == 0 and rates == ["%.4g TFLOP/s" % (100 * best[row][8] / 1e3) for row in sizes_in_report(tp)],
      "TFLOP/s for a compute-bound op: %s %s" % (rates, se))

# the share of peak, for a matmul on a device of known compute capability, SM count and clock:
# the same run as matmul on an H100 SXM (9.0, 132 SMs, 1980 MHz), one size in bf16, one fp32
con = sqlite3.connect(tf_db)
con.execute("UPDATE runs SET op = 'matmul'")
con.execute("UPDATE problems SET size = size || '-bf16-nt' WHERE size = '65536'")
con.execute("UPDATE devices SET cc_major = 9, cc_minor = 0, sm_count = 132, sm_clock_khz = 1980000")
con.commit()
con.close()


def shares(where):
    rc, so, se = run("report", "--db", tf_db, "--html", tf_out)
    pp = Page()
    pp.feed(open(tf_out, encoding="utf-8").read() if rc == 0 else "")
    return rc, {row[0]: row[5] for row in pp.tables.get("best-table", [])[1:]}


rc, got = shares("9.0")
want = {"65536-bf16-nt": (100 * best["65536"][8] / 1e3, 4096, "16-bit tensor-core"),
        "1048576": (100 * best["1048576"][8] / 1e3, 256, "FP32 CUDA-core")}
for size, (tflops, per_sm, kind) in want.items():
    peak = per_sm * 132 * 1.98e9 / 1e12
    text = "%.1f%% of %.4g TFLOP/s (%s)" % (100 * tflops / peak, peak, kind)
    check(rc == 0 and got.get(size) == text, "share of peak at %s: %s, want %s" % (size, got, text))
con = sqlite3.connect(tf_db)
con.execute("UPDATE devices SET cc_major = 7, cc_minor = 5")  # no rates known for 7.5
con.commit()
con.close()
rc, got = shares("7.5")
check(rc == 0 and got and set(got.values()) == {"n/a"}, "no peak known for 7.5: %s" % got)

# a second run of the same command only re-times each size's best: with no run named, the
# report is still of run 1, and says why
rc, so, se = run("run", "reduce_sum", "--size", "1048576", "--size", "65536", "--db", db, env=env)
con = sqlite3.connect(db)
last = con.execute("SELECT max(id) FROM runs").fetchone()[0]
con.close()
check(rc == 0 and last == 2, "a re-time run: %d %s" % (rc, se[-300:]))
rc, so, se = run("report", "--db", db)
check(rc == 0 and so.startswith("run 1:") and "run 2, the newest, only re-timed" in so,
      "with no run named, the latest run that searched: %s %s" % (so, se))
rc, so, se = run("report", "--db", db, "--html", out)
text = open(out, encoding="utf-8").read() if rc == 0 else ""
check("cutune run 1:" in text and 'id="not-latest"' in text, "the page of run 1 says run 2 only re-timed")
rc, so, se = run("report", "2", "--db", db)
check(rc == 0 and so.startswith("run 2:"), "a run named is that run: %s %s" % (so, se))

# a run with no trials, and a database of a newer cutune: said, with an exit code
con = sqlite3.connect(db)
con.execute("INSERT INTO runs (argv, op, status) VALUES ('cutune run reduce_sum', 'reduce_sum', 'interrupted')")
empty = con.execute("SELECT max(id) FROM runs").fetchone()[0]
con.commit()
con.close()
rc, so, se = run("report", str(empty), "--db", db, "--html", out)
check(rc == 4 and "run %d of %s recorded no trials" % (empty, db) in se,
      "a run with no trials: exit 4 and why: %d %s" % (rc, se))
newer = os.path.join(tmp, "newer.db")
shutil.copy(db, newer)
con = sqlite3.connect(newer)
version = con.execute("PRAGMA user_version").fetchone()[0]
con.execute("PRAGMA user_version = %d" % (version + 1))
con.commit()
con.close()
rc, so, se = run("report", "--db", newer)
check(rc == 1 and "newer than the %d this cutune" % version in se and "upgrade cutune" in se,
      "a database of a newer cutune: exit 1 and what to do: %d %s" % (rc, se))

shutil.rmtree(tmp)
check.done()
