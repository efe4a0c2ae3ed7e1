#!/usr/bin/env python3
"""Write alternatives for the eval's queries by one stated rule, not by hand.

Rule: for each content word of a query (letters only, 3 or more, not a stop
word), its base form by WordNet's morphology, and the other lemmas of that
base form's most common sense (the first synset of its index entry) in
each part of speech. Multi-word lemmas are kept as phrases. The
alternative is the query's content words followed by those synonyms that
are not already among them, cut at 500 characters (search.MaxAlternativeChars).
One alternative per query.

Usage (WordNet 3.0 from Debian's `wordnet` package):

    python3 wordnet_alternatives.py /work/shared/datasets/cranfield/cran.qry > cranfield-alternatives.jsonl
    python3 wordnet_alternatives.py obsidian-help-queries.jsonl > help-alternatives.jsonl

Input: Cranfield's cran.qry, or JSON lines with "query"; output: JSON
lines {"query": ..., "alternatives": [...]}, one per query in order.
"""
import json
import re
import sys

DICT = "/usr/share/wordnet"
POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
STOP = set("""a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves what's how's can't don't does doesn't use used using get make
way ways one""".split())
MORPH = {
    "noun": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "verb": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "adj": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "adv": [],
}


def load(pos):
    index = {}
    with open(f"{DICT}/index.{pos}", encoding="latin-1") as f:
        for line in f:
            if line.startswith(" "):
                continue
            p = line.split()
            n_ptr = int(p[3])
            offsets = p[4 + n_ptr + 2:]
            index[p[0]] = offsets
    exc = {}
    with open(f"{DICT}/{pos}.exc", encoding="latin-1") as f:
        for line in f:
            p = line.split()
            exc[p[0]] = p[1]
    return index, exc


def lemmas(pos, offset):
    with open(f"{DICT}/data.{pos}", "rb") as f:
        f.seek(int(offset))
        p = f.readline().decode("latin-1").split()
    n = int(p[3], 16)
    return [re.sub(r"\(.*\)$", "", p[4 + 2 * i]).replace("_", " ").lower() for i in range(n)]


TABLES = {pos: load(pos) for pos in POS}


def base(word, pos):
    index, exc = TABLES[pos]
    if word in exc:
        return exc[word]
    if word in index:
        return word
    for suffix, repl in MORPH[pos]:
        if word.endswith(suffix):
            w = word[: len(word) - len(suffix)] + repl
            if w in index:
                return w
    return None


def alternative(query):
    words = [w for w in re.findall(r"[a-z]+", query.lower()) if len(w) >= 3 and w not in STOP]
    content = list(dict.fromkeys(words))
    extra = []
    for w in content:
        for pos in POS:
            b = base(w, pos)
            if b is None or b not in TABLES[pos][0]:
                continue
            for lemma in lemmas(pos, TABLES[pos][0][b][0]):
                if lemma != b and lemma not in content and lemma not in extra:
                    extra.append(lemma)
    if not extra:
        return []
    return [" ".join(content + extra)[:500].strip()]


def queries(path):
    """The query texts of a JSON-lines query set, or of Cranfield's cran.qry."""
    if path.endswith("cran.qry"):
        text = open(path, encoding="latin-1").read()
        for block in re.split(r"^\.I ", text, flags=re.M)[1:]:
            yield " ".join(block.split(".W", 1)[1].split())
        return
    for line in open(path, encoding="utf-8"):
        if line.strip():
            yield json.loads(line)["query"]


for text in queries(sys.argv[1]):
    print(json.dumps({"query": text, "alternatives": alternative(text)}))
