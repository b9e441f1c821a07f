# SPDX-License-Identifier: GPL-2.0-or-later
"""libexp: what every experiment command shares.

The experiment commands in this directory reproduce the evaluations of
C. S. Yeo's thesis (chapters 3 to 6) and of Yeo & Buyya's pricing paper with
contrib/sim/libra-sim on any SWF trace.  Each command builds a grid of
simulator runs, runs it on all cores (one process per run, several seeds per
configuration), folds the seeds into means with 95% confidence intervals
(Student's t), draws its plots with gnuplot and writes its section of
doc/results.md (the report is assembled by make-report).

Parameters (flag, else environment variable, else default):

  --trace FILE    TRACE    ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz
  --procs N       PROCS    the trace header's MaxProcs (else MaxNodes)
  --window W      WINDOW   last:5000   (or first:N, or all)
  --seeds S       SEEDS    1-5         (a list "1 2 3" or a range "1-5")
  --jobs N        JOBS     the number of CPUs
  --sim PATH      SIM      contrib/sim/libra-sim
  --out DIR       OUT      contrib/experiments/out   (raw runs, plot data)
  --figures DIR   FIGURES  doc/figures

Every run is cached under OUT/runs/<simulator hash>/<argument hash>.json, so
experiments that share a configuration (the defaults, mostly) run it once and
a re-run after a change to a plot only redraws.  run-all starts from an empty
OUT.  Only the Python standard library is used.
"""

import argparse
import csv
import gzip
import hashlib
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# ---------------------------------------------------------------- statistics


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


def _betai(a, b, x):
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    """Student's t distribution function."""
    x = df / (df + t * t)
    p = 0.5 * _betai(df / 2.0, 0.5, x)
    return 1.0 - p if t >= 0 else p


_TQ = {}


def t_quantile(p, df):
    """The p-quantile of Student's t with df degrees of freedom (bisection)."""
    key = (p, df)
    if key not in _TQ:
        lo, hi = 0.0, 1e4
        for _ in range(200):
            mid = (lo + hi) / 2.0
            if t_cdf(mid, df) < p:
                lo = mid
            else:
                hi = mid
        _TQ[key] = (lo + hi) / 2.0
    return _TQ[key]


def finite(x):
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def mean_ci(xs):
    """Mean and half-width of the 95% confidence interval (t-distribution)
    of the finite values of xs; (nan, nan, 0) when there are none, and a
    half-width of nan for a single value."""
    v = [float(x) for x in xs if finite(x)]
    n = len(v)
    if n == 0:
        return (math.nan, math.nan, 0)
    m = sum(v) / n
    if n == 1:
        return (m, math.nan, 1)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1))
    return (m, t_quantile(0.975, n - 1) * sd / math.sqrt(n), n)


# The risk analysis of thesis section 6.3, as src/analysis/metrics.c computes it
# (libra_normalise, libra_risk_separate, libra_risk_integrated).

def normalise(x, lo, hi, inverted):
    """libra_normalise(): x over [lo, hi] clamped to [0, 1]; 1 - that for a
    lower-is-better objective; 1 when hi == lo."""
    if not hi > lo:
        return 1.0
    v = min(max((x - lo) / (hi - lo), 0.0), 1.0)
    return 1.0 - v if inverted else v


def risk_separate(xs):
    """libra_risk_separate(): performance (Eq. 6.5) and volatility (Eq. 6.6)
    of r normalised results."""
    r = len(xs)
    if r < 1:
        return (0.0, 0.0)
    mu = sum(xs) / r
    return (mu, math.sqrt(max(sum(x * x for x in xs) / r - mu * mu, 0.0)))


def risk_integrated(mus, sigmas, weights):
    """libra_risk_integrated(): Eq. 6.7 and 6.8 with weights in [0, 1]
    summing to 1 (within 0.011, as the core allows 3 x 0.33)."""
    if not weights or any(not 0.0 <= w <= 1.0 for w in weights) \
            or abs(sum(weights) - 1.0) > 0.011:
        raise ValueError("risk weights must be in [0,1] and sum to 1")
    return (sum(w * m for w, m in zip(weights, mus)),
            sum(w * s for w, s in zip(weights, sigmas)))


def linfit(xs, ys):
    """Least-squares slope and intercept of y on x (None when x is flat)."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx < 1e-12:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return (slope, my - slope * mx)


# ------------------------------------------------------------ formatting


def fmt(m, h=None, nd=3):
    """'m ± h' with nd decimals; 'n/a' for an undefined mean."""
    if not finite(m):
        return "n/a"
    if h is None:
        return f"{m:.{nd}f}"
    if not finite(h):
        return f"{m:.{nd}f}"
    return f"{m:.{nd}f} ± {h:.{nd}f}"


def md_table(headers, rows, align=None):
    out = ["| " + " | ".join(headers) + " |"]
    al = align or (["l"] + ["r"] * (len(headers) - 1))
    out.append("|" + "|".join(":---" if a == "l" else "---:" for a in al)
               + "|")
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


# The verdicts of the running experiment, written by Experiment.finish() to
# OUT/report/<order>-<name>.verdicts.json for make-report's scorecard and
# discussion (README.md, "Discussion").
_VERDICTS = []
_ECONOMIES = set()      # the --economy of every run made so far
NO_ECONOMY = [False]    # set by an experiment whose runs have no prices
_NAME = ["?"]           # the running experiment's name


def verdict_id(experiment, claim, taken=()):
    """The stable id of a verdict: experiment/slug of its claim (the claim's
    words, 60 characters at most), -2, -3 ... if two claims share a slug."""
    slug = "-".join(re.findall(r"[a-z0-9]+", claim.lower()))[:60].strip("-")
    vid, n = f"{experiment}/{slug}", 1
    while vid in taken:
        n += 1
        vid = f"{experiment}/{slug}-{n}"
    return vid


def verdict(state, claim, evidence):
    """A verdict bullet: state is True (holds), False (does not hold) or a
    string: 'partly', or 'not comparable' where the runs use a mechanism or
    a trace other than the paper's (the evidence says which and why).  It
    names the economy its runs were made in (libra-sim --economy;
    design.md decision 3), "no economy" for an experiment without prices
    (NO_ECONOMY), and is recorded for make-report."""
    word = {True: "holds", False: "does not hold"}.get(state, state)
    eco = " and ".join(sorted(_ECONOMIES)) or "site"
    eco += " economies" if len(_ECONOMIES) > 1 else " economy"
    if NO_ECONOMY[0] and not _ECONOMIES:
        eco = "no economy"
    _VERDICTS.append({"id": verdict_id(_NAME[0], claim,
                                       {v["id"] for v in _VERDICTS}),
                      "state": word, "claim": claim, "evidence": evidence,
                      "economy": eco})
    return f"- **{word}** ({eco}): {claim} — {evidence}\n"


def pct(x, nd=1):
    return "n/a" if not finite(x) else f"{100.0 * x:.{nd}f}%"


# ------------------------------------------------------------ trace facts


def trace_header(path):
    """MaxProcs, MaxNodes of an SWF trace header (None when absent)."""
    opener = gzip.open if path.endswith(".gz") else open
    procs = nodes = None
    with opener(path, "rt", errors="replace") as f:
        for line in f:
            if not line.startswith(";"):
                if line.strip():
                    break
                continue
            body = line[1:].strip()
            if ":" not in body:
                continue
            k, v = body.split(":", 1)
            k = k.strip().lower()
            try:
                if k == "maxprocs":
                    procs = int(v.split()[0])
                elif k == "maxnodes":
                    nodes = int(v.split()[0])
            except (ValueError, IndexError):
                pass
    return procs, nodes


def window_jobs(path, procs, window_args):
    """The jobs the simulator simulates, as (submit, runtime, procs,
    requested time): run
    time > 0, processors = allocated else requested, none wider than the
    machine, ordered by submit time (ties in trace order), then the window
    (libra-sim(1), TRACE)."""
    opener = gzip.open if path.endswith(".gz") else open
    jobs = []
    with opener(path, "rt", errors="replace") as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            x = line.split()
            try:
                sub, rt = float(x[1]), float(x[3])
                ap, rp = int(float(x[4])), int(float(x[7]))
                req = float(x[8])
            except (ValueError, IndexError):
                continue
            p = ap if ap > 0 else rp
            if rt <= 0 or p <= 0 or p > procs:
                continue
            jobs.append((sub, rt, p, req))
    jobs.sort(key=lambda j: j[0])
    if window_args:
        n = int(window_args[1])
        jobs = jobs[-n:] if window_args[0] == "--last" else jobs[:n]
    return jobs


def offered_load(jobs, procs):
    """The thesis-style offered load at arrival delay factor 1: mean
    processors x mean run time / (machine processors x mean inter-arrival
    time), and its parts."""
    n = len(jobs)
    ia = (jobs[-1][0] - jobs[0][0]) / (n - 1)
    mr = sum(j[1] for j in jobs) / n
    mp = sum(j[2] for j in jobs) / n
    return mp * mr / (procs * ia), ia, mr, mp


# The SDSC SP2 windows of the thesis (its stated averages): procs, run time
# [s], inter-arrival [s], machine size.
SDSC = {
    "ch3": (17, 8671, 1969, 128),     # last 5000 jobs (Ch. 3, Ch. 6)
    "ch4": (18, 10610, 2276, 128),    # last 1000 jobs (Ch. 4)
    "ch5": (17, 8880, 2131, 128),     # last 3000 jobs (Ch. 5)
}


def sdsc_load(which):
    p, r, ia, m = SDSC[which]
    return p * r / (m * ia)


# ------------------------------------------------------------ the experiment


def _parse_seeds(s):
    s = s.strip()
    if "-" in s and " " not in s and "," not in s:
        a, b = s.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in s.replace(",", " ").split()]


def _parse_window(w):
    w = w.strip()
    if w in ("all", ""):
        return []
    for pre in ("last:", "first:", "--last ", "--first ", "--last=",
                "--first="):
        if w.startswith(pre):
            which = "last" if "last" in pre else "first"
            return ["--" + which, str(int(w[len(pre):]))]
    raise SystemExit(f"bad window {w!r}: use last:N, first:N or all")


def _hash_file(path, algorithm):
    h = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


class Experiment:
    """One experiment command: parameters, runs, statistics, plots, report."""

    def __init__(self, name, order, title, doc):
        self.name, self.order, self.title = name, order, title
        ap = argparse.ArgumentParser(
            prog=name, description=doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog=__doc__.split("Parameters", 1)[1].split("Every run")[0]
            .replace("(flag, else environment variable, else default):",
                     "Parameters (flag, else environment variable, else "
                     "default):"))
        env = os.environ.get
        ap.add_argument("--trace", default=env("TRACE", os.path.join(
            os.environ.get("LIBRA_SHARED",
                           os.path.join(ROOT, "..", "shared")),
            "traces", "KTH-SP2-1996-2.1-cln.swf.gz")))
        ap.add_argument("--procs", type=int,
                        default=int(env("PROCS")) if env("PROCS") else None)
        ap.add_argument("--window", default=env("WINDOW", "last:5000"))
        ap.add_argument("--seeds", default=env("SEEDS", "1-5"))
        ap.add_argument("--jobs", type=int,
                        default=int(env("JOBS", str(os.cpu_count() or 1))))
        ap.add_argument("--sim", default=env("SIM", os.path.join(
            ROOT, "contrib", "sim", "libra-sim")))
        ap.add_argument("--out", default=env("OUT", os.path.join(
            HERE, "out")))
        ap.add_argument("--figures", default=env("FIGURES", os.path.join(
            ROOT, "doc", "figures")))
        a = ap.parse_args()
        self.jobs = max(1, a.jobs)
        self.sim = os.path.abspath(a.sim)
        if not os.access(self.sim, os.X_OK):
            raise SystemExit(f"{name}: simulator {self.sim} not built "
                             "(cd the tree and run make)")
        self.out = os.path.abspath(a.out)
        self.figdir = os.path.abspath(a.figures)
        self.simhash = _hash_file(self.sim, "sha1")[:12]
        self.cachedir = os.path.join(self.out, "runs", self.simhash)
        self.plotdir = os.path.join(self.out, "plots")
        self.repdir = os.path.join(self.out, "report")
        for d in (self.cachedir, self.plotdir, self.repdir, self.figdir):
            os.makedirs(d, exist_ok=True)
        self.traces = []    # (path, procs) of every trace run on, in order
        self.synthetic = None   # use_synthetic(): libra-sim --synthetic
        self.workload = None    # what the runs ran on, when not libra-sim's
        self.use_trace(a.trace, a.procs)
        self.window = a.window
        self.window_args = _parse_window(a.window)
        self.seeds = _parse_seeds(a.seeds)
        if not self.seeds:
            raise SystemExit(f"{name}: no seeds")
        self.sections = []
        self.figures = []
        _NAME[0] = name
        self.nruns = self.ncached = 0
        self.t0 = time.time()

    def use_trace(self, path, procs=None):
        """Run on trace path from now on (procs: its header's MaxProcs,
        else MaxNodes, unless given).  Experiments over several traces
        call it between their grids."""
        self.trace = os.path.normpath(path)
        if not os.path.exists(self.trace):
            raise SystemExit(f"{self.name}: no trace {self.trace}")
        if procs is None:
            p, n = trace_header(self.trace)
            procs = p or n
            if not procs:
                raise SystemExit(f"{self.name}: {self.trace} has no "
                                 "MaxProcs or MaxNodes; give --procs")
        self.procs = procs
        # the first trace is the experiment's own (the Setup table's), the
        # others are named in its sections
        if (self.trace, procs) not in self.traces:
            self.traces.append((self.trace, procs))
        # The simulator reads gzip itself, but every run would inflate the
        # trace again: give it a plain copy (runs are keyed by the original).
        self.sim_trace = self.trace
        if self.trace.endswith(".gz"):
            plain = os.path.join(self.out, "traces", os.path.basename(
                self.trace)[:-3])
            if not os.path.exists(plain) or \
                    os.path.getmtime(plain) < os.path.getmtime(self.trace):
                os.makedirs(os.path.dirname(plain), exist_ok=True)
                tmp = plain + ".tmp%d" % os.getpid()
                with gzip.open(self.trace, "rb") as fi, open(tmp, "wb") as fo:
                    fo.write(fi.read())
                os.replace(tmp, plain)
            self.sim_trace = plain

    def use_synthetic(self, spec, procs):
        """Run on libra-sim's synthetic workload (--synthetic SPEC) on
        procs processors from now on, instead of a trace."""
        self.synthetic, self.procs = spec, procs

    # ---- runs

    def base_args(self):
        if self.synthetic:
            return ["--synthetic", self.synthetic, "--procs",
                    str(self.procs)]
        return ["--trace", self.trace, "--procs", str(self.procs)] + \
            self.window_args

    def _cmd(self, args, seed):
        base = self.base_args()
        if base[0] == "--trace":
            base[1] = self.sim_trace
        args = [str(x) for x in args]
        # the simulator's default economy is the site's (libra-sim(1))
        _ECONOMIES.add(args[args.index("--economy") + 1]
                       if "--economy" in args else "site")
        return [self.sim] + base + args + ["--seed", str(seed), "--json"]

    def _cache_path(self, cmd):
        key = json.dumps([self.trace if x == self.sim_trace else x
                          for x in cmd[1:]])
        return os.path.join(self.cachedir,
                            hashlib.sha1(key.encode()).hexdigest() + ".json")

    def probe(self, args, seed):
        """One run of ARGS with the price probe (`--probe-csv`), cached:
        (the run's summary dict, [(time, price or None, least price or
        None)] per quote).  price-stability and price-damping share it, so
        a setting both run is run once and has both files."""
        cmd = self._cmd(args, seed)
        path = self._cache_path(cmd + ["probe"])
        if os.path.exists(path) and os.path.exists(path + ".json"):
            self.ncached += 1
        else:
            tmp = path + ".tmp%d" % os.getpid()
            r = subprocess.run(cmd + ["--probe-csv", tmp],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"{self.name}: simulator failed: "
                                 f"{shlex.join(cmd)}\n{r.stderr.strip()}")
            with open(path + ".json", "w") as f:
                f.write(r.stdout)
            os.replace(tmp, path)
            self.nruns += 1
        with open(path + ".json") as f:
            summary = json.loads(f.readline())
        with open(path) as f:
            return summary, [
                (float(r["time"]),
                 float(r["price"]) if r["verdict"] == "accepted" else None,
                 float(r["least"]) if r["verdict"] == "accepted" else None)
                for r in csv.DictReader(f)]

    def run(self, configs):
        """configs: {key: [simulator arguments]}.  Runs every configuration
        with every seed (cached) and returns {key: [summary dict per seed]}.
        """
        todo, paths = [], {}
        for key, args in configs.items():
            for s in self.seeds:
                cmd = self._cmd(args, s)
                p = self._cache_path(cmd)
                paths[(key, s)] = p
                if not os.path.exists(p):
                    todo.append((cmd, p))
        # one run per (cmd) even if two keys share it
        uniq = {}
        for cmd, p in todo:
            uniq[p] = cmd
        self.nruns += len(uniq)
        self.ncached += len(paths) - len(todo)
        if uniq:
            t = time.time()
            sys.stderr.write(f"{self.name}: {len(uniq)} runs on "
                             f"{self.jobs} workers ...\n")
            with ThreadPoolExecutor(self.jobs) as ex:
                futs = {ex.submit(self._run1, cmd, p): p
                        for p, cmd in uniq.items()}
                done = 0
                for f in as_completed(futs):
                    f.result()
                    done += 1
                    if done % 200 == 0:
                        sys.stderr.write(f"{self.name}: {done}/{len(uniq)}\n")
            sys.stderr.write(f"{self.name}: {len(uniq)} runs in "
                             f"{time.time() - t:.1f} s\n")
        res = {}
        for key in configs:
            res[key] = []
            for s in self.seeds:
                with open(paths[(key, s)]) as f:
                    res[key].append(json.load(f))
        return res

    def _run1(self, cmd, path):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{self.name}: simulator failed (exit "
                             f"{r.returncode}): {shlex.join(cmd)}\n"
                             f"{r.stderr.strip()}")
        lines = [x for x in r.stdout.splitlines() if x.strip()]
        if len(lines) != 1:
            raise SystemExit(f"{self.name}: expected one summary line from "
                             f"{shlex.join(cmd)}, got {len(lines)}")
        d = json.loads(lines[0])
        d["_args"] = cmd[1:]
        tmp = path + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            json.dump(d, f)
        os.replace(tmp, path)

    def jobs_summary(self, args, seed=None):
        """Per-job facts of one run, from the simulator's per-job CSV
        (cached): 'verdicts' (jobs per verdict: accepted, or the reason of
        the refusal), and over the admitted jobs that missed their deadline
        'late' (how many), 'late_charge' (what the provider earned from
        them: U = B - delay x PR in the bid model) and 'late_budget'; and
        're_over_d', the jobs whose estimate exceeds their deadline (no
        share can meet it), 're_over_d_fits' those of them whose real run
        time would have, 're_over_d_admitted' and 're_over_d_met' those of
        them admitted and met (libra-sim --riskd-admit thesis); and
        'acc_runtime', the admitted jobs' run times (sum, for their mean)."""
        seed = self.seeds[0] if seed is None else seed
        cmd = self._cmd(args, seed)
        path = self._cache_path(cmd + ["jobs-summary-3"])
        if not os.path.exists(path):
            csv_path = path + ".csv"
            r = subprocess.run(cmd + ["--jobs-csv", csv_path],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"{self.name}: simulator failed: "
                                 f"{shlex.join(cmd)}\n{r.stderr.strip()}")
            d = {"verdicts": {}, "late": 0, "late_charge": 0.0,
                 "late_budget": 0.0, "re_over_d": 0, "re_over_d_fits": 0,
                 "re_over_d_admitted": 0, "re_over_d_met": 0,
                 "acc_runtime": 0.0}
            with open(csv_path) as f:
                head = f.readline().strip().split(",")
                ix = {k: head.index(k) for k in
                      ("verdict", "accepted", "deadline_met", "charge",
                       "budget", "submit", "deadline", "runtime",
                       "estimate")}
                for line in f:
                    x = line.rstrip("\n").split(",")
                    v = x[ix["verdict"]]
                    d["verdicts"][v] = d["verdicts"].get(v, 0) + 1
                    dl = float(x[ix["deadline"]]) - float(x[ix["submit"]])
                    if float(x[ix["estimate"]]) > dl:
                        d["re_over_d"] += 1
                        if float(x[ix["runtime"]]) <= dl:
                            d["re_over_d_fits"] += 1
                        if x[ix["accepted"]] == "1":
                            d["re_over_d_admitted"] += 1
                            d["re_over_d_met"] += \
                                x[ix["deadline_met"]] == "1"
                    if x[ix["accepted"]] == "1":
                        d["acc_runtime"] += float(x[ix["runtime"]])
                    if x[ix["accepted"]] == "1" and \
                            x[ix["deadline_met"]] == "0":
                        d["late"] += 1
                        d["late_charge"] += float(x[ix["charge"]] or 0)
                        d["late_budget"] += float(x[ix["budget"]] or 0)
            os.remove(csv_path)
            with open(path, "w") as f:
                json.dump(d, f)
        with open(path) as f:
            return json.load(f)

    def verdicts(self, args, seed=None):
        return self.jobs_summary(args, seed)["verdicts"]

    @staticmethod
    def verdict_text(counts):
        return ", ".join(f"{n} {k}" for k, n in sorted(
            counts.items(), key=lambda kv: -kv[1]))

    def command_line(self, extra=""):
        env = (f"TRACE={shlex.quote(os.path.relpath(self.trace, ROOT))} "
               f"PROCS={self.procs} WINDOW={self.window} "
               f"SEEDS={shlex.quote(' '.join(map(str, self.seeds)))}")
        return f"{env} contrib/experiments/{self.name}{extra}"

    # ---- statistics over seeds

    @staticmethod
    def stat(runs, metric, scale=1.0):
        return mean_ci([r.get(metric) * scale if finite(r.get(metric))
                        else None for r in runs])

    @staticmethod
    def paired(runs_a, runs_b, fn):
        """mean_ci of fn(a, b) over seeds paired in order."""
        vals = []
        for a, b in zip(runs_a, runs_b):
            try:
                v = fn(a, b)
            except (TypeError, ZeroDivisionError):
                v = None
            vals.append(v)
        return mean_ci(vals)

    # ---- plots

    def figure(self, name, title, panels, size=(900, 600), layout=None):
        """Draw a figure with one or more panels, as PNG and SVG in the
        figures directory.  A panel is a dict: sub (title), xlabel, ylabel,
        series [(label, [(x, y, ci)], style)], and optionally logx, xrange,
        yrange, key (gnuplot 'set key' arguments), xtics, kind ('lines' or
        'risk').  A style's 'with' may be 'points' (no interval) or
        'errorbars' (points with their intervals, not joined: categories).
        A risk panel's series points are (sigma, mu, sigma_ci, mu_ci) and
        its 'trends' are [(label, slope, intercept, x0, x1)]."""
        dat = os.path.join(self.plotdir, name + ".dat")
        gp = os.path.join(self.plotdir, name + ".gp")
        blocks = []
        with open(dat, "w") as f:
            for pi, p in enumerate(panels):
                for si, (label, pts, _style) in enumerate(p["series"]):
                    f.write(f"# panel {pi} series {si}: {label}\n")
                    for pt in pts:
                        # an undefined interval (one seed) draws no bar
                        pt = list(pt[:2]) + [v if finite(v) else 0.0
                                             for v in pt[2:]]
                        f.write(" ".join("NaN" if not finite(v) else
                                         repr(float(v)) for v in pt) + "\n")
                    f.write("\n\n")
                    blocks.append((pi, si))
                for ti, tr in enumerate(p.get("trends", [])):
                    label, slope, icpt, x0, x1 = tr
                    f.write(f"# panel {pi} trend {ti}: {label}\n")
                    f.write(f"{x0!r} {slope * x0 + icpt!r}\n")
                    f.write(f"{x1!r} {slope * x1 + icpt!r}\n\n\n")
                    blocks.append((pi, ("t", ti)))
        index = {b: i for i, b in enumerate(blocks)}
        n = len(panels)
        rows, cols = layout or (1, n)
        w, h = size
        s = []
        s.append("set encoding utf8")
        s.append("set termoption noenhanced")
        for ext, term in (("png", f"pngcairo size {w},{h} font "
                                  "'DejaVu Sans,11' noenhanced"),
                          ("svg", f"svg size {w},{h} dynamic font "
                                  "'DejaVu Sans,11' noenhanced")):
            s.append(f"set terminal {term}")
            s.append(f"set output '{os.path.join(self.figdir, name)}.{ext}'")
            s.append("reset")
            s.append("set grid lc rgb '#dddddd'")
            s.append("set border lc rgb '#444444'")
            cells = None
            if n > 1:
                # panels placed by hand, one legend for all of them in a
                # strip below (a legend inside a panel is laid out in that
                # panel's width and hides its data)
                labs = [lab for lab, _, _ in panels[0]["series"]]
                per_row = max(1, int(w // (max(len(x) for x in labs) * 7.5
                                           + 80)))
                krows = -(-len(labs) // per_row)
                bottom = (20 + 24 * krows) / h
                top = 1 - 40 / h
                cw, ch = 1.0 / cols, (top - bottom) / rows
                cells = [(c * cw, bottom + (rows - 1 - r) * ch, cw, ch)
                         for r in range(rows) for c in range(cols)]
                s.append(f"set multiplot title {_q(title)} font ',13'")
            for pi, p in enumerate(panels):
                if cells:
                    p = dict(p, nokey=True)
                    x0, y0, cw_, ch_ = cells[pi]
                    s.append(f"set origin {x0:.4f},{y0:.4f}")
                    s.append(f"set size {cw_:.4f},{ch_:.4f}")
                s.extend(self._panel(p, pi, dat, index,
                                     title if n == 1 else None))
            if cells:
                s.extend(self._key_strip(panels[0], bottom, per_row))
            if n > 1:
                s.append("unset multiplot")
            s.append("set output")
        with open(gp, "w") as f:
            f.write("\n".join(s) + "\n")
        r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{self.name}: gnuplot failed on {gp}:\n"
                             f"{r.stderr}")
        warn = [x for x in r.stderr.splitlines() if x.strip()
                and "warning: Skipping data file with no valid points"
                not in x]
        if warn:
            sys.stderr.write(f"{self.name}: gnuplot {name}: "
                             + "\n".join(warn[:5]) + "\n")
        self.figures.append(name)
        return f"figures/{name}.png"

    def _panel(self, p, pi, dat, index, single_title):
        s = []
        t = single_title if single_title else p.get("sub")
        if t:
            s.append(f"set title {_q(t)} font ',12'")
        else:
            s.append("unset title")
        s.append(f"set xlabel {_q(p['xlabel'])}")
        s.append(f"set ylabel {_q(p['ylabel'])}")
        s.append("unset logscale x")
        if p.get("logx"):
            s.append("set logscale x")
        s.append(f"set xrange [{p.get('xrange', ['*', '*'])[0]}:"
                 f"{p.get('xrange', ['*', '*'])[1]}]")
        s.append(f"set yrange [{p.get('yrange', ['*', '*'])[0]}:"
                 f"{p.get('yrange', ['*', '*'])[1]}]")
        if p.get("xtics"):
            s.append(f"set xtics ({', '.join(str(x) for x in p['xtics'])})")
        else:
            s.append("set xtics autofreq")
        s.append(f"set key {p.get('key', 'top left')} box opaque "
                 "samplen 3 spacing 1.1 font ',10'")
        if p.get("nokey"):
            s.append("unset key")
        parts = []
        kind = p.get("kind", "lines")
        for si, (label, pts, style) in enumerate(p["series"]):
            st = style_for(label, style)
            i = index[(pi, si)]
            if kind == "risk":
                # confidence intervals faint, points on top
                parts.append(
                    f"'{dat}' index {i} using 1:2:3:4 with xyerrorbars "
                    f"lc rgb '#B0{st['color'][1:]}' pt -1 lw 1 notitle")
                parts.append(
                    f"'{dat}' index {i} using 1:2 with points "
                    f"lc rgb '{st['color']}' pt {st['pt']} ps 1.3 lw 1.5 "
                    f"title {_q(label)}")
            elif st.get("with") == "points":
                parts.append(
                    f"'{dat}' index {i} using 1:2 with points "
                    f"lc rgb '{st['color']}' pt {st['pt']} "
                    f"ps {st.get('ps', 2)} lw 2 title {_q(label)}")
            elif st.get("with") == "errorbars":
                # points with their confidence intervals, unjoined (x is a
                # category, not a scale)
                parts.append(
                    f"'{dat}' index {i} using 1:2:3 with yerrorbars "
                    f"lc rgb '{st['color']}' pt {st['pt']} "
                    f"ps {st.get('ps', 1.5)} lw {st['lw']} "
                    f"title {_q(label)}")
            else:
                parts.append(
                    f"'{dat}' index {i} using 1:2:3 with yerrorlines "
                    f"lc rgb '{st['color']}' pt {st['pt']} ps 1.0 "
                    f"lw {st['lw']} dt {st['dt']} title {_q(label)}")
        for ti, tr in enumerate(p.get("trends", [])):
            st = style_for(tr[0], None)
            i = index[(pi, ("t", ti))]
            parts.append(f"'{dat}' index {i} using 1:2 with lines "
                         f"lc rgb '{st['color']}' lw 1.5 dt 2 notitle")
        s.append("plot " + ", \\\n     ".join(parts))
        return s

    def _key_strip(self, p, height, per_row):
        """The shared legend of a multi-panel figure: an empty plot across
        the bottom strip whose only content is the key."""
        s = ["set origin 0,0", f"set size 1,{height:.4f}", "unset title",
             "unset xlabel", "unset ylabel", "unset border", "unset tics",
             "unset grid", "unset logscale x", "set xrange [0:1]",
             "set yrange [0:1]",
             f"set key center center horizontal maxcols {per_row} box "
             "samplen 3 spacing 1.1 font ',11' width 2"]
        parts = []
        for label, _pts, style in p["series"]:
            st = style_for(label, style)
            if p.get("kind") == "risk" or st.get("with") in ("points",
                                                             "errorbars"):
                parts.append(f"NaN with points lc rgb '{st['color']}' "
                             f"pt {st['pt']} ps 1.3 lw 1.5 title {_q(label)}")
            else:
                parts.append(f"NaN with linespoints lc rgb '{st['color']}' "
                             f"pt {st['pt']} lw {st['lw']} dt {st['dt']} "
                             f"title {_q(label)}")
        if p.get("trends"):
            parts.append("NaN with lines lc rgb '#666666' lw 1.5 dt 2 "
                         "title 'trend (least squares)'")
        s.append("plot " + ", \\\n     ".join(parts))
        return s

    # ---- report

    def section(self, text):
        self.sections.append(text)

    def finish(self):
        path = os.path.join(self.repdir, f"{self.order}-{self.name}.md")
        took = time.time() - self.t0
        with open(path, "w") as f:
            f.write("".join(self.sections))
        with open(os.path.join(self.repdir, f"{self.order}-{self.name}"
                               ".verdicts.json"), "w") as f:
            json.dump(_VERDICTS, f, indent=1, ensure_ascii=False)
        with open(os.path.join(self.repdir, f"{self.order}-{self.name}"
                               ".time"), "w") as f:
            f.write(f"{took:.1f} {self.nruns} {self.ncached}\n")
        ver = subprocess.run([self.sim, "--version"], capture_output=True,
                             text=True).stdout.strip()
        trace, procs = self.traces[0]
        jobs = window_jobs(trace, procs, self.window_args)
        with open(os.path.join(self.repdir, f"{self.order}-{self.name}"
                               ".params"), "w") as f:
            for k, v in (("trace", os.path.relpath(trace, ROOT)),
                         ("traces", self.workload or "synthetic (--synthetic "
                          f"{self.synthetic} on {self.procs} processors)"
                          if self.workload or self.synthetic else ", ".join(
                             os.path.basename(t).split("-cln")[0]
                             for t, _ in self.traces)),
                         ("trace_sha256", _hash_file(trace, "sha256")),
                         ("procs", procs), ("window", self.window),
                         ("window_jobs", len(jobs)),
                         ("load", f"{offered_load(jobs, procs)[0]:.3f}"),
                         ("seeds", " ".join(map(str, self.seeds))),
                         ("jobs", self.jobs), ("sim_version", ver),
                         ("sim_sha1", _hash_file(self.sim, "sha1"))):
                f.write(f"{k}={v}\n")
        sys.stderr.write(f"{self.name}: done in {took:.1f} s "
                         f"({self.nruns} runs, {self.ncached} cached); "
                         f"{len(self.figures)} figures\n")


def _q(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


# One colour and point type per policy, the same in every figure.
STYLES = {
    "FCFS-BF": ("#555555", 4),
    "SJF-BF": ("#2ca02c", 6),
    "EDF-BF": ("#1f77b4", 8),
    "Libra": ("#ff7f0e", 7),
    "Libra+$": ("#d62728", 5),
    "LibraSLA": ("#9467bd", 9),
    "LibraRiskD": ("#8c564b", 11),
    "LibraRiskD (loose)": ("#e377c2", 13),
    "LibraRiskD (thesis)": ("#bcbd22", 15),
    "FirstReward": ("#17becf", 12),
}
PALETTE = ["#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
           "#1f77b4", "#2ca02c", "#ff7f0e", "#555555"]


def style_for(label, style):
    """The drawing style of a series: explicit style dict, else the policy's
    colour (by label prefix), else a palette colour by hash."""
    st = {"color": None, "pt": 7, "dt": 1, "lw": 1.5}
    if style:
        st.update(style)
    if st["color"] is None:
        best = None
        for k in STYLES:
            if label.startswith(k) and (best is None or len(k) > len(best)):
                best = k
        if best:
            st["color"], st["pt"] = STYLES[best][0], \
                style.get("pt", STYLES[best][1]) if style else STYLES[best][1]
        else:
            h = int(hashlib.sha1(label.encode()).hexdigest(), 16)
            st["color"] = PALETTE[h % len(PALETTE)]
    return st


# Shades for the beta series of Libra+$ (light = small beta).
BETA_STYLE = {
    0.01: {"color": "#fcae91", "pt": 5, "dt": 1},
    0.05: {"color": "#fb6a4a", "pt": 5, "dt": 1},
    0.1: {"color": "#e7298a", "pt": 5, "dt": 1},
    0.3: {"color": "#ae017e", "pt": 5, "dt": 1},
    0.5: {"color": "#d62728", "pt": 9, "dt": 1},
    1.0: {"color": "#600010", "pt": 11, "dt": 1},
}


def beta_style(b):
    return dict(BETA_STYLE.get(b, {"color": "#a50f15", "pt": 5, "dt": 1}))


POLICY_NAMES = {
    "fcfs-bf": "FCFS-BF", "sjf-bf": "SJF-BF", "edf-bf": "EDF-BF",
    "libra": "Libra", "libra+$": "Libra+$", "librasla": "LibraSLA",
    "librariskd": "LibraRiskD", "libra+$auto": "Libra+$Auto",
    "firstreward": "FirstReward",
}


# ------------------------------------------------------------ configurations

# Options that only some policies read; dropped for the others so that runs
# which cannot differ share one cache entry.
_ONLY = {
    "alpha": ("libra+$", "libra+$auto"),
    "beta": ("libra+$", "libra+$auto"),
    "resfree": ("libra+$", "libra+$auto"),
    "risk-sigma": ("librariskd",),
    "risk-mu": ("librariskd",),
    "riskd-admit": ("librariskd",),
    "gamma": ("libra",),
    "delta": ("libra",),
    "price-damping": ("libra+$", "libra+$auto"),
}

# Thesis Table 3.1 (chapter 3 and the pricing paper), written out in full so
# that a change of the simulator's defaults cannot change the experiment;
# in the site's economy, the simulator's default (design.md decision 3).
CH3 = {
    "high-urgency": 20, "deadline-ratio": 4, "deadline-low-mean": 2,
    "budget-ratio": 4, "budget-low-mean": 2, "adf": 0.5, "alpha": 1,
    "beta": 0.1, "estimates": "accurate", "model": "commodity",
    "resfree": "window", "charge": "cpu", "economy": "site",
}

# The thesis' own economy (libra-sim --economy thesis: budgets and penalty
# rates per job, independent of its width, thesis section 3.5.1 and Fig.
# 3.2), for every experiment that compares with a paper's figure; every
# policy reads it (its money), so it is never dropped from the arguments.
THESIS_ECONOMY = {"economy": "thesis"}
CH3_PAPER = dict(CH3, **THESIS_ECONOMY)

# The pricing of the thesis and the slides, literally (design.md decisions 2, 3).
THESIS_PRICING = {"resfree": "thesis", "charge": "thesis"}


def quote_stats(quotes):
    """A series of quotes [(time, price or None: refused)]: their number,
    the refused, mean, sd, coefficient of variation, and the largest and
    99th-percentile change between consecutive quotes relative to the
    mean (price-stability, price-damping)."""
    p = [x for _, x in quotes if x is not None]
    n = len(p)
    mean = sum(p) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in p) / (n - 1)) if n > 1 \
        else 0.0
    jumps = sorted(abs(b - a) for (_, a), (_, b) in zip(quotes, quotes[1:])
                   if a is not None and b is not None)
    p99 = jumps[min(len(jumps) - 1, int(math.ceil(0.99 * len(jumps))) - 1)] \
        if jumps else 0.0
    return {"n": len(quotes), "refused": len(quotes) - n, "mean": mean,
            "sd": sd, "cv": sd / mean, "max_jump": jumps[-1] / mean
            if jumps else 0.0, "p99_jump": p99 / mean}


def sim_args(policy, settings):
    """The simulator arguments of one configuration, in a canonical order."""
    args = ["--policy", policy]
    for k in sorted(settings):
        if k in _ONLY and policy not in _ONLY[k]:
            continue
        v = settings[k]
        if v is True:		# a flag without a value (--due-rate)
            args.append("--" + k)
            continue
        if isinstance(v, float):
            v = str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)
        args += ["--" + k, str(v)]
    return args


def label_of(policy, beta=None):
    name = POLICY_NAMES.get(policy, policy)
    if beta is not None and policy in ("libra+$", "libra+$auto"):
        return f"{name} (β={beta:g})"
    return name


def xy_table(xname, xs, cols, cell):
    """A markdown table with one row per x and one column per (header, key);
    cell(key, x) gives the text."""
    rows = [[f"{x:g}" if isinstance(x, float) else str(x)]
            + [cell(k, x) for _, k in cols] for x in xs]
    return md_table([xname] + [h for h, _ in cols], rows)
