#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hostile_gen.py - seeded generator of hostile SLA text (rel_hostile.sh).

usage: hostile_gen.py SEED COUNT KIND OUTFILE

KIND:
  comment      --comment strings for sbatch (no NUL, at most 100,000 bytes:
               an argument must fit the kernel's 128 KiB limit)
  comment-api  --comment strings for the Slurm API (no NUL, up to 1 MiB)
  spank        sbatch SPANK options: pairs OPTION NUL VALUE NUL, OPTION one
               of the libra plugin's (runtime, budget, penalty, penalty-cap,
               deadline-type, duedate)
  spank-raw    raw SPANK environment entries for the Slurm API, as sbatch
               would send them ("_SLURM_SPANK_OPTION_libra_<opt>=<value>"),
               with hostile values and hostile option names

Items are written NUL-separated.  The mix: random bytes, huge lengths,
nested and doubled separators, Unicode look-alikes and controls, format
strings, JSON-looking text, odd numbers (1e308, -0, 0x1p4, nan, denormals,
overflow), whitespace soup, odd durations and dates, and valid SLAs mutated
at random, so that some are admitted.  The same SEED gives the same items.
"""

import random
import sys

KEYS = ["runtime", "deadline", "budget", "penalty", "penalty_cap", "type", "duedate"]
OPTS = ["runtime", "budget", "penalty", "penalty-cap", "deadline-type", "duedate"]
ENV_OPTS = ["runtime", "budget", "penalty", "penalty_cap", "deadline_type", "duedate"]

NUMBERS = [
    "1e308", "1e309", "-1e308", "-0", "+0", "0", "-0.0", "0x1p4", "0x10", "0X1P-2",
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e-320", "4.9e-324", "2.2250738585072014e-308",
    "9999999999999999999999999", "18446744073709551616", "-1", "-1e-9", ".5", "5.", "+5",
    "0005", "1_000", "1,000", "1e", "e5", "1e+", "0.1e1", "1.7976931348623157e308",
    "0b101", "0o17", "5 ", " 5", "5\t", "１０", "٥", "5\u00a0", "5e-1h", "1/2", "2**10",
    "0.000000000000000000001", "1" * 400, "9" * 40 + "." + "9" * 40,
]
DURATIONS = [
    "5m", "90s", "1h30m", "1h30m30m", "1-25:61:61", "99999999h", "00:00:00", "-1:00", "1:2:3:4",
    "1-", "-", "1d1d", "3650d", "3651d", "0s", "0.5s", "1e3s", "1e308s", "inf h", "5 m", "5mm",
    "5M", "5H", "1.5h", "1-12", "1-12:00", "12:00", "::", "1h-5m", "h", "m", "30", "2026-13-45T25:61",
    "2026-02-30T10:00", "1970-01-01T00:00", "9999-12-31T23:59:59", "2026-01-01T00:00Z",
    "2026-01-01T00:00+05:00", "now+1hour", "tomorrow", "5ｍ", "5m\u200b", "\u20285m",
]
UNICODE = [
    "runtime=５m", "deadline=1ｈ", "budget=１０", "ｒｕｎｔｉｍｅ=5m", "runtime\u200b=5m",
    "runtime=5m\u202edeadline=1h", "runtime=5m,deadline=1h\u2028", "budget=10\u00a0",
    "runtime=5m,deadline=1h,budget=💰", "type=hаrd", "penalty=٣", "deadline=1h\u0301",
    "\ufeffruntime=5m,deadline=1h", "runtime=5m\u0000", "ru\u00adntime=5m",
]
FORMATS = ["%s", "%n", "%s%s%s%s%n", "%x%x%x%p", "%99999999s", "%.1000000f", "%1$s", "%*d",
           "%%", "%c%c", "${HOME}", "$(id)", "`id`", "\\x41", "\\0", "\\n"]
JSONISH = [
    '{"libra":1,"policy":"libra+$","best_effort":true,"admit":{"time":0,"price":0,"rate":0,"place":[]}}',
    '{"runtime":5,"deadline":100}', '[1,2,3]', '{"libra":', '{"sla":{"runtime":1e308}}',
    'runtime={"a":1}', 'budget=[1]', '{"libra":1}' * 50, 'null', 'true', '{}', '""',
    '{"libra":1,"final":{"charge":-1e308}}', '{\\"libra\\":1}',
]
SEPS = [",", "=", ",,", "==", ",=,", "=,=", ";", ":", " ", "\t", "\n", "\r\n", "\x00", "&", "|"]
WS = [" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u2003", "\u3000"]


def rnd_bytes(r, n):
    return bytes(r.randrange(1, 256) for _ in range(n))


def valid_sla(r):
    re_m = r.randint(1, 30)
    d_m = re_m * r.randint(2, 20)
    parts = ["runtime=%dm" % re_m, "deadline=%dm" % d_m]
    if r.random() < 0.7:
        parts.append("budget=%s" % r.choice(["1", "10", "100", "1000", "0.5", "1e6"]))
    if r.random() < 0.3:
        parts.append("penalty=%s" % r.choice(["0", "0.1", "2.5", "100"]))
    if r.random() < 0.3:
        parts.append("type=%s" % r.choice(["hard", "soft"]))
    r.shuffle(parts)
    return ",".join(parts)


def mutate(r, s):
    b = bytearray(s.encode())
    for _ in range(r.randint(1, 4)):
        op = r.randrange(4)
        if op == 0 and b:
            del b[r.randrange(len(b))]
        elif op == 1:
            b.insert(r.randrange(len(b) + 1), r.choice(b",=.-:0123456789emhsd x\t\xff"))
        elif op == 2 and b:
            b[r.randrange(len(b))] = r.randrange(1, 256)
        else:
            i = r.randrange(len(b) + 1)
            b[i:i] = r.choice(SEPS).encode()
    return bytes(b)


def one_value(r):
    """A hostile value for one field."""
    k = r.randrange(9)
    if k == 0:
        return r.choice(NUMBERS)
    if k == 1:
        return r.choice(DURATIONS)
    if k == 2:
        return r.choice(FORMATS)
    if k == 3:
        return r.choice(JSONISH)
    if k == 4:
        return "".join(r.choice(WS) for _ in range(r.randint(0, 6))) + r.choice(NUMBERS + DURATIONS) + \
            "".join(r.choice(WS) for _ in range(r.randint(0, 6)))
    if k == 5:
        return rnd_bytes(r, r.randint(1, 24)).decode("latin-1")
    if k == 6:
        return r.choice(["", "=", ",", "hard", "soft", "HARD", "medium", "hard,soft", "soft "])
    if k == 7:
        return r.choice(NUMBERS) + r.choice(["s", "m", "h", "d", "", "x", "%"])
    return "9" * r.choice([1, 20, 300, 1100, 5000])


def comment(r, maxlen):
    """One hostile --comment, as bytes."""
    k = r.randrange(12)
    if k == 0:
        out = rnd_bytes(r, r.randint(1, 80))
    elif k == 1:  # huge
        n = r.choice([1023, 1024, 1025, 4096, 65536, maxlen])
        unit = r.choice([b"runtime=5m,", b"a", b"=", b",", b"deadline=1h,", b"\xff"])
        out = (unit * (n // len(unit) + 1))[:n]
    elif k == 2:  # nested and doubled separators
        out = "".join(r.choice(SEPS + KEYS) for _ in range(r.randint(1, 30))).encode()
    elif k == 3:
        out = r.choice(UNICODE).encode()
    elif k == 4:
        out = ("%s=%s" % (r.choice(KEYS), r.choice(FORMATS))).encode() if r.random() < 0.5 else \
            "".join(r.choice(FORMATS) for _ in range(r.randint(1, 8))).encode()
    elif k == 5:
        out = r.choice(JSONISH).encode()
    elif k == 6:  # odd numbers in every field
        out = ",".join("%s=%s" % (key, one_value(r)) for key in r.sample(KEYS, r.randint(1, 4))).encode("utf-8", "surrogateescape")
    elif k == 7:  # whitespace soup around a valid SLA
        out = "".join(c + "".join(r.choice(WS) for _ in range(r.randint(0, 2))) for c in valid_sla(r)).encode()
    elif k == 8:
        out = mutate(r, valid_sla(r))
    elif k == 9:  # valid (some are admitted)
        out = valid_sla(r).encode()
    elif k == 10:  # duplicate and unknown keys
        s = valid_sla(r)
        out = (s + "," + r.choice([s, "runtime=1m", "foo=1", "Runtime=5m", "budget=", "=5", "runtime"])).encode()
    else:
        out = ("runtime=%s,deadline=%s,budget=%s" % (r.choice(DURATIONS), r.choice(DURATIONS),
                                                      r.choice(NUMBERS))).encode("utf-8")
    out = out.replace(b"\x00", b"")
    return out[:maxlen] if out else b"x"


def main():
    seed, count, kind, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    r = random.Random("%s:%d" % (kind, seed))
    items = []
    for _ in range(count):
        if kind == "comment":
            items.append(comment(r, 100000))
        elif kind == "comment-api":
            items.append(comment(r, 1 << 20) if r.random() < 0.7 else
                         b"runtime=5m," * r.randint(100, 100000))
        elif kind == "spank":
            opt = r.choice(OPTS)
            val = one_value(r).encode("utf-8", "surrogateescape").replace(b"\x00", b"")
            if opt == "deadline-type" and r.random() < 0.5:
                val = r.choice([b"hard", b"soft", b"Hard", b"hard ", b"soft\t", b"h"])
            items.append(opt.encode() + b"\x00" + (val or b"0"))
        elif kind == "spank-raw":
            if r.random() < 0.85:
                name = r.choice(ENV_OPTS)
            else:
                name = r.choice(["unknown", "", "RUNTIME", "runtime ", "run time", "x" * 40,
                                 "runtime=", "budget\tx", "../../etc", "%s%n"])
            val = one_value(r).encode("utf-8", "surrogateescape") if r.random() < 0.8 else \
                comment(r, r.choice([64, 300, 5000, 70000]))
            entry = b"_SLURM_SPANK_OPTION_libra_" + name.encode() + (b"=" if r.random() < 0.95 else b"") + val
            items.append(entry.replace(b"\x00", b""))
        else:
            sys.exit("unknown kind " + kind)
    with open(path, "wb") as f:
        for it in items:
            f.write(it + b"\x00")


if __name__ == "__main__":
    main()
