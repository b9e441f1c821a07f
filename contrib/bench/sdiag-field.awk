# SPDX-License-Identifier: GPL-2.0-or-later
# sdiag-field.awk: one value of sdiag's output (on standard input), for
# run-bench and bench-depth:
#   sdiag | awk -v want=SECTION -v key=KEY -f sdiag-field.awk
# SECTION: "main" (Main schedule statistics) or "bf" (Backfilling stats);
# KEY: the text before the colon, e.g. "Last cycle", "Total cycles".
/^Main schedule statistics/ { sec = "main"; next }
/^Backfilling stats/ { sec = "bf"; next }
/^Latency for|^Remote Procedure/ { sec = "" }
sec == want {
	line = $0; sub(/^[ \t]+/, "", line)
	if (index(line, key ":") == 1) {
		v = substr(line, length(key) + 2); sub(/^[ \t]+/, "", v); sub(/[ \t].*/, "", v)
		print v; exit
	}
}
