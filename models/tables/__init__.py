"""A corpus's table, the library beneath ``python -m models.corpus``, ``python -m models.evaluate`` and the Corpus
page: its rows (:mod:`.rows`), its column names (:mod:`.columns`), corpus scores and BLEU by length
(:mod:`.scores`), and its files (:mod:`.files`)."""
