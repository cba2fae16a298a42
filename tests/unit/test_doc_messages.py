#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Every message quoted in docs/containers.md's troubleshooting table is one
the tools print: each row's quoted messages, cut at what varies (names,
paths, numbers, "..."), must have every literal piece in the string
literals of the C sources (adjacent literals joined, as the compiler
does) or in the text of the shell scripts the package installs.  A doc
that quotes a message the code no longer prints (or never did) fails here.

The messages the other pages quote are held likewise: the DIAGNOSTICS of
the man pages (a ".B" line), and every line of an example that a tool
prints ("hcbs-oci-hook: ID: ...").

Usage: test_doc_messages.py SOURCE_ROOT (TAP on stdout)
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../..")
C_DIRS = ["tools/hcbsctl", "tools/lib", "tools/probes", "lxc-hooks", "oci-hooks"]
SCRIPTS = ["systemd/hcbs-root-share.in"]
DOC = "docs/containers.md"

# Pieces shorter than this say too little to be checked alone.
MIN_PIECE = 8

# What a quoted message may vary in, written as the doc writes it: a
# placeholder (DIR, PATH, N, NAME, ID, UID, OTHER, PARENT, RUNTIME/PERIOD),
# "...", a number or duration (0.456, 8208us/18ms, 1000), a path
# (/etc/hcbs/oci-hook.conf, /sys/fs/cgroup), a quoted user value ('x/y'),
# a KEY = VALUE (max-bandwidth = 50%), a dotted name (cpu.rt.max,
# hcbs.period=18ms), a container id or pod uid, a tracepoint
# (sched:NAME), who can write a file.  Messages nest ("%s: %s"): ": " and "; " cut too, so
# each piece is one format's.
VARYING = re.compile(r"""
      \.\.\.|…
    | \b[A-Z][A-Z_]{0,}\b(?:/[A-Z]+)?
    | '[^']*'
    | (?<![\w.-])/[\w./-]*
    | \b\d[\d.]*(?:ns|us|ms|s|%)?(?:/\d[\d.]*(?:ns|us|ms|s))?\b%?
    | \b[a-z][\w-]*\ =\ \S+?(?=[:;,)]|$)
    | \b[\w-]+(?:\.[\w-]+)+(?:=\S+)?
    | \b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b
    | \b[0-9a-f]{12,64}\b
    | \b\w+:\w+\b
    | (?<=writable\ by\ )(?:its\ group|group\ and\ others|others)
    | :\ |;\ 
""", re.VERBOSE)
# Messages of other programs that a row quotes as a symptom.
EXTERNAL = ("chrt: ",)


def c_literals(text):
    """The string literals of C @text, adjacent ones joined; escapes kept."""
    out, cur, i, n = [], None, 0, len(text)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    buf.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(text[j + 1],
                               "\\" + text[j + 1]))
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            s = "".join(buf)
            cur = s if cur is None else cur + s
            i = j + 1
            continue
        if c.isspace():
            i += 1
            continue
        # A macro name between literals (POLICY_ACCEPTED) joins them too:
        # its own literal is in the corpus on its own.
        m = re.match(r"[A-Z_][A-Z0-9_]*", text[i:])
        if m and cur is not None:
            cur += "\x00"
            i += m.end()
            continue
        if cur is not None:
            out.append(cur)
            cur = None
        i += 1
    if cur is not None:
        out.append(cur)
    return out


def corpus():
    lits = []
    for d in C_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        lits += c_literals(fh.read())
    # printf conversions are what varies in the code: cut there too.
    pieces = []
    for s in lits:
        pieces += re.split(r"%[-+ #0]*[\d*]*(?:\.[\d*]+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGsc]|\x00", s)
    for f in SCRIPTS:
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            # Shell: "$var" and ${var} are what varies.
            pieces += re.split(r"\$\{[^}]*\}|\$\w+|\$\(.*?\)", fh.read())
    return "\n".join(pieces)


def table_rows(doc):
    rows, on = [], False
    for line in doc.splitlines():
        if line.startswith("## Troubleshooting"):
            on = True
            continue
        if on and line.startswith("## "):
            break
        if on and line.startswith("| ") and not line.startswith("| Symptom") and not line.startswith("|---"):
            # The first cell: up to the first " | " outside backticks.
            cell, tick = "", False
            for ch_i, ch in enumerate(line[2:]):
                if ch == "`":
                    tick = not tick
                if ch == "|" and not tick and line[2 + ch_i - 1] == " ":
                    break
                cell += ch
            rows.append(cell.strip())
    return rows


# Other pages: the messages their DIAGNOSTICS quote in bold, and the
# lines of their examples that a tool prints ("hcbs-oci-hook: ID: ...").
PAGES = ["docs/hcbs-hook.1", "docs/hcbs-oci-hook.1", "docs/hcbsctl.1", "docs/hcbstrace.1",
         "docs/hcbs-root-share.8", "docs/oci-hook.md", "docs/hcbsctl.md", "docs/install.md",
         "docs/hcbstrace.md"]
PRINTED = re.compile(r"^(?:hcbs-oci-hook|hcbs-hook|hcbsctl|hcbstrace|hcbs-root-share): .*")


def page_messages(path):
    """(line number, message) of each message @path quotes."""
    out, section = [], ""
    with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if line.startswith(".SH "):
                section = line[4:]
            roff = line.replace("\\-", "-").replace("\\(lq", '"').replace("\\(rq", '"')
            m = re.match(r'^\.B "([^"]+)"$', roff)
            if m and section == "DIAGNOSTICS":
                out.append((i, m.group(1)))
            elif PRINTED.match(roff.replace("\\e", "\\")):
                # hcbsctl's "COMMAND TARGET: " names what the user gave.
                out.append((i, re.sub(r"^hcbsctl: \w+ [^: ]+: ", "hcbsctl: ", roff)))
    return out


CONV = re.compile(r"%[-+ #0]*[\d*]*(?:\.[\d*]+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGsc]")
TEMPLATES = []


def templates():
    """The C format strings with a fixed part of MIN_PIECE or more, as regexes."""
    if not TEMPLATES:
        for d in C_DIRS:
            for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
                for f in sorted(files):
                    if not f.endswith((".c", ".h")):
                        continue
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        for lit in c_literals(fh.read()):
                            lit = lit.replace("\x00", "%s").rstrip("\n")
                            parts = CONV.split(lit)
                            # Fixed words beside a program's name ("hcbsctl: %s" fits anything).
                            fixed = re.sub(r"\b(?:hcbs-oci-hook|hcbs-hook|hcbsctl|hcbstrace|hcbs-root-share): ",
                                           "", "".join(parts))
                            if len(parts) < 2 or len(re.sub(r"[^A-Za-z]", "", fixed)) < 6:
                                continue
                            TEMPLATES.append(re.compile(
                                "(?:^|: )" + ".+?".join(re.escape(x) for x in parts) + "$"))
    return TEMPLATES


def check_quote(q, text):
    """The pieces of quoted message @q that no source has."""
    # A whole message (after "PROGRAM: COMMAND: ") that one format string
    # of the sources prints, its conversions filled in.
    if any(t.search(q) for t in templates()):
        return []
    missing = []
    for piece in VARYING.split(q):
        piece = piece.strip(" ;,:()")
        if len(piece) < MIN_PIECE:
            continue
        # A conversion inside a phrase ("other container%s, and"):
        # each of its comma-separated parts then.
        if piece not in text and any(len(p) >= MIN_PIECE and p not in text
                                     for p in piece.split(", ")):
            missing.append(piece)
    return missing


def main():
    with open(os.path.join(ROOT, DOC), encoding="utf-8") as fh:
        doc = fh.read()
    text = corpus()
    rows = table_rows(doc)
    n = failed = 0
    print("TAP version 13")
    n += 1
    ok = len(rows) >= 20
    print(f"{'ok' if ok else 'not ok'} {n} - {DOC}: the troubleshooting table has {len(rows)} rows")
    failed += not ok
    for row in rows:
        quotes = [q.replace("\\|", "|") for q in re.findall(r"`([^`]+)`", row)]
        # Commands and files the row names (hcbs-root-share.service) are no message.
        external = [q for q in quotes if q.startswith(EXTERNAL)]
        quotes = [q for q in quotes if " " in q.strip() and not q.startswith(EXTERNAL)]
        missing = []
        for q in quotes:
            missing += check_quote(q, text)
        n += 1
        short = row[:90].replace("#", "\\#")
        if not quotes and external:
            print(f"ok {n} - {short} # SKIP the message of another program")
        elif quotes and not missing:
            print(f"ok {n} - printed by the tools: {short}")
        else:
            failed += 1
            why = "no quoted message" if not quotes else \
                "not in the sources: " + "; ".join(repr(m) for m in missing)
            print(f"not ok {n} - {short}\n# {why}")
    for page in PAGES:
        for line, q in page_messages(page):
            missing = check_quote(q, text)
            n += 1
            short = q[:90].replace("#", "\\#")
            if missing:
                failed += 1
                print(f"not ok {n} - {page}:{line}: {short}\n# not in the sources: " +
                      "; ".join(repr(m) for m in missing))
            else:
                print(f"ok {n} - {page}:{line}: printed by the tools: {short}")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
