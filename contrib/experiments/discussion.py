# SPDX-License-Identifier: GPL-2.0-or-later
"""discussion: the report's discussion, generated from the verdicts.

discussion.md holds headings, text and notes.  A note starts with a line

    @ <verdict id>: <holds | partly | does not hold | not comparable>

(the id as libexp.verdict_id() makes it, experiment/slug-of-the-claim, and
the state the note was written for) and runs to the next note or heading.
make-report prints a note under its verdict's own line (state, economy,
experiment, claim, evidence: every number comes from there), only if that
verdict is in the report; a note whose verdict now has another state is
printed flagged as stale.  A heading and its text are printed when one of
its notes is, or when it has no notes at all.  <!-- comments --> are
dropped.  The verdicts that do not hold (or hold partly, or compare a
mechanism or trace other than the paper's: "not comparable") and have no
note are listed at the end, so that a new failure is not left unexplained.
"""

import re
import sys

NOTE = re.compile(r"^@ (\S+): (holds|partly|does not hold|not comparable)"
                  r"\s*$")


def read(path):
    """The blocks of a notes file: [{'head', 'text', 'notes'}], a note
    being {'id', 'state', 'text'}."""
    with open(path) as f:
        src = re.sub(r"<!--.*?-->\n?", "", f.read(), flags=re.S)
    blocks = [{"head": None, "text": [], "notes": []}]
    for line in src.splitlines():
        m = NOTE.match(line)
        if line.startswith("#"):
            blocks.append({"head": line, "text": [], "notes": []})
        elif m:
            blocks[-1]["notes"].append({"id": m.group(1),
                                        "state": m.group(2), "text": []})
        elif blocks[-1]["notes"]:
            blocks[-1]["notes"][-1]["text"].append(line)
        else:
            blocks[-1]["text"].append(line)
    return blocks


def _note(note, title, v):
    """A shown note: its verdict's line, a stale flag, the note indented."""
    s = [f"- **{v['state']}** ({v['economy']}), {title}: {v['claim']} — "
         f"{v['evidence']}\n"]
    if v["state"] != note["state"]:
        s.append(f"\n  *Stale note: written when this verdict was "
                 f"\"{note['state']}\", it is now \"{v['state']}\"; the note "
                 "below may no longer explain it.*\n")
    body = "\n".join(note["text"]).strip("\n")
    if body:
        s.append("\n" + "\n".join(("  " + x) if x.strip() else ""
                                  for x in body.splitlines()) + "\n")
    return "".join(s) + "\n"


def render(blocks, score, warn=sys.stderr):
    """The discussion's markdown from the notes' blocks and the report's
    verdicts, score = [(experiment title, verdict record)]."""
    by_id = {v["id"]: (t, v) for t, v in score}
    out, noted = [], set()
    for b in blocks:
        shown = []
        for n in b["notes"]:
            if n["id"] not in by_id:
                warn.write(f"discussion: note {n['id']}: no such verdict in "
                           "this report, not shown\n")
                continue
            noted.add(n["id"])
            shown.append(_note(n, *by_id[n["id"]]))
        if b["notes"] and not shown:
            continue
        if b["head"]:
            out.append(b["head"] + "\n\n")
        text = "\n".join(b["text"]).strip("\n")
        if text:
            out.append(text + "\n\n")
        out.extend(shown)
    left = [(t, v) for t, v in score
            if v["state"] != "holds" and v["id"] not in noted]
    if left:
        out.append("### Findings not (fully) holding or not comparable "
                   "that have no note\n\n"
                   "No note in `contrib/experiments/discussion.md` explains "
                   "these yet (id, then the verdict):\n\n")
        out.extend(f"- `{v['id']}`: **{v['state']}** ({v['economy']}), "
                   f"{t}: {v['claim']}\n" for t, v in left)
        out.append("\n")
    return "".join(out)
