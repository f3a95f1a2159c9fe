#!/usr/bin/env python3
"""Check the SQL examples of README.md and docs/*.md against a server.

    python3 scripts/check_docs.py [FILE.md ...]

The conventions (docs/testing.md, "Checking the documentation's examples"):

* Every ```sql block of a page runs, in the order of the page, in one psql
  session on a fresh database made for that page, as a reader who followed
  the Install section would: `CREATE EXTENSION item_table` (unless the page
  itself creates it) and `SET search_path = item_table, public`.
* An example's output is the comment lines that follow its statement's `;`
  directly (no blank line between): `-- {"Item": ...}`.  They are compared
  with what psql prints for the statement (tuples only, aligned; an error as
  `ERROR:  <message>`), with runs of whitespace made one space and spaces
  next to brackets dropped.  `...` in a shown output stands for any text
  (a timestamp, a generated name, a part left out).  A comment separated
  from the statement by a blank line, or on the statement's own line, is
  prose, not output.
* A statement without shown output must not fail.
* A block preceded by `<!-- not checked: REASON -->` is neither run nor
  compared (it needs a gateway, Citus, roles of the cluster, or is a
  fragment); such blocks are counted and listed with their reasons.

Connects with the usual PG* environment (PGHOST, PGPORT, PGUSER, as
scripts/test.sh sets them); psql is taken from $PGBIN, else from PATH.
Ends with one line "N passed, N failed" (one per example that shows output,
plus one failure per statement without output that failed); the exit
status is 0 only when nothing failed.
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_CHECKED = re.compile(r'^<!--\s*not checked:\s*(.*?)\s*-->\s*$')
FENCE = re.compile(r'^(\s*)```\s*([A-Za-z0-9_+-]*)\s*$')


def psql_bin():
    pgbin = os.environ.get('PGBIN')
    if pgbin and os.path.exists(os.path.join(pgbin, 'psql')):
        return os.path.join(pgbin, 'psql')
    return 'psql'


class Statement:
    def __init__(self, page, line, text):
        self.page = page
        self.line = line          # line number of its first line in the page
        self.text = text
        self.output = None        # list of shown output lines, or None


def sql_blocks(path):
    """Yield (start line, lines, skip reason or None) of each ```sql block."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and not re.match(r'^\s*```\s*$', lines[j]):
            j += 1
        if lang == 'sql':
            reason = None
            k = i - 1
            while k >= 0 and lines[k].strip() == '':
                k -= 1
            if k >= 0:
                n = NOT_CHECKED.match(lines[k].strip())
                if n:
                    reason = n.group(1)
            body = [l[len(indent):] if l.startswith(indent) else l.lstrip()
                    for l in lines[i + 1:j]]
            yield i + 2, body, reason
        i = j + 1


def split_statements(page, start, body):
    """The statements of a block, each with the output shown after it."""
    stmts = []
    cur, cur_line = [], None
    last = None               # the statement whose output may follow
    quote = None              # "'", '"', or a dollar-quote tag
    for n, line in enumerate(body):
        lineno = start + n
        stripped = line.strip()
        if not cur and quote is None:
            if stripped == '':
                last = None
                continue
            if stripped.startswith('--'):
                if last is not None:
                    text = stripped[2:]
                    last.output.append(text[1:] if text.startswith(' ') else text)
                continue
            if stripped.startswith('\\'):
                st = Statement(page, lineno, stripped)
                st.output = []
                stmts.append(st)
                last = st
                continue
        last = None
        i = 0
        seg_start = 0
        while i < len(line):
            c = line[i]
            if quote is not None:
                if quote in ("'", '"'):
                    if c == quote:
                        if i + 1 < len(line) and line[i + 1] == quote:
                            i += 2
                            continue
                        quote = None
                elif line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
                i += 1
                continue
            if c in ("'", '"'):
                quote = c
            elif c == '$':
                m = re.match(r'\$[A-Za-z_]*\$', line[i:])
                if m:
                    quote = m.group(0)
                    i += len(quote)
                    continue
            elif line.startswith('--', i):
                break
            elif c == ';':
                if cur_line is None:
                    cur_line = lineno
                cur.append(line[seg_start:i + 1])
                st = Statement(page, cur_line, '\n'.join(cur).strip())
                st.output = []
                stmts.append(st)
                last = st
                cur, cur_line = [], None
                seg_start = i + 1
            i += 1
        rest = line[seg_start:]
        if rest.strip() and not rest.strip().startswith('--'):
            if cur_line is None:
                cur_line = lineno
            cur.append(rest)
        elif cur and rest.strip().startswith('--'):
            cur.append(rest)
    if ''.join(cur).strip():
        st = Statement(page, cur_line, '\n'.join(cur).strip())
        st.output = []
        stmts.append(st)
    return stmts


def normalise(text):
    text = re.sub(r'\s+', ' ', text).strip()
    text = re.sub(r'([\[{(]) ', r'\1', text)
    text = re.sub(r' ([\]})])', r'\1', text)
    return text


def matches(shown, actual):
    shown, actual = normalise(shown), normalise(actual)
    if '...' not in shown:
        return shown == actual
    parts = [re.escape(normalise(p)) for p in shown.split('...')]
    return re.fullmatch(r'\s*(.*?)\s*'.join(parts), actual, re.S) is not None


def run_page(psql, page, stmts, dbname):
    admin = [psql, '-X', '-q', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1']
    r = subprocess.run(admin + ['-c', 'DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % dbname,
                                '-c', 'CREATE DATABASE "%s"' % dbname],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, 'could not create database %s: %s' % (dbname, r.stderr.strip())
    script = ['\\set VERBOSITY terse', '\\pset pager off']
    if not any(re.match(r'(?is)^\s*create\s+extension\s+item_table\b', s.text) for s in stmts):
        script.append('CREATE EXTENSION item_table;')
    script.append('SET search_path = item_table, public;')
    for n, s in enumerate(stmts):
        script.append('\\echo @@S %d' % n)
        script.append(s.text)
        script.append('\\if :ERROR')
        script.append('\\echo @@E :LAST_ERROR_MESSAGE')
        script.append('\\endif')
    script.append('\\echo @@S end')
    env = dict(os.environ, PGOPTIONS=(os.environ.get('PGOPTIONS', '') +
                                      ' -c client_min_messages=warning').strip())
    r = subprocess.run([psql, '-X', '-q', '-t', '-d', dbname, '-f', '-'],
                       input='\n'.join(script) + '\n', capture_output=True,
                       text=True, env=env, cwd=ROOT)
    outputs = {}
    cur = None
    for line in r.stdout.split('\n'):
        m = re.match(r'^@@S (\d+|end)$', line)
        if m:
            cur = None if m.group(1) == 'end' else int(m.group(1))
            if cur is not None:
                outputs[cur] = ([], None)
            continue
        if cur is None:
            continue
        if line.startswith('@@E '):
            outputs[cur] = (outputs[cur][0] + ['ERROR:  ' + line[4:]], line[4:])
        else:
            outputs[cur][0].append(line)
    return outputs, r.stderr


def main(argv):
    files = argv[1:] or (['README.md'] + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md'))))
    psql = psql_bin()
    passed = failed = 0
    skipped = []
    for path in files:
        full = path if os.path.isabs(path) else os.path.join(ROOT, path)
        page = os.path.relpath(full, ROOT)
        stmts = []
        for start, body, reason in sql_blocks(full):
            if reason is not None:
                skipped.append('%s:%d: %s' % (page, start - 1, reason))
                continue
            stmts.extend(split_statements(page, start, body))
        if not stmts:
            continue
        dbname = 'check_docs_' + re.sub(r'[^a-z0-9]+', '_', page.lower())
        outputs, err = run_page(psql, page, stmts, dbname)
        if outputs is None:
            print('%s: FAILED: %s' % (page, err))
            failed += 1
            continue
        p = f = 0
        for n, s in enumerate(stmts):
            lines, error = outputs.get(n, (None, None))
            where = '%s:%d' % (page, s.line)
            first = s.text.split('\n')[0][:60]
            if lines is None:
                print('  FAILED %s: did not run (%s)' % (where, first))
                f += 1
                continue
            actual = '\n'.join(lines)
            if s.output:
                if matches('\n'.join(s.output), actual):
                    p += 1
                else:
                    f += 1
                    print('  FAILED %s: %s' % (where, first))
                    print('    shown:  ' + normalise('\n'.join(s.output)))
                    print('    actual: ' + normalise(actual))
            elif error is not None:
                f += 1
                print('  FAILED %s: %s\n    ERROR:  %s' % (where, first, error))
        print('%s: %d statement(s), %d example(s) passed, %d failed' % (page, len(stmts), p, f))
        if f == 0:
            subprocess.run([psql, '-X', '-q', '-d', 'postgres', '-c',
                            'DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % dbname],
                           capture_output=True)
        passed += p
        failed += f
    print('not checked: %d block(s)' % len(skipped))
    for s in skipped:
        print('  ' + s)
    print('%d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
