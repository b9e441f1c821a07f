#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare two runs of Slurm's Python test suite: stock Slurm against Slurm
with the slurm-libra plugins (tests/slurm-python/test_slurm_python.sh).

  compare.py [--expected FILE] [--rerun RERUN.xml]... STOCK.xml PLUGINS.xml
      prints one line per test (stock, plugins) and a summary line; exit 1
      when a test that passed on stock did not pass with the plugins (nor
      in any of the runs again, RERUN.xml, one per attempt) unless FILE
      lists it.
  compare.py [--expected FILE] [--only-present] --rerun-list STOCK.xml PLUGINS.xml
      prints the pytest node ids that passed on stock and not with the
      plugins and that FILE does not list, one a line (what the script
      runs again); --only-present: only those PLUGINS.xml has (a run
      again of a few).
  compare.py --one RESULTS.xml
      prints one side's results only.

Results are pytest's junit XML (junit_family=xunit1, which records each
test's file).  Test ids are pytest node ids relative to testsuite/python,
e.g. tests/commands/srun/test_--wait.py::test_wait.

FILE, the expected differences: one entry a line,
  TEST-ID | MAN PAGE | reason
where TEST-ID is a node id or a test file (every test in it); a line
starting with '#' is a comment.
"""

import argparse
import sys
import xml.etree.ElementTree as ET


def read_results(path):
    """{node id: (status, message)}, status one of pass fail skip."""
    out = {}
    order = []
    for tc in ET.parse(path).iter("testcase"):
        file = tc.get("file") or ""
        classname = tc.get("classname") or ""
        name = tc.get("name") or ""
        if file.endswith(".py"):
            module = file[:-3].replace("/", ".")
            rest = classname[len(module) + 1:] if classname.startswith(module) else ""
            nid = file + "::" + (rest + "::" if rest else "") + name
        else:
            nid = classname.replace(".", "/") + "::" + name
        status, msg = "pass", ""
        for child in tc:
            if child.tag in ("failure", "error"):
                status = "fail"
                msg = child.get("message") or child.tag
                if child.tag == "error":
                    msg = "error: " + msg
                break
            if child.tag == "skipped" and status == "pass":
                status = "skip"
                msg = child.get("message") or "skipped"
        if nid in out:
            # pytest reports a teardown error as a second entry: keep the worst.
            if out[nid][0] == "fail":
                continue
            if status == "pass":
                continue
        else:
            order.append(nid)
        out[nid] = (status, " ".join(msg.split()))
    return out, order


def read_expected(path):
    """[(test id or file, man page, reason)]"""
    entries = []
    if not path:
        return entries
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ", 2)]
            if len(parts) != 3 or not all(parts):
                sys.exit(f"{path}:{n}: expected 'TEST-ID | MAN PAGE | reason': {line}")
            entries.append(tuple(parts))
    return entries


def expected_for(nid, entries):
    for tid, man, reason in entries:
        if nid == tid or nid.startswith(tid + "::"):
            return man, reason
    return None


def short(msg, width=70):
    return msg if len(msg) <= width else msg[: width - 3] + "..."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expected")
    ap.add_argument("--rerun", action="append", default=[])
    ap.add_argument("--rerun-list", action="store_true")
    ap.add_argument("--only-present", action="store_true")
    ap.add_argument("--one", action="store_true")
    ap.add_argument("xml", nargs="+")
    a = ap.parse_args()

    if a.one:
        res, order = read_results(a.xml[0])
        counts = {}
        for nid in order:
            st, msg = res[nid]
            counts[st] = counts.get(st, 0) + 1
            print(f"  {st:5} {nid}" + (f"  ({short(msg)})" if st != "pass" else ""))
        print("slurm-python: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        return 0

    stock, order = read_results(a.xml[0])
    plugins, porder = read_results(a.xml[1])
    for nid in porder:
        if nid not in stock:
            order.append(nid)

    expected = read_expected(a.expected)
    if a.rerun_list:
        for nid in order:
            if a.only_present and nid not in plugins:
                continue
            if (stock.get(nid, ("none",))[0] == "pass" and plugins.get(nid, ("none",))[0] != "pass"
                    and not expected_for(nid, expected)):
                print(nid)
        return 0

    # passed in any attempt: a flaky moment, not a difference
    rerun = {}
    for f in a.rerun:
        for nid, r in read_results(f)[0].items():
            if rerun.get(nid, ("none",))[0] != "pass":
                rerun[nid] = r

    width = max(len(n) for n in order) if order else 10
    width = min(width, 90)
    print()
    print(f"  {'test (testsuite/python/)':{width}}  {'stock':7} {'plugins':7}")
    n_both_pass = n_both_fail = n_both_skip = n_ran = 0
    expected_diff, unexpected_diff, flaky, better, other = [], [], [], [], []
    for nid in order:
        s, smsg = stock.get(nid, ("none", "not run"))
        p, pmsg = plugins.get(nid, ("none", "not run"))
        note = ""
        if s == "pass" and p != "pass" and rerun.get(nid, ("none",))[0] == "pass":
            flaky.append(nid)
            note = f"passed when run again (first: {short(pmsg, 50)})"
            p = "pass*"
        elif s == "pass" and p != "pass":
            exp = expected_for(nid, expected)
            if exp:
                expected_diff.append((nid, exp))
                note = f"EXPECTED, {exp[0]}: {short(exp[1], 60)}"
            else:
                unexpected_diff.append((nid, pmsg))
                note = f"DIFFERS: {short(pmsg)}"
        elif s != "pass" and p == "pass":
            better.append(nid)
            note = f"passes only with the plugins (stock: {short(smsg, 50)})"
        elif s == p:
            note = "" if s == "pass" else short(smsg, 80)
        else:
            other.append(nid)
            note = f"stock: {short(smsg, 40)}; plugins: {short(pmsg, 40)}"
        if s != "skip" or p != "skip":
            n_ran += 1
        if s == "pass" and p in ("pass", "pass*"):
            n_both_pass += 1
        elif s == "fail" and p == "fail":
            n_both_fail += 1
        elif s == "skip" and p == "skip":
            n_both_skip += 1
        print(f"  {nid:{width}}  {s:7} {p:7} {note}".rstrip())

    print()
    for nid, (man, reason) in expected_diff:
        print(f"  expected difference: {nid}\n      {reason} (see {man})")
    listed_but_same = [t for t, _, _ in expected
                       if any((n == t or n.startswith(t + "::")) and plugins.get(n, ("",))[0] == "pass"
                              for n in order)]
    for t in listed_but_same:
        print(f"  note: {t} is listed as an expected difference but passed with the plugins")
    for nid, msg in unexpected_diff:
        print(f"  UNEXPECTED difference: {nid}: passed on stock, with the plugins: {msg}")
    n_diff = len(expected_diff) + len(unexpected_diff)
    print(
        f"slurm-python: {len(order)} tests, {n_ran} ran; {n_both_pass} passed on both"
        + (f" ({len(flaky)} on a second try with the plugins)" if flaky else "")
        + f"; {n_diff} differ ({len(expected_diff)} expected, {len(unexpected_diff)} unexpected)"
        + f"; {len(better)} pass only with the plugins; {n_both_fail} fail on both"
        + (f"; {len(other)} otherwise different" if other else "")
        + f"; {n_both_skip} skipped on both"
    )
    return 1 if unexpected_diff else 0


if __name__ == "__main__":
    sys.exit(main())
